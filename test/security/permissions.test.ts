/**
 * Issue 46: roles, permissions and project access.
 *
 * - Every operation of the OpenAPI document that a team token or a session may call declares its
 *   permission (`x-permission`), one of the service's names; the few that need none are listed
 *   in NO_PERMISSION with the reason. A new team route without one fails here.
 * - The matrix, generated from the document: for every operation with a permission, a member
 *   whose custom role holds exactly that permission is not refused (no 403), and one whose role
 *   holds every other permission is refused with a 403 `missing_permission` (nothing changed).
 *   One app per engine, one member and one session; the role is rewritten between requests.
 * - Roles (GET /v1/team/roles, custom roles, the service's conflicts) and assignments.
 * - Project access: a member with selected projects sees only theirs; the others are 404s.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { PERMISSIONS, type Permission } from "../../src/auth/permissions.ts";
import { createTestApp, engine, waitFor, type TestApp } from "../helpers.ts";
import { asSession, signedInMember } from "./signed-in-member.ts";

/** Operations a session or a token may call without a permission of the team, and why. */
const NO_PERMISSION: Record<string, string> = {
  "GET /v1/ping": "answers who the caller is, nothing of the team",
  "GET /v1/auth/session": "the session itself: who is signed in, with what role",
  "POST /v1/auth/sign-out": "ends the caller's own session",
  "POST /v1/auth/sign-out-everywhere": "ends the caller's own sessions",
  "POST /v1/auth/invitations/accept": "the invited user's own answer to an invitation",
  "POST /v1/auth/two-factor/enrol": "the signed-in user's own second factor",
  "POST /v1/auth/two-factor/confirm": "the signed-in user's own second factor",
  "POST /v1/auth/two-factor/disable": "the signed-in user's own second factor",
  "POST /v1/auth/two-factor/recovery-codes": "the signed-in user's own recovery codes",
};

type Op = { method: string; path: string; key: string; permission: string | undefined; tokens: boolean };

async function operations(t: TestApp): Promise<Op[]> {
  const doc = (await t.request("GET", "/openapi/json")).json;
  const ops: Op[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const security = (op.security ?? []).flatMap((s: object) => Object.keys(s));
      if (!security.includes("teamToken") && !security.includes("sessionCookie")) continue;
      ops.push({ method: method.toUpperCase(), path, key: `${method.toUpperCase()} ${path}`, permission: op["x-permission"], tokens: security.includes("teamToken") });
    }
  }
  return ops;
}

const UNKNOWN = "00000000-0000-7000-8000-00000000beef";
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, UNKNOWN);

describe(`permissions (${engine})`, () => {
  const t = createTestApp();
  let ops: Op[];
  beforeAll(async () => {
    ops = await operations(t);
  });

  test("every team operation of the OpenAPI document declares one of the service's permissions", () => {
    expect(ops.length).toBeGreaterThan(60);
    const missing = ops.filter((o) => o.permission === undefined && !NO_PERMISSION[o.key]).map((o) => o.key);
    expect(missing).toEqual([]);
    const unknown = ops.filter((o) => o.permission !== undefined && !(PERMISSIONS as readonly string[]).includes(o.permission)).map((o) => `${o.key}: ${o.permission}`);
    expect(unknown).toEqual([]);
  });

  test("the matrix: exactly an operation's permission is let through, every other permission but it is a 403", async () => {
    const role = await t.request("POST", "/v1/team/roles", { body: { name: "Matrix", permissions: [] } });
    expect(role.status).toBe(201);
    const roleId = role.json.data.id as string;
    const { session } = await signedInMember(t, roleId);
    const setPermissions = async (permissions: readonly string[]) =>
      expect((await t.request("PUT", `/v1/team/roles/${roleId}`, { body: { permissions } })).status).toBe(200);

    const checked = ops.filter((o) => o.permission !== undefined);
    const failures: string[] = [];
    for (const op of checked) {
      const body = ["POST", "PUT", "PATCH"].includes(op.method) ? {} : undefined;
      await setPermissions([op.permission!]);
      const allowed = await asSession(t, session, op.method, concrete(op.path), body);
      if (allowed.status === 403 || allowed.status >= 500) failures.push(`${op.key} with ${op.permission}: ${allowed.status} ${allowed.text.slice(0, 120)}`);
      await setPermissions(PERMISSIONS.filter((p) => p !== op.permission));
      const refused = await asSession(t, session, op.method, concrete(op.path), body);
      if (refused.status !== 403 || refused.json?.error !== "missing_permission") failures.push(`${op.key} without ${op.permission}: ${refused.status} ${refused.text.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
    expect(checked.length).toBeGreaterThan(60);
  }, 120_000);

  test("the matrix with named tokens: a token with exactly the permission is let through, one with every other permission is a 403", async () => {
    const tokenWith = async (permissions: readonly string[]) => {
      const res = await t.request("POST", "/v1/team/tokens", { body: { name: "matrix", permissions } });
      expect(res.status).toBe(201);
      return res.json.token as string;
    };
    const failures: string[] = [];
    // Every operation a team token may call (the session-only ones are the matrix above's).
    for (const op of ops.filter((o) => o.permission !== undefined && o.tokens)) {
      const body = ["POST", "PUT", "PATCH"].includes(op.method) ? {} : undefined;
      const allowed = await t.request(op.method, concrete(op.path), { token: await tokenWith([op.permission!]), body });
      if (allowed.status === 403 || allowed.status >= 500) failures.push(`${op.key} with ${op.permission}: ${allowed.status} ${allowed.text.slice(0, 120)}`);
      const refused = await t.request(op.method, concrete(op.path), { token: await tokenWith(PERMISSIONS.filter((p) => p !== op.permission)), body });
      if (refused.status !== 403 || refused.json?.error !== "missing_permission") failures.push(`${op.key} without ${op.permission}: ${refused.status} ${refused.text.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test("a refused change changes nothing, even with a valid body", async () => {
    const role = await t.request("POST", "/v1/team/roles", { body: { name: "Readers", permissions: ["projects:read", "domains:read"] } });
    const { session } = await signedInMember(t, role.json.data.id);
    const before = (await t.request("GET", "/v1/projects")).json.data.length;
    const refused = await asSession(t, session, "POST", "/v1/projects", { name: "Not made" });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ message: "Your role does not have the projects:create permission this request needs.", error: "missing_permission" });
    expect((await t.request("GET", "/v1/projects")).json.data.length).toBe(before);
    expect((await asSession(t, session, "DELETE", `/v1/projects/${t.team.projectId}`)).status).toBe(403);
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}`)).status).toBe(200);
    expect((await asSession(t, session, "GET", `/v1/projects/${t.team.projectId}`)).status).toBe(200);
  });
});

describe(`roles and assignments (${engine})`, () => {
  const t = createTestApp();

  test("GET /v1/team/roles: the built-in roles with the service's keys, then the team's own", async () => {
    const res = await t.request("GET", "/v1/team/roles");
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: any) => [r.id, r.system_key, r.assignable])).toEqual([
      ["owner", "owner", true],
      ["admin", "admin", true],
      ["member", "member", true],
    ]);
    const [owner, admin, member] = res.json.data;
    expect(owner.permissions).toEqual([...PERMISSIONS]);
    expect(admin.permissions).not.toContain("billing:manage");
    expect(admin.permissions).toContain("members:manage");
    expect(member.permissions).toContain("messages:send");
    expect(member.permissions).not.toContain("domains:delete");
    const made = await t.request("POST", "/v1/team/roles", { body: { name: "Support", permissions: ["messages:read", "messages:send", "messages:read"] } });
    expect(made.status).toBe(201);
    expect(made.json.data).toMatchObject({ name: "Support", system_key: null, permissions: ["messages:read", "messages:send"], assignable: true });
    expect((await t.request("GET", "/v1/team/roles")).json.data.map((r: any) => r.name)).toEqual(["Owner", "Admin", "Member", "Support"]);
  });

  test("bad input: an unknown permission, a duplicate name, a built-in role changed or deleted, a role still held", async () => {
    const unknown = await t.request("POST", "/v1/team/roles", { body: { name: "Bad", permissions: ["messages:read", "messages:delete_everything"] } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors).toEqual({ "permissions.1": ['Unknown permission "messages:delete_everything". See GET /v1/team/roles or docs/access.md for the names.'] });
    expect((await t.request("GET", "/v1/team/roles")).json.data.map((r: any) => r.name)).not.toContain("Bad");
    await t.request("POST", "/v1/team/roles", { body: { name: "Twice", permissions: [] } });
    expect((await t.request("POST", "/v1/team/roles", { body: { name: "Twice", permissions: [] } })).status).toBe(409);
    for (const [method, body] of [["PUT", { permissions: [] }], ["DELETE", undefined]] as const) {
      const res = await t.request(method, "/v1/team/roles/member", { body });
      expect(res.status).toBe(409);
      expect(res.json.error).toBe("built_in_role_immutable");
    }
    const held = await t.request("POST", "/v1/team/roles", { body: { name: "Held", permissions: ["projects:read"] } });
    const { memberId } = await signedInMember(t, held.json.data.id);
    const del = await t.request("DELETE", `/v1/team/roles/${held.json.data.id}`);
    expect(del.status).toBe(409);
    expect(del.json.error).toBe("stale_resource");
    await t.request("PUT", `/v1/team/members/${memberId}/assignment`, { body: { role_id: "member", project_access: { scope: "all" } } });
    expect((await t.request("DELETE", `/v1/team/roles/${held.json.data.id}`)).status).toBe(200);
    // Another team's role is a 404, like an unknown one.
    const other = t.addTeam();
    expect((await t.request("PUT", `/v1/team/roles/${held.json.data.id}`, { token: other.teamToken, body: { name: "x" } })).status).toBe(404);
  });

  test("the last owner keeps the role; only an owner touches an owner or gives the owner role; an admin grants nothing beyond its own", async () => {
    const owner = (await t.request("GET", "/v1/team/members")).json.data.find((m: any) => m.role === "owner");
    const last = await t.request("PUT", `/v1/team/members/${owner.id}/assignment`, { body: { role_id: "admin", project_access: { scope: "all" } } });
    expect(last.status).toBe(409);
    expect(last.json.error).toBe("last_owner");
    const removed = await t.request("DELETE", `/v1/team/members/${owner.id}`);
    expect(removed.status).toBe(409);
    expect(removed.json.error).toBe("last_owner");
    expect((await t.request("GET", `/v1/team/members/${owner.id}`)).json.role).toBe("owner");

    const admin = await signedInMember(t, "admin");
    const touchOwner = await asSession(t, admin.session, "PUT", `/v1/team/members/${owner.id}/assignment`, { role_id: "member", project_access: { scope: "all" } });
    expect(touchOwner.status).toBe(409);
    expect(touchOwner.json.error).toBe("owner_protected");
    expect((await asSession(t, admin.session, "DELETE", `/v1/team/members/${owner.id}`)).json.error).toBe("owner_protected");
    const other = await signedInMember(t, "member");
    const makeOwner = await asSession(t, admin.session, "PUT", `/v1/team/members/${other.memberId}/assignment`, { role_id: "owner", project_access: { scope: "all" } });
    expect(makeOwner.json.error).toBe("owner_protected");
    expect((await asSession(t, admin.session, "GET", "/v1/team/roles")).json.data[0]).toMatchObject({ id: "owner", assignable: false });
    const escalate = await asSession(t, admin.session, "POST", "/v1/team/roles", { name: "Billing", permissions: ["billing:manage"] });
    expect(escalate.status).toBe(403);
    expect(escalate.json.error).toBe("missing_permission");
    // What an admin may do: make another member an admin.
    const promoted = await asSession(t, admin.session, "PUT", `/v1/team/members/${other.memberId}/assignment`, { role_id: "admin", project_access: { scope: "all" } });
    expect(promoted.status).toBe(200);
    expect(promoted.json).toMatchObject({ id: other.memberId, role: "admin", project_access: { scope: "all", projects: [] } });
    // The new role holds from the member's next request: an admin may invite.
    expect((await asSession(t, other.session, "POST", "/v1/team/members", { email: "invited-by-admin@example.com" })).status).toBe(201);
    // Two owners: one may step down.
    const second = await signedInMember(t, "owner");
    expect((await t.request("PUT", `/v1/team/members/${second.memberId}/assignment`, { body: { role_id: "member", project_access: { scope: "all" } } })).status).toBe(200);
  });

  test("assignment bad input: unknown role, scope and project_ids that disagree, another team's project, an owner on selected projects", async () => {
    const m = await signedInMember(t, "member");
    const bodies: [unknown, string][] = [
      [{ role_id: "nope", project_access: { scope: "all" } }, "role_id"],
      [{ role_id: "member", project_access: { scope: "selected" } }, "project_access.project_ids"],
      [{ role_id: "member", project_access: { scope: "all", project_ids: [t.team.projectId] } }, "project_access.project_ids"],
      [{ role_id: "member", project_access: { scope: "selected", project_ids: [t.addTeam().projectId] } }, "project_access.project_ids.0"],
      [{ role_id: "owner", project_access: { scope: "selected", project_ids: [t.team.projectId] } }, "project_access.scope"],
      [{ role_id: "member", project_access: { scope: "some" } }, "project_access.scope"],
    ];
    for (const [body, field] of bodies) {
      const res = await t.request("PUT", `/v1/team/members/${m.memberId}/assignment`, { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual([field]);
    }
    expect((await t.request("GET", `/v1/team/members/${m.memberId}`)).json).toMatchObject({ role: "member", project_access: { scope: "all", projects: [] } });
    expect((await t.request("PUT", `/v1/team/members/${UNKNOWN}/assignment`, { body: { role_id: "member", project_access: { scope: "all" } } })).status).toBe(404);
  });
});

describe(`project access (${engine})`, () => {
  const t = createTestApp();

  test("a member with selected projects sees and touches only theirs; everything of another project is a 404", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const window = `from=${day}&to=${day}`;
    // Two projects, each with a route, a webhook and a suppression.
    const mine = t.team.projectId;
    const theirs = (await t.request("POST", "/v1/projects", { body: { name: "Not mine" } })).json.data.id as string;
    const routeOf = async (projectId: string) =>
      (await t.request("POST", `/v1/projects/${projectId}/routes`, { body: { name: "Scoped", route_type: "transactional" } })).json.data.id as string;
    const myRoute = await routeOf(mine);
    const theirRoute = await routeOf(theirs);
    const hookOf = async (routeId: string) =>
      (await t.request("POST", "/v1/webhooks", { body: { name: "h", url: "https://hooks.example.com/x", events: ["message.delivered"], route_id: routeId } })).json.data
        .id as string;
    const myHook = await hookOf(myRoute);
    const theirHook = await hookOf(theirRoute);
    await t.request("POST", "/v1/suppressions", { body: { email: "mine@example.com", reason: "manual", scope: "project", project_id: mine } });
    await t.request("POST", "/v1/suppressions", { body: { email: "theirs@example.com", reason: "manual", scope: "project", project_id: theirs } });
    const suppressions = (await t.request("GET", "/v1/suppressions")).json.data as { id: string; value?: string; email?: string; project_id: string }[];
    const theirSuppression = suppressions.find((s) => s.project_id === theirs)!.id;

    const { memberId, session } = await signedInMember(t, "member");
    const assigned = await t.request("PUT", `/v1/team/members/${memberId}/assignment`, { body: { role_id: "member", project_access: { scope: "selected", project_ids: [mine] } } });
    expect(assigned.status).toBe(200);
    expect(assigned.json.project_access).toEqual({ scope: "selected", projects: [{ id: mine, name: expect.any(String) }] });

    // Theirs: 404, as another team's objects are.
    for (const path of [
      `/v1/projects/${theirs}`,
      `/v1/projects/${theirs}/routes`,
      `/v1/routes/${theirRoute}`,
      `/v1/webhooks/${theirHook}`,
      `/v1/webhooks?filter[route_id]=${theirRoute}`,
      `/v1/suppressions?filter[project_id]=${theirs}`,
      `/v1/stats?project_id=${theirs}&${window}`,
    ]) {
      const res = await asSession(t, session, "GET", path);
      expect([path, res.status, res.status === 404 ? "" : res.text]).toEqual([path, 404, ""]);
    }
    expect((await asSession(t, session, "DELETE", `/v1/suppressions/${theirSuppression}`)).status).toBe(404);
    expect((await asSession(t, session, "PUT", `/v1/routes/${theirRoute}`, { name: "renamed" })).status).toBe(404);
    const route = (await t.request("GET", `/v1/routes/${theirRoute}`)).json;
    expect(route.data?.name ?? route.name).toBe("Scoped");
    expect((await asSession(t, session, "POST", "/v1/webhooks", { name: "x", url: "https://hooks.example.com/y", events: ["message.delivered"], route_id: theirRoute })).status).toBe(404);
    // A list over the whole team must be narrowed to one of the member's projects.
    const wide = await asSession(t, session, "GET", "/v1/suppressions");
    expect(wide.status).toBe(422);
    expect(Object.keys(wide.json.errors)).toEqual(["filter[project_id]", "filter[route_id]"]);

    // The list of projects shows theirs only.
    const projectsListed = await asSession(t, session, "GET", "/v1/projects");
    expect(projectsListed.status).toBe(200);
    expect(projectsListed.json.data.map((p: any) => p.id)).toEqual([mine]);
    expect((await t.request("GET", "/v1/projects")).json.data.length).toBe(2);

    // Mine: as before.
    expect((await asSession(t, session, "GET", `/v1/projects/${mine}`)).status).toBe(200);
    expect((await asSession(t, session, "GET", `/v1/routes/${myRoute}`)).status).toBe(200);
    expect((await asSession(t, session, "GET", `/v1/webhooks/${myHook}`)).status).toBe(200);
    const listed = await asSession(t, session, "GET", `/v1/suppressions?filter[project_id]=${mine}`);
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((s: any) => s.project_id)).toEqual([mine]);
    expect((await asSession(t, session, "GET", `/v1/stats?project_id=${mine}&${window}`)).status).toBe(200);

    // Back to all projects: theirs are visible again.
    await t.request("PUT", `/v1/team/members/${memberId}/assignment`, { body: { role_id: "member", project_access: { scope: "all" } } });
    expect((await asSession(t, session, "GET", `/v1/routes/${theirRoute}`)).status).toBe(200);
  });
});

describe(`named team tokens (${engine})`, () => {
  const t = createTestApp();
  const bearer = (token: string, method: string, path: string, body?: unknown) => t.request(method, path, { token, body });

  test("a token with a role and one project: works there, 404 elsewhere, 403 beyond its role; listed without its secret, its last use recorded", async () => {
    const mine = t.team.projectId;
    const theirs = (await t.request("POST", "/v1/projects", { body: { name: "Other" } })).json.data.id as string;
    const made = await t.request("POST", "/v1/team/tokens", { body: { name: "CI", role_id: "member", project_ids: [mine] } });
    expect(made.status).toBe(201);
    expect(made.headers.get("cache-control")).toBe("no-store");
    const secret = made.json.token as string;
    expect(secret.startsWith("ph_team_")).toBe(true);
    expect(made.json.data).toMatchObject({ name: "CI", role_id: "member", project_access: { scope: "selected", projects: [{ id: mine }] }, expires_at: null, last_used_at: null });

    expect((await bearer(secret, "GET", `/v1/projects/${mine}`)).status).toBe(200);
    expect((await bearer(secret, "GET", `/v1/projects/${theirs}`)).status).toBe(404);
    const refused = await bearer(secret, "DELETE", `/v1/projects/${mine}`);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("missing_permission");
    expect((await t.request("GET", `/v1/projects/${mine}`)).status).toBe(200);

    const listed = await t.request("GET", "/v1/team/tokens");
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain(secret.slice(8, 24));
    const row = listed.json.data.find((d: any) => d.id === made.json.data.id);
    expect(Object.keys(row).sort()).toEqual(["created_at", "expires_at", "id", "last_used_at", "last_used_ip", "name", "permissions", "project_access", "role_id", "rotated_at"]);
    // The last use is written beside the request (detached from its answer).
    await waitFor(async () => (await t.request("GET", "/v1/team/tokens")).json.data.find((d: any) => d.id === row.id).last_used_at);
    expect(row.permissions).toContain("messages:read");
    // At rest: the SHA-256 only.
    const stored = await t.sql.get<{ token_hash: string }>("SELECT token_hash FROM team_tokens WHERE id = ?", [row.id]);
    expect(stored!.token_hash).toBe(new Bun.CryptoHasher("sha256").update(secret).digest("hex"));
    // The team's own token keeps working, as an owner's.
    expect((await t.request("DELETE", `/v1/projects/${theirs}`)).status).toBe(200);
  });

  test("rotated: the old secret is refused at once, the new one works; revoked: refused; expired: refused", async () => {
    const made = await t.request("POST", "/v1/team/tokens", { body: { name: "Rotating", permissions: ["projects:read"] } });
    const first = made.json.token as string;
    expect((await bearer(first, "GET", "/v1/projects")).status).toBe(200);
    const rotated = await t.request("POST", `/v1/team/tokens/${made.json.data.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect((await bearer(first, "GET", "/v1/projects")).status).toBe(401);
    expect((await bearer(rotated.json.token, "GET", "/v1/projects")).status).toBe(200);
    expect((await t.request("DELETE", `/v1/team/tokens/${made.json.data.id}`)).status).toBe(200);
    expect((await bearer(rotated.json.token, "GET", "/v1/projects")).status).toBe(401);

    const soon = await t.request("POST", "/v1/team/tokens", { body: { name: "Short", permissions: ["projects:read"], expires_at: new Date(Date.now() + 60_000).toISOString() } });
    expect(soon.status).toBe(201);
    expect((await bearer(soon.json.token, "GET", "/v1/projects")).status).toBe(200);
    await t.sql.run("UPDATE team_tokens SET expires_at = ? WHERE id = ?", [Date.now() - 1000, soon.json.data.id]);
    await Bun.sleep(1100); // past the authenticator's one-second memory of the row
    const expired = await bearer(soon.json.token, "GET", "/v1/projects");
    expect(expired.status).toBe(401);
    expect(expired.json.message).toBe("This token has expired.");
  });

  test("bad input and foreign tokens: refused, nothing made or changed", async () => {
    const count = async () => (await t.request("GET", "/v1/team/tokens")).json.data.length;
    const before = await count();
    const bodies: [unknown, string[]][] = [
      [{ name: "x" }, ["role_id", "permissions"]],
      [{ name: "x", role_id: "member", permissions: ["projects:read"] }, ["role_id", "permissions"]],
      [{ name: "x", permissions: ["projects:read", "tokens:everything"] }, ["permissions.1"]],
      [{ name: "x", role_id: "nope" }, ["role_id"]],
      [{ name: "x", role_id: "member", expires_at: "2001-01-01T00:00:00Z" }, ["expires_at"]],
      [{ name: "x", role_id: "member", project_ids: [t.addTeam().projectId] }, ["project_ids.0"]],
      [{ name: "x", role_id: "owner", project_ids: [t.team.projectId] }, ["project_ids"]],
    ];
    for (const [body, fields] of bodies) {
      const res = await t.request("POST", "/v1/team/tokens", { body });
      expect([JSON.stringify(body), res.status, Object.keys(res.json.errors ?? {})]).toEqual([JSON.stringify(body), 422, fields]);
    }
    expect(await count()).toBe(before);
    // Another team's token: 404 to rotate or revoke, and it keeps working.
    const other = t.addTeam("Other team");
    const theirs = await t.request("POST", "/v1/team/tokens", { token: other.teamToken, body: { name: "Theirs", permissions: ["projects:read"] } });
    expect((await t.request("POST", `/v1/team/tokens/${theirs.json.data.id}/rotate`)).status).toBe(404);
    expect((await t.request("DELETE", `/v1/team/tokens/${theirs.json.data.id}`)).status).toBe(404);
    expect((await bearer(theirs.json.token, "GET", "/v1/projects")).json.data.map((p: any) => p.id)).toEqual([other.projectId]);
    // A token makes no token that may do more than it may.
    const narrow = await t.request("POST", "/v1/team/tokens", { body: { name: "Narrow", permissions: ["team_tokens:manage", "projects:read"] } });
    const wider = await bearer(narrow.json.token, "POST", "/v1/team/tokens", { name: "Wider", permissions: ["projects:delete"] });
    expect(wider.status).toBe(403);
    expect(wider.json.error).toBe("missing_permission");
  });
});
