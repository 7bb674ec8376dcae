import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import nodemailer from "nodemailer";
import type Mail from "nodemailer/lib/mailer";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { addSuppression } from "../../src/events/message-status.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { registerOutboundJobs } from "../../src/mail/outbound-job.ts";
import { registerInboundJobs, stopInboundAnalysis } from "../../src/smtp/inbound-job.ts";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { isLoopback, startSubmissionListener } from "../../src/smtp/submission.ts";
import { createTestApp, insertTestDomain, waitFor, type TestApp } from "../helpers.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { makeTestCert } from "../webhooks/support.ts";
import { eventBodies, RawSmtpClient } from "./support.ts";

type Row = { id: string; type: string; status: string; route_id: string; from_email: string; from_name: string; subject: string; to: string; cc: string; bcc: string; tag: string | null };

function submitter(port: number, auth: { user: string; pass: string }, extra: object = {}) {
  return nodemailer.createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true, auth, logger: false, ...extra });
}

describe("SMTP submission", () => {
  let app: TestApp;
  let listener: RunningListener;
  const messages = () => app.sql.all<Row>(`SELECT id, type, status, route_id, from_email, from_name, subject, "to", cc, bcc, tag FROM messages ORDER BY created_at, id`);
  const routeId = async (slug: string) => (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND slug = ?", [app.team.projectId, slug]))!.id;
  const send = (mail: Mail.Options, auth = { user: app.team.projectId, pass: app.team.projectToken }) => {
    const t = submitter(listener.port, auth);
    return t.sendMail(mail).finally(() => t.close());
  };

  beforeAll(async () => {
    app = createTestApp();
    insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: "brand.test" });
    await app.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [app.team.projectId]);
    await subscribeEveryRoute(app.deps);
    listener = await startSubmissionListener(app.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100 });
  });
  afterAll(() => listener.stop());

  test("a message submitted with the project token enters the /v1/send pipeline; the control headers are stripped", async () => {
    const info = await send({
      from: "Brand Team <hello@brand.test>",
      to: "Ann <ann@example.net>",
      cc: "carl@example.net",
      bcc: "hidden@example.net",
      subject: "Your receipt",
      text: "Thanks for your order.",
      html: "<p>Thanks for your order.</p>",
      headers: { "X-Posthorn-Route": "broadcast", "X-Posthorn-Tag": "receipts", "X-Customer": "42", "Idempotency-Key": "order-42" },
      attachments: [{ filename: "receipt.txt", content: "total: 10 EUR" }],
    });
    expect(info.response).toMatch(/^250 2\.6\.0 Queued as [0-9a-f-]{36}$/);
    const id = /Queued as (\S+)/.exec(info.response)![1]!;
    const row = (await messages()).find((m) => m.id === id)!;
    expect(row).toMatchObject({ type: "outbound", status: "pending", route_id: await routeId("broadcast"), from_email: "hello@brand.test", from_name: "Brand Team", subject: "Your receipt", tag: "receipts" });
    expect(JSON.parse(row.to)).toEqual([{ email: "ann@example.net", name: "Ann" }]);
    expect(JSON.parse(row.cc)).toEqual([{ email: "carl@example.net", name: "" }]);
    expect(JSON.parse(row.bcc)).toEqual([{ email: "hidden@example.net", name: "" }]);
    const contents = (await app.sql.get<{ text: string; html: string; headers: string }>("SELECT text, html, headers FROM message_contents WHERE message_id = ?", [id]))!;
    expect(contents.html).toBe("<p>Thanks for your order.</p>");
    const headers = JSON.parse(contents.headers) as Record<string, string>;
    expect(headers["X-Customer"]).toBe("42");
    expect(Object.keys(headers).map((k) => k.toLowerCase())).not.toContain("x-posthorn-route");
    expect(Object.keys(headers).map((k) => k.toLowerCase())).not.toContain("idempotency-key");
    expect(await app.sql.all<{ filename: string }>("SELECT filename FROM attachments WHERE message_id = ?", [id])).toEqual([{ filename: "receipt.txt" }]);
    const recipients = await app.sql.all<{ email: string; kind: string }>("SELECT email, kind FROM recipients WHERE message_id = ? ORDER BY kind, email", [id]);
    expect(recipients).toEqual([
      { email: "hidden@example.net", kind: "bcc" },
      { email: "carl@example.net", kind: "cc" },
      { email: "ann@example.net", kind: "to" },
    ]);
    expect((await eventBodies(app.deps, "message.created")).some((e) => e.data.message_id === id)).toBe(true);
    expect((await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'outbound'"))!.n).toBeGreaterThan(0);

    // The client lost our 250 and sends the same message again with the same key: accepted once.
    const again = await send({
      from: "Brand Team <hello@brand.test>",
      to: "Ann <ann@example.net>",
      cc: "carl@example.net",
      bcc: "hidden@example.net",
      subject: "Your receipt",
      text: "Thanks for your order.",
      html: "<p>Thanks for your order.</p>",
      headers: { "X-Posthorn-Route": "broadcast", "X-Posthorn-Tag": "receipts", "X-Customer": "42", "Idempotency-Key": "order-42" },
      attachments: [{ filename: "receipt.txt", content: "total: 10 EUR" }],
    });
    expect(again.response).toBe(info.response);
    expect((await messages()).filter((m) => m.subject === "Your receipt")).toHaveLength(1);
    // The same key on a different message is refused.
    const conflict = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "Other", text: "other", headers: { "Idempotency-Key": "order-42" } }).catch((e) => e);
    expect(conflict.responseCode).toBe(554);
    expect(conflict.response).toStartWith("554 5.7.0 ");
  });

  test("X-Posthorn-Track-Opens / -Clicks override the route's tracking and are removed; another value is refused", async () => {
    const tracked = async (headers: Record<string, string>) => {
      const info = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "Tracked", html: "<p>Hi</p>", headers });
      const id = /Queued as (\S+)/.exec(info.response)![1]!;
      const c = (await app.sql.get<{ track_opens: number; track_clicks: number; headers: string }>(
        "SELECT track_opens, track_clicks, headers FROM message_contents WHERE message_id = ?",
        [id],
      ))!;
      expect(Object.keys(JSON.parse(c.headers)).map((k) => k.toLowerCase())).not.toContain("x-posthorn-track-opens");
      return [c.track_opens, c.track_clicks];
    };
    expect(await tracked({})).toEqual([0, 0]); // the route's default: off
    expect(await tracked({ "X-Posthorn-Track-Opens": "true", "X-Posthorn-Track-Clicks": "TRUE" })).toEqual([1, 1]);
    expect(await tracked({ "X-Posthorn-Track-Opens": "false", "X-Posthorn-Track-Clicks": "true" })).toEqual([0, 1]);
    const bad = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "Tracked", html: "<p>Hi</p>", headers: { "X-Posthorn-Track-Opens": "yes" } }).catch((e) => e);
    expect(bad.responseCode).toBe(554);
    expect(bad.response).toContain("X-Posthorn-Track-Opens header must be true or false");
  });

  test("a wrong token is refused with 535; so is a project with SMTP switched off", async () => {
    const wrong = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "x", text: "xyz" }, { user: app.team.projectId, pass: "ph_wrong" }).catch((e) => e);
    expect(wrong.responseCode).toBe(535);
    expect(wrong.response).toBe("535 5.7.8 Authentication credentials invalid");
    const teamToken = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "x", text: "xyz" }, { user: "x", pass: app.team.teamToken }).catch((e) => e);
    expect(teamToken.responseCode).toBe(535);

    // Switched off through the API right after the token was used: refused at once, not when the remembered token row expires.
    const smtp = (on: boolean) => app.request("PUT", `/v1/projects/${app.team.projectId}`, { body: { smtp_enabled: on } });
    expect((await smtp(false)).status).toBe(200);
    try {
      const off = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "x", text: "xyz" }).catch((e) => e);
      expect(off.responseCode).toBe(535);
      expect(off.response).toBe("535 5.7.8 SMTP submission is disabled for this project");
    } finally {
      expect((await smtp(true)).status).toBe(200);
    }
  });

  test("without AUTH nothing is accepted; sender domains follow the /v1/send rules", async () => {
    const before = (await messages()).length;
    const { client } = await RawSmtpClient.connect(listener.port);
    const ehlo = await client.send("EHLO app.test");
    expect(ehlo.lines).toContain("AUTH PLAIN LOGIN");
    expect((await client.send("MAIL FROM:<hello@brand.test>")).text).toStartWith("530 5.7.0 ");
    // AUTH PLAIN: authzid \0 authcid \0 password.
    const plain = Buffer.from(`\0${app.team.projectId}\0${app.team.projectToken}`).toString("base64");
    expect((await client.send(`AUTH PLAIN ${plain}`)).code).toBe(235);
    expect((await client.send("MAIL FROM:<someone@elsewhere.test>")).text).toBe("553 5.7.1 elsewhere.test is not a sending domain of this project");
    expect((await client.send("MAIL FROM:<>")).code).toBe(553);
    expect((await client.send("MAIL FROM:<hello@brand.test>")).code).toBe(250);
    expect((await client.send("RCPT TO:<not an address>")).code).toBeGreaterThanOrEqual(500);
    expect((await client.send("RCPT TO:<ann@example.net>")).code).toBe(250);
    // The From header must be a project domain too, as for /v1/send.
    expect((await client.send("DATA")).code).toBe(354);
    client.write("From: ceo@elsewhere.test\r\nTo: ann@example.net\r\nSubject: spoof\r\n\r\nhello\r\n.\r\n");
    const final = await client.read();
    expect(final.code).toBe(550);
    expect(final.text).toStartWith("550 5.7.1 The domain elsewhere.test is not a sending domain of this project");
    client.close();
    expect((await messages()).length).toBe(before);
  });

  test("suppressed recipients are not sent to, as with /v1/send", async () => {
    await addSuppression(app.deps.store.read, { teamId: app.team.teamId, scope: "team", email: "gone@example.net", reason: "hard_bounce" });
    const info = await send({ from: "hello@brand.test", to: "gone@example.net", subject: "Suppressed", text: "hello" });
    expect(info.response).toEndWith("(all recipients suppressed)");
    const id = /Queued as (\S+)/.exec(info.response)![1]!;
    expect((await messages()).find((m) => m.id === id)!.status).toBe("suppressed");
  });

  test("an attachment of a blocked file type is refused with 554 5.7.1 naming it and why, as /v1/send refuses it with a 422; nothing is stored", async () => {
    const before = (await messages()).length;
    const refused = async (attachments: Mail.Attachment[]) => {
      const err = (await send({ from: "hello@brand.test", to: "ann@example.net", subject: "Blocked", text: "see attached", attachments }).then(
        () => null,
        (e: { responseCode?: number; response?: string }) => e,
      ))!;
      expect(err).not.toBeNull();
      expect(err.responseCode).toBe(554);
      return err.response!;
    };
    // The last extension counts (invoice.pdf.exe is an .exe), whatever the content type says.
    expect(await refused([{ filename: "invoice.pdf.exe", content: "MZ", contentType: "application/pdf" }])).toBe(
      "554 5.7.1 Attachment 1 (invoice.pdf.exe) refused: Attachments of type .exe are not allowed (see GET /v1/blocked-file-types).",
    );
    // Trailing dots and case do not hide it; the second part is named.
    expect(await refused([{ filename: "notes.txt", content: "hi" }, { filename: "Setup.MSI.", content: "x" }])).toStartWith("554 5.7.1 Attachment 2 (Setup.MSI.) refused: Attachments of type .msi");
    // By content type, under a harmless name.
    expect(await refused([{ filename: "tool.bin", content: "MZ", contentType: "application/x-msdownload" }])).toContain("Attachments of type application/x-msdownload are not allowed");
    // An inline part is an attachment too.
    expect(await refused([{ filename: "run.js", content: "alert(1)", cid: "script@x", contentDisposition: "inline" }])).toContain("Attachments of type .js are not allowed");
    expect((await messages()).length).toBe(before);
    // An allowed type goes through.
    const ok = await send({ from: "hello@brand.test", to: "ann@example.net", subject: "Allowed", text: "see attached", attachments: [{ filename: "invoice.pdf", content: "%PDF" }] });
    expect(ok.response).toMatch(/^250 2\.6\.0 Queued as /);
  });

  test("when every recipient is Bcc, each gets its own copy with only itself in To", async () => {
    const info = await send({ from: "hello@brand.test", to: "Undisclosed recipients:;", bcc: ["a@example.net", "b@example.net"], subject: "Newsletter", text: "news" });
    expect(info.response).toMatch(/Queued as \S+ and 1 more$/);
    const rows = (await messages()).filter((m) => m.subject === "Newsletter");
    expect(rows.map((r) => JSON.parse(r.to)[0].email).sort()).toEqual(["a@example.net", "b@example.net"]);
    expect(rows.every((r) => JSON.parse(r.bcc).length === 0)).toBe(true);
  });
});

test("AUTH needs STARTTLS when the client is not on loopback", async () => {
  expect(isLoopback("127.0.0.1")).toBe(true);
  expect(isLoopback("::ffff:127.0.0.5")).toBe(true);
  expect(isLoopback("::1")).toBe(true);
  expect(isLoopback("192.0.2.1")).toBe(false);
  const cert = makeTestCert(["mx.posthorn.test"]);
  const dir = dirname(cert.caPath);
  const app = createTestApp({ env: { POSTHORN_TLS_CERT: join(dir, "leaf.pem"), POSTHORN_TLS_KEY: join(dir, "leaf.key") } });
  insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: "brand.test" });
  await app.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [app.team.projectId]);
  // Treat this loopback client as if it came from elsewhere.
  const listener = await startSubmissionListener(app.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100, plainAuthFromLoopback: false });
  try {
    const plain = submitter(listener.port, { user: "x", pass: app.team.projectToken });
    const refused = await plain.sendMail({ from: "hello@brand.test", to: "ann@example.net", subject: "x", text: "xyz" }).catch((e) => e);
    plain.close();
    expect(refused.responseCode).toBe(538);
    const tls = nodemailer.createTransport({
      host: "127.0.0.1",
      port: listener.port,
      requireTLS: true,
      tls: { ca: cert.caPem, servername: "mx.posthorn.test" },
      auth: { user: "x", pass: app.team.projectToken },
      logger: false,
    });
    const ok = await tls.sendMail({ from: "hello@brand.test", to: "ann@example.net", subject: "over tls", text: "xyz" });
    tls.close();
    expect(ok.response).toStartWith("250 ");
  } finally {
    await listener.stop();
  }
});

test("round trip: submitted mail is signed and delivered by the sending pipeline to an inbound route of this server", async () => {
  // Reserve a port for the MX listener, so the sender's POSTHORN_MX_PORT can point at it.
  const mxPort = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const dns = await startDnsServer();
  const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server, POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(mxPort) } });
  const deps = app.deps;
  const domain = insertTestDomain(deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: "brand.test" });
  await app.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [app.team.projectId]);
  await subscribeEveryRoute(deps);
  dns.set(deps.config.inboundDomain, "MX", [{ exchange: "mx.posthorn.test", priority: 10 }]);
  dns.set("mx.posthorn.test", "A", ["127.0.0.1"]);
  dns.set(`${domain.selector}._domainkey.brand.test`, "TXT", [dkimRecordContent(domain.publicKeyBase64)]);
  dns.set("ph-bounces.brand.test", "TXT", ["v=spf1 ip4:127.0.0.0/8 -all"]);
  dns.set("brand.test", "TXT", ["v=spf1 ip4:127.0.0.0/8 -all"]);
  const inboundAddress = (await app.sql.get<{ a: string }>("SELECT inbound_address AS a FROM routes WHERE route_type = 'inbound'"))!.a;

  const runner = new JobRunner(deps);
  registerOutboundJobs(runner, deps, { retryScheduleMs: [200] });
  registerInboundJobs(runner, deps);
  runner.start();
  const mx = await startInboundListener(deps, { host: "127.0.0.1", port: mxPort, closeTimeoutMs: 100 });
  const submission = await startSubmissionListener(deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100 });
  try {
    const t = submitter(submission.port, { user: app.team.projectId, pass: app.team.projectToken });
    const info = await t.sendMail({ from: "Brand <hello@brand.test>", to: inboundAddress, subject: "Round trip", text: "there and back" });
    t.close();
    const outboundId = /Queued as (\S+)/.exec(info.response)![1]!;
    const ev = await waitFor(async () => (await eventBodies(deps, "message.inbound"))[0], 10_000);
    expect(ev.data).toMatchObject({ subject: "Round trip", from: { email: "hello@brand.test", name: "Brand" } });
    // Signed by the sending pipeline with the domain's key, sent from its VERP return path.
    expect(ev.data.spam_symbols.find((s: { name: string }) => s.name === "R_DKIM_ALLOW").options).toEqual([`brand.test:${domain.selector}`]);
    expect(ev.data.envelope_from).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{20}@ph-bounces\.brand\.test$/);
    await waitFor(async () => (await app.sql.get<{ status: string }>("SELECT status FROM messages WHERE id = ?", [outboundId]))!.status === "delivered");
  } finally {
    await submission.stop();
    await mx.stop();
    await runner.stop();
    stopInboundAnalysis(deps);
    await dns.close();
  }
});
