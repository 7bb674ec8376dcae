import { beforeAll, describe, expect, test } from "bun:test";
import { addGlobalSuppressions } from "../../../src/cli/suppressions.ts";
import { addSuppression, suppressedAmong } from "../../../src/events/message-status.ts";
import { newId } from "../../../src/ids.ts";
import { createTestApp, insertTestDomain } from "../../helpers.ts";
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
      ["sort=subject", "sort"],
      ["filter[scope]=global", "filter[scope]"],
      ["filter[type]=planet", "filter[type]"],
      ["filter[startDate]=yesterday", "filter[startDate]"],
      ["filter[endDate]=2026-13-45", "filter[endDate]"],
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

describe("suppression types: email, domain and extension (Lettermint's SuppressionType), and the global list", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");
  const b = t.addTeam();
  insertTestDomain(t.deps, { teamId, projectId, domain: "mail.shop.example", status: "active" });
  insertTestDomain(t.deps, { teamId: b.teamId, projectId: b.projectId, domain: "mail.b-shop.example", status: "active" });
  const post = (body: Record<string, unknown>) => t.request("POST", "/v1/suppressions", { body });
  const values = (res: { json: { data: { value: string }[] } }) => res.json.data.map((s) => s.value);

  test("domain and extension suppressions: 201 with the values lower-cased (a leading dot of an extension dropped); listed with type, value and email null", async () => {
    const domain = await post({ reason: "manual", scope: "team", type: "domain", value: "Blocked.Example", values: ["other.example", "blocked.example"] });
    expect(domain.status).toBe(201);
    expect(domain.json.data).toEqual({ created: ["blocked.example", "other.example"], skipped: ["blocked.example"] });
    const ext = await post({ reason: "manual", scope: "project", project_id: projectId, type: "extension", value: ".RU" });
    expect(ext.json.data.created).toEqual(["ru"]);
    await post({ reason: "manual", scope: "route", route_id: tx, type: "domain", value: "route-only.example" });
    // The same value as an extension is another suppression: it covers the subdomains.
    expect((await post({ reason: "manual", scope: "team", type: "extension", value: "blocked.example" })).json.data.created).toEqual(["blocked.example"]);
    // An explicit type email is the default's behaviour; value works for it too.
    expect((await post({ reason: "manual", scope: "team", type: "email", value: "Person@Example.net" })).json.data.created).toEqual(["person@example.net"]);

    const listed = await t.request("GET", "/v1/suppressions?filter[type]=domain&sort=value");
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((s: Record<string, unknown>) => [s.type, s.value, s.email, s.scope])).toEqual([
      ["domain", "blocked.example", null, "team"],
      ["domain", "other.example", null, "team"],
      ["domain", "route-only.example", null, "route"],
    ]);
    expect(values(await t.request("GET", "/v1/suppressions?filter[type]=extension&sort=-value"))).toEqual(["ru", "blocked.example"]);
    expect(values(await t.request("GET", "/v1/suppressions?filter[value]=LOCK&sort=value"))).toEqual(["blocked.example", "blocked.example"]);
    expect(values(await t.request("GET", "/v1/suppressions?filter[value]=%25"))).toEqual([]); // % is literal, not a wildcard
    const today = new Date().toISOString().slice(0, 10);
    expect((await t.request("GET", `/v1/suppressions?filter[startDate]=${today}&filter[endDate]=${today}`)).json.data).toHaveLength(6);
    expect((await t.request("GET", "/v1/suppressions?filter[endDate]=2020-01-01")).json.data).toEqual([]);
    expect((await t.request("GET", `/v1/suppressions?filter[startDate]=${new Date(Date.now() + 60_000).toISOString()}`)).json.data).toEqual([]);
  });

  test("bad type, an address for a domain, a malformed domain or extension, the global scope → 422 naming the field; nothing is stored", async () => {
    const before = (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM suppressions"))!.n;
    const m = { reason: "manual", scope: "team" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...m, type: "planet", value: "x.example" }, "type"],
      [{ ...m, type: "domain", email: "a@x.example" }, "email"],
      [{ ...m, type: "domain", value: "a@x.example" }, "value"],
      [{ ...m, type: "extension", value: "a@ru" }, "value"],
      [{ ...m, type: "domain", values: ["ok.example", "exa mple.com"] }, "values.1"],
      [{ ...m, type: "domain", value: "com" }, "value"],
      [{ ...m, type: "domain", value: "-bad.example" }, "value"],
      [{ ...m, type: "domain", value: "10.0.0.1" }, "value"],
      [{ ...m, type: "domain", value: "bücher.example" }, "value"],
      [{ ...m, type: "extension", value: "co..uk" }, "value"],
      [{ ...m, type: "extension", value: "." }, "value"],
      [{ ...m, type: "domain" }, "value"],
      [{ ...m, type: "email", value: "not-an-email" }, "value"],
      [{ ...m, type: "domain", value: "x".repeat(256) }, "value"],
      [{ reason: "manual", scope: "global", type: "domain", value: "x.example" }, "scope"],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
    expect((await post({ reason: "manual", scope: "global", email: "a@x.example" })).json.message).toContain("posthorn suppressions global");
    expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM suppressions"))!.n).toBe(before);
  });

  test("sending: a recipient matched by an address, domain or extension suppression of the team, project, route or global list is suppressed with that suppression in its event; subdomains are not a domain's", async () => {
    expect((await addGlobalSuppressions(t.deps.store, "domain", ["Global.Example"], "spam_complaint")).created).toEqual(["global.example"]);
    const send = (token: string, from: string, route: string | undefined, to: string[]) =>
      t.request("POST", "/v1/send", { projectToken: token, body: { from, to, subject: "Hi", text: "Hello", ...(route ? { route } : {}) } });
    const to = ["a@blocked.example", "b@x.blocked.example", "c@mail.yandex.ru", "d@ru.example", "e@global.example", "f@route-only.example", "person@example.net", "ok@dest.example", "g@blocked.example.org"];
    const res = await send(t.team.projectToken, "hi@mail.shop.example", undefined, to);
    expect(res.status).toBe(202);
    expect(res.json.status).toBe("pending");
    const statuses = async (messageId: string) =>
      Object.fromEntries((await t.sql.all<{ email: string; status: string }>("SELECT email, status FROM recipients WHERE message_id = ?", [messageId])).map((r) => [r.email, r.status]));
    expect(await statuses(res.json.message_id)).toEqual({
      "a@blocked.example": "suppressed", // team domain
      "b@x.blocked.example": "suppressed", // team extension blocked.example (the domain alone would not)
      "c@mail.yandex.ru": "suppressed", // project extension ru
      "d@ru.example": "pending",
      "e@global.example": "suppressed", // the operator's global list
      "f@route-only.example": "suppressed", // the transactional route's domain
      "person@example.net": "suppressed",
      "ok@dest.example": "pending",
      "g@blocked.example.org": "pending",
    });
    const events = await t.sql.all<{ data: string }>("SELECT data FROM message_events WHERE message_id = ? AND kind = 'message.suppressed'", [res.json.message_id]);
    const why = Object.fromEntries(events.map((e) => JSON.parse(e.data) as { recipient: string; suppression: unknown }).map((d) => [d.recipient, d.suppression]));
    expect(why).toEqual({
      "a@blocked.example": { type: "domain", value: "blocked.example", scope: "team", reason: "manual" },
      "b@x.blocked.example": { type: "extension", value: "blocked.example", scope: "team", reason: "manual" },
      "c@mail.yandex.ru": { type: "extension", value: "ru", scope: "project", reason: "manual" },
      "e@global.example": { type: "domain", value: "global.example", scope: "global", reason: "spam_complaint" },
      "f@route-only.example": { type: "domain", value: "route-only.example", scope: "route", reason: "manual" },
      "person@example.net": { type: "email", value: "person@example.net", scope: "team", reason: "manual" },
    });
    // The route's domain suppression holds on that route only.
    expect((await send(t.team.projectToken, "hi@mail.shop.example", "broadcast", ["f@route-only.example"])).json.status).toBe("pending");
    // Another team: the global list applies, this team's list does not.
    const other = await send(b.projectToken, "hi@mail.b-shop.example", undefined, ["a@blocked.example", "e@global.example"]);
    expect(await statuses(other.json.message_id)).toEqual({ "a@blocked.example": "pending", "e@global.example": "suppressed" });
    // Lifting the domain suppression lets the address through again.
    const id = (await t.request("GET", "/v1/suppressions?filter[type]=domain&filter[value]=blocked.example")).json.data[0].id;
    expect((await t.request("DELETE", `/v1/suppressions/${id}`)).status).toBe(200);
    expect((await send(t.team.projectToken, "hi@mail.shop.example", undefined, ["a@blocked.example"])).json.status).toBe("pending");
  });

  test("the global list is not the teams': never listed, a team cannot delete its entries (404)", async () => {
    await addGlobalSuppressions(t.deps.store, "email", ["only-global@example.org"]);
    const entry = (await t.deps.store.read.suppressions.listGlobal()).find((r) => r.value === "only-global@example.org")!;
    for (const token of [t.team.teamToken, b.teamToken]) {
      const listed = await t.request("GET", "/v1/suppressions?page[size]=100", { token });
      expect(listed.json.data.some((s: { value: string; scope: string }) => s.scope === "global" || s.value.includes("global"))).toBe(false);
      expect((await t.request("DELETE", `/v1/suppressions/${entry.id}`, { token })).status).toBe(404);
    }
    expect((await t.deps.store.read.suppressions.listGlobal()).map((r) => r.value)).toContain("only-global@example.org");
  });

  test("source_message: an automatic suppression names the message that caused it, available until that message is gone", async () => {
    const sent = await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: { from: "hi@mail.shop.example", to: ["bounce@dest.example"], subject: "Your order", text: "Shipped." } });
    expect(sent.json).toEqual({ message_id: expect.any(String), status: "pending" });
    const messageId = sent.json.message_id as string;
    await addSuppression(t.deps.store.read, { teamId, scope: "team", email: "bounce@dest.example", reason: "hard_bounce", sourceMessageId: messageId });
    const row = async () => (await t.request("GET", "/v1/suppressions?filter[email]=bounce@dest.example")).json.data[0];
    expect((await row()).source_message).toEqual({ id: messageId, available: true, subject: "Your order", created_at: expect.any(String) });
    await t.sql.run("DELETE FROM messages WHERE id = ?", [messageId]);
    expect((await row()).source_message).toEqual({ id: messageId, available: false, subject: null, created_at: null });
    // Team B cannot learn of team A's message through a suppression of its own naming it.
    const again = await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: { from: "hi@mail.shop.example", to: ["y@dest.example"], subject: "Secret", text: "Shipped." } });
    await addSuppression(t.deps.store.read, { teamId: b.teamId, scope: "team", email: "x@dest.example", reason: "hard_bounce", sourceMessageId: again.json.message_id });
    const bRow = (await t.request("GET", "/v1/suppressions?filter[email]=x@dest.example", { token: b.teamToken })).json.data[0];
    expect(bRow.source_message).toEqual({ id: again.json.message_id, available: false, subject: null, created_at: null });
  });
});
