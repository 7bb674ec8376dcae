import { afterAll, beforeAll, expect, test } from "bun:test";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { simpleParser } from "mailparser";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { parseVerpLocalPart } from "../../src/mail/verp.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { waitFor } from "../helpers.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { startOutbound, SENDER_DOMAIN, type OutboundHarness } from "./harness.ts";

let h: OutboundHarness;
beforeAll(async () => {
  h = await startOutbound();
  await subscribeEveryRoute(h.deps);
  h.routeToSink("dest.test");
  h.routeToSink("other.test");
});
afterAll(() => h.close());

/** mailauth's DKIM check, asking the loopback DNS server for the key. */
async function verifyDkim(raw: Buffer) {
  const resolver = new DnsResolver([h.dns.server]);
  const result = await dkimVerify(raw, {
    resolver: async (name: string, type: string) => {
      if (type !== "TXT") throw Object.assign(new Error("no"), { code: "ENOTFOUND" });
      return (await resolver.txt(name)).map((r) => [r]);
    },
  });
  return result.results;
}

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d1b3b40000000049454e44ae426082", "hex");

test("a message reaches the recipient's MX signed, intact and with a VERP return path; status delivered", async () => {
  const pdf = Buffer.from("%PDF-1.4 fake document \u0000 with binary \xff bytes", "latin1");
  const res = await h.send({
    from: "Billing Team <billing@sender.test>",
    to: ["Ann Example <ann@dest.test>"],
    cc: ["carl@other.test"],
    bcc: ["hidden@dest.test"],
    reply_to: ["support@sender.test"],
    subject: "Your invoice — März ✓",
    html: '<p>Hello <b>Ann</b></p><img src="cid:logo@posthorn">',
    text: "Hello Ann",
    tag: "invoice",
    headers: { "X-Campaign": "spring-2026", "X-Entity-Ref-ID": "abc 123" },
    metadata: { customer_id: "cus_42" },
    attachments: [
      { filename: "invoice.pdf", content: pdf.toString("base64") },
      { filename: "logo.png", content: PNG.toString("base64"), content_id: "logo@posthorn" },
    ],
  });
  expect(res.status).toBe(202);
  expect(res.json.status).toBe("pending");
  const id = res.json.message_id as string;

  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  expect(h.recipients(id).map((r) => [r.email, r.status])).toEqual([
    ["ann@dest.test", "delivered"],
    ["carl@other.test", "delivered"],
    ["hidden@dest.test", "delivered"],
  ]);
  const mails = h.sink.received.filter((m) => m.raw.includes(id));
  // One transaction per recipient: each gets its own VERP envelope sender.
  expect(mails.length).toBe(3);
  const secret = await serverSecretOf(h.deps.store);
  const recipients = h.recipients(id);
  for (const m of mails) {
    expect(m.to.length).toBe(1);
    expect(m.secure).toBe(true); // STARTTLS was offered (self-signed) and used
    const [local, domain] = m.from.split("@");
    expect(domain).toBe(`ph-bounces.${SENDER_DOMAIN}`);
    const rid = parseVerpLocalPart(secret, local!);
    expect(recipients.find((r) => r.id === rid)?.email).toBe(m.to[0]!);
  }

  const raw = mails[0]!.raw;
  const dkim = await verifyDkim(raw);
  expect(dkim.map((r) => [r.status.result, r.signingDomain, r.selector])).toEqual([["pass", SENDER_DOMAIN, h.domain.selector]]);
  expect(raw.toString("latin1")).toMatch(/c=relaxed\/relaxed/);

  const parsed = await simpleParser(raw);
  expect(parsed.from?.value).toEqual([{ name: "Billing Team", address: "billing@sender.test" }]);
  expect(parsed.subject).toBe("Your invoice — März ✓");
  expect(parsed.messageId).toBe(`<${id}@${SENDER_DOMAIN}>`);
  expect(parsed.headers.get("x-campaign")).toBe("spring-2026");
  expect(parsed.headers.get("x-entity-ref-id")).toBe("abc 123");
  expect(parsed.headers.has("bcc")).toBe(false);
  expect(raw.toString("latin1")).not.toContain("hidden@dest.test");
  expect(raw.toString("latin1")).not.toContain("cus_42"); // metadata is never a header
  expect(parsed.headers.has("list-unsubscribe")).toBe(false); // transactional route
  expect((parsed.replyTo?.value ?? []).map((a) => a.address)).toEqual(["support@sender.test"]);
  expect(parsed.html).toContain("<b>Ann</b>");
  expect(parsed.text?.trim()).toBe("Hello Ann");
  const invoice = parsed.attachments.find((a) => a.filename === "invoice.pdf")!;
  expect(invoice.contentType).toBe("application/pdf");
  expect(Buffer.compare(invoice.content, pdf)).toBe(0);
  const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
  expect(logo.cid).toBe("logo@posthorn");
  expect(logo.contentDisposition).toBe("inline");
  expect(Buffer.compare(logo.content, PNG)).toBe(0);

  // The stored source is the exact signed message that was sent.
  const stored = h.sqlNow.get<{ raw: Uint8Array }>("SELECT raw FROM message_contents WHERE message_id = ?", [id])!;
  expect(Buffer.compare(Buffer.from(stored.raw), raw)).toBe(0);
  const atts = h.sqlNow.all<{ filename: string; content_id: string | null; size: number }>(
    "SELECT filename, content_id, size FROM attachments WHERE message_id = ? ORDER BY filename",
    [id],
  );
  expect(atts).toEqual([
    { filename: "invoice.pdf", content_id: null, size: pdf.length },
    { filename: "logo.png", content_id: "logo@posthorn", size: PNG.length },
  ]);

  // History: created, then per recipient queued → processed → delivered, with the remote reply.
  const hist = h.history(id);
  expect(hist[0]!.kind).toBe("message.created");
  const ann = hist.filter((e) => e.data.recipient === "ann@dest.test").map((e) => e.status);
  expect(ann).toEqual(["queued", "processed", "delivered"]);
  const delivered = hist.find((e) => e.status === "delivered")!;
  expect(delivered.data.response).toEqual({ code: 250, enhanced_code: "2.0.0", message: "Ok: queued" });
  expect(delivered.data.metadata).toEqual({ customer_id: "cus_42" });
  const kinds = h.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ?", [id]).map((e) => e.kind);
  expect(kinds).toContain("message.created");
  expect(kinds.filter((k) => k === "message.delivered").length).toBe(3);
});

test("broadcast routes add one-click List-Unsubscribe headers, covered by the DKIM signature", async () => {
  const res = await h.send({ from: "news@sender.test", to: ["reader@dest.test"], subject: "News", html: "<p>news</p>", route: "broadcast" });
  expect(res.status).toBe(202);
  const id = res.json.message_id;
  await h.waitForStatus(id, ["delivered"]);
  const mail = h.sink.received.find((m) => m.raw.includes(id))!;
  const parsed = await simpleParser(mail.raw);
  const header = mail.raw.toString("latin1");
  // The link names the recipient, not the message (issue 41): r.<recipient id>.<signature>.
  expect(header).toMatch(new RegExp(`List-Unsubscribe:\\s+<http://localhost:8080/v1/unsubscribe/r\\.${h.recipients(id)[0]!.id}\\.[0-9a-f]{20}>`));
  expect(header).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
  expect(header).toMatch(/h=[^;]*List-Unsubscribe/);
  expect((await verifyDkim(mail.raw))[0]!.status.result).toBe("pass");
  expect(parsed.subject).toBe("News");

  // The link: GET shows a form and changes nothing; POST (RFC 8058 one-click) unsubscribes.
  const path = new URL(/List-Unsubscribe:\s+<([^>]+)>/.exec(header)![1]!).pathname;
  const page = await h.request("GET", path, { token: null });
  expect(page.status).toBe(200);
  expect(page.text).toContain('method="post"');
  expect(h.sqlNow.get("SELECT 1 AS one FROM suppressions WHERE email = 'reader@dest.test'")).toBeNull();
  const post = await h.request("POST", path, { token: null, body: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } });
  expect(post.status).toBe(200);
  const sup = h.sqlNow.get<{ scope: string; reason: string; route_id: string }>("SELECT scope, reason, route_id FROM suppressions WHERE email = 'reader@dest.test'")!;
  expect(sup.scope).toBe("route");
  expect(sup.reason).toBe("unsubscribe");
  expect(h.recipients(id)[0]!.status).toBe("unsubscribed");
  const kinds = h.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ?", [id]).map((e) => e.kind);
  expect(kinds).toContain("message.unsubscribed");
  // Suppressed for that route only.
  const again = await h.send({ from: "news@sender.test", to: ["reader@dest.test"], subject: "More news", text: "news", route: "broadcast" });
  expect(again.json.status).toBe("suppressed");
  const transactional = await h.send({ from: "news@sender.test", to: ["reader@dest.test"], subject: "Receipt", text: "receipt" });
  expect(transactional.json.status).toBe("pending");
  // A forged or altered link is a 404.
  expect((await h.request("POST", path.slice(0, -1) + (path.endsWith("0") ? "1" : "0"), { token: null })).status).toBe(404);
  expect((await h.request("GET", "/v1/unsubscribe/nonsense", { token: null })).status).toBe(404);
});

test("connections to a destination host are reused across messages", async () => {
  const before = h.pools.stats.connections;
  const ids: string[] = [];
  const res = await h.request("POST", "/v1/send/batch", {
    projectToken: h.team.projectToken,
    body: Array.from({ length: 30 }, (_, i) => ({ from: "a@sender.test", to: [`r${i}@dest.test`], subject: `m${i}`, text: "hello" })),
  });
  expect(res.status).toBe(202);
  for (const r of res.json) ids.push(r.message_id);
  await waitFor(() => ids.every((id) => h.messageStatus(id) === "delivered"), 10_000);
  const opened = h.pools.stats.connections - before;
  expect(opened).toBeLessThanOrEqual(10);
});

test("a tampered message does not pass DKIM verification (the check can fail)", async () => {
  const mail = h.sink.received.find((m) => m.raw.includes("Hello Ann"))!;
  const body = Buffer.from(mail.raw.toString("latin1").replace("Hello Ann", "Hello Bob"), "latin1");
  expect((await verifyDkim(body))[0]!.status.result).not.toBe("pass");
  const subject = Buffer.from(mail.raw.toString("latin1").replace("Subject: ", "Subject: Re: "), "latin1");
  expect((await verifyDkim(subject))[0]!.status.result).toBe("fail");
});
