/**
 * Privilege escalation (brief H5): a named team token is not an owner because it is not a
 * session; only the team token and a token holding the owner role act as an owner (touch an
 * owner, give the owner role), as with members.
 */
import { describe, expect, test } from "bun:test";
import { hashPassword } from "../../src/auth/passwords.ts";
import { newId } from "../../src/ids.ts";
import { createTestApp, engine, type TestApp } from "../helpers.ts";

const PASSWORD = "escalation test password";
type Session = { cookie: string; csrf: string };

/** An active member of the team holding `role` (on `projects`, or all), signed in. */
async function member(t: TestApp, role: string, projects: string[] | null = null): Promise<{ memberId: string; session: Session }> {
  const userId = newId();
  const memberId = newId();
  const email = `e-${newId().slice(-10)}@example.com`;
  const now = Date.now();
  await t.sql.run("INSERT INTO users (id, name, email, password_hash, password_changed_at, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
    userId,
    "Escalation",
    email,
    await hashPassword(PASSWORD),
    now,
    now,
  ]);
  await t.sql.run("INSERT INTO team_members (id, team_id, user_id, role, project_ids, status, joined_at, created_at) VALUES (?, ?, ?, ?, ?, 'active', ?, ?)", [
    memberId,
    t.team.teamId,
    userId,
    role,
    projects === null ? null : JSON.stringify(projects),
    now,
    now,
  ]);
  const res = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return { memberId, session: { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: res.json.data.csrf_token } };
}

const as = (t: TestApp, s: Session, method: string, path: string, body?: unknown) =>
  t.request(method, path, { token: null, body, headers: { cookie: s.cookie, "x-csrf-token": s.csrf } });

describe(`named tokens and owners (${engine})`, () => {
  const t = createTestApp();

  test("a token with the admin role is no owner: it neither demotes nor removes an owner; an owner-role token does", async () => {
    const second = await member(t, "owner");
    const admin = await t.request("POST", "/v1/team/tokens", { body: { name: "Admin automation", role_id: "admin" } });
    expect(admin.status).toBe(201);
    const token = admin.json.token as string;

    const demote = await t.request("PUT", `/v1/team/members/${second.memberId}/assignment`, { token, body: { role_id: "admin", project_access: { scope: "all" } } });
    expect([demote.status, demote.json.error]).toEqual([409, "owner_protected"]);
    const remove = await t.request("DELETE", `/v1/team/members/${second.memberId}`, { token });
    expect([remove.status, remove.json.error]).toEqual([409, "owner_protected"]);
    expect((await t.request("GET", `/v1/team/members/${second.memberId}`)).json).toMatchObject({ role: "owner", status: "active" });
    // The same as an admin's session is refused (the rule the token slipped past).
    const adminSession = await member(t, "admin");
    expect((await as(t, adminSession.session, "DELETE", `/v1/team/members/${second.memberId}`)).json.error).toBe("owner_protected");
    expect((await t.request("GET", "/v1/team/roles", { token })).json.data[0]).toMatchObject({ id: "owner", assignable: false });

    // A token holding the owner role acts as an owner.
    const ownerToken = (await t.request("POST", "/v1/team/tokens", { body: { name: "Owner automation", role_id: "owner" } })).json.token as string;
    const stepDown = await t.request("PUT", `/v1/team/members/${second.memberId}/assignment`, { token: ownerToken, body: { role_id: "admin", project_access: { scope: "all" } } });
    expect(stepDown.status).toBe(200);
    expect(stepDown.json.role).toBe("admin");
  });
});
