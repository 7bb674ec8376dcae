/**
 * Issue 41, finding 5: header fields from outside are stored, listed and published within bounds
 * (src/untrusted/bounds.ts FIELD_BOUNDS); the message's source keeps them whole. Real SMTP on loopback, the
 * real inbound job, the API through the app.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FIELD_BOUNDS } from "../../src/untrusted/bounds.ts";
import { waitFor } from "../helpers.ts";
import { eventBodies, insertDeliveredOutbound, RawSmtpClient, sendRaw, startInbound, type InboundHarness } from "./support.ts";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` folded into lines of `width` characters (RFC 5322 §2.2.3: CRLF then a space). */
const fold = (text: string, width = 900) => (text.match(new RegExp(`[^]{1,${width}}`, "g")) ?? []).join("\r\n ");

async function deliver(h: InboundHarness, raw: string): Promise<string> {
  const { client } = await RawSmtpClient.connect(h.port);
  const { final } = await client.transaction("envelope@sender.test", [h.inboundAddress], Buffer.from(raw, "utf8"));
  await client.send("QUIT").catch(() => undefined);
  expect(final?.code).toBe(250);
  return /Queued as (\S+)/.exec(final!.text)![1]!;
}

describe("inbound header fields are bounded", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound();
  });
  afterAll(() => h.stop());

  test("a 3 MB subject, long names and ids, 300 To addresses, 2,000 headers: stored, listed and published cut to their bounds; the source whole", async () => {
    // The 998th character is the first half of an emoji: the cut keeps the pair whole or drops it.
    const subject = `${"s".repeat(FIELD_BOUNDS.subject - 1)}😀${"t".repeat(3 * 1024 * 1024)}`;
    const name = "N".repeat(5000);
    const to = Array.from({ length: 300 }, (_, i) => `r${i}@example.org`);
    const junk = Array.from({ length: 2000 }, (_, i) => `X-Junk-${i}: ${"j".repeat(100)}`);
    const raw = [
      `From: "${name}" <${"m".repeat(400)}@attacker.test>`,
      `To: ${fold(to.join(", "))}`,
      `Subject: ${fold(subject, 1000)}`,
      `Message-ID: <${"i".repeat(5000)}@attacker.test>`,
      `X-Long: ${fold("v".repeat(20_000))}`,
      ...junk,
      `Content-Type: multipart/mixed; boundary="b"`,
      "",
      "--b",
      "Content-Type: text/plain",
      "",
      "hello",
      "--b",
      `Content-Type: application/${"x".repeat(400)}`,
      `Content-Disposition: attachment; filename="${"f".repeat(1000)}.txt"`,
      "",
      "data",
      "--b--",
      "",
    ].join("\r\n");
    const id = await deliver(h, raw);

    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id), 20_000);
    const d = ev.data;
    // Parsed, not the unparsed fallback (the header block is over mailparser's 1 MB limit).
    expect(d.spam_symbols.map((s: { name: string }) => s.name)).not.toContain("MIME_PARSE_ERROR");
    expect(d.subject).toBe("s".repeat(FIELD_BOUNDS.subject - 1));
    expect(d.from.name).toBe("N".repeat(FIELD_BOUNDS.name));
    expect(d.from.email.length).toBe(FIELD_BOUNDS.address);
    expect(d.to).toHaveLength(FIELD_BOUNDS.addressesPerField);
    expect(d.message_id_header.length).toBe(FIELD_BOUNDS.messageId);
    expect(d.headers.length).toBeLessThanOrEqual(FIELD_BOUNDS.headerCount);
    const total = d.headers.reduce((n: number, x: { name: string; value: string }) => n + x.name.length + x.value.length, 0);
    expect(total).toBeLessThanOrEqual(FIELD_BOUNDS.headersTotal);
    expect(d.headers.find((x: { name: string }) => x.name === "X-Long").value.length).toBe(FIELD_BOUNDS.headerValue);
    expect(d.attachments).toHaveLength(1);
    expect(d.attachments[0].filename.length).toBe(FIELD_BOUNDS.filename);
    expect(d.attachments[0].content_type.length).toBe(FIELD_BOUNDS.contentType);
    const body = JSON.stringify(ev);
    expect(LONE_SURROGATE.test(body)).toBe(false);
    expect(body.length).toBeLessThan(200 * 1024);

    // The API shows what is stored; the listing of a page of such messages stays small.
    const list = await h.app.request("GET", "/v1/messages?page[size]=6");
    expect(list.status).toBe(200);
    const item = list.json.data.find((m: { id: string }) => m.id === id);
    expect(item.subject).toBe(d.subject);
    expect(item.from_name.length).toBe(FIELD_BOUNDS.name);
    expect(list.text.length).toBeLessThan(100 * 1024);
    const one = await h.app.request("GET", `/v1/messages/${id}`);
    expect(one.json.attachments[0].filename.length).toBe(FIELD_BOUNDS.filename);

    // The source keeps every byte: the whole subject, every header.
    const source = await h.app.request("GET", `/v1/messages/${id}/source`);
    expect(source.status).toBe(200);
    expect(source.text).toContain(fold(subject, 1000));
    expect(source.text).toContain("X-Junk-1999: ");
  }, 60_000);

  test("NUL characters in the header and the body (which PostgreSQL's text refuses) become U+FFFD: the message is processed, the source keeps the bytes", async () => {
    const raw = "From: A\u0000B <a@sender.test>\r\nSubject: x\u0000y\r\nX-Nul: a\u0000b\r\nContent-Type: text/plain\r\n\r\nbody\u0000here\r\n";
    const { client } = await RawSmtpClient.connect(h.port);
    const { final } = await client.transaction("a@sender.test", [h.inboundAddress], Buffer.from(raw, "latin1"));
    await client.send("QUIT").catch(() => undefined);
    expect(final?.code).toBe(250);
    const id = /Queued as (\S+)/.exec(final!.text)![1]!;
    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id), 10_000);
    expect(ev.data.subject).toBe("x\uFFFDy");
    expect(ev.data.from.name).not.toContain("\u0000");
    expect(ev.data.body.text).toContain("body\uFFFDhere");
    expect(ev.data.headers.find((x: { name: string }) => x.name === "X-Nul").value).toBe("a\uFFFDb");
    const row = await h.app.sql.get<{ status: string }>("SELECT status FROM messages WHERE id = ?", [id]);
    expect(row!.status).toBe("processed");
    const source = await h.app.request("GET", `/v1/messages/${id}/source`);
    expect(source.text).toContain("Subject: x\u0000y");
  }, 30_000);

  test("a message without a blank line after a 2 MB header block is published unparsed, within the same bounds", async () => {
    // No From, no structure: a single 2 MB header line and nothing else.
    const raw = `Subject: ${"u".repeat(2 * 1024 * 1024)}\r\nX-Other: ${"o".repeat(20_000)}`;
    const id = await deliver(h, raw);
    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id), 20_000);
    expect(ev.data.subject.length).toBeLessThanOrEqual(FIELD_BOUNDS.subject);
    expect(JSON.stringify(ev).length).toBeLessThan(200 * 1024);
  }, 60_000);
});

describe("reports to VERP addresses are bounded", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound();
  });
  afterAll(() => h.stop());
  const team = () => ({ teamId: h.app.team.teamId, projectId: h.app.team.projectId });

  test("a DSN with a 1 MB diagnostic, a 100 KB Reporting-MTA and 5,000 recipient blocks: the bounce is applied, its reply, history and event bounded", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const junkBlocks = Array.from({ length: 5000 }, (_, i) => `Final-Recipient: rfc822; other${i}@example.net\r\nAction: delivered\r\nStatus: 2.0.0\r\n`);
    const report = [
      "From: MAILER-DAEMON@mx.example.net",
      `To: ${o.verp}`,
      `Subject: Undelivered Mail ${"S".repeat(20_000)}`,
      `Message-ID: <${"d".repeat(5000)}@mx.example.net>`,
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
      "",
      "--B",
      "Content-Type: message/delivery-status",
      "",
      `Reporting-MTA: dns; ${"r".repeat(100_000)}.example.net`,
      "",
      `Final-Recipient: rfc822; ${o.email}`,
      "Action: failed",
      "Status: 5.1.1",
      `Remote-MTA: dns; ${"m".repeat(10_000)}.example.net`,
      `Diagnostic-Code: smtp; 550 5.1.1 ${"x".repeat(1000)}`,
      ...Array.from({ length: 1000 }, () => `  ${"y".repeat(1000)}`),
      "",
      ...junkBlocks,
      "--B--",
      "",
    ].join("\r\n");
    const info = await sendRaw(h.port, { from: "", to: [o.verp] }, report);
    expect(info.response).toStartWith("250 ");

    const r = (await h.app.sql.get<{ status: string; last_response: string }>("SELECT status, last_response FROM recipients WHERE id = ?", [o.recipientId]))!;
    expect(r.status).toBe("hard_bounced");
    const reply = JSON.parse(r.last_response);
    expect(reply.code).toBe(550);
    // The Diagnostic-Code's value is cut at the bound, then its "smtp; " prefix taken off.
    expect(reply.message.length).toBeLessThanOrEqual(FIELD_BOUNDS.reply);
    expect(reply.message.length).toBeGreaterThan(FIELD_BOUNDS.reply - 10);
    const events = await h.app.sql.all<{ body: string }>("SELECT body FROM events WHERE message_id = ?", [o.messageId]);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.body.length).toBeLessThan(16 * 1024);
      const rep = JSON.parse(e.body).data.report;
      expect(rep.reporting_mta.length).toBe(FIELD_BOUNDS.host);
      expect(rep.remote_mta.length).toBe(FIELD_BOUNDS.host);
      expect(rep.subject.length).toBe(FIELD_BOUNDS.subject);
      expect(rep.id.length).toBe(FIELD_BOUNDS.messageId);
    }
    const history = await h.app.sql.all<{ data: string }>("SELECT data FROM message_events WHERE message_id = ?", [o.messageId]);
    for (const row of history) expect(row.data.length).toBeLessThan(16 * 1024);
  }, 60_000);

  test("a DSN with a NUL in its diagnostic is applied, the NUL kept as U+FFFD as in inbound mail", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const report = [
      "From: MAILER-DAEMON@mx.example.net",
      `To: ${o.verp}`,
      "Subject: Undelivered Mail",
      "Message-ID: <dsn-nul@mx.example.net>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
      "",
      "--B",
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; mx.example.net",
      "",
      `Final-Recipient: rfc822; ${o.email}`,
      "Action: failed",
      "Status: 5.1.1",
      "Diagnostic-Code: smtp; 550 5.1.1 no\u0000such user",
      "",
      "--B--",
      "",
    ].join("\r\n");
    const info = await sendRaw(h.port, { from: "", to: [o.verp] }, report);
    expect(info.response).toStartWith("250 ");
    const r = (await h.app.sql.get<{ status: string; last_response: string }>("SELECT status, last_response FROM recipients WHERE id = ?", [o.recipientId]))!;
    expect(r.status).toBe("hard_bounced");
    expect(JSON.parse(r.last_response).message).toBe("550 5.1.1 no\uFFFDsuch user");
  }, 30_000);

  test("an ARF complaint with 50 KB fields: the complaint is applied, its fields bounded", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const report = [
      "From: Feedback Loop <fbl@isp.example>",
      `To: ${o.verp}`,
      "Subject: Abuse report",
      "Message-ID: <arf-long@isp.example>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
      "",
      "--ARF",
      "Content-Type: message/feedback-report",
      "",
      "Feedback-Type: abuse",
      `User-Agent: ${"U".repeat(50_000)}`,
      "Version: 1",
      `Original-Mail-From: <${"f".repeat(50_000)}@brand.test>`,
      `Original-Rcpt-To: <${o.email}>`,
      `Arrival-Date: ${"A".repeat(50_000)}`,
      `Source-IP: ${"1".repeat(50_000)}`,
      "",
      "--ARF--",
      "",
    ].join("\r\n");
    const info = await sendRaw(h.port, { from: "", to: [o.verp] }, report);
    expect(info.response).toStartWith("250 ");
    const r = (await h.app.sql.get<{ status: string }>("SELECT status FROM recipients WHERE id = ?", [o.recipientId]))!;
    expect(r.status).toBe("spam_complaint");
    const ev = (await eventBodies(h.deps, "message.spam_complaint")).find((e) => e.data.message_id === o.messageId)!;
    expect(ev.data.report.user_agent.length).toBe(FIELD_BOUNDS.short);
    expect(ev.data.report.arrival_date.length).toBe(FIELD_BOUNDS.short);
    expect(ev.data.report.source_ip.length).toBe(FIELD_BOUNDS.short);
    expect(JSON.stringify(ev).length).toBeLessThan(16 * 1024);
  }, 60_000);
});
