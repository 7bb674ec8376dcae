import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bounceDomainOf, verpAddress } from "../../src/mail/verp.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { insertTestDomain } from "../helpers.ts";
import { eventBodies, insertDeliveredOutbound, RawSmtpClient, sendRaw, startInbound, type InboundHarness } from "./support.ts";

/** An RFC 3464 report as Postfix writes it. */
function dsn(opts: { to: string; recipient: string; action: string; status: string; diagnostic?: string; messageId?: string; extraBlock?: string }): string {
  return [
    "From: MAILER-DAEMON@mx.example.net (Mail Delivery System)",
    `To: ${opts.to}`,
    "Subject: Undelivered Mail Returned to Sender",
    `Message-ID: <${opts.messageId ?? `dsn-${Math.random().toString(36).slice(2)}`}@mx.example.net>`,
    "Date: Wed, 1 May 2024 10:00:00 +0000",
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B0UND"',
    "",
    "--B0UND",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "This is the mail system at host mx.example.net.",
    "I'm sorry to have to inform you that your message could not be delivered.",
    "",
    "--B0UND",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.example.net",
    "Arrival-Date: Wed, 1 May 2024 09:59:58 +0000",
    "",
    ...(opts.extraBlock ? [opts.extraBlock, ""] : []),
    `Final-Recipient: rfc822; ${opts.recipient}`,
    `Original-Recipient: rfc822;${opts.recipient}`,
    `Action: ${opts.action}`,
    `Status: ${opts.status}`,
    "Remote-MTA: dns; mail.example.net",
    ...(opts.diagnostic ? [`Diagnostic-Code: smtp; ${opts.diagnostic.slice(0, 40)}`, `    ${opts.diagnostic.slice(40)}`] : []),
    "",
    "--B0UND",
    "Content-Type: text/rfc822-headers",
    "",
    "From: Brand <hello@brand.test>",
    `To: ${opts.recipient}`,
    "Subject: Welcome",
    "",
    "--B0UND--",
    "",
  ].join("\r\n");
}

/** An RFC 5965 abuse report as a mailbox provider's feedback loop sends it. */
function arf(opts: { to: string; recipient: string; originalMailFrom: string }): string {
  return [
    "From: Feedback Loop <fbl@isp.example>",
    `To: ${opts.to}`,
    "Subject: Abuse report",
    "Message-ID: <arf-1@isp.example>",
    "Date: Wed, 1 May 2024 11:00:00 +0000",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
    "",
    "--ARF",
    "Content-Type: text/plain",
    "",
    "This is an email abuse report for an email message received from IP 192.0.2.1.",
    "",
    "--ARF",
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: ExampleFBL/1.0",
    "Version: 1",
    `Original-Mail-From: <${opts.originalMailFrom}>`,
    `Original-Rcpt-To: <${opts.recipient}>`,
    "Arrival-Date: Wed, 1 May 2024 10:00:00 +0000",
    "Source-IP: 192.0.2.1",
    "Reported-Domain: brand.test",
    "",
    "--ARF",
    "Content-Type: message/rfc822",
    "",
    "From: Brand <hello@brand.test>",
    `To: ${opts.recipient}`,
    "Subject: Welcome",
    "",
    "Welcome to Brand!",
    "--ARF--",
    "",
  ].join("\r\n");
}

const recipient = async (h: InboundHarness, id: string) =>
  (await h.app.sql.get<{ status: string; last_response: string | null }>("SELECT status, last_response FROM recipients WHERE id = ?", [id]))!;
const messageStatus = async (h: InboundHarness, id: string) => (await h.app.sql.get<{ status: string }>("SELECT status FROM messages WHERE id = ?", [id]))!.status;
const suppressions = (h: InboundHarness, email: string) =>
  h.app.sql.all<{ scope: string; reason: string }>("SELECT scope, reason FROM suppressions WHERE email = ?", [email]);
const eventsOf = (h: InboundHarness, messageId: string) =>
  h.app.sql.all<{ kind: string; body: string }>("SELECT kind, body FROM events WHERE message_id = ? ORDER BY created_at, id", [messageId]);
const historyOf = (h: InboundHarness, messageId: string) =>
  h.app.sql.all<{ kind: string; status: string | null }>("SELECT kind, status FROM message_events WHERE message_id = ? ORDER BY created_at, id", [messageId]);
const inboundCount = async (h: InboundHarness) => (await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages WHERE type = 'inbound'"))!.n;

describe("bounces, complaints and automatic replies to VERP addresses", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound();
  });
  afterAll(() => h.stop());

  const team = () => ({ teamId: h.app.team.teamId, projectId: h.app.team.projectId });

  test("a DSN (failed, 5.1.1) hard-bounces the recipient, suppresses it and publishes the events; the same DSN again changes nothing", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const report = dsn({
      to: o.verp,
      recipient: o.email,
      action: "failed",
      status: "5.1.1",
      diagnostic: `550 5.1.1 <${o.email}>: Recipient address rejected: User unknown in virtual mailbox table`,
      messageId: "dsn-hard-1",
    });
    const info = await sendRaw(h.port, { from: "", to: [o.verp] }, report);
    expect(info.response).toStartWith("250 2.6.0 ");

    // Applied in the same commit as the 250: no waiting needed.
    const r = await recipient(h, o.recipientId);
    expect(r.status).toBe("hard_bounced");
    expect(JSON.parse(r.last_response!)).toEqual({
      code: 550,
      enhanced_code: "5.1.1",
      message: `550 5.1.1 <${o.email}>: Recipient address rejected: User unknown in virtual mailbox table`,
    });
    expect(await messageStatus(h, o.messageId)).toBe("hard_bounced");
    expect(await suppressions(h, o.email)).toEqual([{ scope: "team", reason: "hard_bounce" }]);
    const events = await eventsOf(h, o.messageId);
    expect(events.map((e) => e.kind)).toEqual(["message.hard_bounced", "message.bounced"]);
    const bounced = JSON.parse(events[1]!.body);
    expect(bounced.data).toMatchObject({
      message_id: o.messageId,
      recipient: o.email,
      status: "hard_bounced",
      bounce_type: "hard",
      tag: "welcome",
      metadata: { user: "42" },
      response: { code: 550, enhanced_code: "5.1.1" },
      report: {
        id: "dsn-hard-1@mx.example.net",
        type: "dsn",
        from: "mailer-daemon@mx.example.net",
        reporting_mta: "mx.example.net",
        remote_mta: "mail.example.net",
        final_recipient: o.email,
        action: "failed",
        status: "5.1.1",
      },
    });
    // Not an inbound message: nothing reaches the routes.
    expect(await inboundCount(h)).toBe(0);

    // The remote retried after losing our 250: same report, no second bounce.
    await sendRaw(h.port, { from: "", to: [o.verp] }, report);
    expect(await eventsOf(h, o.messageId)).toHaveLength(2);
    expect(await historyOf(h, o.messageId)).toEqual([{ kind: "message.hard_bounced", status: "hard_bounced" }]);
    // A different DSN about the same failure does not count twice either.
    await sendRaw(h.port, { from: "", to: [o.verp] }, dsn({ to: o.verp, recipient: o.email, action: "failed", status: "5.1.1", messageId: "dsn-hard-2" }));
    expect(await eventsOf(h, o.messageId)).toHaveLength(2);
    expect((await recipient(h, o.recipientId)).status).toBe("hard_bounced");
  });

  test("a delayed DSN (4.4.1) soft-bounces without suppressing", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    await sendRaw(h.port, { from: "", to: [o.verp] }, dsn({ to: o.verp, recipient: o.email, action: "delayed", status: "4.4.1", diagnostic: "421 4.4.1 Connection timed out while talking to mail.example.net" }));
    expect((await recipient(h, o.recipientId)).status).toBe("soft_bounced");
    expect(await suppressions(h, o.email)).toEqual([]);
    const bounced = (await eventsOf(h, o.messageId)).find((e) => e.kind === "message.bounced")!;
    expect(JSON.parse(bounced.body).data).toMatchObject({ bounce_type: "soft", response: { code: 421, enhanced_code: "4.4.1" } });
  });

  // Postfix's expiry notice: the message left its queue after temporary failures only, and the
  // report says "failed" with the last 4.x.x status. The mailbox is full, not bad: no suppression.
  test("an expiry DSN (failed, 4.2.2 mailbox full) ends the recipient failed, publishes message.failed, and suppresses nothing", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const report = dsn({ to: o.verp, recipient: o.email, action: "failed", status: "4.2.2", diagnostic: `452 4.2.2 <${o.email}>: Mailbox full, try again later` });
    const info = await sendRaw(h.port, { from: "", to: [o.verp] }, report);
    expect(info.response).toStartWith("250 2.6.0 ");
    const r = await recipient(h, o.recipientId);
    expect(r.status).toBe("failed");
    expect(JSON.parse(r.last_response!)).toMatchObject({ code: 452, enhanced_code: "4.2.2" });
    expect(await messageStatus(h, o.messageId)).toBe("failed");
    expect(await suppressions(h, o.email)).toEqual([]);
    expect((await eventsOf(h, o.messageId)).map((e) => e.kind)).toEqual(["message.failed"]);
    // A later permanent failure of the same address still hard-bounces it.
    const later = await insertDeliveredOutbound(h.deps, team());
    await sendRaw(h.port, { from: "", to: [later.verp] }, dsn({ to: later.verp, recipient: later.email, action: "failed", status: "5.2.1", diagnostic: "550 5.2.1 Mailbox disabled" }));
    expect((await recipient(h, later.recipientId)).status).toBe("hard_bounced");
  });

  test("a DSN about several recipients applies the block of the recipient the VERP address names", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const other = "Final-Recipient: rfc822; other@example.net\r\nAction: delayed\r\nStatus: 4.2.2";
    await sendRaw(h.port, { from: "", to: [o.verp] }, dsn({ to: o.verp, recipient: o.email, action: "failed", status: "5.2.1", diagnostic: "550 5.2.1 Mailbox disabled for this recipient", extraBlock: other }));
    expect((await recipient(h, o.recipientId)).status).toBe("hard_bounced");
  });

  test("an ARF abuse report marks spam_complaint and adds a team suppression", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const info = await sendRaw(h.port, { from: "fbl@isp.example", to: [o.verp] }, arf({ to: o.verp, recipient: o.email, originalMailFrom: o.verp }));
    expect(info.response).toStartWith("250 ");
    expect((await recipient(h, o.recipientId)).status).toBe("spam_complaint");
    expect(await messageStatus(h, o.messageId)).toBe("spam_complaint");
    expect(await suppressions(h, o.email)).toEqual([{ scope: "team", reason: "spam_complaint" }]);
    const ev = await eventsOf(h, o.messageId);
    expect(ev.map((e) => e.kind)).toEqual(["message.spam_complaint"]);
    expect(JSON.parse(ev[0]!.body).data.report).toMatchObject({ type: "arf", feedback_type: "abuse", user_agent: "ExampleFBL/1.0", source_ip: "192.0.2.1" });
    expect(await inboundCount(h)).toBe(0);
  });

  test("an automatic reply publishes message.auto_replied and leaves the recipient as it was", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const reply = [
      `From: ${o.email}`,
      `To: ${o.verp}`,
      "Subject: Out of Office: Welcome",
      "Message-ID: <ooo-1@example.net>",
      "Auto-Submitted: auto-replied",
      "X-Autoreply: yes",
      "",
      "I am away until Monday.",
      "",
    ].join("\r\n");
    await sendRaw(h.port, { from: "", to: [o.verp] }, reply);
    expect((await recipient(h, o.recipientId)).status).toBe("delivered");
    const [ev] = (await eventBodies(h.deps, "message.auto_replied")).filter((e) => e.data.message_id === o.messageId);
    expect(ev!.data).toEqual({
      message_id: o.messageId,
      recipient: o.email,
      status: "delivered",
      tag: "welcome",
      tags: [],
      metadata: { user: "42" },
      report: {
        id: "ooo-1@example.net",
        from: o.email,
        subject: "Out of Office: Welcome",
        type: "auto_reply",
        reason: "auto-submitted: auto-replied",
        text: "I am away until Monday.",
      },
    });
    // A vacation notice marked only by its subject counts too.
    const o2 = await insertDeliveredOutbound(h.deps, team());
    await sendRaw(h.port, { from: o2.email, to: [o2.verp] }, `From: ${o2.email}\r\nTo: ${o2.verp}\r\nSubject: Automatic reply: Welcome\r\n\r\nback soon\r\n`);
    expect((await eventBodies(h.deps, "message.auto_replied")).filter((e) => e.data.message_id === o2.messageId)[0]!.data.report.reason).toBe("subject");
    expect(await inboundCount(h)).toBe(0);
  });

  test("a plain-text bounce (no RFC 3464 report) is classified by its status code", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const qmail = [
      "From: MAILER-DAEMON@old.example.net",
      `To: ${o.verp}`,
      "Subject: failure notice",
      "",
      "Hi. This is the qmail-send program at old.example.net.",
      "I'm afraid I wasn't able to deliver your message to the following addresses.",
      "",
      `<${o.email}>:`,
      "192.0.2.7 does not like recipient.",
      "Remote host said: 550 5.1.1 The email account that you tried to reach does not exist.",
      "",
    ].join("\r\n");
    await sendRaw(h.port, { from: "", to: [o.verp] }, qmail);
    const r = await recipient(h, o.recipientId);
    expect(r.status).toBe("hard_bounced");
    expect(JSON.parse(r.last_response!)).toMatchObject({ code: 550, enhanced_code: "5.1.1" });
  });

  test("a message to a bounce address that is none of these is recorded in the history, nothing else", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    await sendRaw(h.port, { from: "person@example.net", to: [o.verp] }, `From: person@example.net\r\nTo: ${o.verp}\r\nSubject: hello?\r\n\r\nwho is this\r\n`);
    expect((await recipient(h, o.recipientId)).status).toBe("delivered");
    expect(await historyOf(h, o.messageId)).toEqual([{ kind: "message.report_received", status: null }]);
    expect(await eventsOf(h, o.messageId)).toEqual([]);
  });

  test("forged, foreign and unknown VERP addresses are refused at RCPT", async () => {
    const o = await insertDeliveredOutbound(h.deps, team());
    const [local, domain] = o.verp.split("@") as [string, string];
    const other = h.app.addTeam("Other team");
    insertTestDomain(h.deps, { teamId: other.teamId, projectId: other.projectId, domain: "other.test" });
    const secret = await serverSecretOf(h.deps.store);
    const { client } = await RawSmtpClient.connect(h.port);
    await client.send("EHLO bouncer.test");
    await client.send("MAIL FROM:<>");
    // A tampered signature.
    const forged = `${local.slice(0, -1)}${local.endsWith("0") ? "1" : "0"}@${domain}`;
    expect((await client.send(`RCPT TO:<${forged}>`)).text).toBe("550 5.1.1 No such mailbox here");
    // A valid signature on a bounce domain of another team.
    expect((await client.send(`RCPT TO:<${local}@ph-bounces.other.test>`)).text).toBe("550 5.1.1 No such mailbox here");
    // A well-signed address for a recipient that does not exist.
    const ghost = verpAddress(secret, "0190d9a8-0000-7000-8000-000000000000", bounceDomainOf({ domain: "brand.test", returnPathHost: "ph-bounces" }));
    expect((await client.send(`RCPT TO:<${ghost}>`)).code).toBe(550);
    // The genuine one, in any letter case.
    expect((await client.send(`RCPT TO:<${o.verp.toUpperCase()}>`)).code).toBe(250);
    client.close();
  });
});
