import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WebhookSender, useWebhookSender } from "../../src/events/webhook-post.ts";
import { EVENT_KINDS } from "../../src/events/publish.ts";
import { createTestApp } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "./support.ts";

let dns: TestDnsServer;
let receiver: TestReceiver;
let t: ReturnType<typeof createTestApp>;
let routeId: string;
let inboundRouteId: string;

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  const cert = makeTestCert(["hooks.example.test"]);
  receiver = startReceiver(cert);
  t = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" } });
  useWebhookSender(t.deps, new WebhookSender({ dns: t.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 2000 }));
  const routes = await t.sql.all<{ id: string; route_type: string }>("SELECT id, route_type FROM routes WHERE project_id = ?", [t.team.projectId]);
  routeId = routes.find((r) => r.route_type === "transactional")!.id;
  inboundRouteId = routes.find((r) => r.route_type === "inbound")!.id;
});
afterAll(async () => {
  await receiver.stop();
  await dns.close();
});

const create = (body: Record<string, unknown>, token?: string) =>
  t.request("POST", "/v1/webhooks", {
    token,
    body: { route_id: routeId, name: "Orders", url: receiver.url(), events: ["message.delivered"], ...body },
  });

describe("POST /v1/webhooks", () => {
  test("creates a webhook and returns its secret once", async () => {
    const res = await create({ events: ["message.delivered", "message.bounced", "message.delivered"] });
    expect(res.status).toBe(201);
    expect(res.json.message).toBe("Webhook created successfully. Please save the secret as it will not be shown again.");
    const w = res.json.data;
    expect(w).toMatchObject({ route_id: routeId, name: "Orders", url: receiver.url(), events: ["message.delivered", "message.bounced"], enabled: true, last_called_at: null });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(Date.parse(w.created_at)).toBeGreaterThan(0);

    const read = await t.request("GET", `/v1/webhooks/${w.id}`);
    expect(read.status).toBe(200);
    expect(read.json.secret).toBeUndefined();
    expect(read.text).not.toContain(w.secret);
    expect(read.json).toMatchObject({ id: w.id, enabled: true, disabled_reason: null });
    const list = await t.request("GET", "/v1/webhooks");
    expect(list.text).not.toContain("whsec_");
  });

  test("include_machine_events: false unless asked; PUT turns it on and off", async () => {
    const created = await create({});
    expect(created.json.data.include_machine_events).toBe(false);
    const id = created.json.data.id;
    expect((await t.request("PUT", `/v1/webhooks/${id}`, { body: { include_machine_events: true } })).json.data.include_machine_events).toBe(true);
    expect((await t.request("GET", `/v1/webhooks/${id}`)).json.include_machine_events).toBe(true);
    expect((await t.request("PUT", `/v1/webhooks/${id}`, { body: { name: "renamed" } })).json.data.include_machine_events).toBe(true);
    expect((await t.request("PUT", `/v1/webhooks/${id}`, { body: { include_machine_events: false } })).json.data.include_machine_events).toBe(false);
    expect((await create({ include_machine_events: true })).json.data.include_machine_events).toBe(true);
    const bad = await create({ include_machine_events: "yes" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.json.errors)).toContain("include_machine_events");
  });

  test("enabled: false is kept; null means the default (true)", async () => {
    expect((await create({ enabled: false })).json.data.enabled).toBe(false);
    expect((await create({ enabled: null })).json.data.enabled).toBe(true);
  });

  test("http:// and other non-https URLs → 422 on url", async () => {
    for (const url of ["http://hooks.example.test/hook", "ftp://hooks.example.test/", "not a url", "https://"]) {
      const res = await create({ url });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual(["url"]);
      expect(res.json.message).toBe(res.json.errors.url[0]);
    }
    expect((await create({ url: "http://hooks.example.test/hook" })).json.message).toContain("https://");
  });

  test("private, link-local and loopback IP literals → 422 unless allowed", async () => {
    for (const url of ["https://10.1.2.3/hook", "https://169.254.169.254/latest", "https://[fd00::1]/x", "https://[::ffff:192.168.1.1]/x", "https://100.64.0.1/"]) {
      const res = await create({ url });
      expect(res.status).toBe(422);
      expect(res.json.errors.url[0]).toContain("POSTHORN_WEBHOOK_ALLOWED_NETWORKS");
    }
    // 127.0.0.0/8 is allowed in this app.
    expect((await create({ url: "https://127.0.0.1:8443/hook" })).status).toBe(201);
  });

  test("SIIT-translated and local-use NAT64 literals → 422 (security review)", async () => {
    for (const url of ["https://[::ffff:0:7f00:1]/h", "https://[::ffff:0:a00:1]/h", "https://[64:ff9b:1::a00:1]/h", "https://[64:ff9b:1::808:808]/h"]) {
      const res = await create({ url });
      expect([url, res.status]).toEqual([url, 422]);
      expect(res.json.errors.url[0]).toContain("POSTHORN_WEBHOOK_ALLOWED_NETWORKS");
    }
  });

  test("an IDN URL is stored as the punycode form every answer shows; listing and PUT keep working (security review)", async () => {
    const before = (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM webhooks"))!.n;
    const res = await create({ url: "https://bücher.example/h" });
    expect(res.status).toBe(201);
    expect(res.json.data.url).toBe("https://xn--bcher-kva.example/h");
    const stored = (await t.sql.get<{ url: string }>("SELECT url FROM webhooks WHERE id = ?", [res.json.data.id]))!.url;
    expect(stored).toBe("https://xn--bcher-kva.example/h");
    expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM webhooks"))!.n).toBe(before + 1);

    const list = await t.request("GET", "/v1/webhooks?page[size]=100");
    expect(list.status).toBe(200);
    expect(list.json.data.map((w: { id: string }) => w.id)).toContain(res.json.data.id);
    const put = await t.request("PUT", `/v1/webhooks/${res.json.data.id}`, { body: { url: "https://bücher.example/h" } });
    expect(put.status).toBe(200);
    expect(put.json.data.url).toBe("https://xn--bcher-kva.example/h");
    // Unicode in the path is percent-encoded the same way.
    expect((await create({ url: "https://hooks.example.test/ä ö" })).json.data.url).toBe("https://hooks.example.test/%C3%A4%20%C3%B6");
  });

  test("a row stored raw before normalisation still lists (it is shown normalised)", async () => {
    const created = (await create({})).json.data;
    await t.sql.run("UPDATE webhooks SET url = 'https://bücher.example/old' WHERE id = ?", [created.id]);
    const one = await t.request("GET", `/v1/webhooks/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.json.url).toBe("https://xn--bcher-kva.example/old");
    expect((await t.request("GET", "/v1/webhooks?page[size]=100")).status).toBe(200);
  });

  test("a URL that grows past 500 characters when normalised → 422, nothing stored", async () => {
    const before = (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM webhooks"))!.n;
    const res = await create({ url: `https://hooks.example.test/${"é".repeat(200)}` });
    expect(res.status).toBe(422);
    expect(res.json.errors.url[0]).toContain("once normalised");
    expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM webhooks"))!.n).toBe(before);
  });

  test("limits: name ≤ 255, url ≤ 500, events ≥ 1 and known kinds", async () => {
    expect((await create({ name: "n".repeat(255) })).status).toBe(201);
    const longName = await create({ name: "n".repeat(256) });
    expect(longName.status).toBe(422);
    expect(longName.json.errors).toHaveProperty("name");

    const base = receiver.url() + "?pad=";
    expect((await create({ url: base + "x".repeat(500 - base.length) })).status).toBe(201);
    const longUrl = await create({ url: base + "x".repeat(501 - base.length) });
    expect(longUrl.status).toBe(422);
    expect(longUrl.json.errors).toHaveProperty("url");

    const none = await create({ events: [] });
    expect(none.status).toBe(422);
    expect(none.json.errors).toHaveProperty("events");
    const unknown = await create({ events: ["message.delivered", "message.exploded"] });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.json.errors)).toContain("message.auto_replied");

    const missing = await t.request("POST", "/v1/webhooks", { body: { route_id: routeId } });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.json.errors)).toEqual(expect.arrayContaining(["name", "url", "events"]));
    expect((await create({ name: "   " })).status).toBe(422);
  });

  test("every known event kind can be subscribed", async () => {
    const res = await create({ events: [...EVENT_KINDS] });
    expect(res.status).toBe(201);
    expect(res.json.data.events).toEqual([...EVENT_KINDS]);
  });

  test("a route of another team, or an unknown route → 422 on route_id", async () => {
    const other = t.addTeam();
    const otherRoute = (await t.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ?", [other.projectId]))!.id;
    for (const id of [otherRoute, "00000000-0000-7000-8000-000000000000"]) {
      const res = await create({ route_id: id });
      expect(res.status).toBe(422);
      expect(res.json.errors).toHaveProperty("route_id");
    }
  });

  test("401 without or with a wrong token, and with a project token", async () => {
    expect((await create({}, "")).status).toBe(401);
    expect((await create({}, "ph_team_nope")).status).toBe(401);
    const res = await t.request("POST", "/v1/webhooks", {
      token: null,
      projectToken: t.team.projectToken,
      body: { route_id: routeId, name: "x", url: receiver.url(), events: ["message.sent"] },
    });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ message: "Unauthenticated.", error: "unauthenticated" });
  });
});

describe("webhooks of one team are invisible to another", () => {
  test("GET/PUT/DELETE/test/regenerate/deliveries → 404 across teams; list excludes them", async () => {
    const w = (await create({ name: "Mine" })).json.data;
    const other = t.addTeam("Other team");
    const as = { token: other.teamToken };
    for (const [method, path, body] of [
      ["GET", `/v1/webhooks/${w.id}`],
      ["PUT", `/v1/webhooks/${w.id}`, { name: "stolen" }],
      ["DELETE", `/v1/webhooks/${w.id}`],
      ["POST", `/v1/webhooks/${w.id}/regenerate-secret`],
      ["POST", `/v1/webhooks/${w.id}/test`],
      ["GET", `/v1/webhooks/${w.id}/deliveries`],
    ] as const) {
      const res = await t.request(method, path, { ...as, body });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Webhook not found.", error: "not_found" });
    }
    const list = await t.request("GET", "/v1/webhooks", as);
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([]);
    expect((await t.request("GET", `/v1/webhooks/${w.id}`)).json.name).toBe("Mine");
    expect((await t.request("GET", "/v1/webhooks/not-a-uuid")).status).toBe(404);
  });

  test("401 on every endpoint without a token", async () => {
    const w = (await create({})).json.data;
    for (const [method, path] of [
      ["GET", "/v1/webhooks"],
      ["GET", `/v1/webhooks/${w.id}`],
      ["PUT", `/v1/webhooks/${w.id}`],
      ["DELETE", `/v1/webhooks/${w.id}`],
      ["POST", `/v1/webhooks/${w.id}/regenerate-secret`],
      ["POST", `/v1/webhooks/${w.id}/test`],
      ["GET", `/v1/webhooks/${w.id}/deliveries`],
    ] as const) {
      const res = await t.request(method, path, { token: null, body: method === "PUT" ? { name: "x" } : undefined });
      expect(res.status).toBe(401);
    }
  });
});

describe("GET /v1/webhooks", () => {
  test("paginates newest first and filters by route", async () => {
    const other = t.addTeam("Lister");
    const routes = await t.sql.all<{ id: string; route_type: string }>("SELECT id, route_type FROM routes WHERE project_id = ?", [other.projectId]);
    const tx = routes.find((r) => r.route_type === "transactional")!.id;
    const inbound = routes.find((r) => r.route_type === "inbound")!.id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.request("POST", "/v1/webhooks", {
        token: other.teamToken,
        body: { route_id: i < 3 ? tx : inbound, name: `hook ${i}`, url: receiver.url(), events: ["message.inbound"] },
      });
      ids.push(res.json.data.id);
    }
    const first = await t.request("GET", "/v1/webhooks?page[size]=2", { token: other.teamToken });
    expect(first.status).toBe(200);
    expect(first.json.data.map((w: { id: string }) => w.id)).toEqual([ids[4], ids[3]]);
    expect(first.json.per_page).toBe(2);
    expect(first.json.next_page_url).toStartWith("http://localhost:8080/v1/webhooks?");
    const second = await t.request("GET", `/v1/webhooks?page[size]=2&page[cursor]=${first.json.next_cursor}`, { token: other.teamToken });
    expect(second.json.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    const byRoute = await t.request("GET", `/v1/webhooks?filter[route_id]=${inbound}`, { token: other.teamToken });
    expect(byRoute.json.data.map((w: { id: string }) => w.id)).toEqual([ids[4], ids[3]]);
    const byName = await t.request("GET", "/v1/webhooks?sort=name", { token: other.teamToken });
    expect(byName.json.data.map((w: { name: string }) => w.name)).toEqual(["hook 0", "hook 1", "hook 2", "hook 3", "hook 4"]);
    expect((await t.request("GET", "/v1/webhooks?filter[nope]=1", { token: other.teamToken })).status).toBe(422);
    expect((await t.request("GET", "/v1/webhooks?sort=secret", { token: other.teamToken })).status).toBe(422);
    expect((await t.request("GET", "/v1/webhooks?page[size]=101", { token: other.teamToken })).status).toBe(422);
  });
});

describe("PUT /v1/webhooks/{id}", () => {
  test("updates fields; changing the URL keeps the secret; http:// → 422", async () => {
    const created = (await create({})).json.data;
    const secret = created.secret;
    const res = await t.request("PUT", `/v1/webhooks/${created.id}`, {
      body: { name: "Renamed", url: receiver.url("hooks.example.test", "/v2"), events: ["message.bounced"] },
    });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Webhook updated successfully.");
    expect(res.json.data).toMatchObject({ name: "Renamed", url: receiver.url("hooks.example.test", "/v2"), events: ["message.bounced"], enabled: true });
    expect(res.json.data.secret).toBeUndefined();
    expect((await t.sql.get<{ secret: string }>("SELECT secret FROM webhooks WHERE id = ?", [created.id]))!.secret).toBe(secret);

    const http = await t.request("PUT", `/v1/webhooks/${created.id}`, { body: { url: "http://hooks.example.test/hook" } });
    expect(http.status).toBe(422);
    expect(http.json.errors).toHaveProperty("url");
    expect((await t.request("PUT", `/v1/webhooks/${created.id}`, { body: { name: "n".repeat(256) } })).status).toBe(422);
    expect((await t.request("PUT", `/v1/webhooks/${created.id}`, { body: { url: "https://x.test/" + "a".repeat(490) } })).status).toBe(422);
    expect((await t.request("PUT", `/v1/webhooks/${created.id}`, { body: { events: [] } })).status).toBe(422);
    expect((await t.request("GET", `/v1/webhooks/${created.id}`)).json.url).toBe(receiver.url("hooks.example.test", "/v2"));
  });

  test("re-enabling clears the service's disabled_reason", async () => {
    const w = (await create({})).json.data;
    await t.sql.run("UPDATE webhooks SET enabled = 0, disabled_reason = 'The receiver answered 410 Gone' WHERE id = ?", [w.id]);
    const still = await t.request("PUT", `/v1/webhooks/${w.id}`, { body: { name: "still off", enabled: false } });
    expect(still.json.data).toMatchObject({ enabled: false, disabled_reason: "The receiver answered 410 Gone" });
    const res = await t.request("PUT", `/v1/webhooks/${w.id}`, { body: { enabled: true } });
    expect(res.json.data).toMatchObject({ enabled: true, disabled_reason: null });
  });
});

describe("DELETE /v1/webhooks/{id}", () => {
  test("deletes; then 404", async () => {
    const w = (await create({})).json.data;
    const res = await t.request("DELETE", `/v1/webhooks/${w.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: "Webhook deleted successfully." });
    expect((await t.request("GET", `/v1/webhooks/${w.id}`)).status).toBe(404);
    expect((await t.request("DELETE", `/v1/webhooks/${w.id}`)).status).toBe(404);
  });
});

describe("test sends and secret regeneration against a real HTTPS receiver", () => {
  test("POST /test delivers a signed webhook.test now and reports the attempt", async () => {
    const w = (await create({ events: ["message.inbound"], route_id: inboundRouteId })).json.data;
    receiver.secret = w.secret;
    const before = receiver.deliveries.length;
    const res = await t.request("POST", `/v1/webhooks/${w.id}/test`);
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Test webhook dispatched successfully. Check the deliveries endpoint for results.");
    expect(res.json.delivery_id).toBe(res.json.data.delivery_id);
    expect(res.json.data).toMatchObject({ success: true, status_code: 200, error: null, response_excerpt: "ok" });
    expect(res.json.data.duration_ms).toBeGreaterThanOrEqual(0);
    const got = receiver.deliveries.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.headers["x-service-event"]).toBe("webhook.test");
    expect(got[0]!.attempt).toBe(1);
    expect(got[0]!.json).toMatchObject({ id: res.json.data.event_id, event: "webhook.test", data: { webhook_id: w.id } });

    const read = await t.request("GET", `/v1/webhooks/${w.id}`);
    expect(Date.parse(read.json.last_called_at)).toBeGreaterThan(Date.now() - 10_000);
    const log = await t.request("GET", `/v1/webhooks/${w.id}/deliveries`);
    expect(log.json.data).toHaveLength(1);
    expect(log.json.data[0]).toMatchObject({ id: res.json.data.delivery_id, event: "webhook.test", outcome: "succeeded", status_code: 200, attempt: 1 });
    // The same attempt under Lettermint's names, and by id with what was sent.
    expect(log.json.data[0]).toMatchObject({ event_type: "webhook.test", status: "success", attempt_number: 1, http_status_code: 200, delivered_at: log.json.data[0].created_at });
    const one = await t.request("GET", `/v1/webhooks/${w.id}/deliveries/${res.json.delivery_id}`);
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ ...log.json.data[0], payload: [got[0]!.body], response_body: "ok", error_message: null, response_headers: null });
    expect((await t.request("GET", `/v1/webhooks/${w.id}/deliveries/${w.id}`)).json).toEqual({ message: "Webhook delivery not found.", error: "not_found" });
  });

  test("regenerate-secret returns a new secret once; the old one stops signing at once", async () => {
    const w = (await create({})).json.data;
    receiver.secret = w.secret;
    expect((await t.request("POST", `/v1/webhooks/${w.id}/test`)).json.data.success).toBe(true);

    const regen = await t.request("POST", `/v1/webhooks/${w.id}/regenerate-secret`);
    expect(regen.status).toBe(200);
    expect(regen.json.message).toBe("Webhook secret regenerated successfully. Please update your integration.");
    const fresh = regen.json.data.secret as string;
    expect(fresh).toStartWith("whsec_");
    expect(fresh).not.toBe(w.secret);
    expect((await t.request("GET", `/v1/webhooks/${w.id}`)).json.secret).toBeUndefined();

    // The receiver still holds the old secret: the next delivery no longer verifies with it.
    const rejected = await t.request("POST", `/v1/webhooks/${w.id}/test`);
    expect(rejected.json.data).toMatchObject({ success: false, status_code: 401 });
    expect(rejected.json.message).toStartWith("Test event delivery failed:");
    expect(rejected.json.data.response_excerpt).toContain("signature mismatch");
    receiver.secret = fresh;
    expect((await t.request("POST", `/v1/webhooks/${w.id}/test`)).json.data.success).toBe(true);
  });

  test("a test to a hostname that resolves to loopback is refused when loopback is not allowed", async () => {
    const strict = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
    const route = (await strict.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ?", [strict.team.projectId]))!.id;
    const created = await strict.request("POST", "/v1/webhooks", { body: { route_id: route, name: "x", url: receiver.url(), events: ["message.sent"] } });
    expect(created.status).toBe(201);
    const before = receiver.deliveries.length;
    const res = await strict.request("POST", `/v1/webhooks/${created.json.data.id}/test`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ success: false, status_code: null });
    expect(res.json.data.error).toContain("hooks.example.test resolves to 127.0.0.1, which is a loopback address");
    expect(receiver.deliveries.length).toBe(before);
  });
});

describe("GET /v1/webhooks/{id}/deliveries", () => {
  test("newest first, cursor pagination and filters", async () => {
    const w = (await create({})).json.data;
    receiver.secret = w.secret;
    const results: { event_id: string; success: boolean }[] = [];
    for (let i = 0; i < 3; i++) results.push((await t.request("POST", `/v1/webhooks/${w.id}/test`)).json.data);
    receiver.secret = "whsec_wrong";
    results.push((await t.request("POST", `/v1/webhooks/${w.id}/test`)).json.data);

    const page1 = await t.request("GET", `/v1/webhooks/${w.id}/deliveries?page[size]=3`);
    expect(page1.status).toBe(200);
    expect(page1.json.data.map((d: { event_id: string }) => d.event_id)).toEqual(results.slice(1).reverse().map((r) => r.event_id));
    const page2 = await t.request("GET", `/v1/webhooks/${w.id}/deliveries?page[size]=3&page[cursor]=${page1.json.next_cursor}`);
    expect(page2.json.data.map((d: { event_id: string }) => d.event_id)).toEqual([results[0]!.event_id]);
    expect(page2.json.next_cursor).toBeNull();

    const failed = await t.request("GET", `/v1/webhooks/${w.id}/deliveries?filter[outcome]=failed`);
    expect(failed.json.data).toHaveLength(1);
    expect(failed.json.data[0]).toMatchObject({ outcome: "failed", status_code: 401, event_id: results[3]!.event_id });
    const byEvent = await t.request("GET", `/v1/webhooks/${w.id}/deliveries?filter[event_id]=${results[1]!.event_id}`);
    expect(byEvent.json.data.map((d: { event_id: string }) => d.event_id)).toEqual([results[1]!.event_id]);
    expect((await t.request("GET", `/v1/webhooks/${w.id}/deliveries?filter[event]=message.delivered`)).json.data).toEqual([]);
    expect((await t.request("GET", `/v1/webhooks/${w.id}/deliveries?filter[event]=webhook.test`)).json.data).toHaveLength(4);
    expect((await t.request("GET", `/v1/webhooks/${w.id}/deliveries?filter[outcome]=maybe`)).status).toBe(422);
    expect((await t.request("GET", `/v1/webhooks/${w.id}/deliveries?filter[status]=x`)).status).toBe(422);
    expect((await t.request("GET", `/v1/webhooks/${w.id}/deliveries?page[cursor]=garbage`)).status).toBe(422);
  });
});

test("the OpenAPI document lists the webhook endpoints", async () => {
  const res = await t.request("GET", "/openapi/json");
  const paths = Object.keys(res.json.paths);
  for (const p of ["/v1/webhooks", "/v1/webhooks/{id}", "/v1/webhooks/{id}/test", "/v1/webhooks/{id}/regenerate-secret", "/v1/webhooks/{id}/deliveries"]) {
    expect(paths).toContain(p);
  }
});
