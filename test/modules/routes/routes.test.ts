import { beforeAll, describe, expect, test } from "bun:test";
import { addSuppression } from "../../../src/events/message-status.ts";
import { MESSAGE_STATUSES } from "../../../src/db/recipient-status.ts";
import { newId } from "../../../src/ids.ts";
import { createTestApp } from "../../helpers.ts";
import { DAY, insertMessage, insertWebhook, routeIdOf } from "../messages/fixtures.ts";

const ROUTE_KEYS = [
  "id", "project_id", "slug", "name", "route_type", "is_default", "created_at", "updated_at", "inbound_address", "inbound_domain",
  "inbound_domain_verified_at", "inbound_spam_threshold", "attachment_delivery", "track_opens", "track_clicks", "settings", "webhooks_count",
  "suppressed_recipients_count",
].sort();

describe("POST /v1/projects/{id}/routes", () => {
  const t = createTestApp();
  const path = `/v1/projects/${t.team.projectId}/routes`;

  test("201, envelope with the spec's message, route with nested project", async () => {
    const res = await t.request("POST", path, { body: { name: "Receipts", route_type: "transactional", slug: "receipts" } });
    expect(res.status).toBe(201);
    expect(res.json.message).toBe("Route created successfully.");
    const r = res.json.data;
    expect(Object.keys(r).sort()).toEqual([...ROUTE_KEYS, "project"].sort());
    expect(r).toMatchObject({
      project_id: t.team.projectId,
      slug: "receipts",
      name: "Receipts",
      route_type: "transactional",
      is_default: false,
      inbound_address: null,
      inbound_spam_threshold: null,
      webhooks_count: 0,
      suppressed_recipients_count: 0,
    });
    expect(r.project.id).toBe(t.team.projectId);
    expect(r.project.routes_count).toBe(4);
    for (const nested of r.project.routes) expect(nested.project).toBeUndefined();
  });

  test("inbound routes get a generated address on the inbound domain and the default spam threshold", async () => {
    const res = await t.request("POST", path, { body: { name: "Support inbox", route_type: "inbound" } });
    expect(res.status).toBe(201);
    expect(res.json.data.inbound_address).toMatch(new RegExp(`^[0-9a-f]{32}@${t.config.inboundDomain.replace(/\./g, "\\.")}$`));
    expect(res.json.data.inbound_spam_threshold).toBe(5);
    expect(res.json.data.attachment_delivery).toBe("inline");
  });

  test("slug is derived from the name when absent, with a suffix when taken", async () => {
    const a = await t.request("POST", path, { body: { name: "Newsletter — Été 2024!", route_type: "broadcast" } });
    expect(a.json.data.slug).toBe("newsletter-ete-2024");
    const b = await t.request("POST", path, { body: { name: "Newsletter: Été 2024", route_type: "broadcast" } });
    expect(b.json.data.slug).toBe("newsletter-ete-2024-2");
    const c = await t.request("POST", path, { body: { name: "!!!", route_type: "inbound" } });
    expect(c.json.data.slug).toBe("inbound-2");
  });

  test("an explicit slug already used in the project → 409; the same slug in another project is fine", async () => {
    const dup = await t.request("POST", path, { body: { name: "Again", route_type: "transactional", slug: "transactional" } });
    expect(dup.status).toBe(409);
    expect(dup.json.message).toContain('"transactional"');
    const other = (await t.request("POST", "/v1/projects", { body: { name: "Other" } })).json.data.id;
    const ok = await t.request("POST", `/v1/projects/${other}/routes`, { body: { name: "R", route_type: "transactional", slug: "receipts" } });
    expect(ok.status).toBe(201);
  });

  test("422 naming the field: required fields, name length, route_type, slug rules", async () => {
    const cases: [unknown, string][] = [
      [{ route_type: "transactional" }, "name"],
      [{ name: "x".repeat(256), route_type: "transactional" }, "name"],
      [{ name: "", route_type: "transactional" }, "name"],
      [{ name: "   ", route_type: "transactional" }, "name"],
      [{ name: "x" }, "route_type"],
      [{ name: "x", route_type: "marketing" }, "route_type"],
      [{ name: "x", route_type: "broadcast", slug: "Has Spaces" }, "slug"],
      [{ name: "x", route_type: "broadcast", slug: "-dash" }, "slug"],
      [{ name: "x", route_type: "broadcast", slug: "" }, "slug"],
      [{ name: "x", route_type: "broadcast", slug: "a".repeat(65) }, "slug"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request("POST", path, { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
    expect((await t.request("POST", path, { body: { name: "n".repeat(255), route_type: "broadcast", slug: "a".repeat(64) } })).status).toBe(201);
  });

  test("401 and 404", async () => {
    expect((await t.request("POST", path, { token: null, body: { name: "x", route_type: "inbound" } })).status).toBe(401);
    const res = await t.request("POST", `/v1/projects/${newId()}/routes`, { body: { name: "x", route_type: "inbound" } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: "Project not found.", error: "not_found" });
  });
});

describe("GET /v1/routes/{id} and GET /v1/projects/{id}/routes", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");
  const now = Date.now();
  for (const status of ["delivered", "delivered", "delivered", "hard_bounced", "queued"]) insertMessage(t.deps, { teamId, projectId, routeId: tx, status, createdAt: now - DAY });
  insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "delivered", createdAt: now - 40 * DAY });
  beforeAll(async () => {
    await insertWebhook(t.deps, teamId, tx);
    await insertWebhook(t.deps, teamId, tx);
    const read = t.deps.store.read;
    await addSuppression(read, { teamId, scope: "team", email: "a@example.net", reason: "hard_bounce" });
    await addSuppression(read, { teamId, scope: "project", projectId, email: "a@example.net", reason: "manual" });
    await addSuppression(read, { teamId, scope: "route", routeId: tx, email: "b@example.net", reason: "unsubscribe" });
    await addSuppression(read, { teamId, scope: "route", routeId: routeIdOf(t.deps, projectId, "broadcast"), email: "c@example.net", reason: "unsubscribe" });
  });

  test("route directly (no envelope) with counts; no optional parts unless included", async () => {
    const res = await t.request("GET", `/v1/routes/${tx}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(ROUTE_KEYS);
    expect(res.json.webhooks_count).toBe(2);
    // a@ (team and project scopes, counted once) and b@ (this route); c@ is another route's.
    expect(res.json.suppressed_recipients_count).toBe(2);
  });

  test("include=project,projectCount,projectExists,statistics", async () => {
    const res = await t.request("GET", `/v1/routes/${tx}?include=project,projectCount,projectExists,statistics`);
    expect(res.status).toBe(200);
    expect(res.json.project.id).toBe(projectId);
    expect(res.json.project.routes.every((r: { project?: unknown }) => r.project === undefined)).toBe(true);
    expect(res.json.project_count).toBe(1);
    expect(res.json.project_exists).toBe(true);
    const s = res.json.statistics;
    expect(s.period_days).toBe(28);
    expect(s.messages_total).toBe(5);
    expect(s.messages_by_status).toMatchObject({ delivered: 3, hard_bounced: 1, queued: 1, pending: 0 });
    // One count per status the API knows (quarantined included), no more.
    expect(Object.keys(s.messages_by_status).sort()).toEqual([...MESSAGE_STATUSES].sort());
    expect(s.deliverability).toBe(75);
    const only = await t.request("GET", `/v1/routes/${tx}?include=statistics`);
    expect(only.json.project).toBeUndefined();
    expect(only.json.statistics.messages_total).toBe(5);
  });

  test("statistics and /metrics count every message: an inbound one, one on no route, and a status outside the known list", async () => {
    const t2 = createTestApp();
    const team = t2.team;
    const route = routeIdOf(t2.deps, team.projectId, "transactional");
    const inbound = routeIdOf(t2.deps, team.projectId, "inbound");
    insertMessage(t2.deps, { teamId: team.teamId, projectId: team.projectId, routeId: route, status: "delivered" });
    insertMessage(t2.deps, { teamId: team.teamId, projectId: team.projectId, routeId: inbound, type: "inbound", status: "delivered" });
    insertMessage(t2.deps, { teamId: team.teamId, projectId: team.projectId, routeId: null, status: "failed" });
    const metrics = async () => (await (await t2.app.handle(new Request("http://localhost/metrics"))).text()).split("\n").filter((l) => l.startsWith("posthorn_messages{"));
    const statsOf = async (id: string) => (await t2.request("GET", `/v1/routes/${id}?include=statistics`)).json.statistics;
    expect((await metrics()).map((l) => l.replace(/node="[^"]*",/, ""))).toEqual([
      'posthorn_messages{type="inbound",status="delivered"} 1',
      'posthorn_messages{type="outbound",status="delivered"} 1',
      'posthorn_messages{type="outbound",status="failed"} 1',
    ]);
    // A status no code writes today (say, one a newer node adds) is still counted, in the total.
    insertMessage(t2.deps, { teamId: team.teamId, projectId: team.projectId, routeId: route, status: "paused" });
    expect((await metrics()).some((l) => l.includes('status="paused"} 1'))).toBe(true);
    expect((await statsOf(route)).messages_total).toBe(2);
    expect((await statsOf(route)).messages_by_status.delivered).toBe(1);
    expect((await t2.request("GET", `/v1/projects/${team.projectId}`)).json.last_28_days).toMatchObject({ messages_transactional: 2, messages_inbound: 1 });
  });

  test("unknown include value → 422 on include", async () => {
    for (const q of ["include=projects", "include=project,owner", "include=Statistics"]) {
      const res = await t.request("GET", `/v1/routes/${tx}?${q}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual(["include"]);
    }
  });

  test("project routes: paginated RouteData", async () => {
    const res = await t.request("GET", `/v1/projects/${projectId}/routes?sort=slug`);
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: { slug: string }) => r.slug)).toEqual(["broadcast", "inbound", "transactional"]);
    expect(res.json.per_page).toBe(30);
    const paged = await t.request("GET", `/v1/projects/${projectId}/routes?page[size]=2`);
    expect(paged.json.data).toHaveLength(2);
    const rest = await t.request("GET", paged.json.next_page_url.replace("http://localhost:8080", ""));
    expect(rest.json.data).toHaveLength(1);
    expect((await t.request("GET", `/v1/projects/${projectId}/routes?sort=type`)).status).toBe(422);
    expect((await t.request("GET", `/v1/projects/${projectId}/routes?page[size]=101`)).status).toBe(422);
  });

  test("401 and 404", async () => {
    expect((await t.request("GET", `/v1/routes/${tx}`, { token: null })).status).toBe(401);
    expect((await t.request("GET", `/v1/projects/${projectId}/routes`, { token: null })).status).toBe(401);
    for (const id of [newId(), "nope"]) {
      const res = await t.request("GET", `/v1/routes/${id}`);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Route not found.", error: "not_found" });
    }
    expect((await t.request("GET", `/v1/projects/${newId()}/routes`)).status).toBe(404);
  });
});

describe("PUT /v1/routes/{id}", () => {
  const t = createTestApp();
  const inbound = routeIdOf(t.deps, t.team.projectId, "inbound");
  const tx = routeIdOf(t.deps, t.team.projectId, "transactional");

  test("updates the name; envelope with the spec's message", async () => {
    const res = await t.request("PUT", `/v1/routes/${tx}`, { body: { name: "Receipts" } });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Route updated successfully.");
    expect(res.json.data).toMatchObject({ id: tx, name: "Receipts", slug: "transactional" });
    const nulls = await t.request("PUT", `/v1/routes/${tx}`, { body: { name: null, inbound_settings: null } });
    expect(nulls.json.data.name).toBe("Receipts");
  });

  test("inbound settings: domain (lower-cased), threshold, attachment delivery", async () => {
    const res = await t.request("PUT", `/v1/routes/${inbound}`, {
      body: { inbound_settings: { inbound_domain: "Replies.Example.COM.", inbound_spam_threshold: 7.5, attachment_delivery: "url" } },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ inbound_domain: "replies.example.com", inbound_spam_threshold: 7.5, attachment_delivery: "url", inbound_domain_verified_at: null });
  });

  test("changing inbound_domain clears inbound_domain_verified_at; re-sending the same value keeps it", async () => {
    await t.request("PUT", `/v1/routes/${inbound}`, { body: { inbound_settings: { inbound_domain: "in.example.org" } } });
    await t.sql.run("UPDATE routes SET inbound_domain_verified_at = ? WHERE id = ?", [Date.now(), inbound]);
    const same = await t.request("PUT", `/v1/routes/${inbound}`, { body: { inbound_settings: { inbound_domain: "IN.example.org", inbound_spam_threshold: 9 } } });
    expect(same.json.data.inbound_domain_verified_at).toBeString();
    const changed = await t.request("PUT", `/v1/routes/${inbound}`, { body: { inbound_settings: { inbound_domain: "mx2.example.org" } } });
    expect(changed.json.data.inbound_domain).toBe("mx2.example.org");
    expect(changed.json.data.inbound_domain_verified_at).toBeNull();
    await t.sql.run("UPDATE routes SET inbound_domain_verified_at = ? WHERE id = ?", [Date.now(), inbound]);
    const removed = await t.request("PUT", `/v1/routes/${inbound}`, { body: { inbound_settings: { inbound_domain: null } } });
    expect(removed.json.data.inbound_domain).toBeNull();
    expect(removed.json.data.inbound_domain_verified_at).toBeNull();
    expect(removed.json.data.inbound_spam_threshold).toBe(9);
  });

  test("an inbound domain another route (any team) verified → 409; one another route only set blocks nothing", async () => {
    await t.request("PUT", `/v1/routes/${inbound}`, { body: { inbound_settings: { inbound_domain: "claimed.example.org" } } });
    const b = t.addTeam();
    const bInbound = routeIdOf(t.deps, b.projectId, "inbound");
    const put = (domain: string) => t.request("PUT", `/v1/routes/${bInbound}`, { token: b.teamToken, body: { inbound_settings: { inbound_domain: domain } } });
    // Set without proof: no claim (several routes may set a name; the first to verify it gets it).
    expect((await put("claimed.example.org")).status).toBe(200);
    expect((await put("elsewhere.example.org")).status).toBe(200);
    // As the verification leaves it (test/modules/domains/inbound.test.ts verifies through DNS).
    await t.sql.run("UPDATE routes SET inbound_domain_verified_at = ? WHERE id = ?", [Date.now(), inbound]);
    const res = await put("claimed.example.org");
    expect(res.status).toBe(409);
    expect(res.json.message).toBe("The inbound domain claimed.example.org is already verified as the inbound domain of another route.");
    expect((await t.request("GET", `/v1/routes/${bInbound}`, { token: b.teamToken })).json.inbound_domain).toBe("elsewhere.example.org");
  });

  test("inbound_settings on an outbound route, tracking on an inbound route → 422", async () => {
    const a = await t.request("PUT", `/v1/routes/${tx}`, { body: { inbound_settings: { inbound_spam_threshold: 3 } } });
    expect(a.status).toBe(422);
    expect(Object.keys(a.json.errors)).toEqual(["inbound_settings"]);
    const b = await t.request("PUT", `/v1/routes/${inbound}`, { body: { track_opens: true } });
    expect(b.status).toBe(422);
    expect(Object.keys(b.json.errors)).toEqual(["track_opens"]);
    const ok = await t.request("PUT", `/v1/routes/${tx}`, { body: { track_opens: true, track_clicks: true } });
    expect(ok.json.data).toMatchObject({ track_opens: true, track_clicks: true });
  });

  test("422 naming the field on each limit", async () => {
    const cases: [string, unknown, string][] = [
      [tx, { name: "x".repeat(256) }, "name"],
      [tx, { name: "" }, "name"],
      [tx, { name: "  " }, "name"],
      [inbound, { inbound_settings: "x" }, "inbound_settings"],
      [inbound, { inbound_settings: 5 }, "inbound_settings"],
      [inbound, { inbound_settings: [] }, "inbound_settings"],
      [inbound, { inbound_settings: { inbound_spam_threshold: 101 } }, "inbound_settings.inbound_spam_threshold"],
      [inbound, { inbound_settings: { inbound_spam_threshold: -1 } }, "inbound_settings.inbound_spam_threshold"],
      [inbound, { inbound_settings: { inbound_spam_threshold: "high" } }, "inbound_settings.inbound_spam_threshold"],
      [inbound, { inbound_settings: { inbound_domain: `${"a".repeat(250)}.com` } }, "inbound_settings.inbound_domain"],
      [inbound, { inbound_settings: { inbound_domain: "not a domain" } }, "inbound_settings.inbound_domain"],
      [inbound, { inbound_settings: { inbound_domain: "localhost" } }, "inbound_settings.inbound_domain"],
      [inbound, { inbound_settings: { inbound_domain: t.config.inboundDomain } }, "inbound_settings.inbound_domain"],
      [inbound, { inbound_settings: { attachment_delivery: "ftp" } }, "inbound_settings.attachment_delivery"],
    ];
    for (const [id, body, field] of cases) {
      const res = await t.request("PUT", `/v1/routes/${id}`, { body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toContain(field);
    }
  });

  test("401 and 404", async () => {
    expect((await t.request("PUT", `/v1/routes/${tx}`, { token: null, body: { name: "x" } })).status).toBe(401);
    expect((await t.request("PUT", `/v1/routes/${newId()}`, { body: { name: "x" } })).status).toBe(404);
  });
});

/**
 * Team A's domain made active, as its DKIM record's verification leaves it (claims.test.ts and
 * test/modules/domains/inbound.test.ts verify through a DNS server).
 */
const markDomainVerified = (t: ReturnType<typeof createTestApp>, domain: string) =>
  t.sql.run("UPDATE domains SET status = 'active', status_changed_at = ? WHERE team_id = ? AND domain = ?", [Date.now(), t.team.teamId, domain]);

describe("PUT /v1/routes/{id}: a name claimed by a sending domain another team verified is refused (409), nothing stored", () => {
  const t = createTestApp();
  const b = t.addTeam();
  const aInbound = routeIdOf(t.deps, t.team.projectId, "inbound");
  const bInbound = routeIdOf(t.deps, b.projectId, "inbound");
  const put = (id: string, domain: string, token?: string) => t.request("PUT", `/v1/routes/${id}`, { token, body: { inbound_settings: { inbound_domain: domain } } });
  const bDomain = async () => (await t.request("GET", `/v1/routes/${bInbound}`, { token: b.teamToken })).json.inbound_domain;

  test("the attack: team B claims ph-bounces.<team A's domain> (and other spellings of names under it)", async () => {
    expect((await t.request("POST", "/v1/domains", { body: { domain: "a-corp.test" } })).status).toBe(201);
    expect((await t.request("POST", "/v1/domains", { body: { domain: "Bücher-A.test" } })).json.domain).toBe("xn--bcher-a-n2a.test");
    // Registered only: no claim on anything.
    expect((await put(bInbound, "sub.a-corp.test", b.teamToken)).status).toBe(200);
    await markDomainVerified(t, "a-corp.test");
    await markDomainVerified(t, "xn--bcher-a-n2a.test");
    expect((await put(bInbound, "in.b-own.test", b.teamToken)).status).toBe(200);
    for (const name of [
      "ph-bounces.a-corp.test",
      "PH-BOUNCES.A-Corp.TEST.",
      "a-corp.test",
      "A-CORP.test.",
      "sub.a-corp.test",
      "deep.sub.a-corp.test",
      "ph-bounces.xn--bcher-a-n2a.test",
      "ph-bounces.bücher-a.test",
      "in.BÜCHER-A.test",
      "xn--bcher-a-n2a.test",
    ]) {
      const res = await put(bInbound, name, b.teamToken);
      expect([name, res.status]).toEqual([name, 409]);
      expect(res.json.message).toMatch(/^The inbound domain \S+ is (a sending domain|under \S+, a sending domain) verified by another team; only that team can receive mail at it or at names under it\.$/);
      expect(await bDomain()).toBe("in.b-own.test");
    }
    expect((await put(bInbound, "sub.a-corp.test", b.teamToken)).json.message).toBe(
      "The inbound domain sub.a-corp.test is under a-corp.test, a sending domain verified by another team; only that team can receive mail at it or at names under it.",
    );
  });

  test("label boundaries: names that only end in the same letters are not under it", async () => {
    for (const name of ["xa-corp.test", "ph-bouncesa-corp.test", "a-corp.test.example"]) {
      const res = await put(bInbound, name, b.teamToken);
      expect([name, res.status]).toEqual([name, 200]);
      expect(res.json.data.inbound_domain).toBe(name);
    }
  });

  test("the owning team may receive at its own domain and names under it, but never at a return-path name", async () => {
    for (const name of ["in.a-corp.test", "a-corp.test", "in.bücher-a.test"]) {
      expect([name, (await put(aInbound, name)).status]).toEqual([name, 200]);
    }
    const own = await put(aInbound, "ph-bounces.a-corp.test");
    expect(own.status).toBe(409);
    expect(own.json.message).toBe(
      "The inbound domain ph-bounces.a-corp.test is the return-path (bounce) domain of the sending domain a-corp.test; mail to it is handled as bounces and cannot go to a route.",
    );
    expect((await t.request("GET", `/v1/routes/${aInbound}`)).json.inbound_domain).toBe("in.xn--bcher-a-n2a.test");
  });

  test("the route shows the records to publish for its inbound domain, and none without one", async () => {
    expect((await put(aInbound, "in.bücher-a.test")).status).toBe(200);
    const r = (await t.request("GET", `/v1/routes/${aInbound}`)).json;
    expect(r.inbound_domain_records).toEqual([
      { purpose: "inbound_mx", type: "MX", fqdn: "in.xn--bcher-a-n2a.test", content: "mx.posthorn.test" },
      { purpose: "inbound_verification", type: "TXT", fqdn: "_posthorn-verification.in.xn--bcher-a-n2a.test", content: expect.stringMatching(/^posthorn-verification=[0-9a-f]{32}$/) },
    ]);
    const list = (await t.request("GET", `/v1/projects/${t.team.projectId}/routes`)).json.data;
    expect(list.find((x: { id: string }) => x.id === aInbound).inbound_domain_records).toEqual(r.inbound_domain_records);
    const cleared = await t.request("PUT", `/v1/routes/${aInbound}`, { body: { inbound_settings: { inbound_domain: null } } });
    expect(cleared.json.data.inbound_domain_records).toBeUndefined();
  });
});

describe("DELETE /v1/routes/{id}", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;

  test("deletes the route, its webhooks (deliveries and queued jobs) and route suppressions; messages stay detached", async () => {
    const route = (await t.request("POST", `/v1/projects/${projectId}/routes`, { body: { name: "Temp", route_type: "broadcast" } })).json.data.id;
    const hook = await insertWebhook(t.deps, teamId, route);
    await addSuppression(t.deps.store.read, { teamId, scope: "route", routeId: route, email: "gone@example.net", reason: "unsubscribe" });
    await addSuppression(t.deps.store.read, { teamId, scope: "project", projectId, email: "stays@example.net", reason: "manual" });
    const messageId = insertMessage(t.deps, { teamId, projectId, routeId: route, status: "delivered" });

    const res = await t.request("DELETE", `/v1/routes/${route}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: "Route deleted successfully." });
    const n = async (sql: string, p: string | number) => (await t.sql.get<{ n: number }>(sql, [p]))!.n;
    expect(await n("SELECT count(*) AS n FROM routes WHERE id = ?", route)).toBe(0);
    expect(await n("SELECT count(*) AS n FROM webhooks WHERE route_id = ?", route)).toBe(0);
    expect(await n("SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?", hook.webhookId)).toBe(0);
    expect(await n("SELECT count(*) AS n FROM jobs WHERE id = ?", hook.jobId)).toBe(0);
    expect(await n("SELECT count(*) AS n FROM suppressions WHERE email = ?", "gone@example.net")).toBe(0);
    expect(await n("SELECT count(*) AS n FROM suppressions WHERE email = ?", "stays@example.net")).toBe(1);
    const m = await t.request("GET", `/v1/messages/${messageId}`);
    expect(m.json).toMatchObject({ id: messageId, route_id: null, status: "delivered" });
    expect((await t.request("GET", `/v1/routes/${route}`)).status).toBe(404);
    expect((await t.request("DELETE", `/v1/routes/${route}`)).status).toBe(404);
  });

  test("a project's default routes cannot be deleted (409)", async () => {
    for (const slug of ["transactional", "broadcast", "inbound"]) {
      const res = await t.request("DELETE", `/v1/routes/${routeIdOf(t.deps, projectId, slug)}`);
      expect(res.status).toBe(409);
      expect(res.json.message).toContain("default");
    }
    expect((await t.request("GET", `/v1/projects/${projectId}`)).json.routes_count).toBe(3);
  });

  test("401 and 404", async () => {
    expect((await t.request("DELETE", `/v1/routes/${newId()}`, { token: null })).status).toBe(401);
    expect((await t.request("DELETE", `/v1/routes/${newId()}`)).status).toBe(404);
  });
});

describe("cross-team: team B's token on team A's routes → 404, nothing changes", () => {
  const t = createTestApp();
  const b = t.addTeam();
  const inbound = routeIdOf(t.deps, t.team.projectId, "inbound");
  const calls: [string, string, unknown?][] = [
    ["GET", `/v1/routes/${inbound}`],
    ["GET", `/v1/routes/${inbound}?include=project,statistics`],
    ["PUT", `/v1/routes/${inbound}`, { name: "stolen", inbound_settings: { inbound_domain: "evil.example.com" } }],
    ["DELETE", `/v1/routes/${inbound}`],
  ];
  for (const [method, path, body] of calls) {
    test(`${method} ${path.replace(inbound, "{A}")}`, async () => {
      const res = await t.request(method, path, { token: b.teamToken, body });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Route not found.", error: "not_found" });
    });
  }
  test("team A's route is unchanged", async () => {
    const r = await t.request("GET", `/v1/routes/${inbound}`);
    expect(r.json).toMatchObject({ name: "Inbound", inbound_domain: null });
  });

  // Team A's verified sending domain claims its name, its return path and any name under it
  // (such as tracking or link hosts) for team A: team B's own route may not take any of them.
  const names = (d: string): [string, number][] => [
    [d, 200],
    [`ph-bounces.${d}`, 409],
    [`track.${d}`, 200],
    [`links.${d}`, 200],
    [`in.${d}`, 200],
  ];
  test("team B's own route → 409 on names of team A's domain; team A's route may use them, except the return path", async () => {
    expect((await t.request("POST", "/v1/domains", { body: { domain: "cross-a.test" } })).status).toBe(201);
    await markDomainVerified(t, "cross-a.test");
    const bInbound = routeIdOf(t.deps, b.projectId, "inbound");
    for (const [name, forA] of names("cross-a.test")) {
      const theirs = await t.request("PUT", `/v1/routes/${bInbound}`, { token: b.teamToken, body: { inbound_settings: { inbound_domain: name } } });
      expect([name, theirs.status]).toEqual([name, 409]);
      expect(theirs.json.message).toContain("cross-a.test");
      const ours = await t.request("PUT", `/v1/routes/${inbound}`, { body: { inbound_settings: { inbound_domain: name } } });
      expect([name, ours.status]).toEqual([name, forA]);
    }
    expect((await t.request("GET", `/v1/routes/${bInbound}`, { token: b.teamToken })).json.inbound_domain).toBeNull();
  });
});

describe("authentication comes before body checks", () => {
  const t = createTestApp();
  const inbound = routeIdOf(t.deps, t.team.projectId, "inbound");
  test("an invalid body without a token is a 401, with a token a 422", async () => {
    for (const body of [{ inbound_settings: "x" }, { name: 5 }]) {
      expect((await t.request("PUT", `/v1/routes/${inbound}`, { token: null, body })).status).toBe(401);
      expect((await t.request("PUT", `/v1/routes/${inbound}`, { body })).status).toBe(422);
    }
    expect((await t.request("POST", `/v1/projects/${t.team.projectId}/routes`, { token: null, body: { route_type: "x" } })).status).toBe(401);
  });
});
