import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { useWebhookSender, WebhookSender } from "../../src/events/webhook-post.ts";
import { changeRecipientStatus } from "../../src/events/message-status.ts";
import { publishEvent, type EventKind } from "../../src/events/publish.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { newId } from "../../src/ids.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createTestApp, waitFor } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, receiverHmac, startReceiver, type Responder, type TestCert, type TestReceiver } from "./support.ts";
import type { DeliveryRow } from "../../src/db/webhooks.ts";

let dns: TestDnsServer;
let cert: TestCert;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  cert = makeTestCert(["hooks.example.test"]);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await dns.close();
});


/**
 * An app whose "webhook" queue runs, a receiver with `respond`, and one webhook on the
 * transactional route pointing at it. Retry delays are short (`scheduleMs`); everything else is the
 * production path.
 */
async function setup(opts: { allowed?: string[]; timeoutMs?: number; scheduleMs?: number[]; respond?: Responder; start?: boolean; url?: string } = {}) {
  const allowed = opts.allowed ?? ["127.0.0.0/8"];
  const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: allowed.join(",") } });
  const sender = new WebhookSender({ dns: app.deps.dns, allowedNetworks: allowed, ca: cert.caPem, timeoutMs: opts.timeoutMs ?? 3000, dnsCacheMs: 0 });
  useWebhookSender(app.deps, sender);
  const receiver = startReceiver(cert, { respond: opts.respond });
  const runner = new JobRunner(app.deps);
  registerWebhookJobs(runner, app.deps, { sender, scheduleMs: opts.scheduleMs ?? [50, 50, 50] });
  if (opts.start !== false) runner.start();
  cleanups.push(async () => {
    await runner.stop(2000);
    sender.close();
    await receiver.stop();
  });
  const routeId = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [app.team.projectId]))!.id;
  const created = await app.request("POST", "/v1/webhooks", {
    body: { route_id: routeId, name: "receiver", url: opts.url ?? receiver.url(), events: ["message.delivered", "message.bounced", "message.hard_bounced", "message.sent"] },
  });
  expect(created.status).toBe(201);
  const webhook = created.json.data as { id: string; secret: string };
  receiver.secret = webhook.secret;

  const publish = (kind: EventKind, data: Record<string, unknown> = { message_id: newId() }) =>
    app.deps.store.write((tx) => publishEvent(tx, { teamId: app.team.teamId, routeId, kind, data }));
  // Synchronous reads: these are polled in waitFor and used in expressions all over the tests.
  const deliveries = (eventId?: string) =>
    eventId === undefined
      ? app.sqlNow.all<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at, attempt", [webhook.id])
      : app.sqlNow.all<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? ORDER BY created_at, attempt", [webhook.id, eventId]);
  const jobs = () => app.sqlNow.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND dead_at IS NULL")!.n;
  const hook = () =>
    app.sqlNow.get<{ enabled: number; disabled_reason: string | null; last_called_at: number | null }>("SELECT * FROM webhooks WHERE id = ?", [webhook.id])!;
  return { app, sender, receiver, runner, routeId, webhook, publish, deliveries, jobs, hook };
}

describe("signed delivery", () => {
  test("the stored bytes arrive exactly, signed; the receiver's own HMAC verifies them", async () => {
    const s = await setup();
    const eventId = await s.publish("message.delivered", { message_id: "m-1", url: "https://shop.example/a/b?c=d", subject: "Grüße 👋 — ok", html: "<p>&</p>" });
    const got = await waitFor(() => s.receiver.deliveries.find((d) => d.json?.id === eventId));
    const stored = (await s.app.sql.get<{ body: string }>("SELECT body FROM events WHERE id = ?", [eventId]))!.body;

    expect(got.verified).toBe(true);
    expect(got.status).toBe(200);
    expect(Buffer.from(got.rawBody).equals(Buffer.from(stored, "utf8"))).toBe(true);
    expect(got.body).toContain("https://shop.example/a/b?c=d"); // slashes not escaped
    expect(got.body).toContain("Grüße 👋 — ok"); // Unicode not escaped
    expect(got.json).toMatchObject({ id: eventId, event: "message.delivered", data: { message_id: "m-1" } });
    expect(Date.parse(got.json!.timestamp)).toBeGreaterThan(0);

    expect(got.headers["x-service-event"]).toBe("message.delivered");
    expect(got.headers["x-service-attempt"]).toBe("1");
    expect(got.headers["x-service-delivery"]).toBe(String(got.t));
    expect(got.headers["x-service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["user-agent"]).toStartWith("Posthorn-Webhooks/");
    // The connection went to the vetted address, but Host, SNI and the certificate are the hostname's.
    expect(got.host).toBe(`hooks.example.test:${s.receiver.port}`);
    expect(Math.abs(Date.now() / 1000 - got.t!)).toBeLessThanOrEqual(5);

    await waitFor(() => s.deliveries(eventId).length === 1 && s.jobs() === 0);
    expect(s.deliveries(eventId)[0]).toMatchObject({ attempt: 1, outcome: "succeeded", status_code: 200, error: null, response_excerpt: "ok", next_attempt_at: null });
    expect(s.hook().last_called_at).toBeGreaterThan(Date.now() - 10_000);
  });

  test("the receiver's check is real: tampered body, stale t, or missing v1 → 401", async () => {
    const s = await setup();
    const eventId = await s.publish("message.sent", { message_id: "m-2", amount: 10 });
    const got = await waitFor(() => s.receiver.deliveries.find((d) => d.json?.id === eventId));
    // Resend by address: hooks.example.test is known only to the test DNS server.
    const direct = (body: string | Uint8Array, signature: string, delivery?: string) =>
      fetch(`https://127.0.0.1:${s.receiver.port}/hook`, {
        method: "POST",
        body,
        headers: { host: `hooks.example.test:${s.receiver.port}`, "x-service-signature": signature, "x-service-delivery": delivery ?? String(got.t) },
        tls: { ca: cert.caPem, serverName: "hooks.example.test" },
      });
    const signature = got.headers["x-service-signature"]!;

    expect((await direct(got.rawBody, signature)).status).toBe(200); // the genuine request, replayed within 300 s
    const tampered = await direct(got.body.replace('"amount":10', '"amount":99'), signature);
    expect(tampered.status).toBe(401);
    expect(await tampered.text()).toContain("signature mismatch");

    const stale = Math.floor(Date.now() / 1000) - 301;
    const staleSig = `t=${stale},v1=${await receiverHmac(s.receiver.secret, String(stale), got.rawBody)}`;
    const old = await direct(got.rawBody, staleSig, String(stale));
    expect(old.status).toBe(401);
    expect(await old.text()).toContain("300 s");
    expect((await direct(got.rawBody, `t=${got.t}`)).status).toBe(401);
  });

  test("a message's delivered status arrives as message.delivered with the remote reply", async () => {
    const s = await setup();
    const { store } = s.app.deps;
    const messageId = newId();
    const recipientId = newId();
    const now = Date.now();
    await s.app.sql.run(
      `INSERT INTO messages (id, team_id, project_id, route_id, type, status, status_changed_at, tag, from_email, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'outbound', 'processed', ?, 'welcome', 'a@shop.example', '[]', '[]', '[]', '[]', '{"order":"42"}', ?, ?)`,
      [messageId, s.app.team.teamId, s.app.team.projectId, s.routeId, now, now, now],
    );
    await s.app.sql.run(
      "INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, created_at) VALUES (?, ?, 'bob@example.org', 'to', 'processed', ?, ?)",
      [recipientId, messageId, now, now],
    );
    await store.write((tx) =>
      changeRecipientStatus(tx, {
        recipientId,
        status: "delivered",
        response: { code: 250, enhanced_code: "2.0.0", message: "2.0.0 Ok: queued as ABC" },
        attempted: true,
      }),
    );
    const got = await waitFor(() => s.receiver.deliveries.find((d) => d.json?.event === "message.delivered"));
    expect(got.verified).toBe(true);
    expect(got.json!.data).toMatchObject({
      message_id: messageId,
      recipient: "bob@example.org",
      tag: "welcome",
      metadata: { order: "42" },
      response: { code: 250, message: "2.0.0 Ok: queued as ABC" },
    });
  });
  test("the receiver's certificate is verified against the hostname: an untrusted or mismatched one fails the attempt", async () => {
    const s = await setup();
    const untrusting = new WebhookSender({ dns: s.app.deps.dns, allowedNetworks: ["127.0.0.0/8"] });
    const r = await untrusting.send({ url: s.receiver.url(), secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(r).toMatchObject({ outcome: "failed", statusCode: null, refused: false });
    expect(r.error).toContain("certificate");
    dns.set("other-name.example.test", "A", ["127.0.0.1"]);
    const mismatch = await s.sender.send({ url: s.receiver.url("other-name.example.test"), secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(mismatch.outcome).toBe("failed");
    expect(mismatch.error).toMatch(/ALTNAME|altname|Hostname/i);
    expect(s.receiver.deliveries).toHaveLength(0);
    untrusting.close();
  });

  test("credentials in the URL are sent as HTTP Basic auth", async () => {
    const s = await setup();
    const url = `https://hook%20user:p%40ss@hooks.example.test:${s.receiver.port}/hook`;
    expect((await s.app.request("PUT", `/v1/webhooks/${s.webhook.id}`, { body: { url } })).status).toBe(200);
    const eventId = await s.publish("message.sent");
    const got = await waitFor(() => s.receiver.deliveries.find((d) => d.json?.id === eventId));
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from("hook user:p@ss").toString("base64")}`);
    expect(got.host).toBe(`hooks.example.test:${s.receiver.port}`);
  });
});

describe("retries", () => {
  test("503, 503 (with Retry-After), then 200 → attempts 1, 2, 3 of one event, each signed afresh", async () => {
    let calls = 0;
    const s = await setup({
      scheduleMs: [1100, 1100],
      respond: () => {
        calls++;
        if (calls === 1) return new Response("busy", { status: 503, headers: { "retry-after": "1" } });
        if (calls === 2) return new Response("still busy", { status: 503 });
        return new Response("done");
      },
    });
    const eventId = await s.publish("message.delivered");
    await waitFor(() => s.deliveries(eventId).length === 3 && s.jobs() === 0, 8000);

    const got = s.receiver.deliveries.filter((d) => d.json?.id === eventId);
    expect(got.map((d) => d.attempt)).toEqual([1, 2, 3]);
    expect(got.every((d) => d.verified)).toBe(true);
    expect(new Set(got.map((d) => d.body)).size).toBe(1);
    // Each attempt has its own t (the retries are over a second apart), so its own signature.
    expect(got[1]!.t!).toBeGreaterThan(got[0]!.t!);
    expect(got[2]!.t!).toBeGreaterThan(got[1]!.t!);
    expect(new Set(got.map((d) => d.headers["x-service-signature"])).size).toBe(3);
    expect(got[1]!.receivedAt - got[0]!.receivedAt).toBeGreaterThanOrEqual(950);

    const rows = s.deliveries(eventId);
    expect(rows.map((r) => [r.attempt, r.outcome, r.status_code])).toEqual([
      [1, "failed", 503],
      [2, "failed", 503],
      [3, "succeeded", 200],
    ]);
    expect(rows[0]!.error).toContain("HTTP 503");
    expect(rows[0]!.response_excerpt).toBe("busy");
    expect(rows[0]!.next_attempt_at).toBeGreaterThan(0);
    expect(rows[2]!.next_attempt_at).toBeNull();
  });

  test("Retry-After longer than the schedule's step is honoured", async () => {
    let calls = 0;
    const s = await setup({
      scheduleMs: [20],
      respond: () => (++calls === 1 ? new Response("slow down", { status: 429, headers: { "retry-after": "2" } }) : undefined),
    });
    const eventId = await s.publish("message.sent");
    // A retry's row is on record (failed, unanswered) before it goes out; its outcome commits with the job's end.
    await waitFor(() => s.deliveries(eventId).length === 2 && s.jobs() === 0, 6000);
    const got = s.receiver.deliveries.filter((d) => d.json?.id === eventId);
    expect(got[1]!.receivedAt - got[0]!.receivedAt).toBeGreaterThanOrEqual(1900);
    const rows = s.deliveries(eventId);
    expect(rows[0]!.next_attempt_at! - rows[0]!.created_at).toBeGreaterThanOrEqual(1990);
    expect(rows[1]!.outcome).toBe("succeeded");
  });

  test("a slow receiver (longer than the timeout) → timeout recorded, then retried", async () => {
    let calls = 0;
    const s = await setup({
      timeoutMs: 400,
      respond: async () => {
        if (++calls === 1) await Bun.sleep(1500);
        return new Response("ok");
      },
    });
    const eventId = await s.publish("message.delivered");
    await waitFor(() => s.deliveries(eventId).length === 2 && s.jobs() === 0, 6000);
    const [first, second] = s.deliveries(eventId);
    expect(first).toMatchObject({ attempt: 1, outcome: "failed", status_code: null });
    expect(first!.error).toContain("timed out after 400 ms");
    expect(first!.duration_ms).toBeGreaterThanOrEqual(390);
    expect(first!.duration_ms).toBeLessThan(1400);
    expect(second).toMatchObject({ attempt: 2, outcome: "succeeded", status_code: 200 });
  });

  test("410 Gone disables the webhook; nothing is retried or sent to it afterwards", async () => {
    const s = await setup({ respond: () => new Response("gone", { status: 410 }) });
    const eventId = await s.publish("message.delivered");
    await waitFor(() => s.deliveries(eventId).length === 1 && s.jobs() === 0);
    await Bun.sleep(200); // a retry would come after 50 ms
    expect(s.receiver.deliveries.filter((d) => d.json?.id === eventId)).toHaveLength(1);
    const row = s.deliveries(eventId)[0]!;
    expect(row).toMatchObject({ outcome: "failed", status_code: 410, next_attempt_at: null });
    const hook = s.hook();
    expect(hook.enabled).toBe(0);
    expect(hook.disabled_reason).toContain("410");
    const api = await s.app.request("GET", `/v1/webhooks/${s.webhook.id}`);
    expect(api.json).toMatchObject({ enabled: false });
    expect(api.json.disabled_reason).toContain("410 Gone");
    const dead = (await s.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND dead_at IS NOT NULL"))!;
    expect(dead.n).toBe(1);

    // Later events are not even queued for it.
    await s.publish("message.delivered");
    expect(s.jobs()).toBe(0);
    await Bun.sleep(100);
    expect(s.receiver.deliveries).toHaveLength(1);
  });

  test("queued deliveries of a webhook that is disabled, deleted or unsubscribed meanwhile are dropped", async () => {
    const s = await setup({ start: false });
    await s.publish("message.delivered");
    await s.app.request("PUT", `/v1/webhooks/${s.webhook.id}`, { body: { enabled: false } });
    const other = await s.app.request("POST", "/v1/webhooks", {
      body: { route_id: s.routeId, name: "two", url: s.receiver.url(), events: ["message.sent"] },
    });
    await s.publish("message.sent");
    await s.app.request("DELETE", `/v1/webhooks/${other.json.data.id}`);
    expect(s.jobs()).toBe(2);
    s.runner.start();
    await waitFor(() => s.jobs() === 0);
    await Bun.sleep(100);
    expect(s.receiver.deliveries).toHaveLength(0);
    expect(await s.app.sql.get("SELECT count(*) AS n FROM webhook_deliveries")).toEqual({ n: 0 });
  });

  test("redirects are not followed: a 3xx is a failed attempt, retried", async () => {
    let calls = 0;
    const s = await setup({
      respond: (d) => (d.path === "/hook" && ++calls === 1 ? new Response(null, { status: 302, headers: { location: "/elsewhere" } }) : undefined),
    });
    const eventId = await s.publish("message.sent");
    await waitFor(() => s.deliveries(eventId).length === 2 && s.jobs() === 0);
    const [first, second] = s.deliveries(eventId);
    expect(first).toMatchObject({ outcome: "failed", status_code: 302 });
    expect(first!.error).toContain("redirects are not followed (Location: /elsewhere)");
    expect(second!.outcome).toBe("succeeded");
    expect(s.receiver.deliveries.map((d) => d.path)).toEqual(["/hook", "/hook"]);
  });

  test("the response kept with an attempt is capped at 2 KB", async () => {
    const s = await setup({ respond: () => new Response("é".repeat(20_000), { status: 500 }) });
    const eventId = await s.publish("message.sent");
    await waitFor(() => s.deliveries(eventId).length >= 1);
    const excerpt = s.deliveries(eventId)[0]!.response_excerpt!;
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(2048 + 2);
    expect(excerpt.length).toBeGreaterThan(1000);
    expect(excerpt.startsWith("éé")).toBe(true);
  });

  test("a response with NUL bytes (which PostgreSQL's text refuses) is kept with U+FFFD in their place, and the attempt recorded", async () => {
    const s = await setup({ respond: () => new Response("bad\u0000answer", { status: 500 }) });
    const eventId = await s.publish("message.sent");
    await waitFor(() => s.deliveries(eventId).length >= 1);
    expect(s.deliveries(eventId)[0]).toMatchObject({ outcome: "failed", status_code: 500, response_excerpt: "bad\uFFFDanswer" });
  });
});

describe("SSRF protection", () => {
  test("a hostname that resolves to 127.0.0.1 is refused when loopback is not allowed; nothing is sent", async () => {
    const s = await setup({ allowed: [] });
    const eventId = await s.publish("message.delivered");
    await waitFor(() => s.deliveries(eventId).length >= 1);
    await Bun.sleep(150);
    expect(s.receiver.deliveries).toHaveLength(0);
    const row = s.deliveries(eventId)[0]!;
    expect(row).toMatchObject({ outcome: "failed", status_code: null });
    expect(row.error).toBe(
      "refused: hooks.example.test resolves to 127.0.0.1, which is a loopback address; webhooks may only target public addresses unless POSTHORN_WEBHOOK_ALLOWED_NETWORKS includes it",
    );
    // Refusals are retried: the DNS answer or the webhook's URL may change before the next attempt.
    expect(row.next_attempt_at).toBeGreaterThan(0);
  });

  test("the check runs at delivery time on the resolved address, every address of the name", async () => {
    const s = await setup();
    dns.set("mixed.example.test", "A", ["127.0.0.1", "10.0.0.7"]);
    const mixed = await s.sender.send({ url: `https://mixed.example.test:${s.receiver.port}/hook`, secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(mixed.refused).toBe(true);
    expect(mixed.error).toContain("mixed.example.test resolves to 10.0.0.7, which is a private address");

    // A name that was fine when the webhook was created and now points inside is refused.
    dns.set("rebind.example.test", "A", ["127.0.0.1"]);
    const ok = await s.sender.send({ url: `https://rebind.example.test:${s.receiver.port}/hook`, secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(ok.refused).toBe(false); // allowed network (the certificate does not match, which is beside the point)
    dns.set("rebind.example.test", "A", ["169.254.169.254"]);
    // Bun's resolver keeps answers for their TTL; a fresh one sees the new record at once.
    const fresh = new WebhookSender({ dns: new DnsResolver([dns.server]), allowedNetworks: ["127.0.0.0/8"], dnsCacheMs: 0 });
    const rebound = await fresh.send({ url: "https://rebind.example.test/latest/meta-data", secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(rebound.refused).toBe(true);
    expect(rebound.error).toContain("link-local");
    dns.set("v6.example.test", "AAAA", ["fd12:3456::1"]);
    const v6 = await fresh.send({ url: "https://v6.example.test/", secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(v6.error).toContain("unique-local");
  });

  test("private, link-local, loopback and v4-mapped literals are refused without connecting", async () => {
    const s = await setup({ allowed: [] });
    for (const [host, kind] of [
      ["127.0.0.1", "loopback"],
      ["[::ffff:127.0.0.1]", "loopback"],
      ["[::1]", "loopback"],
      ["10.1.2.3", "private"],
      ["192.168.0.10", "private"],
      ["172.20.0.1", "private"],
      ["169.254.169.254", "link-local"],
      ["[fe80::1]", "link-local"],
      ["100.100.0.1", "CGNAT"],
      ["0.0.0.0", "unspecified"],
      ["224.0.0.1", "multicast"],
    ] as const) {
      const r = await s.sender.send({ url: `https://${host}:${s.receiver.port}/hook`, secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
      expect(r.refused).toBe(true);
      expect(r.error).toContain(kind);
      expect(r.statusCode).toBeNull();
    }
    expect(s.receiver.deliveries).toHaveLength(0);
    const http = await s.sender.send({ url: `http://hooks.example.test:${s.receiver.port}/hook`, secret: "whsec_x", event: "webhook.test", body: "{}", attempt: 1 });
    expect(http.error).toContain("https://");
  });
});
