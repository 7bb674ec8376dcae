/**
 * The route settings a recipient or an API reader notices, over real sockets: mail read at the
 * recipient's MX (the loopback sink), webhook events, and the message API's answers.
 * docs/sending.md, Route settings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { startOutbound, type OutboundHarness } from "./harness.ts";

let h: OutboundHarness;
const routeIds: Record<string, string> = {};

beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink("dest.test");
  h.routeToSink("sub.mailinator.com");
  h.routeToSink("mailinator.com");
  const create = async (slug: string, route_type: string, settings: Record<string, unknown>) => {
    const res = await h.request("POST", `/v1/projects/${h.team.projectId}/routes`, { body: { name: slug, slug, route_type, settings } });
    expect(res.status).toBe(201);
    routeIds[slug] = res.json.data.id;
  };
  await create("fallback", "transactional", { generate_plaintext_fallback: true, suppress_auto_responders: true });
  await create("disposable", "transactional", { suppress_disposable_recipients: true });
  await create("redacted", "transactional", { redact_email_content: true });
  await create("tracked", "transactional", { track_opens: true, track_clicks: true });
  await create("news-own-unsub", "broadcast", { disable_hosted_unsubscribe: true });
  await subscribeEveryRoute(h.deps);
});
afterAll(() => h.close());

const send = async (body: Record<string, unknown>) => {
  const res = await h.send({ from: "app@sender.test", subject: "Hello", ...body });
  expect({ status: res.status, body: res.json }).toMatchObject({ status: 202 });
  return res.json as { message_id: string; status: string };
};
const delivered = async (body: Record<string, unknown>) => {
  const { message_id } = await send(body);
  await h.waitForStatus(message_id, ["delivered"]);
  const mail = h.sink.received.find((m) => m.raw.includes(message_id))!;
  return { id: message_id, mail, parsed: await simpleParser(mail.raw) };
};
/** The header block of a delivered copy, folded lines unfolded. */
const headerOf = (raw: Buffer) => raw.toString("latin1").split("\r\n\r\n")[0]!.replace(/\r\n[ \t]+/g, " ");
const HTML = '<h1>Order shipped</h1><p>Track it <a href="https://shop.example/track/42">here</a>.</p><img src="https://shop.example/logo.png" alt="Logo">';

describe("generate_plaintext_fallback and suppress_auto_responders", () => {
  test("an HTML-only send gets a text part made from the HTML; a route without the setting sends HTML only", async () => {
    const on = await delivered({ to: ["a@dest.test"], html: HTML, route: "fallback" });
    expect(on.parsed.html).toContain("Order shipped");
    expect(on.parsed.text).toContain("ORDER SHIPPED");
    expect(on.parsed.text).toContain("here [https://shop.example/track/42]");
    expect(on.parsed.text).not.toContain("logo.png");
    expect(on.mail.raw.toString()).toMatch(/Content-Type: multipart\/alternative/i);

    const off = await delivered({ to: ["b@dest.test"], html: HTML });
    expect(off.mail.raw.toString()).not.toMatch(/Content-Type: text\/plain/i);
  });

  test("a text part the sender gave is kept as given", async () => {
    const m = await delivered({ to: ["c@dest.test"], html: HTML, text: "My own text.", route: "fallback" });
    expect(m.parsed.text!.trim()).toBe("My own text.");
  });

  test("suppress_auto_responders adds X-Auto-Response-Suppress: All, unless the sender set that header", async () => {
    const m = await delivered({ to: ["d@dest.test"], html: HTML, route: "fallback" });
    expect(m.parsed.headers.get("x-auto-response-suppress")).toBe("All");
    const own = await delivered({ to: ["e@dest.test"], html: HTML, route: "fallback", headers: { "X-Auto-Response-Suppress": "OOF" } });
    expect(own.parsed.headers.get("x-auto-response-suppress")).toBe("OOF");
    const plain = await delivered({ to: ["f@dest.test"], html: HTML });
    expect(plain.parsed.headers.has("x-auto-response-suppress")).toBe(false);
  });
});

describe("suppress_disposable_recipients", () => {
  test("recipients at listed domains and their subdomains are suppressed with reason disposable_email; the others delivered; no suppression is added", async () => {
    const { message_id } = await send({ to: ["ok@dest.test", "temp@mailinator.com"], cc: ["x@sub.mailinator.com"], text: "hello there", route: "disposable" });
    await h.waitForStatus(message_id, ["delivered"]);
    const byEmail = Object.fromEntries(h.recipients(message_id).map((r) => [r.email, r.status]));
    expect(byEmail).toEqual({ "ok@dest.test": "delivered", "temp@mailinator.com": "suppressed", "x@sub.mailinator.com": "suppressed" });
    expect(h.sink.received.filter((m) => m.raw.includes(message_id)).flatMap((m) => m.to)).toEqual(["ok@dest.test"]);
    // The webhook event and the API's history say why.
    const events = (await h.sql.all<{ body: string }>("SELECT body FROM events WHERE message_id = ? AND kind = 'message.suppressed'", [message_id])).map((r) => JSON.parse(r.body));
    expect(events.map((e) => [e.data.recipient, e.data.reason]).sort()).toEqual([
      ["temp@mailinator.com", "disposable_email"],
      ["x@sub.mailinator.com", "disposable_email"],
    ]);
    expect((await h.request("GET", "/v1/suppressions")).json.data.some((s: { email?: string; value?: string }) => (s.value ?? s.email)?.includes("mailinator"))).toBe(false);
  });

  test("every recipient disposable: the message is suppressed at once; another route delivers to the same address", async () => {
    const all = await send({ to: ["only@mailinator.com"], text: "hello there", route: "disposable" });
    expect(all.status).toBe("suppressed");
    const other = await send({ to: ["only@mailinator.com"], text: "hello there" });
    expect(other.status).toBe("pending");
    await h.waitForStatus(other.message_id, ["delivered"]);
  });
});

describe("redact_email_content", () => {
  const gone = async (path: string) => {
    const res = await h.request("GET", path);
    expect({ path, status: res.status }).toEqual({ path, status: 410 });
    expect(res.json.error).toBe("gone");
    expect(res.json.message).toContain("redact");
  };

  test("content is kept while a retry needs it, and answers 410 once every recipient is final; metadata stays", async () => {
    let refusals = 1;
    h.sink.onRcpt = (address) => (address === "slow@dest.test" && refusals-- > 0 ? { code: 451, message: "4.7.1 try again later" } : null);
    try {
      const { message_id: id } = await send({
        to: ["slow@dest.test"],
        html: "<p>secret body</p>",
        text: "secret body",
        route: "redacted",
        attachments: [{ filename: "a.txt", content: Buffer.from("secret file").toString("base64") }],
      });
      await h.waitForStatus(id, ["soft_bounced"]);
      // Soft bounced: the retry still has everything.
      expect((await h.request("GET", `/v1/messages/${id}/html`)).status).toBe(200);
      await h.waitForStatus(id, ["delivered"]);
      expect(h.sink.received.find((m) => m.raw.includes(id))!.raw.toString()).toContain("secret body");
      for (const part of ["source", "html", "text"]) await gone(`/v1/messages/${id}/${part}`);
      const meta = await h.request("GET", `/v1/messages/${id}`);
      expect(meta.status).toBe(200);
      expect(meta.json).toMatchObject({ subject: "Hello", status: "delivered" });
      const stored = await h.sql.get<{ html: string | null; text: string | null; raw: unknown; size: number }>(
        "SELECT c.html, c.text, c.raw, (SELECT sum(length(a.content)) FROM attachments a WHERE a.message_id = c.message_id) AS size FROM message_contents c WHERE c.message_id = ?",
        [id],
      );
      expect({ ...stored, size: Number(stored!.size) }).toEqual({ html: null, text: null, raw: null, size: 0 });
    } finally {
      h.sink.onRcpt = null;
    }
  });

  test("a message cancelled from the delivery queue is final too: its content goes", async () => {
    h.sink.onRcpt = (address) => (address === "stuck@dest.test" ? { code: 451, message: "4.7.1 try again later" } : null);
    try {
      const { message_id: id } = await send({ to: ["stuck@dest.test"], html: "<p>stuck body</p>", route: "redacted" });
      await h.waitForStatus(id, ["soft_bounced"]);
      expect((await h.request("GET", `/v1/messages/${id}/html`)).status).toBe(200);
      const res = await h.request("POST", `/v1/queue/cancel?filter[route_id]=${routeIds.redacted}`);
      expect(res.status).toBe(200);
      expect(h.messageStatus(id)).toBe("failed");
      await gone(`/v1/messages/${id}/html`);
    } finally {
      h.sink.onRcpt = null;
    }
  });

  test("a route without the setting keeps the content", async () => {
    const m = await delivered({ to: ["keep@dest.test"], html: "<p>kept</p>" });
    expect((await h.request("GET", `/v1/messages/${m.id}/html`)).text).toBe("<p>kept</p>");
  });

  test("a message whose recipients are all suppressed at acceptance keeps no content either", async () => {
    await h.request("PUT", `/v1/routes/${routeIds.redacted}`, { body: { settings: { suppress_disposable_recipients: true } } });
    const res = await send({ to: ["gone@mailinator.com"], html: "<p>never sent</p>", route: "redacted" });
    expect(res.status).toBe("suppressed");
    await gone(`/v1/messages/${res.message_id}/html`);
  });
});

describe("track_opens / track_clicks and disable_hosted_unsubscribe", () => {
  test("the route's tracking applies to its sends; a send's own field wins", async () => {
    const tracked = await delivered({ to: ["t1@dest.test"], html: HTML, route: "tracked" });
    expect(tracked.parsed.html).toContain("/t/o/");
    expect(tracked.parsed.html).toContain("/t/c/");
    const optOut = await delivered({ to: ["t2@dest.test"], html: HTML, route: "tracked", track_opens: false, track_clicks: false });
    expect(optOut.parsed.html).not.toContain("/t/o/");
    expect(optOut.parsed.html).toContain("https://shop.example/track/42");
  });

  test("a broadcast route carries the hosted List-Unsubscribe; with disable_hosted_unsubscribe none is added and the sender's own stays", async () => {
    const hosted = await delivered({ to: ["n1@dest.test"], html: "<p>news</p>", route: "broadcast" });
    expect(headerOf(hosted.mail.raw)).toMatch(/^List-Unsubscribe: <[^>]*\/v1\/unsubscribe\//m);

    const none = await delivered({ to: ["n2@dest.test"], html: "<p>news</p>", route: "news-own-unsub" });
    expect(headerOf(none.mail.raw)).not.toMatch(/^List-Unsubscribe/im);

    const own = await delivered({
      to: ["n3@dest.test"],
      html: "<p>news</p>",
      route: "news-own-unsub",
      headers: { "List-Unsubscribe": "<https://brand.example/unsub?u=3>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    expect(headerOf(own.mail.raw)).toMatch(/^List-Unsubscribe: <https:\/\/brand\.example\/unsub\?u=3>$/m);
    expect(own.mail.raw.toString()).not.toContain("/v1/unsubscribe/");
    // A broadcast route that hosts the link still refuses the sender's own.
    const refused = await h.send({ from: "app@sender.test", subject: "x", to: ["n4@dest.test"], html: "<p>x</p>", route: "broadcast", headers: { "List-Unsubscribe": "<https://x.example>" } });
    expect(refused.status).toBe(422);
  });
});
