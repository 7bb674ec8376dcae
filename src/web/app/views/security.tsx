/**
 * The signed-in user's sign-in security (#/security): two-factor sign-in (TOTP) set up, recovery
 * codes, turning it off, and for a member with security:manage the team's requirement. A session that must enrol (the
 * team requires two-factor sign-in) sees only this page.
 */
import { useState } from "preact/hooks";
import { useAllowed } from "../allowed.ts";
import { api, type Session } from "../api.ts";
import { CopyButton, ErrorBox, Field, Notice, Section, messageOf } from "../ui.tsx";

/** What GET /v1/auth/session says of two-factor sign-in. */
export type TwoFactorStatus = { enabled: boolean; required: boolean; must_enrol: boolean; recovery_codes_left: number };
export const twoFactorOf = (session: Session): TwoFactorStatus =>
  (session as Session & { two_factor?: TwoFactorStatus }).two_factor ?? { enabled: false, required: false, must_enrol: false, recovery_codes_left: 0 };

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div class="once" role="status">
      <strong>Recovery codes</strong> — shown once, store them now. Each signs you in once instead of a code of your app.
      <ul class="recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div class="row">
        <CopyButton text={codes.join("\n")} label="Copy all" />
        <button type="button" class="primary" onClick={onDone}>
          I have stored them
        </button>
      </div>
    </div>
  );
}

export function Security({ session, onChanged }: { session: Session; onChanged: () => Promise<void> }) {
  const status = twoFactorOf(session);
  // The team's requirement only with the permission its operation declares (src/web/app/allowed.ts); a cast until api-types.ts has the endpoint.
  const allowed = useAllowed();
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await fn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
      setCode("");
    }
  };
  const start = () =>
    run(async () => {
      const res = await api.post<{ data: { secret: string; otpauth_uri: string } }>("/v1/auth/two-factor/enrol");
      setEnrolment(res.data);
    });
  const confirm = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const res = await api.post<{ data: { recovery_codes: string[] } }>("/v1/auth/two-factor/confirm", { code });
      setEnrolment(null);
      setCodes(res.data.recovery_codes);
    });
  };
  const withCode = (path: string, done: string) => (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const res = await api.post<{ data?: { recovery_codes: string[] } }>(path, { code });
      if (res.data?.recovery_codes) setCodes(res.data.recovery_codes);
      else await onChanged();
      setNotice(done);
    });
  };
  const requirement = (required: boolean) =>
    run(async () => {
      await api.put("/v1/auth/two-factor/requirement", { required });
      await onChanged();
      setNotice(required ? "Every member must now sign in with two factors." : "Two-factor sign-in is no longer required.");
    });

  return (
    <Section title="Two-factor sign-in">
      {status.must_enrol ? (
        <p class="notice" role="status">
          Your team requires two-factor sign-in. Set it up to continue.
        </p>
      ) : null}
      <Notice notice={notice} />
      <ErrorBox error={error} />
      {codes ? (
        <RecoveryCodes
          codes={codes}
          onDone={() => {
            setCodes(null);
            void onChanged();
          }}
        />
      ) : status.enabled ? (
        <>
          <p>
            Two-factor sign-in is <strong>on</strong>: after your password you enter a code of your authenticator app.{" "}
            <span class="muted">{status.recovery_codes_left} recovery codes left.</span>
          </p>
          <form aria-label="Manage two-factor sign-in" onSubmit={withCode("/v1/auth/two-factor/recovery-codes", "New recovery codes made: the old ones no longer work.")}>
            <Field label="Code" hint="A code of your app, or a recovery code." name="code" autoComplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
            <div class="row">
              <button type="submit" disabled={busy}>
                New recovery codes
              </button>
              {status.required ? null : (
                <button type="button" class="danger" disabled={busy || code === ""} onClick={withCode("/v1/auth/two-factor/disable", "Two-factor sign-in is off.")}>
                  Turn off
                </button>
              )}
            </div>
          </form>
        </>
      ) : enrolment ? (
        <form aria-label="Confirm two-factor sign-in" onSubmit={confirm}>
          <p>Add this key to your authenticator app (or open the link on the device that has it), then enter the code it shows.</p>
          <div class="once">
            <strong>Key</strong> — shown once:
            <div class="row">
              <code class="secret" data-secret>
                {enrolment.secret}
              </code>
              <CopyButton text={enrolment.secret} />
            </div>
            <div class="row">
              <a href={enrolment.otpauth_uri}>Open in an authenticator app</a>
              <CopyButton text={enrolment.otpauth_uri} label="Copy link" />
            </div>
          </div>
          <Field label="Code from the app" name="code" autoComplete="one-time-code" inputMode="numeric" required value={code} onInput={(e) => setCode(e.currentTarget.value)} autoFocus />
          <button type="submit" class="primary" disabled={busy}>
            Confirm
          </button>
        </form>
      ) : (
        <>
          <p>Two-factor sign-in is off. With it on, signing in needs a code of an authenticator app (TOTP) after the password.</p>
          <button type="button" class="primary" disabled={busy} onClick={start}>
            Set up two-factor sign-in
          </button>
        </>
      )}
      {allowed("PUT /v1/auth/two-factor/requirement") && !status.must_enrol ? (
        <p class="row">
          <span>
            Team requirement: <strong>{status.required ? "every member must use two-factor sign-in" : "not required"}</strong>
          </span>
          <button type="button" disabled={busy} onClick={() => requirement(!status.required)}>
            {status.required ? "Stop requiring it" : "Require it for the team"}
          </button>
        </p>
      ) : null}
    </Section>
  );
}
