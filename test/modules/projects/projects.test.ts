import { describe, expect, test } from "bun:test";
import { addSuppression } from "../../../src/events/message-status.ts";
import { newId } from "../../../src/ids.ts";
import { createTestApp, insertTestDomain, waitFor, type TestApp } from "../../helpers.ts";
import { DAY, insertMessage, insertWebhook, routeIdOf } from "../messages/fixtures.ts";

const PROJECT_KEYS = [
  "id", "name", "smtp_enabled", "redact_email_content", "default_route_id", "token_generated_at", "token_last_used_at", "token_last_used_ip", "created_at",
  "updated_at", "routes", "routes_count", "domains", "domains_count", "team_members", "team_members_count", "last_28_days",
].sort();

function addTeamMember(t: TestApp, teamId: string, role = "member"): string {
  const userId = newId();
  const id = newId();
  const now = Date.now();
  t.sqlNow.run("INSERT INTO users (id, name, email, avatar, created_at) VALUES (?, 'Dana', ?, 'https://a.example/d.png', ?)", [userId, `dana-${userId}@example.com`, now]);
  t.sqlNow.run("INSERT INTO team_members (id, team_id, user_id, role, joined_at, created_at) VALUES (?, ?, ?, ?, ?, ?)", [id, teamId, userId, role, now, now]);
  return id;
}

describe("GET /v1/projects/{id}: ProjectData", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");
  const bc = routeIdOf(t.deps, projectId, "broadcast");
  const inbound = routeIdOf(t.deps, projectId, "inbound");
  const now = Date.now();
  for (const status of ["delivered", "delivered", "opened", "hard_bounced", "pending"]) insertMessage(t.deps, { teamId, projectId, routeId: tx, status, createdAt: now - DAY });
  insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "failed", createdAt: now - 2 * DAY });
  insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "failed", createdAt: now - 30 * DAY }); // outside the window
  insertMessage(t.deps, { teamId, projectId, routeId: bc, status: "delivered", createdAt: now - 3 * DAY });
  insertMessage(t.deps, { teamId, projectId, routeId: inbound, type: "inbound", status: "delivered", createdAt: now - 3 * DAY });
  const domain = insertTestDomain(t.deps, { teamId, projectId, domain: "mail.example.com" });
  insertTestDomain(t.deps, { teamId, domain: "unattached.example.com" });

  test("exact field set, routes with an empty project, domains, last_28_days", async () => {
    const res = await t.request("GET", `/v1/projects/${projectId}`);
    expect(res.status).toBe(200);
    const p = res.json;
    expect(Object.keys(p).sort()).toEqual(PROJECT_KEYS);
    expect(p).toMatchObject({ id: projectId, name: "Default project", smtp_enabled: false, default_route_id: tx, token_last_used_ip: null });
    expect(p.routes_count).toBe(3);
    expect(p.routes.map((r: { slug: string }) => r.slug)).toEqual(["transactional", "broadcast", "inbound"]);
    for (const r of p.routes) {
      // The spec leaves the nested project "empty or unknown"; Lettermint's SDK types allow it absent, not null.
      expect(r.project).toBeUndefined();
      expect(r.project_id).toBe(projectId);
      expect(r.is_default).toBe(true);
    }
    expect(p.domains_count).toBe(1);
    expect(p.domains).toEqual([{ id: domain.domainId, domain: "mail.example.com", status_changed_at: expect.any(String), created_at: expect.any(String) }]);
    expect(p.team_members).toEqual([]);
    expect(p.team_members_count).toBe(0);
    // transactional: 6 in the window; broadcast 1; inbound 1. Outcomes: delivered 2 + opened 1 +
    // broadcast delivered 1 = 4 delivered vs hard_bounced 1 + failed 1 → 4/6 = 66.7 %.
    expect(p.last_28_days).toEqual({ messages_transactional: 6, messages_broadcast: 1, messages_inbound: 1, deliverability: 66.7, opens_human: 0, opens_machine: 0, clicks_human: 0, clicks_machine: 0 });
  });

  test("another team's project, an unknown id and a non-UUID id are all 404", async () => {
    const b = t.addTeam();
    for (const [token, id] of [[b.teamToken, projectId], [t.team.teamToken, b.projectId], [t.team.teamToken, newId()], [t.team.teamToken, "not-a-uuid"]] as const) {
      const res = await t.request("GET", `/v1/projects/${id}`, { token });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Project not found.", error: "not_found" });
    }
  });

  test("401 without a token", async () => {
    expect((await t.request("GET", `/v1/projects/${projectId}`, { token: null })).status).toBe(401);
  });
});

describe("GET/POST /v1/projects", () => {
  const t = createTestApp();

  test("create → 201, token once, three default routes, and the token sends", async () => {
    const res = await t.request("POST", "/v1/projects", { body: { name: " Shop ", smtp_enabled: true } });
    expect(res.status).toBe(201);
    expect(res.json.message).toContain("Project created successfully.");
    expect(res.json.token).toStartWith("ph_");
    expect(res.json.token).not.toStartWith("ph_team_");
    // The same token under the name Lettermint's SDKs read.
    expect(res.json.api_token).toBe(res.json.token);
    const p = res.json.data;
    expect(Object.keys(p).sort()).toEqual(PROJECT_KEYS);
    expect(p.name).toBe("Shop");
    expect(p.smtp_enabled).toBe(true);
    expect(p.routes.map((r: { route_type: string }) => r.route_type)).toEqual(["transactional", "broadcast", "inbound"]);
    expect(p.routes[2].inbound_address).toEndWith(`@${t.config.inboundDomain}`);
    expect(p.last_28_days).toEqual({ messages_transactional: 0, messages_broadcast: 0, messages_inbound: 0, deliverability: 0, opens_human: 0, opens_machine: 0, clicks_human: 0, clicks_machine: 0 });
    const ping = await t.request("GET", "/v1/ping", { projectToken: res.json.token });
    expect(ping.json.project_id).toBe(p.id);
    // Shown once: reading the project never returns it.
    expect((await t.request("GET", `/v1/projects/${p.id}`)).text).not.toContain(res.json.token);
  });

  test("list: paginated, newest first, only the caller's team", async () => {
    const b = t.addTeam();
    const res = await t.request("GET", "/v1/projects?page[size]=1");
    expect(res.status).toBe(200);
    expect(res.json.per_page).toBe(1);
    expect(res.json.data[0].name).toBe("Shop");
    const next = await t.request("GET", res.json.next_page_url.replace("http://localhost:8080", ""));
    expect(next.json.data[0].id).toBe(t.team.projectId);
    expect(next.json.next_cursor).toBeNull();
    const all = await t.request("GET", "/v1/projects");
    expect(all.json.data.map((p: { id: string }) => p.id)).not.toContain(b.projectId);
    const sorted = await t.request("GET", "/v1/projects?sort=name");
    expect(sorted.json.data.map((p: { name: string }) => p.name)).toEqual(["Default project", "Shop"]);
    expect((await t.request("GET", "/v1/projects?sort=token")).status).toBe(422);
  });

  test("name limits and types → 422 naming the field", async () => {
    const cases: [unknown, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ name: "ok", smtp_enabled: "yes" }, "smtp_enabled"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", "/v1/projects", { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
    expect((await t.request("POST", "/v1/projects", { body: { name: "x".repeat(255) } })).status).toBe(201);
  });

  test("401 without a token", async () => {
    expect((await t.request("GET", "/v1/projects", { token: null })).status).toBe(401);
    expect((await t.request("POST", "/v1/projects", { token: null, body: { name: "x" } })).status).toBe(401);
  });
});

describe("PUT /v1/projects/{id}", () => {
  const t = createTestApp();
  const path = `/v1/projects/${t.team.projectId}`;

  test("updates name and smtp_enabled; envelope", async () => {
    const res = await t.request("PUT", path, { body: { name: "Renamed", smtp_enabled: true } });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Project updated successfully.");
    expect(res.json.data).toMatchObject({ id: t.team.projectId, name: "Renamed", smtp_enabled: true });
    const partial = await t.request("PUT", path, { body: { smtp_enabled: false } });
    expect(partial.json.data).toMatchObject({ name: "Renamed", smtp_enabled: false });
    const nulls = await t.request("PUT", path, { body: { name: null, smtp_enabled: null } });
    expect(nulls.json.data).toMatchObject({ name: "Renamed", smtp_enabled: false });
  });

  test("422 on limits and types", async () => {
    for (const [body, field] of [[{ name: "x".repeat(256) }, "name"], [{ name: " " }, "name"], [{ smtp_enabled: 1 }, "smtp_enabled"]] as const) {
      const res = await t.request("PUT", path, { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
  });

  test("401 and 404", async () => {
    expect((await t.request("PUT", path, { token: null, body: { name: "x" } })).status).toBe(401);
    expect((await t.request("PUT", `/v1/projects/${newId()}`, { body: { name: "x" } })).status).toBe(404);
  });
});

describe("PUT /v1/projects/{id}/members", () => {
  const t = createTestApp();
  const path = `/v1/projects/${t.team.projectId}/members`;
  const owner = t.sqlNow.get<{ id: string }>("SELECT id FROM team_members WHERE team_id = ?", [t.team.teamId])!.id;
  const dana = addTeamMember(t, t.team.teamId);

  test("replaces the member list; envelope with ProjectTeamMember items", async () => {
    const res = await t.request("PUT", path, { body: { team_member_ids: [owner, dana] } });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Project members updated successfully.");
    expect(res.json.data.team_members_count).toBe(2);
    const m = res.json.data.team_members.find((x: { id: string }) => x.id === dana);
    expect(Object.keys(m).sort()).toEqual(["created_at", "id", "joined_at", "role", "status", "user"]);
    expect(m.role).toBe("member");
    expect(m.user).toMatchObject({ name: "Dana", avatar: "https://a.example/d.png" });
    expect(res.json.data.team_members.find((x: { id: string }) => x.id === owner).role).toBe("owner");

    const joined = m.joined_at;
    await Bun.sleep(5);
    const again = await t.request("PUT", path, { body: { team_member_ids: [dana] } });
    expect(again.json.data.team_members.map((x: { id: string }) => x.id)).toEqual([dana]);
    expect(again.json.data.team_members[0].joined_at).toBe(joined);

    const cleared = await t.request("PUT", path, { body: { team_member_ids: [] } });
    expect(cleared.json.data.team_members_count).toBe(0);
  });

  test("non-UUID, unknown and other-team member ids → 422 naming the item; nothing changes", async () => {
    await t.request("PUT", path, { body: { team_member_ids: [owner] } });
    const b = t.addTeam();
    const bMember = (await t.sql.get<{ id: string }>("SELECT id FROM team_members WHERE team_id = ?", [b.teamId]))!.id;
    const cases: [unknown, string][] = [
      [{ team_member_ids: ["nope"] }, "team_member_ids.0"],
      [{ team_member_ids: [owner, newId()] }, "team_member_ids.1"],
      [{ team_member_ids: [bMember] }, "team_member_ids.0"],
      [{ team_member_ids: "x" }, "team_member_ids"],
      [{}, "team_member_ids"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("PUT", path, { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
    const p = await t.request("GET", `/v1/projects/${t.team.projectId}`);
    expect(p.json.team_members.map((x: { id: string }) => x.id)).toEqual([owner]);
  });

  test("401 and 404", async () => {
    expect((await t.request("PUT", path, { token: null, body: { team_member_ids: [] } })).status).toBe(401);
    expect((await t.request("PUT", `/v1/projects/${newId()}/members`, { body: { team_member_ids: [] } })).status).toBe(404);
  });
});

describe("POST /v1/projects/{id}/rotate-token", () => {
  const t = createTestApp();

  test("returns the new token once; the old one is refused at once", async () => {
    expect((await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken })).status).toBe(200);
    const res = await t.request("POST", `/v1/projects/${t.team.projectId}/rotate-token`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["data", "message", "new_token"]);
    expect(res.json.message).toBe("API token rotated successfully. Please update your integrations.");
    expect(res.json.new_token).toStartWith("ph_");
    expect(res.json.data.id).toBe(t.team.projectId);
    expect(res.json.data.token_last_used_at).toBeNull();
    expect((await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken })).status).toBe(401);
    expect((await t.request("GET", "/v1/ping", { projectToken: res.json.new_token })).status).toBe(200);
    // The new token's first use is recorded even though the old one was used a moment ago.
    await waitFor(async () => (await t.sql.get<{ u: number | null }>("SELECT token_last_used_at AS u FROM projects WHERE id = ?", [t.team.projectId]))?.u);
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}`)).text).not.toContain(res.json.new_token);
  });

  test("401 and 404", async () => {
    expect((await t.request("POST", `/v1/projects/${t.team.projectId}/rotate-token`, { token: null })).status).toBe(401);
    expect((await t.request("POST", `/v1/projects/${newId()}/rotate-token`)).status).toBe(404);
  });
});

describe("DELETE /v1/projects/{id}", () => {
  test("removes what hangs off the project, keeps messages detached and the team's domains and other projects", async () => {
    const t = createTestApp();
    const { teamId, projectId } = t.team;
    const tx = routeIdOf(t.deps, projectId, "transactional");
    const other = (await t.request("POST", "/v1/projects", { body: { name: "Other" } })).json.data;
    const otherRoute = other.routes[0].id;
    const hook = await insertWebhook(t.deps, teamId, tx);
    const otherHook = await insertWebhook(t.deps, teamId, otherRoute);
    await t.deps.queue.enqueue("outbound", { messageId: "m" }, { runAt: Date.now() + 60_000 });
    const deliveryJob = (await t.sql.get<{ id: number }>("SELECT max(id) AS id FROM jobs"))!.id;
    const domain = insertTestDomain(t.deps, { teamId, projectId, domain: "keep.example.com" });
    await addSuppression(t.deps.store.read, { teamId, scope: "team", email: "team@example.net", reason: "manual" });
    await addSuppression(t.deps.store.read, { teamId, scope: "project", projectId, email: "p@example.net", reason: "manual" });
    await addSuppression(t.deps.store.read, { teamId, scope: "route", routeId: tx, email: "r@example.net", reason: "manual" });
    await addSuppression(t.deps.store.read, { teamId, scope: "route", routeId: otherRoute, email: "o@example.net", reason: "manual" });
    await t.sql.run("INSERT INTO idempotency_keys (project_id, key, request_hash, created_at, expires_at) VALUES (?, 'k', 'h', ?, ?)", [projectId, Date.now(), Date.now() + DAY]);
    const messageId = insertMessage(t.deps, { teamId, projectId, routeId: tx, domainId: domain.domainId, status: "queued" });

    // Used a moment before: the token's row is remembered, and the deletion forgets it.
    expect((await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken })).status).toBe(200);
    const res = await t.request("DELETE", `/v1/projects/${projectId}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: "Project deleted successfully." });

    const count = async (sql: string, p: string | number) => (await t.sql.get<{ n: number }>(sql, [p]))!.n;
    expect(await count("SELECT count(*) AS n FROM routes WHERE project_id = ?", projectId)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM webhooks WHERE id = ?", hook.webhookId)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?", hook.webhookId)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM jobs WHERE id = ?", hook.jobId)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM jobs WHERE id = ?", otherHook.jobId)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM jobs WHERE id = ?", deliveryJob)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM project_domains WHERE project_id = ?", projectId)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM domains WHERE id = ?", domain.domainId)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM idempotency_keys WHERE project_id = ?", projectId)).toBe(0);
    expect((await t.sql.all<{ email: string }>("SELECT email FROM suppressions ORDER BY email")).map((r) => r.email)).toEqual([
      "o@example.net",
      "team@example.net",
    ]);
    const m = await t.sql.get<{ project_id: string | null; route_id: string | null; status: string }>("SELECT project_id, route_id, status FROM messages WHERE id = ?", [messageId]);
    expect(m).toEqual({ project_id: null, route_id: null, status: "queued" });
    // Still readable through the API, with the route detached.
    const read = await t.request("GET", `/v1/messages/${messageId}`);
    expect(read.status).toBe(200);
    expect(read.json.route_id).toBeNull();

    expect((await t.request("GET", `/v1/projects/${projectId}`)).status).toBe(404);
    expect((await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken })).status).toBe(401);
    expect((await t.request("GET", `/v1/projects/${other.id}`)).json.routes_count).toBe(3);
    expect((await t.request("DELETE", `/v1/projects/${projectId}`)).status).toBe(404);
  });

  test("401", async () => {
    const t = createTestApp();
    expect((await t.request("DELETE", `/v1/projects/${t.team.projectId}`, { token: null })).status).toBe(401);
  });
});

describe("cross-team: team B's token on team A's project → 404 everywhere, nothing changes", () => {
  const t = createTestApp();
  const b = t.addTeam();
  const id = t.team.projectId;
  const calls: [string, string, unknown?][] = [
    ["GET", `/v1/projects/${id}`],
    ["PUT", `/v1/projects/${id}`, { name: "stolen" }],
    ["PUT", `/v1/projects/${id}/members`, { team_member_ids: [] }],
    ["POST", `/v1/projects/${id}/rotate-token`],
    ["GET", `/v1/projects/${id}/routes`],
    ["POST", `/v1/projects/${id}/routes`, { name: "x", route_type: "transactional" }],
    ["DELETE", `/v1/projects/${id}`],
  ];
  for (const [method, path, body] of calls) {
    test(`${method} ${path.replace(id, "{A}")}`, async () => {
      const res = await t.request(method, path, { token: b.teamToken, body });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Project not found.", error: "not_found" });
    });
  }
  test("team A's project is untouched and its token still works", async () => {
    const p = await t.request("GET", `/v1/projects/${id}`);
    expect(p.json.name).toBe("Default project");
    expect(p.json.routes_count).toBe(3);
    expect((await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken })).status).toBe(200);
  });
});
