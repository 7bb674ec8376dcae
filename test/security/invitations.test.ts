/**
 * Identities shared across teams (docs/security.md): users are shared by the whole server, so an
 * invitation must never let one team set or learn a credential that works in another team.
 * The first describe reproduces issue 41's two attack routes through the API.
 */
import { describe, expect, test } from "bun:test";
import { createTestApp, type TestApp, type TestTeam } from "../helpers.ts";

const tokenOf = (url: string) => url.split("/").pop()!;

async function signIn(t: TestApp, email: string, password: string, teamId?: string) {
  const res = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password, ...(teamId ? { team_id: teamId } : {}) } });
  return { res, cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: res.json?.data?.csrf_token as string | undefined };
}

const setPassword = (t: TestApp, token: string, password: string) => t.request("POST", "/v1/auth/password", { token: null, body: { token, password } });

const invite = (t: TestApp, team: TestTeam, body: { email: string; role?: string; name?: string }) => t.request("POST", "/v1/team/members", { token: team.teamToken, body });

describe("issue 41: an invitation from one team never gives a credential that works in another", () => {
  const t = createTestApp({ env: { POSTHORN_PUBLIC_URL: "https://mail.posthorn.test" } });

  test("route 1: team B invites team A's owner and cannot set her password; A's own link keeps working", async () => {
    const a = t.team;
    const b = t.addTeam("Team B");
    const byA = await invite(t, a, { email: "carol@example.com", role: "owner", name: "Carol as team A knows her" });
    expect(byA.status).toBe(201);
    expect(byA.json.password_url).toMatch(/#\/set-password\//);

    // The attacker, an owner of team B, invites the same address.
    const byB = await invite(t, b, { email: "carol@example.com" });
    expect(byB.status).toBe(201);
    if (byB.json.password_url) await setPassword(t, tokenOf(byB.json.password_url), "attacker chose this");
    expect((await signIn(t, "carol@example.com", "attacker chose this", a.teamId)).res.status).toBe(401);
    expect(byB.json.password_url).toBeNull();
    // Nor does B learn what A chose: the name A gave her stays A's until she accepts B's invitation.
    expect(byB.json.data.user.name).toBe("carol");
    expect((await t.request("GET", "/v1/team/members", { token: b.teamToken })).text).not.toContain("Carol as team A knows her");
    expect((await t.request("GET", "/v1/team/members", { token: a.teamToken })).text).toContain("Carol as team A knows her");

    // Carol's link from team A still works and makes her A's owner.
    expect((await setPassword(t, tokenOf(byA.json.password_url), "carol's own password")).status).toBe(200);
    const carol = await signIn(t, "carol@example.com", "carol's own password", a.teamId);
    expect(carol.res.status).toBe(201);
    expect(carol.res.json.data.team).toEqual({ id: a.teamId, name: "Team A", role: "owner" });
  });

  test("route 2: team B creates dave first; team A's later invitation as owner gives B's attacker nothing in A", async () => {
    const a = t.team;
    const b = t.addTeam("Team C");
    const byB = await invite(t, b, { email: "dave@example.com" });
    expect((await setPassword(t, tokenOf(byB.json.password_url), "attacker chose this")).status).toBe(200);

    const byA = await invite(t, a, { email: "dave@example.com", role: "owner" });
    expect(byA.status).toBe(201);
    expect(byA.json.password_url).toBeNull();
    // The attacker knows dave's password: it opens team B, never team A.
    expect((await signIn(t, "dave@example.com", "attacker chose this", b.teamId)).res.status).toBe(201);
    const inA = await signIn(t, "dave@example.com", "attacker chose this", a.teamId);
    expect(inA.res.status).toBe(401);
    const session = await signIn(t, "dave@example.com", "attacker chose this");
    expect(session.res.json.data.teams.map((x: { id: string }) => x.id)).toEqual([b.teamId]);
    // Team A sees dave as invited, not as a member: he is no owner and counts for nothing yet.
    const members = (await t.request("GET", "/v1/team/members", { token: a.teamToken })).json.data;
    const dave = members.find((m: { user: { email: string } }) => m.user.email === "dave@example.com");
    expect(dave).toMatchObject({ role: "owner", status: "pending", joined_at: null });
  });
});

/** A request with a session's cookie and CSRF token (unless `csrf: null`), no team token. */
function asSession(t: TestApp, s: { cookie: string; csrf?: string }, method: string, path: string, body?: unknown, csrf: string | null | undefined = s.csrf) {
  const headers: Record<string, string> = { cookie: s.cookie };
  if (csrf) headers["x-csrf-token"] = csrf;
  return t.request(method, path, { token: null, body, headers });
}

/** A user who is an active member of a new team, with a password; their address and that team. */
async function memberElsewhere(t: TestApp, email: string, password: string, teamName: string) {
  const team = t.addTeam(teamName);
  const invited = await invite(t, team, { email });
  expect((await setPassword(t, tokenOf(invited.json.password_url), password)).status).toBe(200);
  return team;
}

const accept = (t: TestApp, body: { token: string; password?: string }, session?: { cookie: string; csrf?: string }, csrf?: string | null) =>
  session ? asSession(t, session, "POST", "/v1/auth/invitations/accept", body, csrf === undefined ? session.csrf : csrf) : t.request("POST", "/v1/auth/invitations/accept", { token: null, body });

describe("invitations are pending memberships until accepted", () => {
  const t = createTestApp({ env: { POSTHORN_PUBLIC_URL: "https://mail.posthorn.test/" } });

  test("an existing user gets invitation_url; accepting needs their own session and the token; the session moves to the new team", async () => {
    const home = await memberElsewhere(t, "erin@example.com", "erin's own password", "Erin's team");
    const res = await invite(t, t.team, { email: "Erin@Example.com", role: "owner" });
    expect(res.status).toBe(201);
    expect(res.json.password_url).toBeNull();
    expect(res.json.invitation_url).toMatch(/^https:\/\/mail\.posthorn\.test\/#\/accept-invitation\/[\w-]{43}$/);
    expect(res.json.data).toMatchObject({ role: "owner", status: "pending", joined_at: null, user: { email: "erin@example.com" } });
    const token = tokenOf(res.json.invitation_url);

    // Pending: no sign-in to the team, no session role, not counted.
    expect((await signIn(t, "erin@example.com", "erin's own password", t.team.teamId)).res.status).toBe(401);
    expect((await t.request("GET", "/v1/team")).json.members_count).toBe(1);

    const erin = await signIn(t, "erin@example.com", "erin's own password");
    expect(erin.res.json.data.team.id).toBe(home.teamId);
    expect(erin.res.json.data.teams.map((x: { id: string }) => x.id)).toEqual([home.teamId]);
    // Without the CSRF token nothing happens; without a session or password, a 401.
    expect((await accept(t, { token }, erin, null)).status).toBe(403);
    expect((await accept(t, { token })).status).toBe(401);
    // A token that names no invitation.
    const bogus = await accept(t, { token: "not-a-token" }, erin);
    expect(bogus.status).toBe(422);
    expect(bogus.json.errors.token).toEqual(["This link is invalid, used or expired; ask a team owner for a new one."]);

    const accepted = await accept(t, { token }, erin);
    expect(accepted.status).toBe(200);
    expect(accepted.json.data.team).toEqual({ id: t.team.teamId, name: "Team A", role: "owner" });
    expect(accepted.json.data.teams.map((x: { id: string }) => x.id)).toEqual([home.teamId, t.team.teamId]);
    const moved = { cookie: (accepted.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: accepted.json.data.csrf_token };
    expect(moved.cookie).not.toBe(erin.cookie);
    expect((await asSession(t, erin, "GET", "/v1/team")).status).toBe(401); // the old session ended
    expect((await asSession(t, moved, "GET", "/v1/team")).json).toMatchObject({ id: t.team.teamId, members_count: 2 });

    // Used: the token works once.
    expect((await accept(t, { token }, moved)).status).toBe(422);
    const listed = (await t.request("GET", "/v1/team/members")).json.data.find((m: { user: { email: string } }) => m.user.email === "erin@example.com");
    expect(listed.status).toBe("active");
    expect(new Date(listed.joined_at).toISOString()).toBe(listed.joined_at);
    expect((await signIn(t, "erin@example.com", "erin's own password", t.team.teamId)).res.status).toBe(201);
  });

  test("another user's session cannot accept, even with the token; the invited user still can", async () => {
    await memberElsewhere(t, "frank@example.com", "frank's own password", "Frank's team");
    await memberElsewhere(t, "mallory@example.com", "mallory's password", "Mallory's team");
    const token = tokenOf((await invite(t, t.team, { email: "frank@example.com", role: "owner" })).json.invitation_url);
    const mallory = await signIn(t, "mallory@example.com", "mallory's password");
    const refused = await accept(t, { token }, mallory);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe("This invitation is for another account; sign in as the address it was sent to.");
    expect((await accept(t, { token, password: "mallory's password" })).status).toBe(401);
    expect((await signIn(t, "mallory@example.com", "mallory's password", t.team.teamId)).res.status).toBe(401);

    const frank = await signIn(t, "frank@example.com", "frank's own password");
    expect((await accept(t, { token }, frank)).status).toBe(200);
  });

  test("accepting with the user's own password instead of a session: a wrong one is a 401, the right one joins and signs in", async () => {
    await memberElsewhere(t, "gina@example.com", "gina's own password", "Gina's team");
    const token = tokenOf((await invite(t, t.team, { email: "gina@example.com" })).json.invitation_url);
    const wrong = await accept(t, { token, password: "not her password" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.message).toBe("The password is incorrect.");
    const ok = await accept(t, { token, password: "gina's own password" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("set-cookie")).toMatch(/^posthorn_session=ph_sess_/);
    expect(ok.json.data.team).toEqual({ id: t.team.teamId, name: "Team A", role: "member" });
  });

  test("an expired invitation does not work, nor does an expired password link", async () => {
    await memberElsewhere(t, "hank@example.com", "hank's own password", "Hank's team");
    const byInvite = tokenOf((await invite(t, t.team, { email: "hank@example.com" })).json.invitation_url);
    const byLink = tokenOf((await invite(t, t.team, { email: "ida@example.com" })).json.password_url);
    await t.sql.run("UPDATE team_invitations SET expires_at = ?", [Date.now() - 1]);
    const hank = await signIn(t, "hank@example.com", "hank's own password");
    expect((await accept(t, { token: byInvite }, hank)).status).toBe(422);
    expect((await setPassword(t, byLink, "ida's new password")).status).toBe(422);
    expect((await signIn(t, "ida@example.com", "ida's new password")).res.status).toBe(401);
  });

  test("removing a pending member revokes the invitation: neither link works afterwards", async () => {
    await memberElsewhere(t, "jack@example.com", "jack's own password", "Jack's team");
    const forJack = await invite(t, t.team, { email: "jack@example.com" });
    const forKim = await invite(t, t.team, { email: "kim@example.com" });
    for (const r of [forJack, forKim]) {
      const removed = await t.request("DELETE", `/v1/team/members/${r.json.data.id}`);
      expect(removed.status).toBe(200);
      expect(removed.json).toEqual({ message: "Invitation revoked." });
    }
    const jack = await signIn(t, "jack@example.com", "jack's own password");
    expect((await accept(t, { token: tokenOf(forJack.json.invitation_url) }, jack)).status).toBe(422);
    expect((await setPassword(t, tokenOf(forKim.json.password_url), "kim's new password")).status).toBe(422);
    // Kim existed only through the invitation: she is gone, and a new invitation gives a new password link.
    expect(await t.sql.get("SELECT id FROM users WHERE email = ?", ["kim@example.com"])).toBeNull();
    expect((await invite(t, t.team, { email: "kim@example.com" })).json.password_url).toMatch(/#\/set-password\//);
  });

  test("inviting a pending member again replaces the link; an active member is a 409", async () => {
    const first = await invite(t, t.team, { email: "liam@example.com" });
    const second = await invite(t, t.team, { email: "liam@example.com", role: "owner" });
    expect(second.status).toBe(201);
    expect(second.json.data.id).toBe(first.json.data.id);
    expect(second.json.data.role).toBe("owner");
    expect((await setPassword(t, tokenOf(first.json.password_url), "liam's new password")).status).toBe(422);
    expect((await setPassword(t, tokenOf(second.json.password_url), "liam's new password")).status).toBe(200);
    const again = await invite(t, t.team, { email: "liam@example.com" });
    expect(again.status).toBe(409);
  });

  test("a password link sets no password once the user has one (set by the operator meanwhile); she accepts with hers instead", async () => {
    const res = await invite(t, t.team, { email: "mia@example.com" });
    const user = (await t.sql.get<{ id: string }>("SELECT id FROM users WHERE email = ?", ["mia@example.com"]))!;
    const hash = await Bun.password.hash("set by the operator", { algorithm: "argon2id" });
    await t.deps.store.write((tx) => tx.accounts.setPassword(user.id, hash, Date.now()));
    const token = tokenOf(res.json.password_url);
    expect((await setPassword(t, token, "someone else's choice")).status).toBe(422);
    expect((await signIn(t, "mia@example.com", "set by the operator")).res.status).toBe(401); // in no team yet
    const accepted = await accept(t, { token, password: "set by the operator" });
    expect(accepted.status).toBe(200);
    expect(accepted.json.data.team.id).toBe(t.team.teamId);
  });

  test("a pending owner is no owner: the last active owner still cannot be removed, and a pending one can", async () => {
    const c = t.addTeam("Team with one owner");
    const pending = await invite(t, c, { email: "nora@example.com", role: "owner" });
    const owner = (await t.request("GET", "/v1/team/members", { token: c.teamToken })).json.data.find((m: { status: string }) => m.status === "active");
    expect((await t.request("DELETE", `/v1/team/members/${owner.id}`, { token: c.teamToken })).status).toBe(409);
    // Nor may a pending member be put on a project.
    const put = await t.request("PUT", `/v1/projects/${c.projectId}/members`, { token: c.teamToken, body: { team_member_ids: [pending.json.data.id] } });
    expect(put.status).toBe(422);
    expect((await t.request("DELETE", `/v1/team/members/${pending.json.data.id}`, { token: c.teamToken })).status).toBe(200);
  });
});
