import { beforeAll, describe, expect, test } from "bun:test";
import { addSuppression, suppressedAmong } from "../../../src/events/message-status.ts";
import { newId } from "../../../src/ids.ts";
import { createTestApp } from "../../helpers.ts";
import { routeIdOf } from "../messages/fixtures.ts";

describe("POST /v1/suppressions", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");

  test("team scope, one email: 201 listing the address created (Lettermint's created: string[]); the address is suppressed for sending", async () => {
    const res = await t.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "team", email: "Bounce@Example.net" } });
    expect(res.status).toBe(201);
    expect(res.json.message).toBe("1 suppression created, 0 skipped.");
    expect(res.json.data.skipped).toEqual([]);
    expect(res.json.data.created).toEqual(["bounce@example.net"]);
    const listed = await t.request("GET", "/v1/suppressions?filter[email]=bounce@example.net");
    expect(listed.json.data).toEqual([
      {
        id: expect.any(String), email: "bounce@example.net", scope: "team", reason: "manual", project_id: null, route_id: null, created_at: expect.any(String),
        type: "email", value: "bounce@example.net", source_message: null, updated_at: expect.any(String),
      },
    ]);
    expect((await suppressedAmong(t.deps.store.read, { teamId, projectId, routeId: tx }, ["BOUNCE@example.net"])).size).toBe(1);
  });

  test("emails in bulk: duplicates and existing ones are listed as skipped", async () => {
    const res = await t.request("POST", "/v1/suppressions", {
      body: { reason: "unsubscribe", scope: "route", route_id: tx, email: "x@example.net", emails: ["y@example.net", "X@example.net", "z@example.net"] },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.created).toEqual(["x@example.net", "y@example.net", "z@example.net"]);
    expect((await t.request("GET", "/v1/suppressions?filter[email]=x@example.net")).json.data[0]).toMatchObject({ scope: "route", route_id: tx, project_id: null, reason: "unsubscribe" });
    expect(res.json.data.skipped).toEqual(["x@example.net"]);

    const again = await t.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "route", route_id: tx, emails: ["y@example.net", "new@example.net"] } });
    expect(again.json.message).toBe("1 suppression created, 1 skipped.");
    expect(again.json.data).toEqual({ created: ["new@example.net"], skipped: ["y@example.net"] });
    // Same address in another scope is a separate suppression.
    const project = await t.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "project", project_id: projectId, emails: ["y@example.net"] } });
    expect(project.json.data.created).toEqual(["y@example.net"]);
    expect((await t.request("GET", "/v1/suppressions?filter[scope]=project")).json.data[0]).toMatchObject({ email: "y@example.net", scope: "project", project_id: projectId, route_id: null });
  });

  test("1000 addresses are accepted in one request", async () => {
    const emails = Array.from({ length: 1000 }, (_, i) => `bulk${i}@example.org`);
    const res = await t.request("POST", "/v1/suppressions", { body: { reason: "hard_bounce", scope: "team", emails } });
    expect(res.status).toBe(201);
    expect(res.json.data.created).toHaveLength(1000);
  });

  test("422 naming the field on each limit and rule; nothing is stored", async () => {
    const before = (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM suppressions"))!.n;
    const b = t.addTeam();
    const long = `${"a".repeat(244)}@example.com`; // 256 characters
    const cases: [unknown, string][] = [
      [{ scope: "team", email: "a@example.net" }, "reason"],
      [{ reason: "bored", scope: "team", email: "a@example.net" }, "reason"],
      [{ reason: "manual", email: "a@example.net" }, "scope"],
      [{ reason: "manual", scope: "world", email: "a@example.net" }, "scope"],
      [{ reason: "manual", scope: "team" }, "email"],
      [{ reason: "manual", scope: "team", email: null, emails: null }, "email"],
      [{ reason: "manual", scope: "team", email: "not-an-email" }, "email"],
      [{ reason: "manual", scope: "team", email: long }, "email"],
      [{ reason: "manual", scope: "team", emails: [] }, "emails"],
      [{ reason: "manual", scope: "team", emails: Array.from({ length: 1001 }, (_, i) => `e${i}@example.org`) }, "emails"],
      [{ reason: "manual", scope: "team", emails: ["ok@example.org", "nope"] }, "emails.1"],
      [{ reason: "manual", scope: "team", emails: ["ok@example.org", long] }, "emails.1"],
      [{ reason: "manual", scope: "team", emails: "a@example.org" }, "emails"],
      [{ reason: "manual", scope: "project", email: "a@example.net" }, "project_id"],
      [{ reason: "manual", scope: "project", project_id: "123", email: "a@example.net" }, "project_id"],
      [{ reason: "manual", scope: "project", project_id: newId(), email: "a@example.net" }, "project_id"],
      [{ reason: "manual", scope: "project", project_id: b.projectId, email: "a@example.net" }, "project_id"],
      [{ reason: "manual", scope: "route", email: "a@example.net" }, "route_id"],
      [{ reason: "manual", scope: "route", route_id: routeIdOf(t.deps, b.projectId, "transactional"), email: "a@example.net" }, "route_id"],
      [{ reason: "manual", scope: "team", route_id: tx, email: "a@example.net" }, "route_id"],
      [{ reason: "manual", scope: "route", route_id: tx, project_id: projectId, email: "a@example.net" }, "project_id"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", "/v1/suppressions", { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
    expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM suppressions"))!.n).toBe(before);
  });

  test("401", async () => {
    expect((await t.request("POST", "/v1/suppressions", { token: null, body: { reason: "manual", scope: "team", email: "a@example.net" } })).status).toBe(401);
  });
});

describe("GET /v1/suppressions and DELETE /v1/suppressions/{id}", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");
  const t0 = Date.now() - 10_000;
  const b = t.addTeam();
  beforeAll(async () => {
    const read = t.deps.store.read;
    await addSuppression(read, { teamId, scope: "team", email: "hb@example.net", reason: "hard_bounce" }, t0);
    await addSuppression(read, { teamId, scope: "team", email: "spam@example.net", reason: "spam_complaint" }, t0 + 1);
    await addSuppression(read, { teamId, scope: "project", projectId, email: "hb@example.net", reason: "manual" }, t0 + 2);
    await addSuppression(read, { teamId, scope: "route", routeId: tx, email: "unsub@example.net", reason: "unsubscribe" }, t0 + 3);
    await addSuppression(read, { teamId: b.teamId, scope: "team", email: "b-only@example.net", reason: "manual" });
  });
  const emails = (res: { json: { data: { email: string }[] } }) => res.json.data.map((s) => s.email);

  test("paginated, newest first, only the caller's team", async () => {
    const res = await t.request("GET", "/v1/suppressions");
    expect(res.status).toBe(200);
    expect(res.json.per_page).toBe(30);
    expect(emails(res)).toEqual(["unsub@example.net", "hb@example.net", "spam@example.net", "hb@example.net"]);
    expect(Object.keys(res.json.data[0]).sort()).toEqual(["created_at", "email", "id", "project_id", "reason", "route_id", "scope", "source_message", "type", "updated_at", "value"]);
    const page = await t.request("GET", "/v1/suppressions?page[size]=3&sort=email");
    expect(emails(page)).toEqual(["hb@example.net", "hb@example.net", "spam@example.net"]);
    expect(emails(await t.request("GET", page.json.next_page_url.replace("http://localhost:8080", "")))).toEqual(["unsub@example.net"]);
  });

  test("filters: email (case-insensitive), scope, reason, project_id, route_id", async () => {
    const cases: [string, string[]][] = [
      ["filter[email]=HB@example.net", ["hb@example.net", "hb@example.net"]],
      ["filter[scope]=team", ["spam@example.net", "hb@example.net"]],
      ["filter[reason]=unsubscribe", ["unsub@example.net"]],
      [`filter[project_id]=${projectId}`, ["hb@example.net"]],
      [`filter[route_id]=${tx}`, ["unsub@example.net"]],
      ["filter[email]=hb@example.net&filter[scope]=project", ["hb@example.net"]],
      ["filter[email]=b-only@example.net", []],
    ];
    for (const [q, expected] of cases) {
      const res = await t.request("GET", `/v1/suppressions?${q}`);
      expect(res.status).toBe(200);
      expect(emails(res)).toEqual(expected);
    }
  });

  test("unknown filter, bad filter value or sort → 422", async () => {
    for (const [q, field] of [
      ["filter[scope]=planet", "filter[scope]"],
      ["filter[reason]=bored", "filter[reason]"],
      ["filter[route_id]=x", "filter[route_id]"],
      ["filter[domain]=x", "filter[domain]"],
      ["sort=reason", "sort"],
      ["page[size]=0", "page[size]"],
    ]) {
      const res = await t.request("GET", `/v1/suppressions?${q}`);
      expect(res.status).toBe(422);
      expect(res.json.message).toContain(field!);
    }
  });

  test("delete lifts the suppression: 200 with the message, then 404", async () => {
    const target = (await t.request("GET", "/v1/suppressions?filter[scope]=route")).json.data[0];
    expect((await suppressedAmong(t.deps.store.read, { teamId, projectId, routeId: tx }, ["unsub@example.net"])).size).toBe(1);
    const res = await t.request("DELETE", `/v1/suppressions/${target.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: "Suppression deleted successfully.", success: true, status: "removed" });
    expect((await suppressedAmong(t.deps.store.read, { teamId, projectId, routeId: tx }, ["unsub@example.net"])).size).toBe(0);
    const again = await t.request("DELETE", `/v1/suppressions/${target.id}`);
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ message: "Suppression not found.", error: "not_found" });
    expect((await t.request("DELETE", "/v1/suppressions/not-a-uuid")).status).toBe(404);
  });

  test("401", async () => {
    expect((await t.request("GET", "/v1/suppressions", { token: null })).status).toBe(401);
    expect((await t.request("DELETE", `/v1/suppressions/${newId()}`, { token: null })).status).toBe(401);
  });

  test("cross-team: team B's token on team A's suppression → 404, and it stays", async () => {
    const target = (await t.request("GET", "/v1/suppressions")).json.data[0];
    const res = await t.request("DELETE", `/v1/suppressions/${target.id}`, { token: b.teamToken });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: "Suppression not found.", error: "not_found" });
    expect((await t.request("GET", "/v1/suppressions")).json.data[0].id).toBe(target.id);
    expect(emails(await t.request("GET", "/v1/suppressions", { token: b.teamToken }))).toEqual(["b-only@example.net"]);
  });
});
