import { useEffect, useState } from "preact/hooks";
import { api, ApiError, type ApiBody, type Session, type ApiRequest } from "../api.ts";
import { ErrorBox, Field, go, messageOf } from "../ui.tsx";

/**
 * Email and password; when the account has two-factor sign-in on, the API answers
 * two_factor_required and the form asks for the authenticator's code (or a recovery code) too.
 */
export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needCode, setNeedCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState(false);
  useEffect(() => {
    // `failure`: why the single sign-on this browser just came back from was refused (shown once).
    api.get<ApiBody<"/v1/auth/sso">>("/v1/auth/sso").then(
      (r) => {
        setSso(r.data.enabled);
        if (r.data.failure) setError(r.data.failure);
      },
      () => setSso(false),
    );
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = needCode ? { email, password, code } : ({ email, password } satisfies ApiRequest<"/v1/auth/sign-in">);
      const res = await api.post<ApiBody<"/v1/auth/sign-in", "post">>("/v1/auth/sign-in", body, { quiet401: true });
      onSignedIn(res.data);
    } catch (err) {
      if (err instanceof ApiError && err.code === "two_factor_required") {
        setNeedCode(true);
      } else {
        setError(messageOf(err));
        if (needCode) setCode("");
        else setPassword("");
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Posthorn</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Email" type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} autoFocus readOnly={needCode} />
        <Field label="Password" type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} readOnly={needCode} />
        {needCode ? (
          <Field
            label="Authentication code"
            hint="The 6-digit code of your authenticator app, or one of your recovery codes."
            name="code"
            autoComplete="one-time-code"
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
            autoFocus
          />
        ) : null}
        <ErrorBox error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : needCode ? "Verify" : "Sign in"}
        </button>
      </form>
      {sso && !needCode ? (
        <p class="sso">
          {/* A full navigation: the identity provider's pages, then back to /v1/auth/sso/callback. */}
          <a class="button" href="/v1/auth/sso/start">
            Sign in with SSO
          </a>
        </p>
      ) : null}
    </main>
  );
}

/** The page an invitation's password link opens (#/set-password/TOKEN): setting the password accepts the invitation. */
export function SetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api.post("/v1/auth/password", { token, password }, { quiet401: true });
      setDone(true);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <main class="signin">
      <h1>Set your password</h1>
      {done ? (
        <p>
          Password set: you have joined the team. <a href="#/" onClick={() => go("/")}>Sign in</a>.
        </p>
      ) : (
        <form onSubmit={submit} aria-label="Set your password">
          <Field label="New password" hint="At least 10 characters." type="password" autoComplete="new-password" required minLength={10} value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          <ErrorBox error={error} />
          <button type="submit" class="primary">
            Set password
          </button>
          <p class="muted">
            Have a password on this server already? <a href={`#/accept-invitation/${token}`}>Accept the invitation with it</a>.
          </p>
        </form>
      )}
    </main>
  );
}

/**
 * The page an invitation's link opens (#/accept-invitation/TOKEN), for a user who has an account
 * already: they accept as themselves, with their session (signed in as the invited address) or,
 * without one, with their own password. The token alone accepts nothing.
 */
export function AcceptInvitation({ token, session, onAccepted, onSignOut }: { token: string; session: Session | null; onAccepted: (s: Session) => void; onSignOut: () => void }) {
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needCode, setNeedCode] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = session ? { token } : needCode ? { token, password, code } : ({ token, password } satisfies ApiRequest<"/v1/auth/invitations/accept">);
      const res = await api.post<ApiBody<"/v1/auth/invitations/accept", "post">>("/v1/auth/invitations/accept", body, { quiet401: true });
      onAccepted(res.data);
      go("/");
    } catch (err) {
      if (err instanceof ApiError && err.code === "two_factor_required") {
        setNeedCode(true);
      } else {
        setError(messageOf(err));
        if (needCode) setCode("");
        else setPassword("");
      }
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Join a team</h1>
      <form onSubmit={submit} aria-label="Accept the invitation">
        {session ? (
          <p>
            You are signed in as <strong>{session.user.email}</strong>. Accept the invitation if it was sent to this address.{" "}
            <button type="button" class="small" onClick={onSignOut}>
              Not you? Sign out
            </button>
          </p>
        ) : (
          <>
            <p>Enter the password of the account the invitation was sent to.</p>
            <Field label="Your password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} autoFocus readOnly={needCode} />
            {needCode ? (
              <Field label="Authentication code" hint="The 6-digit code of your authenticator app, or one of your recovery codes." autoComplete="one-time-code" required value={code} onInput={(e) => setCode(e.currentTarget.value)} autoFocus />
            ) : null}
          </>
        )}
        <ErrorBox error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Accepting…" : "Accept the invitation"}
        </button>
      </form>
    </main>
  );
}
