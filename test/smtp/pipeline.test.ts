import { expect, test } from "bun:test";
import { WebhookSender } from "../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { newId } from "../../src/ids.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createDeps } from "../../src/runtime.ts";
import { registerInboundJobs, stopInboundAnalysis } from "../../src/smtp/inbound-job.ts";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import { addBootstrapTeam } from "../../src/bootstrap.ts";
import { sqliteOf, sqlOf, tempDir, testConfig, waitFor } from "../helpers.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { makeTestCert, startReceiver } from "../webhooks/support.ts";
import { compose, dkimSigned, eventBodies, sendRaw, startInbound } from "./support.ts";
import { join } from "node:path";

test("inbound mail reaches the route's webhook as a signed HTTPS POST whose bytes are the stored event", async () => {
  const cert = makeTestCert(["hooks.example.test"]);
  const secret = "whsec_inbound_test_secret";
  const receiver = startReceiver(cert, { secret });
  const h = await startInbound({
    beforeStart: ({ deps, runner, dns }) => {
      dns.set("hooks.example.test", "A", ["127.0.0.1"]);
      registerWebhookJobs(runner, deps, { sender: new WebhookSender({ dns: deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem }) });
    },
  });
  try {
    const now = Date.now();
    await h.app.sql.run(
      `INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, secret, created_at, updated_at)
       VALUES (?, ?, ?, 'app', ?, '["message.inbound"]', 1, ?, ?, ?)`,
      [newId(), h.app.team.teamId, h.inboundRouteId, receiver.url(), secret, now, now],
    );
    const raw = await dkimSigned(await compose({ from: "Alice <alice@sender.test>", to: h.inboundAddress, subject: "Ticket: printer on fire", text: "Please help ✓" }), h.sender);
    await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);

    const delivery = await waitFor(() => receiver.deliveries[0], 10_000);
    expect(delivery.verified).toBe(true);
    expect(delivery.headers["x-service-event"]).toBe("message.inbound");
    expect(delivery.json!.event).toBe("message.inbound");
    expect(delivery.json!.data).toMatchObject({ subject: "Ticket: printer on fire", from: { email: "alice@sender.test", name: "Alice" } });
    expect((delivery.json!.data as { body: { text: string } }).body.text.trim()).toBe("Please help ✓");
    const [stored] = await eventBodies(h.deps, "message.inbound");
    expect(delivery.body).toBe(JSON.stringify(stored));
  } finally {
    await h.stop();
    await receiver.stop();
  }
});

test("rspamd's symbols and score replace the built-in ones when POSTHORN_RSPAMD_URL is set", async () => {
  const seen: { path: string; headers: Record<string, string>; body: string }[] = [];
  const rspamd = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      seen.push({ path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers.entries()), body: await req.text() });
      return Response.json({
        is_skipped: false,
        score: 7.5,
        required_score: 15,
        action: "add header",
        symbols: {
          BAYES_SPAM: { name: "BAYES_SPAM", score: 5.1, metric_score: 5.1, description: "Message probably spam, probability: 97%", options: ["97.00%"] },
          R_SPF_ALLOW: { name: "R_SPF_ALLOW", score: -0.2, metric_score: -0.2, description: "SPF verification allows sending", options: ["+ip4:127.0.0.0/8"] },
          MIME_GOOD: { name: "MIME_GOOD", score: -0.1, metric_score: -0.1 },
          FAKE_REPLY: { name: "FAKE_REPLY", score: 2.7 },
        },
      });
    },
  });
  const h = await startInbound({ env: { POSTHORN_RSPAMD_URL: `http://127.0.0.1:${rspamd.port}` } });
  try {
    const raw = await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: "Re: your invoice", text: "cheap pills" });
    await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);
    // 7.5 ≥ the route's threshold 5: held, published to no webhook.
    const row = await waitFor(() =>
      h.app.sql.get<{ status: string; spam_score: number; spam_symbols: string }>("SELECT status, spam_score, spam_symbols FROM messages WHERE type = 'inbound' AND status <> 'pending'"),
    );
    expect(row.status).toBe("quarantined");
    expect(row.spam_score).toBe(7.5);
    expect(JSON.parse(row.spam_symbols)).toEqual([
      { name: "BAYES_SPAM", score: 5.1, options: ["97.00%"], description: "Message probably spam, probability: 97%" },
      { name: "FAKE_REPLY", score: 2.7, options: [], description: "" },
      { name: "MIME_GOOD", score: -0.1, options: [], description: "" },
      { name: "R_SPF_ALLOW", score: -0.2, options: ["+ip4:127.0.0.0/8"], description: "SPF verification allows sending" },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe("/checkv2");
    expect(seen[0]!.headers).toMatchObject({ ip: "127.0.0.1", from: "alice@sender.test", rcpt: h.inboundAddress, helo: expect.any(String) });
    expect(seen[0]!.body).toContain("cheap pills");
  } finally {
    await h.stop();
    rspamd.stop(true);
  }
});

test("rspamd unreachable: a warning at once, a counter in /metrics, the built-in rules within the stated bound; later mail does not wait", async () => {
  // A port nothing listens on: connections are refused, as with rspamd stopped.
  const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = closed.port;
  closed.stop(true);
  const h = await startInbound({
    env: { POSTHORN_RSPAMD_URL: `http://127.0.0.1:${port}`, POSTHORN_RSPAMD_FALLBACK_SECONDS: "3" },
    jobs: { rspamdRetryMs: () => 200 },
  });
  const warned: { at: number; msg: string }[] = [];
  const warn = h.deps.log.warn.bind(h.deps.log);
  h.deps.log.warn = (msg: string, fields?: Record<string, unknown>) => {
    warned.push({ at: performance.now(), msg });
    warn(msg, fields);
  };
  const metrics = async () => (await h.app.app.handle(new Request("http://localhost/metrics"))).text();
  try {
    const raw = await dkimSigned(await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: "Hello", text: "hi" }), h.sender);
    const sent = performance.now();
    await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);
    const warning = await waitFor(() => warned.find((w) => w.msg.startsWith("rspamd unreachable")), 2000, 5);
    expect(warning.at - sent).toBeLessThan(1000);
    expect(warning.msg).toContain("at most 3 s");
    expect(await metrics()).toContain("posthorn_rspamd_up{node=");
    expect(await metrics()).toMatch(/posthorn_rspamd_up\{[^}]*\} 0/);

    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound"))[0], 8000, 20);
    const waited = performance.now() - sent;
    expect(waited).toBeLessThan(3000 + 1500);
    expect(ev.data.spam_symbols.map((s: { name: string }) => s.name)).toEqual(["R_SPF_ALLOW", "R_DKIM_ALLOW", "DMARC_POLICY_ALLOW", "ARC_NA", "RSPAMD_UNAVAILABLE"]);
    const failures = Number(/posthorn_rspamd_failures_total\{[^}]*\} (\d+)/.exec(await metrics())![1]);
    expect(failures).toBeGreaterThanOrEqual(2); // retried within the bound, not given up at once

    // Once rspamd has been down longer than the bound, the next message falls back at its first failure.
    await Bun.sleep(Math.max(0, warning.at + 3200 - performance.now()));
    const again = performance.now();
    await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);
    await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).length === 2, 5000, 20);
    // Well under the 3 s it would wait otherwise (what is left is parsing and checking the message).
    expect(performance.now() - again).toBeLessThan(2000);
    expect(warned.filter((w) => w.msg.startsWith("rspamd unreachable"))).toHaveLength(1); // once per outage
  } finally {
    await h.stop();
  }
}, 20_000);

// SQLite's file and its synchronous commit, whatever the run's engine.
test("a 250 means the message is on disk: accepted with no worker running, it is processed after a restart", async () => {
  const dns = await startDnsServer();
  const dbPath = join(tempDir(), "posthorn.db");
  const config = testConfig({ POSTHORN_DNS_SERVERS: dns.server });
  let deps = createDeps(config, { dbPath });
  await addBootstrapTeam(deps.store, { teamName: "T", inboundDomain: config.inboundDomain });
  await subscribeEveryRoute(deps);
  const address = (await sqlOf(deps).get<{ a: string }>("SELECT inbound_address AS a FROM routes WHERE route_type = 'inbound'"))!.a;
  // First life: the listener only; no job runner.
  const listener = await startInboundListener(deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100 });
  const info = await sendRaw(listener.port, { from: "alice@sender.test", to: [address] }, await compose({ from: "alice@sender.test", to: address, subject: "survives", text: "x" }));
  const id = /Queued as (\S+)/.exec(info.response)![1]!;
  await listener.stop();
  // Simulated crash: the connection is dropped without any further flush.
  sqliteOf(deps).close();

  deps = createDeps(config, { dbPath });
  const status = async () => (await sqlOf(deps).get<{ status: string }>("SELECT status FROM messages WHERE id = ?", [id]))!.status;
  expect(await status()).toBe("pending");
  const runner = new JobRunner(deps);
  registerInboundJobs(runner, deps);
  runner.start();
  try {
    const ev = await waitFor(async () => (await eventBodies(deps, "message.inbound"))[0]);
    expect(ev.data).toMatchObject({ message_id: id, subject: "survives" });
    expect(await status()).toBe("processed");
  } finally {
    await runner.stop();
    stopInboundAnalysis(deps);
    await dns.close();
  }
});
