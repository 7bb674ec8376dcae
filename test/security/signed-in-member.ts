/**
 * A member of the test team made directly in the database (no invitation round trip), signed in
 * through POST /v1/auth/sign-in, and requests made with their session: for the access tests that
 * need many members of different roles and projects.
 */
import { expect } from "bun:test";
import { hashPassword } from "../../src/auth/passwords.ts";
import { newId } from "../../src/ids.ts";
import type { TestApp } from "../helpers.ts";

export const MEMBER_PASSWORD = "access test password";
export type Session = { cookie: string; csrf: string };

/** An active member of the team holding `role` (on `projects`, or all of them), signed in. */
export async function signedInMember(
  t: TestApp,
  role: string,
  opts: { projects?: string[] | null; email?: string } = {},
): Promise<{ memberId: string; session: Session }> {
  const userId = newId();
  const memberId = newId();
  const email = opts.email ?? `m-${newId().slice(-10)}@example.com`;
  const projects = opts.projects ?? null;
  const now = Date.now();
  await t.sql.run("INSERT INTO users (id, name, email, password_hash, password_changed_at, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
    userId,
    "Access test member",
    email,
    await hashPassword(MEMBER_PASSWORD),
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
  const res = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password: MEMBER_PASSWORD } });
  expect(res.status).toBe(201);
  return { memberId, session: { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]!, csrf: res.json.data.csrf_token } };
}

/** A request with `s`'s session cookie and CSRF token, as the dashboard makes it. */
export const asSession = (t: TestApp, s: Session, method: string, path: string, body?: unknown) =>
  t.request(method, path, { token: null, body, headers: { cookie: s.cookie, "x-csrf-token": s.csrf } });
