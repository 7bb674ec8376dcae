import { describe, expect, test } from "bun:test";
import { SESSION_IDLE_MS, SESSION_MAX_MS, SIGN_IN_FAILURES_PER_EMAIL } from "../../../src/auth/sessions.ts";
import { loadConfig } from "../../../src/config.ts";
import { createApp } from "../../../src/app.ts";
import { createTestApp, type TestApp, type TestTeam } from "../../helpers.ts";

/** The default POSTHORN_AUTH_FAILURE_LIMIT (the test app turns the limit off unless a test sets it). */
const AUTH_FAILURES_PER_IP = loadConfig({}).authFailureLimit;

const PASSWORD = "correct horse battery";

/** The owner of `team` (as bootstrap or addTeam made them), given a dashboard password; their address. */
async function ownerWithPassword(t: TestApp, team: TestTeam, password = PASSWORD): Promise<string> {
  const owner = (await t.sql.get<{ id: string; email: string }>(
    "SELECT u.id, u.email FROM users u JOIN team_members tm ON tm.user_id = u.id WHERE tm.team_id = ? AND tm.role = 'owner'",
    [team.teamId],
  ))!;
  // Argon2id at a low cost: the PHC string carries its parameters, so sign-in verifies it as it
  // does the default's (64 MiB, 2 passes: ~0.4 s a verification on a shared 2-core machine, and
  // this file signs in dozens of times). test/modules/auth/sign-in-throttle.test.ts keeps the default.
  const hash = await Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
  await t.deps.store.write((tx) => tx.accounts.setPassword(owner.id, hash, Date.now()));
  return owner.email;
}

type Session = { cookie: string; csrf: string; setCookie: string };

async function signIn(t: TestApp, email: string, password = PASSWORD, headers: Record<string, string> = {}) {
  const res = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password }, headers });
  const setCookie = res.headers.get("set-cookie") ?? "";
  const session: Session = { cookie: setCookie.split(";")[0]!, csrf: res.json?.data?.csrf_token, setCookie };
  return { res, session };
}

async function signedIn(t: TestApp, email: string, password = PASSWORD): Promise<Session> {
  const { res, session } = await signIn(t, email, password);
  expect(res.status).toBe(201);
  return session;
}

/** A request with the session's cookie (and its CSRF token unless `csrf: null`), no token. */
function asSession(t: TestApp, s: Session, method: string, path: string, opts: { body?: unknown; csrf?: string | null } = {}) {
  const headers: Record<string, string> = { cookie: s.cookie };
  const csrf = opts.csrf === undefined ? s.csrf : opts.csrf;
  if (csrf !== null) headers["x-csrf-token"] = csrf;
  return t.request(method, path, { token: null, body: opts.body, headers });
}

describe("sign-in", () => {
  const t = createTestApp();

  test("a wrong password or an unknown address is refused alike; the right one opens a session in an HttpOnly, SameSite=Strict cookie", async () => {
    const email = await ownerWithPassword(t, t.team);
    for (const [address, password] of [[email, "wrong password!"], ["nobody@example.com", PASSWORD], [email, ""]] as const) {
      const { res } = await signIn(t, address, password);
      expect(res.status).toBe(password === "" ? 422 : 401);
      if (res.status === 401) expect(res.json).toEqual({ message: "The email address or password is incorrect.", error: "unauthenticated" });
      expect(res.headers.get("set-cookie")).toBeNull();
    }

    const { res, session } = await signIn(t, email.toUpperCase());
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(session.setCookie).toMatch(/^posthorn_session=ph_sess_[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=2592000$/);
    expect(res.json.data).toMatchObject({ user: { email }, team: { id: t.team.teamId, name: "Team A", role: "owner" }, teams: [{ id: t.team.teamId, role: "owner" }] });
    expect(res.json.data.csrf_token).toMatch(/^[\w-]{32}$/);
    expect(Date.parse(res.json.data.expires_at) - Date.now()).toBeGreaterThan(SESSION_IDLE_MS - 60_000);
    // Only a digest of the cookie's token is stored.
    const stored = await t.sql.all<{ token_hash: string }>("SELECT token_hash FROM sessions");
    expect(stored.map((r) => r.token_hash)).toEqual([new Bun.CryptoHasher("sha256").update(session.cookie.split("=")[1]!).digest("hex")]);
  });

  test("a sign-in that works commits with its answer: none of its writes is left waiting past the writer's hold limit", async () => {
    const app = createTestApp();
    const email = await ownerWithPassword(app, app.team);
    const warnings: string[] = [];
    const warn = app.deps.log.warn.bind(app.deps.log);
    app.deps.log.warn = (msg: string, fields?: Record<string, unknown>) => (warnings.push(msg), warn(msg, fields));
    for (let i = 0; i < 3; i++) await signedIn(app, email);
    // The throttle's give-back was a write of its own, detached from the request's: on SQLite it
    // waited for the request's unit of work, which the writer held until its 1 s limit (and then
    // warned), once per sign-in.
    expect(warnings).toEqual([]);
  });

  test("the cookie is Secure when the public URL is https", async () => {
    const https = createTestApp({ env: { POSTHORN_PUBLIC_URL: "https://mail.posthorn.test" } });
    const { session } = await signIn(https, await ownerWithPassword(https, https.team));
    expect(session.setCookie).toContain("; Secure");
  });

  test("GET /v1/auth/session answers who is signed in and the CSRF token; not with a team token", async () => {
    const s = await signedIn(t, await ownerWithPassword(t, t.team));
    const res = await asSession(t, s, "GET", "/v1/auth/session", { csrf: null });
    expect(res.status).toBe(200);
    expect(res.json.data.csrf_token).toBe(s.csrf);
    expect(res.json.data.team.id).toBe(t.team.teamId);
    expect((await t.request("GET", "/v1/auth/session")).status).toBe(401);
    expect((await t.request("GET", "/v1/auth/session", { token: null, headers: { cookie: "posthorn_session=ph_sess_forged" } })).status).toBe(401);
  });
});

describe("a session is accepted like the team token", () => {
  const t = createTestApp();

  test("reads need no CSRF token; every change does (403, nothing changed), and goes through with it", async () => {
    const s = await signedIn(t, await ownerWithPassword(t, t.team));
    const team = await asSession(t, s, "GET", "/v1/team", { csrf: null });
    expect(team.status).toBe(200);
    expect(team.json.id).toBe(t.team.teamId);
    expect((await asSession(t, s, "GET", "/v1/ping", { csrf: null })).json).toMatchObject({ team_id: t.team.teamId });

    const body = { email: "blocked@example.com", scope: "team", reason: "manual" };
    for (const csrf of [null, "", "x".repeat(32), s.csrf.slice(0, -1)]) {
      const res = await asSession(t, s, "POST", "/v1/suppressions", { body, csrf });
      expect(res.status).toBe(403);
      expect(res.json).toEqual({ message: "This request needs the session's CSRF token in the X-CSRF-Token header.", error: "forbidden" });
    }
    expect((await asSession(t, s, "PUT", "/v1/team", { body: { name: "Renamed" }, csrf: null })).status).toBe(403);
    expect((await asSession(t, s, "DELETE", `/v1/projects/${t.team.projectId}`, { csrf: null })).status).toBe(403);
    expect((await t.request("GET", "/v1/suppressions")).json.data).toEqual([]);
    expect((await t.request("GET", "/v1/team")).json.name).toBe("Team A");

    const created = await asSession(t, s, "POST", "/v1/suppressions", { body });
    expect(created.status).toBe(201);
    expect((await t.request("GET", "/v1/suppressions")).json.data.map((r: { email: string }) => r.email)).toEqual(["blocked@example.com"]);
  });

  test("a session of another team sees 404s exactly like that team's token", async () => {
    const b = t.addTeam();
    const s = await signedIn(t, await ownerWithPassword(t, b));
    expect((await t.request("POST", "/v1/suppressions", { body: { email: "a-only@example.com", scope: "team", reason: "manual" } })).json.data.created).toEqual(["a-only@example.com"]);
    const aSuppression = (await t.request("GET", "/v1/suppressions?filter[email]=a-only@example.com")).json.data[0].id;
    const paths = [`/v1/projects/${t.team.projectId}`, `/v1/projects/${t.team.projectId}/routes`, `/v1/suppressions/${aSuppression}`];
    for (const path of paths) {
      const viaSession = await asSession(t, s, "GET", path, { csrf: null });
      const viaToken = await t.request("GET", path, { token: b.teamToken });
      expect({ path, status: viaSession.status, body: viaSession.json }).toEqual({ path, status: viaToken.status, body: viaToken.json });
      expect(viaSession.status === 404 || viaSession.status === 405).toBe(true);
    }
    const del = await asSession(t, s, "DELETE", `/v1/suppressions/${aSuppression}`);
    expect(del.status).toBe(404);
    expect(del.json).toEqual((await t.request("DELETE", `/v1/suppressions/${aSuppression}`, { token: b.teamToken })).json);
    expect((await t.request("GET", "/v1/suppressions")).json.data.map((r: { id: string }) => r.id)).toContain(aSuppression);
    expect((await asSession(t, s, "GET", "/v1/team", { csrf: null })).json.id).toBe(b.teamId);
  });

  test("a team token in Authorization wins over a cookie; a project token is no session", async () => {
    const b = t.addTeam("Team C");
    const s = await signedIn(t, await ownerWithPassword(t, b));
    const res = await t.request("GET", "/v1/team", { headers: { cookie: s.cookie } });
    expect(res.json.id).toBe(t.team.teamId);
    expect((await t.request("POST", "/v1/send", { token: null, headers: { cookie: s.cookie, "x-csrf-token": s.csrf }, body: {} })).status).toBe(401);
  });
});

describe("session lifetime", () => {
  const t = createTestApp();

  test("signing in again rotates the session: the cookie sent along stops working", async () => {
    const email = await ownerWithPassword(t, t.team);
    const first = await signedIn(t, email);
    const { res, session: second } = await signIn(t, email, PASSWORD, { cookie: first.cookie });
    expect(res.status).toBe(201);
    expect(second.cookie).not.toBe(first.cookie);
    expect(second.csrf).not.toBe(first.csrf);
    expect((await asSession(t, first, "GET", "/v1/team")).status).toBe(401);
    expect((await asSession(t, second, "GET", "/v1/team")).status).toBe(200);
  });

  test("sign-out ends this session (and needs the CSRF token); sign-out everywhere ends all of the user's", async () => {
    const email = await ownerWithPassword(t, t.team);
    const [a, b, c] = [await signedIn(t, email), await signedIn(t, email), await signedIn(t, email)];
    expect((await asSession(t, a, "POST", "/v1/auth/sign-out", { csrf: null })).status).toBe(403);
    const out = await asSession(t, a, "POST", "/v1/auth/sign-out");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toBe("posthorn_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    expect((await asSession(t, a, "GET", "/v1/team")).status).toBe(401);
    expect((await asSession(t, b, "GET", "/v1/team")).status).toBe(200);

    const live = Number((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM sessions"))!.n);
    expect(live).toBeGreaterThanOrEqual(2);
    const all = await asSession(t, b, "POST", "/v1/auth/sign-out-everywhere");
    expect(all.status).toBe(200);
    expect(all.json.message).toBe(`Signed out everywhere (${live} sessions ended).`);
    expect(await t.sql.all("SELECT id FROM sessions")).toEqual([]);
    expect((await asSession(t, b, "GET", "/v1/team")).status).toBe(401);
    expect((await asSession(t, c, "GET", "/v1/team")).status).toBe(401);
  });

  test("a session idle too long, or past its absolute end, is a 401; use moves the idle end", async () => {
    const email = await ownerWithPassword(t, t.team);
    const idle = await signedIn(t, email);
    const old = await signedIn(t, email);
    const used = await signedIn(t, email);
    const now = Date.now();
    const hashOf = (s: Session) => new Bun.CryptoHasher("sha256").update(s.cookie.split("=")[1]!).digest("hex");
    await t.sql.run("UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?", [now - SESSION_IDLE_MS - 1000, hashOf(idle)]);
    await t.sql.run("UPDATE sessions SET created_at = ?, last_seen_at = ? WHERE token_hash = ?", [now - SESSION_MAX_MS - 1000, now, hashOf(old)]);
    await t.sql.run("UPDATE sessions SET last_seen_at = ? WHERE token_hash = ?", [now - SESSION_IDLE_MS + 120_000, hashOf(used)]);
    expect((await asSession(t, idle, "GET", "/v1/team")).status).toBe(401);
    expect((await asSession(t, old, "GET", "/v1/team")).status).toBe(401);
    expect((await asSession(t, used, "GET", "/v1/team")).status).toBe(200);
    // The use was recorded (on the side, at most once a minute): the session now runs a full idle period from now.
    const seen = async () => Number((await t.sql.get<{ t: number }>("SELECT last_seen_at AS t FROM sessions WHERE token_hash = ?", [hashOf(used)]))!.t);
    for (let i = 0; i < 50 && (await seen()) < now; i++) await Bun.sleep(20);
    expect(await seen()).toBeGreaterThanOrEqual(now);
  });
});

describe("failed sign-ins are throttled", () => {
  test(`per address: after ${SIGN_IN_FAILURES_PER_EMAIL} failures even the right password is a 429 with Retry-After; other addresses are unaffected; the count is in the database`, async () => {
    const t = createTestApp();
    const email = await ownerWithPassword(t, t.team);
    const other = await ownerWithPassword(t, t.addTeam());
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL; i++) expect((await signIn(t, email, `wrong-${i}-password`)).res.status).toBe(401);
    const refused = await signIn(t, email);
    expect(refused.res.status).toBe(429);
    expect(refused.res.json).toEqual({ message: "Too many requests.", error: "too_many_requests" });
    const retry = Number(refused.res.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(800);
    expect(retry).toBeLessThanOrEqual(900);
    expect(refused.session.setCookie).toBe("");
    expect((await signIn(t, other)).res.status).toBe(201);

    // Another app on the same database (as another node would be) refuses too.
    const node2 = createApp(t.deps);
    const res = await node2.handle(
      new Request("http://localhost/v1/auth/sign-in", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: PASSWORD }) }),
    );
    expect(res.status).toBe(429);

    // Once the window is over, the right password works again and clears the count.
    await t.sql.run("UPDATE auth_failures SET window_started_at = window_started_at - 900000");
    expect((await signIn(t, email)).res.status).toBe(201);
    expect(await t.sql.all("SELECT key FROM auth_failures WHERE key = ?", [`email:${email}`])).toEqual([]);
  }, 30_000);

  test(`per client IP: after ${AUTH_FAILURES_PER_IP} failures over any addresses, that IP gets 429s`, async () => {
    const t = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "" } });
    const email = await ownerWithPassword(t, t.team);
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const post = (body: unknown) =>
        fetch(`http://127.0.0.1:${server.server!.port}/v1/auth/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      for (let i = 0; i < AUTH_FAILURES_PER_IP; i++) expect((await post({ email: `guess-${i}@example.com`, password: "not it at all" })).status).toBe(401);
      const res = await post({ email, password: PASSWORD });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await t.sql.get("SELECT failures FROM auth_failures WHERE key = ?", ["ip:127.0.0.1"])).toEqual({ failures: AUTH_FAILURES_PER_IP });
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe("team members: invite, set a password, remove", () => {
  const t = createTestApp({ env: { POSTHORN_PUBLIC_URL: "https://mail.posthorn.test" } });

  test("an owner invites; the one-time link sets the password once; the member signs in as a member", async () => {
    const owner = await signedIn(t, await ownerWithPassword(t, t.team));
    const invited = await asSession(t, owner, "POST", "/v1/team/members", { body: { email: "New.Member@Example.com", name: "New Member" } });
    expect(invited.status).toBe(201);
    expect(invited.json.data).toMatchObject({ role: "member", user: { email: "new.member@example.com", name: "New Member" } });
    const url: string = invited.json.password_url;
    expect(url).toMatch(/^https:\/\/mail\.posthorn\.test\/#\/set-password\/[\w-]{43}$/);
    const token = url.split("/").pop()!;

    // Before a password is set, nothing signs in.
    expect((await signIn(t, "new.member@example.com", "")).res.status).toBe(422);
    expect((await t.request("POST", "/v1/auth/password", { token: null, body: { token, password: "short" } })).status).toBe(422);
    const set = await t.request("POST", "/v1/auth/password", { token: null, body: { token, password: "a long new password" } });
    expect(set.status).toBe(200);
    const again = await t.request("POST", "/v1/auth/password", { token: null, body: { token, password: "another new password" } });
    expect(again.status).toBe(422);
    expect(again.json.errors.token).toEqual(["This link is invalid, used or expired; ask a team owner for a new one."]);

    const member = await signedIn(t, "new.member@example.com", "a long new password");
    const me = await asSession(t, member, "GET", "/v1/auth/session");
    expect(me.json.data.team).toEqual({ id: t.team.teamId, name: "Team A", role: "member" });
    // A member (the built-in role) works on the projects, but may not invite or remove members (members:manage).
    const refused = await asSession(t, member, "POST", "/v1/team/members", { body: { email: "x@example.com" } });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ message: "Your role does not have the members:manage permission this request needs.", error: "missing_permission" });
    expect((await asSession(t, member, "POST", "/v1/suppressions", { body: { email: "member-added@example.com", scope: "team", reason: "manual" } })).status).toBe(201);

    // Removed: the member's session ends at once.
    const dup = await asSession(t, owner, "POST", "/v1/team/members", { body: { email: "new.member@example.com" } });
    expect(dup.status).toBe(409);
    const removed = await asSession(t, owner, "DELETE", `/v1/team/members/${invited.json.data.id}`);
    expect(removed.status).toBe(200);
    expect((await asSession(t, member, "GET", "/v1/team")).status).toBe(401);
    expect((await signIn(t, "new.member@example.com", "a long new password")).res.status).toBe(401);
  });

  test("the team token may invite; an expired link does not work; the last owner cannot be removed; another team's member is a 404", async () => {
    const res = await t.request("POST", "/v1/team/members", { body: { email: "late@example.com", role: "owner" } });
    expect(res.status).toBe(201);
    await t.sql.run("UPDATE team_invitations SET expires_at = ?", [Date.now() - 1]);
    const token = res.json.password_url.split("/").pop();
    expect((await t.request("POST", "/v1/auth/password", { token: null, body: { token, password: "a long new password" } })).status).toBe(422);

    const b = t.addTeam();
    const bOwner = (await t.request("GET", "/v1/team/members", { token: b.teamToken })).json.data[0].id;
    expect((await t.request("DELETE", `/v1/team/members/${bOwner}`)).status).toBe(404);
    const last = await t.request("DELETE", `/v1/team/members/${bOwner}`, { token: b.teamToken });
    expect(last.status).toBe(409);
    expect(last.json.message).toBe("The team's last owner cannot be removed; make another member owner first.");
    expect((await t.request("POST", "/v1/team/members", { body: { email: "not an address" } })).status).toBe(422);
  });

  test("a user of another team gets an invitation link, not a password link; once accepted they sign in to either team with their password", async () => {
    const b = t.addTeam("Team D");
    const email = await ownerWithPassword(t, b, "team d owner password");
    const res = await t.request("POST", "/v1/team/members", { body: { email } });
    expect(res.status).toBe(201);
    expect(res.json.password_url).toBeNull();
    const s = await signedIn(t, email, "team d owner password");
    expect((await asSession(t, s, "GET", "/v1/team")).json.id).toBe(b.teamId); // the first team they joined
    // Until they accept (signed in as themselves, with the link's token), team A is closed to them.
    const early = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password: "team d owner password", team_id: t.team.teamId } });
    expect(early.status).toBe(401);
    const token = res.json.invitation_url.split("/").pop();
    expect((await asSession(t, s, "POST", "/v1/auth/invitations/accept", { body: { token } })).status).toBe(200);
    const other = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password: "team d owner password", team_id: t.team.teamId } });
    expect(other.status).toBe(201);
    expect(other.json.data.team.id).toBe(t.team.teamId);
    expect(other.json.data.teams.map((x: { id: string }) => x.id)).toEqual([b.teamId, t.team.teamId]);
  });
});
