/**
 * Open and click tracking end to end, over real sockets: a message sent through the API with
 * tracking reaches the recipient's MX (the loopback sink) with its links rewritten and a pixel,
 * DKIM-signed over the rewritten bytes; the tracking URLs are then hit over HTTP on a real
 * listener, and the route's webhooks (real HTTPS receivers that verify the signature) get people's
 * hits, and machines' only when they ask.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { trackingToken } from "../../src/auth/tracking-tokens.ts";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { WebhookSender } from "../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness, type ReceivedMail } from "../send/harness.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";

const CHROME = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLE_PROXY = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";
const SHOP = "https://shop.example/orders/42?x=1&y=2";
const HTML = `<!doctype html><html><body>
<p>Your order <a href="https://shop.example/orders/42?x=1&amp;y=2">is ready</a>.</p>
<p><a href="mailto:help@shop.example">Write to us</a> or <a href="tel:+4930123">call</a>.</p>
<p><a data-posthorn-notrack href="https://shop.example/account">Your account</a></p>
<p><a href="https://shop.example/help">Help</a></p>
</body></html>`;

let h: OutboundHarness;
let listener: ReturnType<typeof Bun.serve>;
let base: string;
let people: TestReceiver;
let everyone: TestReceiver;
let routeId: string;

beforeAll(async () => {
  // The tracking URLs must name the listener, so it is up before the app.
  let handle: (req: Request) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handle(req) });
  base = `http://127.0.0.1:${listener.port}`;
  h = await startOutbound({ env: { POSTHORN_TRACKING_URL: base, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" } });
  handle = (req) => h.app.handle(req);
  h.routeToSink("dest.test");

  const cert = makeTestCert(["hooks.example.test"]);
  h.dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  registerWebhookJobs(h.runner, h.deps, { sender: new WebhookSender({ dns: h.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem }) });
  people = startReceiver(cert);
  everyone = startReceiver(cert);
  routeId = (await h.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [h.team.projectId]))!.id;
  for (const [receiver, include] of [
    [people, undefined],
    [everyone, true],
  ] as const) {
    const res = await h.request("POST", "/v1/webhooks", {
      body: { route_id: routeId, name: include ? "everyone" : "people", url: receiver.url(), events: ["message.opened", "message.clicked"], include_machine_events: include },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.include_machine_events).toBe(include === true);
    receiver.secret = res.json.data.secret;
  }
});
afterAll(async () => {
  await h.close();
  listener.stop(true);
  await people.stop();
  await everyone.stop();
});

/** mailauth's DKIM check, asking the loopback DNS server for the key. */
async function dkimResults(raw: Buffer) {
  const resolver = new DnsResolver([h.dns.server]);
  const result = await dkimVerify(raw, {
    resolver: async (name: string, type: string) => {
      if (type !== "TXT") throw Object.assign(new Error("no"), { code: "ENOTFOUND" });
      return (await resolver.txt(name)).map((r) => [r]);
    },
  });
  return result.results.map((r) => r.status.result);
}

const hit = (path: string, init: { method?: string; ua?: string } = {}) =>
  fetch(`${base}${path}`, { method: init.method ?? "GET", redirect: "manual", headers: { "user-agent": init.ua ?? CHROME } });

describe("a tracked message, sent and hit over real sockets", () => {
  let messageId: string;
  let copies: Map<string, { mail: ReceivedMail; html: string }>;
  let recipientIds: Record<string, string>;
  const pixelOf = (email: string) => new RegExp(`<img src="${base}/t/o/([A-Za-z0-9_-]+)"`).exec(copies.get(email)!.html)![1]!;
  const clickTokensOf = (email: string) => [...copies.get(email)!.html.matchAll(new RegExp(`href="${base}/t/c/([A-Za-z0-9_-]+)"`, "g"))].map((m) => m[1]!);
  const statusOf = (email: string) => h.recipients(messageId).find((r) => r.email === email)!.status;

  beforeAll(async () => {
    const res = await h.send({ from: "shop@sender.test", to: ["ann@dest.test", "bob@dest.test"], subject: "Ready", html: HTML, text: "Your order is ready.", track_opens: true, track_clicks: true });
    expect(res.status).toBe(202);
    messageId = res.json.message_id;
    await h.waitForStatus(messageId, ["delivered"]);
    copies = new Map();
    for (const mail of h.sink.received) copies.set(mail.to[0]!, { mail, html: String((await simpleParser(mail.raw)).html) });
    recipientIds = Object.fromEntries(h.recipients(messageId).map((r) => [r.email, r.id]));
    // The 250s came a minute ago: the hits below are not "seconds after delivery".
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [messageId]);
  });

  test("each recipient gets its own copy: links rewritten, mailto/tel/notrack untouched, the pixel, a DKIM signature that verifies", async () => {
    expect([...copies.keys()].sort()).toEqual(["ann@dest.test", "bob@dest.test"]);
    for (const [, { mail, html }] of copies) {
      expect(await dkimResults(mail.raw)).toEqual(["pass"]);
      expect(clickTokensOf(mail.to[0]!)).toHaveLength(2); // the order link and Help
      expect(html).not.toContain('href="https://shop.example/orders/42');
      expect(html).not.toContain('href="https://shop.example/help"');
      expect(html).toContain('<a href="mailto:help@shop.example">');
      expect(html).toContain('<a href="tel:+4930123">');
      expect(html).toContain('<a href="https://shop.example/account">'); // untracked, and the marker attribute is gone
      expect(html).not.toContain("data-posthorn-notrack");
      expect(html.indexOf("/t/o/")).toBeLessThan(html.indexOf("</body>"));
      // The text part is not touched.
      expect(String((await simpleParser(mail.raw)).text).trim()).toBe("Your order is ready.");
    }
    // The tokens name the recipient: the two copies share none.
    expect(clickTokensOf("ann@dest.test").some((t) => clickTokensOf("bob@dest.test").includes(t))).toBe(false);
    expect(pixelOf("ann@dest.test")).not.toBe(pixelOf("bob@dest.test"));
    // The stored source is one recipient's copy, as it was sent.
    const stored = (await h.sql.get<{ raw: Uint8Array }>("SELECT raw FROM message_contents WHERE message_id = ?", [messageId]))!.raw;
    const storedHtml = String((await simpleParser(Buffer.from(stored))).html);
    expect([...copies.values()].filter((c) => c.html === storedHtml)).toHaveLength(1);
  });

  test("a desktop browser's open: 200 GIF, no-store; opened; message.opened machine:false reaches both webhooks", async () => {
    const res = await hit(`/t/o/${pixelOf("ann@dest.test")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(statusOf("ann@dest.test")).toBe("opened");
    for (const receiver of [people, everyone]) {
      const d = await waitFor(() => receiver.deliveries.find((x) => x.json?.event === "message.opened" && x.json.data.recipient === "ann@dest.test"), 10_000);
      expect(d.verified).toBe(true);
      expect(d.json!.data).toMatchObject({ message_id: messageId, recipient: "ann@dest.test", user_agent: CHROME, first: true, machine: false, machine_reason: null });
    }
  });

  test("Google's image proxy and a HEAD are machines: recorded, status unchanged, sent only to the webhook that includes machines", async () => {
    expect((await hit(`/t/o/${pixelOf("bob@dest.test")}`, { ua: GOOGLE_PROXY })).status).toBe(200);
    expect((await hit(`/t/o/${pixelOf("bob@dest.test")}`, { method: "HEAD" })).status).toBe(200);
    expect(statusOf("bob@dest.test")).toBe("delivered");
    const machine = await waitFor(() => {
      const ds = everyone.deliveries.filter((x) => x.json?.data.recipient === "bob@dest.test");
      return ds.length === 2 ? ds : null;
    }, 10_000);
    expect(machine.map((d) => [d.json!.event, d.json!.data.machine, d.json!.data.machine_reason])).toEqual([
      ["message.opened", true, "privacy_proxy"],
      ["message.opened", true, "head_request"],
    ]);
    // Whatever the people-only webhook got in the meantime, none of it is bob's.
    await Bun.sleep(300);
    expect(people.deliveries.filter((x) => x.json?.data.recipient === "bob@dest.test")).toEqual([]);
  });

  test("a click: 302 to the exact original URL, clicked; the second link goes to its own URL", async () => {
    const [order, help] = clickTokensOf("ann@dest.test");
    const res = await hit(`/t/c/${order}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(SHOP);
    expect(statusOf("ann@dest.test")).toBe("clicked");
    const d = await waitFor(() => people.deliveries.find((x) => x.json?.event === "message.clicked"), 10_000);
    expect(d.json!.data).toMatchObject({ recipient: "ann@dest.test", url: SHOP, first: true, machine: false });
    expect((await hit(`/t/c/${help}`)).headers.get("location")).toBe("https://shop.example/help");
  });

  test("forged tokens: altered signature, another message, another link index, truncated, extended → 404, no Location", async () => {
    const secret = await serverSecretOf(h.deps.store);
    const [order] = clickTokensOf("bob@dest.test");
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const forged = [
      flip(order!, order!.length - 3), // the signature
      flip(order!, 5), // the message id inside
      trackingToken(secret, { kind: "click", messageId: "0192f000-0000-7000-8000-000000000000", recipientId: recipientIds["bob@dest.test"]!, link: 0 }),
      trackingToken(secret, { kind: "click", messageId, recipientId: recipientIds["bob@dest.test"]!, link: 7 }), // no such link
      trackingToken("another secret", { kind: "click", messageId, recipientId: recipientIds["bob@dest.test"]!, link: 0 }),
      order!.slice(0, -1),
      `${order}A`,
    ];
    for (const token of forged) {
      const res = await hit(`/t/c/${token}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("location")).toBeNull();
    }
    // A pixel token does not open a click URL, nor the reverse.
    expect((await hit(`/t/c/${pixelOf("bob@dest.test")}`)).status).toBe(404);
    expect((await hit(`/t/o/${order}`)).status).toBe(404);
    expect(statusOf("bob@dest.test")).toBe("delivered");
  });

  test("statistics count people's and machines' opens and clicks apart", async () => {
    const route = await h.request("GET", `/v1/routes/${routeId}?include=statistics`);
    expect(route.json.statistics).toMatchObject({ opens_human: 1, opens_machine: 2, clicks_human: 2, clicks_machine: 0 });
    const project = await h.request("GET", `/v1/projects/${h.team.projectId}`);
    expect(project.json.last_28_days).toMatchObject({ opens_human: 1, opens_machine: 2, clicks_human: 2, clicks_machine: 0 });
  });
});

describe("when tracking applies", () => {
  const sendOne = async (body: Record<string, unknown>) => {
    const before = h.sink.received.length;
    const res = await h.send({ from: "shop@sender.test", to: ["cy@dest.test"], subject: "s", html: '<p><a href="https://shop.example/x">x</a></p>', ...body });
    expect(res.status).toBe(202);
    await h.waitForStatus(res.json.message_id, ["delivered"]);
    return String((await simpleParser(h.sink.received[before]!.raw)).html).trim();
  };

  test("off by default; the route's settings turn it on; the send's booleans override them", async () => {
    expect(await sendOne({})).toBe('<p><a href="https://shop.example/x">x</a></p>');
    expect((await h.request("PUT", `/v1/routes/${routeId}`, { body: { track_opens: true, track_clicks: true } })).status).toBe(200);
    try {
      const both = await sendOne({});
      expect(both).toContain(`${base}/t/c/`);
      expect(both).toContain(`${base}/t/o/`);
      const opensOnly = await sendOne({ track_clicks: false });
      expect(opensOnly).toContain('href="https://shop.example/x"');
      expect(opensOnly).toContain(`${base}/t/o/`);
      expect(await sendOne({ track_opens: false, track_clicks: false })).toBe('<p><a href="https://shop.example/x">x</a></p>');
    } finally {
      await h.request("PUT", `/v1/routes/${routeId}`, { body: { track_opens: false, track_clicks: false } });
    }
  });

  test("a text-only message is sent as it is; a non-boolean override is a 422", async () => {
    const res = await h.send({ from: "shop@sender.test", to: ["cy@dest.test"], subject: "s", text: "https://shop.example/x", track_opens: true, track_clicks: true });
    expect(res.status).toBe(202);
    await h.waitForStatus(res.json.message_id, ["delivered"]);
    expect(String((await simpleParser(h.sink.received.at(-1)!.raw)).text).trim()).toBe("https://shop.example/x");
    const bad = await h.send({ from: "shop@sender.test", to: ["cy@dest.test"], subject: "s", html: "<p>x</p>", track_opens: "yes" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.json.errors)).toContain("track_opens");
  });

  test("hostile HTML: an 8 KB link, malformed markup and a 5 MB body are tracked, sent as well-formed MIME and signed", async () => {
    const long = `https://shop.example/q?${"a=1&".repeat(2048)}end=1`; // 8 KB
    const malformed = `<p>Hi <b><a href="https://shop.example/x">x</a><table><tr><td><a href='${long.replace(/&/g, "&amp;")}'>long</a><div><span><a href="https://shop.example/y`;
    const big = `<html><body>${Array.from({ length: 10_000 }, (_, i) => `<p>${"word ".repeat(95)}<a href="https://shop.example/p/${i}">p${i}</a></p>`).join("\n")}</body></html>`;
    expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
    for (const html of [malformed, big]) {
      const before = h.sink.received.length;
      const res = await h.send({ from: "shop@sender.test", to: ["cy@dest.test"], subject: "hostile", html, track_opens: true, track_clicks: true });
      expect(res.status).toBe(202);
      expect(await h.waitForStatus(res.json.message_id, ["delivered", "failed"], 30_000)).toBe("delivered");
      const mail = h.sink.received[before]!;
      expect(await dkimResults(mail.raw)).toEqual(["pass"]);
      const parsed = await simpleParser(mail.raw);
      const out = String(parsed.html);
      const links = await h.sql.all<{ url: string }>("SELECT url FROM tracked_links WHERE message_id = ? ORDER BY link_index", [res.json.message_id]);
      if (html === malformed) {
        expect(links.map((l) => l.url)).toEqual(["https://shop.example/x", long]);
        expect(out).not.toContain("https://shop.example/x\"");
        // The link cut off by the end of the document is left as it was, and no pixel is shown as text.
        expect(out.trimEnd().endsWith('<a href="https://shop.example/y')).toBe(true);
        // The long link's click goes to its exact URL.
        const token = new RegExp(`href='?"?${base}/t/c/([A-Za-z0-9_-]+)`, "g");
        const tokens = [...out.matchAll(token)].map((m) => m[1]!);
        expect((await hit(`/t/c/${tokens[1]}`)).headers.get("location")).toBe(long);
      } else {
        expect(links).toHaveLength(10_000);
        expect(out.match(/\/t\/c\//g)).toHaveLength(10_000);
      }
    }
  }, 60_000);
});
