import { describe, expect, test } from "bun:test";
import { base32Decode, hotp, totpStep } from "../../../src/auth/totp.ts";
import { newId, sha256Hex } from "../../../src/ids.ts";
import { createTestApp, type TestApp } from "../../helpers.ts";

const PASSWORD = "correct horse battery";
/** Argon2id at a low cost (as test/modules/auth/sessions.test.ts): this file signs in many times. */
const lowCostHash = (password: string) => Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });

type Session = { cookie: string; csrf: string };

async function ownerEmail(t: TestApp): Promise<{ id: string; email: string }> {
  const owner = (await t.sql.get<{ id: string; email: string }>(
    "SELECT u.id, u.email FROM users u JOIN team_members tm ON tm.user_id = u.id WHERE tm.team_id = ? AND tm.role = 'owner'",
    [t.team.teamId],
  ))!;
  const hash = await lowCostHash(PASSWORD);
  await t.deps.store.write((tx) => tx.accounts.setPassword(owner.id, hash, Date.now()));
  return owner;
}

/** A second, active member of the team with a password. */
async function member(t: TestApp, email: string): Promise<string> {
  const id = newId();
  const hash = await lowCostHash(PASSWORD);
  await t.deps.store.write(async (tx) => {
    await tx.accounts.insertUser({ id, name: "Member", email, password_hash: hash, created_at: Date.now() });
    await tx.accounts.addMember({ id: newId(), team_id: t.team.teamId, user_id: id, role: "member", created_at: Date.now() });
  });
  return id;
}

const signIn = (t: TestApp, email: string, code?: string) =>
  t.request("POST", "/v1/auth/sign-in", { token: null, body: code === undefined ? { email, password: PASSWORD } : { email, password: PASSWORD, code } });

function sessionOf(res: { headers: Headers; json: any }): Session {
  return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, csrf: res.json.data.csrf_token };
}

const as = (t: TestApp, s: Session, method: string, path: string, body?: unknown) =>
  t.request(method, path, { token: null, body, headers: { cookie: s.cookie, "x-csrf-token": s.csrf } });

const codeAt = (secret: string, step: number) => hotp(base32Decode(secret), step);
const count = async (t: TestApp, sql: string, params: string[] = []) => Number((await t.sql.get<{ n: number }>(sql, params))!.n);

async function enrol(t: TestApp, s: Session): Promise<{ secret: string; step: number; recovery: string[] }> {
  const started = await as(t, s, "POST", "/v1/auth/two-factor/enrol");
  expect(started.status).toBe(201);
  const secret: string = started.json.data.secret;
  const step = totpStep(Date.now());
  const confirmed = await as(t, s, "POST", "/v1/auth/two-factor/confirm", { code: codeAt(secret, step) });
  expect(confirmed.status).toBe(200);
  return { secret, step, recovery: confirmed.json.data.recovery_codes };
}

describe("two-factor sign-in (TOTP)", () => {
  const t = createTestApp();

  test("enrol → confirm → sign in with a code → the same code replayed is refused → a recovery code works once", async () => {
    const owner = await ownerEmail(t);
    const first = sessionOf(await signIn(t, owner.email));
    const other = sessionOf(await signIn(t, owner.email));

    const started = await as(t, first, "POST", "/v1/auth/two-factor/enrol");
    expect(started.status).toBe(201);
    expect(started.json.data.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.json.data.otpauth_uri).toStartWith(`otpauth://totp/Posthorn%20(`);
    expect(started.json.data.otpauth_uri).toContain(`secret=${started.json.data.secret}`);
    // Not in effect until confirmed: sign-in still needs only the password.
    expect((await signIn(t, owner.email)).status).toBe(201);
    const secret: string = started.json.data.secret;
    const step = totpStep(Date.now());

    const wrong = await as(t, first, "POST", "/v1/auth/two-factor/confirm", { code: codeAt(secret, step + 3) });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors).toEqual({ code: ["The code is incorrect, expired or was used already."] });
    expect((await t.sql.get<{ s: string | null }>("SELECT totp_secret AS s FROM users WHERE id = ?", [owner.id]))!.s).toBeNull();

    const confirmed = await as(t, first, "POST", "/v1/auth/two-factor/confirm", { code: codeAt(secret, step) });
    expect(confirmed.status).toBe(200);
    const recovery: string[] = confirmed.json.data.recovery_codes;
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);
    // Hashed at rest: the stored rows are SHA-256 of the codes, never the codes.
    const stored = (await t.sql.all<{ code_hash: string }>("SELECT code_hash FROM user_recovery_codes WHERE user_id = ?", [owner.id])).map((r) => r.code_hash).sort();
    expect(stored).toEqual(recovery.map((c) => sha256Hex(c.replace("-", ""))).sort());
    // The session that confirmed stays; the other one ended.
    expect((await as(t, first, "GET", "/v1/auth/session")).json.data.two_factor).toEqual({ enabled: true, required: false, must_enrol: false, recovery_codes_left: 10 });
    expect((await as(t, other, "GET", "/v1/auth/session")).status).toBe(401);
    // A second enrolment is a conflict.
    expect((await as(t, first, "POST", "/v1/auth/two-factor/enrol")).json.error).toBe("two_factor_enabled");

    // The password alone opens nothing now.
    const sessionsBefore = await count(t, "SELECT count(*) AS n FROM sessions");
    const noCode = await signIn(t, owner.email);
    expect(noCode.status).toBe(401);
    expect(noCode.json.error).toBe("two_factor_required");
    expect(noCode.headers.get("set-cookie")).toBeNull();
    // The code that confirmed enrolment is used: replaying it is refused.
    expect((await signIn(t, owner.email, codeAt(secret, step))).json.error).toBe("two_factor_invalid");

    const next = codeAt(secret, step + 1);
    const withCode = await signIn(t, owner.email, next);
    expect(withCode.status).toBe(201);
    expect(withCode.json.data.two_factor.must_enrol).toBe(false);
    const replayed = await signIn(t, owner.email, next);
    expect(replayed.status).toBe(401);
    expect(replayed.json).toEqual({ message: "The code is incorrect, expired or was used already.", error: "two_factor_invalid" });
    expect(replayed.headers.get("set-cookie")).toBeNull();
    expect(await count(t, "SELECT count(*) AS n FROM sessions")).toBe(sessionsBefore + 1);

    const recovered = await signIn(t, owner.email, recovery[0]!.toUpperCase());
    expect(recovered.status).toBe(201);
    expect(recovered.json.data.two_factor.recovery_codes_left).toBe(9);
    expect((await signIn(t, owner.email, recovery[0]!)).json.error).toBe("two_factor_invalid");
    expect(await count(t, "SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = ?", [owner.id])).toBe(9);

    // New recovery codes replace the old ones; turning it off needs a code and clears everything.
    const s = sessionOf(recovered);
    const renewed = await as(t, s, "POST", "/v1/auth/two-factor/recovery-codes", { code: recovery[1]! });
    expect(renewed.status).toBe(200);
    expect((await signIn(t, owner.email, recovery[2]!)).json.error).toBe("two_factor_invalid");
    expect((await as(t, s, "POST", "/v1/auth/two-factor/disable", { code: "000000" })).status).toBe(422);
    expect((await as(t, s, "POST", "/v1/auth/two-factor/disable", { code: renewed.json.data.recovery_codes[0] })).status).toBe(200);
    expect(await count(t, "SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = ?", [owner.id])).toBe(0);
    expect((await signIn(t, owner.email)).status).toBe(201);
    expect((await signIn(t, owner.email, "123456")).status).toBe(422);
  });

  test("the TOTP secret is stored encrypted (the users table alone mints no code); a plaintext row from before still works and is encrypted on its first use", async () => {
    const email = "sealed-totp@example.com";
    const id = await member(t, email);
    const stored = async () => (await t.sql.get<{ s: string | null; p: string | null }>("SELECT totp_secret AS s, totp_pending_secret AS p FROM users WHERE id = ?", [id]))!;
    const s = sessionOf(await signIn(t, email));
    const started = await as(t, s, "POST", "/v1/auth/two-factor/enrol");
    const secret: string = started.json.data.secret;
    // Pending, and then confirmed: neither column holds the base32 secret (nor its bytes in hex).
    const hex = Buffer.from(base32Decode(secret)).toString("hex");
    const pending = (await stored()).p!;
    expect(pending).not.toContain(secret);
    expect(pending.toLowerCase()).not.toContain(hex);
    const step = totpStep(Date.now());
    const confirmed = await as(t, s, "POST", "/v1/auth/two-factor/confirm", { code: codeAt(secret, step) });
    expect(confirmed.status).toBe(200);
    const recovery: string[] = confirmed.json.data.recovery_codes;
    const sealed = (await stored()).s!;
    expect(sealed).not.toContain(secret);
    expect(sealed.toLowerCase()).not.toContain(hex);
    expect(sealed).toStartWith("enc1:");
    // Sign-in with a code of the secret still works.
    expect((await signIn(t, email, codeAt(secret, step + 1))).status).toBe(201);

    // A row as stored before encryption: the plain secret. It still signs in, and is then encrypted.
    await t.sql.run("UPDATE users SET totp_secret = ?, totp_last_step = NULL WHERE id = ?", [secret, id]);
    const legacy = await signIn(t, email, codeAt(secret, step));
    expect(legacy.status).toBe(201);
    const resealed = (await stored()).s!;
    expect(resealed).toStartWith("enc1:");
    expect(resealed).not.toContain(secret);
    // And keeps working encrypted: the next code signs in; a recovery code turns it off.
    const again = await signIn(t, email, codeAt(secret, step + 1));
    expect(again.status).toBe(201);
    expect((await as(t, sessionOf(again), "POST", "/v1/auth/two-factor/disable", { code: recovery[0] })).status).toBe(200);
    expect((await stored()).s).toBeNull();
  });

  test("wrong codes are throttled like passwords: the sixth attempt in the window is a 429, even with the right code", async () => {
    const app = createTestApp();
    const owner = await ownerEmail(app);
    const s = sessionOf(await signIn(app, owner.email));
    const secret: string = (await as(app, s, "POST", "/v1/auth/two-factor/enrol")).json.data.secret;
    const step = totpStep(Date.now());
    for (let i = 0; i < 5; i++) expect((await as(app, s, "POST", "/v1/auth/two-factor/confirm", { code: codeAt(secret, step + 5 + i) })).status).toBe(422);
    const blocked = await as(app, s, "POST", "/v1/auth/two-factor/confirm", { code: codeAt(secret, step) });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await app.sql.get<{ s: string | null }>("SELECT totp_secret AS s FROM users WHERE id = ?", [owner.id]))!.s).toBeNull();
  });

  test("an owner requires it: a member without it can only enrol (403 two_factor_enrolment_required elsewhere), then works", async () => {
    const app = createTestApp();
    const owner = await ownerEmail(app);
    const ownerSession = sessionOf(await signIn(app, owner.email));
    // The owner's own must be on first.
    const early = await as(app, ownerSession, "PUT", "/v1/auth/two-factor/requirement", { required: true });
    expect(early.status).toBe(409);
    expect(early.json.error).toBe("two_factor_not_enabled");
    await enrol(app, ownerSession);
    const memberEmail = "member@example.com";
    await member(app, memberEmail);
    const memberBefore = sessionOf(await signIn(app, memberEmail));
    // A member may not change it.
    expect((await as(app, memberBefore, "PUT", "/v1/auth/two-factor/requirement", { required: true })).status).toBe(403);
    expect((await as(app, ownerSession, "PUT", "/v1/auth/two-factor/requirement", { required: "yes" })).status).toBe(422);
    expect((await as(app, ownerSession, "PUT", "/v1/auth/two-factor/requirement", { required: true })).status).toBe(200);

    // A session from before is held to it at once, as a new one is.
    for (const s of [memberBefore, sessionOf(await signIn(app, memberEmail))]) {
      const refused = await as(app, s, "GET", "/v1/domains");
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe("two_factor_enrolment_required");
      expect((await as(app, s, "GET", "/v1/auth/session")).json.data.two_factor).toMatchObject({ enabled: false, required: true, must_enrol: true });
    }
    // The owner signed in with a code works as before; the team token is not a session and is not held to it.
    expect((await as(app, ownerSession, "GET", "/v1/domains")).status).toBe(200);
    expect((await app.request("GET", "/v1/domains")).status).toBe(200);

    const s = sessionOf(await signIn(app, memberEmail));
    await enrol(app, s);
    expect((await as(app, s, "GET", "/v1/domains")).status).toBe(200);
    expect((await as(app, s, "GET", "/v1/auth/session")).json.data.two_factor).toMatchObject({ enabled: true, required: true, must_enrol: false });
    // It cannot be turned off while required.
    expect((await as(app, s, "POST", "/v1/auth/two-factor/disable", { code: "000000" })).json.error).toBe("two_factor_required_by_team");
  });

  test("accepting an invitation with a password needs the code too when two-factor sign-in is on", async () => {
    const app = createTestApp();
    const owner = await ownerEmail(app);
    const { secret, step } = await enrol(app, sessionOf(await signIn(app, owner.email)));
    const b = app.addTeam("Team B");
    const invited = await app.request("POST", "/v1/team/members", { token: b.teamToken, body: { email: owner.email } });
    expect(invited.status).toBe(201);
    const token = (invited.json.invitation_url as string).split("/").pop()!;
    const accept = (body: Record<string, string>) => app.request("POST", "/v1/auth/invitations/accept", { token: null, body: { token, password: PASSWORD, ...body } });
    const pending = () => app.sql.get<{ status: string }>("SELECT status FROM team_members WHERE team_id = ? AND user_id = ?", [b.teamId, owner.id]);

    const noCode = await accept({});
    expect(noCode.status).toBe(401);
    expect(noCode.json.error).toBe("two_factor_required");
    const replayed = await accept({ code: codeAt(secret, step) }); // the code that confirmed enrolment
    expect(replayed.json.error).toBe("two_factor_invalid");
    expect((await pending())!.status).toBe("pending");
    const accepted = await accept({ code: codeAt(secret, step + 1) });
    expect(accepted.status).toBe(200);
    expect(accepted.json.data.team.id).toBe(b.teamId);
    expect((await pending())!.status).toBe("active");
  });
});
