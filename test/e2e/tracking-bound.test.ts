/**
 * Issue 41, finding 7: tracking hits amplified into webhooks. A tracked link in a public place,
 * fetched 300 times in a few seconds, became one message.clicked POST per hit (296 of 300 in the
 * report). Now every hit is counted (stored, in the statistics) while the events published for a
 * recipient and link are bounded (EVENTS_BURST at once, then one every EVENTS_REFILL_MS), by a
 * bucket in the database taken in the hit's own write, so the bound holds across nodes on
 * PostgreSQL. A person's first open after a flood of machine hits still publishes and moves the
 * status. Over real sockets: the hits on an HTTP listener (two nodes' on PostgreSQL), the events
 * at a real HTTPS webhook receiver that verifies the signature.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { createApp } from "../../src/app.ts";
import { WebhookSender } from "../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { EVENTS_BURST } from "../../src/modules/tracking/service.ts";
import { openDeps } from "../../src/runtime.ts";
import { engine, waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";

const CHROME = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLE_PROXY = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";
const HITS = 300;

let h: OutboundHarness;
let listener: ReturnType<typeof Bun.serve>;
let base: string;
let receiver: TestReceiver;
let messageId: string;
const pixels = new Map<string, string>();
const links = new Map<string, string>();

beforeAll(async () => {
  let handle: (req: Request) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handle(req) });
  base = `http://127.0.0.1:${listener.port}`;
  h = await startOutbound({ env: { POSTHORN_TRACKING_URL: base, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" } });
  handle = (req) => h.app.handle(req);
  h.routeToSink("dest.test");
  const cert = makeTestCert(["hooks.example.test"]);
  h.dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  registerWebhookJobs(h.runner, h.deps, { sender: new WebhookSender({ dns: h.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem }) });
  receiver = startReceiver(cert);
  const routeId = (await h.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [h.team.projectId]))!.id;
  const hook = await h.request("POST", "/v1/webhooks", {
    body: { route_id: routeId, name: "everything", url: receiver.url(), events: ["message.opened", "message.clicked"], include_machine_events: true },
  });
  expect(hook.status).toBe(201);
  receiver.secret = hook.json.data.secret;

  const res = await h.send({
    from: "shop@sender.test",
    to: ["ann@dest.test", "bob@dest.test", "cy@dest.test"],
    subject: "Sale",
    html: '<html><body><p><a href="https://shop.example/sale">Sale</a></p></body></html>',
    track_opens: true,
    track_clicks: true,
  });
  expect(res.status).toBe(202);
  messageId = res.json.message_id;
  await h.waitForStatus(messageId, ["delivered"]);
  for (const mail of h.sink.received.filter((m) => m.raw.includes(messageId))) {
    const html = String((await simpleParser(mail.raw)).html);
    const pixel = new RegExp(`${base}/t/o/([A-Za-z0-9_-]+)`).exec(html);
    const link = new RegExp(`${base}/t/c/([A-Za-z0-9_-]+)`).exec(html);
    if (pixel && link) {
      pixels.set(mail.to[0]!, `/t/o/${pixel[1]}`);
      links.set(mail.to[0]!, `/t/c/${link[1]}`);
    }
  }
  // The 250s came a minute ago: the hits are not "seconds after delivery".
  await h.sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [messageId]);
  // Buckets of earlier hits: one full again (untouched for over an hour), one still refilling.
  await h.sql.run("INSERT INTO rate_limit_buckets (key, tokens, updated_at) VALUES (?, 3, ?), (?, 3, ?)", ["track:stale:o", Date.now() - 2 * 3600_000, "track:recent:o", Date.now() - 600_000]);
});
afterAll(async () => {
  await h.close();
  listener.stop(true);
  await receiver.stop();
});

/** `n` GETs of `path` at `origin`, 20 at a time; every answer must be the tracking one. */
async function flood(origin: string, path: string, n: number, ua: string) {
  for (let done = 0; done < n; done += 20) {
    const wave = await Promise.all(
      Array.from({ length: Math.min(20, n - done) }, () => fetch(`${origin}${path}`, { redirect: "manual", headers: { "user-agent": ua } })),
    );
    for (const r of wave) expect([200, 302]).toContain(r.status);
  }
}
const statusOf = (email: string) => h.recipients(messageId).find((r) => r.email === email)!.status;
const hitsOf = async (email: string, kind: string) =>
  (await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM tracking_hits h JOIN recipients r ON r.id = h.recipient_id WHERE r.email = ? AND h.message_id = ? AND h.kind = ?", [email, messageId, kind]))!.n;
/** Waits until no webhook delivery is queued, then the POSTs the receiver got for `email` and `event`. */
async function postsFor(email: string, event: string) {
  await waitFor(async () => Number((await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND dead_at IS NULL"))!.n) === 0, 60_000, 50);
  return receiver.deliveries.filter((d) => d.verified && d.json?.event === event && d.json.data.recipient === email);
}

describe("a tracked link fetched 300 times (issue 41, finding 7)", () => {
  test("every hit is counted; at most EVENTS_BURST events are published; the first is the person's first click", async () => {
    const started = Date.now();
    await flood(base, links.get("ann@dest.test")!, HITS, CHROME);
    const seconds = (Date.now() - started) / 1000;
    expect(await hitsOf("ann@dest.test", "click")).toBe(HITS);
    const posts = await postsFor("ann@dest.test", "message.clicked");
    // Before the fix: 300 POSTs for 300 GETs.
    console.log(`${HITS} GETs in ${seconds.toFixed(1)} s -> ${posts.length} webhook POSTs`);
    expect(posts.length).toBe(EVENTS_BURST);
    // Webhook deliveries run side by side: the person's first click is one of them, whatever the order.
    expect(posts.filter((p) => p.json!.data.first === true).map((p) => p.json!.data)).toEqual([expect.objectContaining({ machine: false, status: "clicked" })]);
    expect(statusOf("ann@dest.test")).toBe("clicked");
    // The history holds what was published, not every hit.
    const history = await h.sql.get<{ n: number }>(
      "SELECT count(*) AS n FROM message_events e JOIN recipients r ON r.id = e.recipient_id WHERE r.email = 'ann@dest.test' AND e.message_id = ? AND e.kind = 'message.clicked'",
      [messageId],
    );
    expect(Number(history!.n)).toBe(EVENTS_BURST);
    // The statistics count every hit.
    const routeId = (await h.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [h.team.projectId]))!.id;
    const stats = (await h.request("GET", `/v1/routes/${routeId}?include=statistics`)).json.statistics;
    expect(stats.clicks_human + stats.clicks_machine).toBeGreaterThanOrEqual(HITS);
    // The node's first hit also cleared the buckets that were full again, and only those.
    await waitFor(async () => (await h.sql.get("SELECT 1 AS one FROM rate_limit_buckets WHERE key = 'track:stale:o'")) === null, 5000, 50);
    expect(await h.sql.get("SELECT 1 AS one FROM rate_limit_buckets WHERE key = 'track:recent:o'")).not.toBeNull();
  }, 120_000);

  test("a flood of machine opens: bounded; a person's first open afterwards still publishes and moves the status", async () => {
    await flood(base, pixels.get("bob@dest.test")!, HITS, GOOGLE_PROXY);
    expect(await hitsOf("bob@dest.test", "open")).toBe(HITS);
    expect(statusOf("bob@dest.test")).toBe("delivered");
    expect((await postsFor("bob@dest.test", "message.opened")).length).toBe(EVENTS_BURST);

    const res = await fetch(`${base}${pixels.get("bob@dest.test")}`, { headers: { "user-agent": CHROME } });
    expect(res.status).toBe(200);
    expect(statusOf("bob@dest.test")).toBe("opened");
    const posts = await postsFor("bob@dest.test", "message.opened");
    expect(posts.length).toBe(EVENTS_BURST + 1);
    expect(posts.filter((p) => p.json!.data.machine === false).map((p) => p.json!.data)).toEqual([
      expect.objectContaining({ first: true, status: "opened", user_agent: CHROME }),
    ]);
    // Later hits of that person are bounded with the rest.
    await flood(base, pixels.get("bob@dest.test")!, 20, CHROME);
    expect((await postsFor("bob@dest.test", "message.opened")).length).toBe(EVENTS_BURST + 1);
  }, 120_000);
});

describe.skipIf(engine !== "postgres")("two nodes on one PostgreSQL database", () => {
  test("the bound holds across nodes: 150 GETs on each, hits 300, events EVENTS_BURST", async () => {
    // A second node: its own connection pool, its own app and listener, the same database.
    const deps2 = await openDeps(h.deps.config);
    const node2 = createApp(deps2).listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const other = `http://127.0.0.1:${node2.server!.port}`;
      const link = links.get("cy@dest.test")!;
      await Promise.all([flood(base, link, HITS / 2, CHROME), flood(other, link, HITS / 2, CHROME)]);
      expect(await hitsOf("cy@dest.test", "click")).toBe(HITS);
      expect((await postsFor("cy@dest.test", "message.clicked")).length).toBe(EVENTS_BURST);
      expect(statusOf("cy@dest.test")).toBe("clicked");
    } finally {
      await node2.stop();
      await deps2.store.close();
    }
  }, 120_000);
});
