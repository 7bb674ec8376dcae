/**
 * Report forwarding of a project (Lettermint's shapes): the destination gets a code sent through
 * Posthorn itself (to a loopback receiver), is verified with it, and from then on every DMARC and
 * TLS report received for the project's domains, and every complaint about its messages, arrives
 * there too, as received; a report seen before, or one refused, is not forwarded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { startInboundListener } from "../../../src/smtp/inbound.ts";
import type { RunningListener } from "../../../src/smtp/listener.ts";
import { waitFor } from "../../helpers.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";
import { sendRaw } from "../../smtp/support.ts";
import { billionLaughs, dmarcXml, gz, reportMail } from "../../support/report-files.ts";

const DEST = "dmarc-team@receiver.test";
let h: OutboundHarness;
let mx: RunningListener;
let path: string;

beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink("receiver.test");
  mx = await startInboundListener(h.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200 });
  path = `/v1/projects/${h.team.projectId}/report-forwarding`;
});

afterAll(async () => {
  await mx?.stop();
  await h?.close();
});

const mailsTo = (to: string) => h.sink.received.filter((m) => m.to.includes(to));

async function codeMail(n: number): Promise<string> {
  const mail = await waitFor(() => mailsTo(DEST)[n - 1], 20_000);
  const parsed = await simpleParser(mail.raw);
  expect(parsed.from?.value[0]?.address).toBe("reports@sender.test");
  return codeIn(parsed.text);
}

const codeIn = (text: string | undefined) => /^ {4}([0-9]{6})$/m.exec(text ?? "")![1]!;

describe("report forwarding", () => {
  test("off by default; a bad destination, a loop to the report domain, a project without a verified domain are 422s; another team's project is a 404", async () => {
    expect(await h.request("GET", path)).toMatchObject({ status: 200, json: { data: { destination: null, verified: false, verified_at: null } } });
    const bad = await h.request("PUT", path, { body: { destination: "not an address" } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors.destination[0]).toContain("valid email address");
    const loop = await h.request("PUT", path, { body: { destination: `x@${h.deps.config.inboundDomain}` } });
    expect(loop.status).toBe(422);
    expect(loop.json.errors.destination[0]).toContain("would loop");
    expect((await h.request("PUT", path, { body: {} })).status).toBe(422);
    const b = h.addTeam();
    const none = await h.request("PUT", `/v1/projects/${b.projectId}/report-forwarding`, { token: b.teamToken, body: { destination: DEST } });
    expect(none.status).toBe(422);
    expect(none.json.errors.destination[0]).toContain("no verified sending domain");
    for (const [method, suffix, body] of [["GET", "", undefined], ["PUT", "", { destination: DEST }], ["DELETE", "", undefined], ["POST", "/verify", { code: "123456" }], ["POST", "/resend-code", undefined]] as const) {
      expect((await h.request(method, `${path}${suffix}`, { token: b.teamToken, body })).status).toBe(404);
    }
    expect(await h.request("GET", path)).toMatchObject({ json: { data: { destination: null } } });
  });

  test("the code is mailed through Posthorn; a wrong code is refused and counted, the right one verifies", async () => {
    const put = await h.request("PUT", path, { body: { destination: DEST } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ data: { destination: DEST, verified: false, verified_at: null } });
    const code = await codeMail(1);
    // Another code at once is refused (once a minute).
    expect((await h.request("POST", `${path}/resend-code`)).status).toBe(429);
    const wrong = await h.request("POST", `${path}/verify`, { body: { code: code === "000000" ? "000001" : "000000" } });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors.code[0]).toBe("The code is not valid (4 attempts left).");
    const ok = await h.request("POST", `${path}/verify`, { body: { code } });
    expect(ok.status).toBe(200);
    expect(ok.json.data).toMatchObject({ destination: DEST, verified: true });
    expect(Date.parse(ok.json.data.verified_at)).toBeGreaterThan(Date.now() - 60_000);
    // The same destination again changes nothing; a verified one needs no new code.
    expect((await h.request("PUT", path, { body: { destination: DEST } })).json.data.verified).toBe(true);
    expect((await h.request("POST", `${path}/resend-code`)).status).toBe(422);
  });

  test("reports received for the project's domain are forwarded as received; a repeat or a refused report is not", async () => {
    const dmarc = (await h.request("GET", `/v1/domains/${h.domain.domainId}/deliverability/dmarc`)).json.report_addresses.dmarc as string;
    const begin = Math.floor(Date.now() / 86_400_000) * 86_400;
    const xml = dmarcXml({ org: "google.com", reportId: "fwd-1", begin, end: begin + 86399, domain: "sender.test", rows: [{ ip: "192.0.2.1", count: 3, dkim: "pass", spf: "pass" }] });
    const file = gz(xml);
    const raw = await reportMail({ to: dmarc, subject: "Report domain: sender.test Submitter: google.com Report-ID: fwd-1", filename: "google.com!sender.test!1!2.xml.gz", contentType: "application/gzip", content: file });
    const before = mailsTo(DEST).length;
    for (let i = 0; i < 2; i++) expect((await sendRaw(mx.port, { from: "noreply-dmarc-support@google.com", to: [dmarc] }, raw)).response).toStartWith("250");
    const hostile = await reportMail({ to: dmarc, filename: "r.xml.gz", contentType: "application/gzip", content: gz(billionLaughs()) });
    expect((await sendRaw(mx.port, { from: "noreply-dmarc-support@google.com", to: [dmarc] }, hostile)).response).toStartWith("250");

    const forwarded = await waitFor(() => mailsTo(DEST)[before], 20_000);
    const parsed = await simpleParser(forwarded.raw);
    expect(parsed.subject).toBe("DMARC aggregate report from google.com for sender.test");
    // As received: the report message itself, byte for byte, attached as message/rfc822 (report.eml).
    const text = forwarded.raw.toString("latin1");
    expect(text).toContain("Content-Type: message/rfc822; name=report.eml");
    expect(forwarded.raw.includes(raw)).toBe(true);
    // Its report file is there for a reader: mailparser reads the attached message's parts.
    expect(parsed.attachments.some((a) => a.content.equals(Buffer.from(file)))).toBe(true);
    // Give a second forward (of the repeat or of the refused report) the time to arrive: none does.
    await Bun.sleep(1500);
    expect(mailsTo(DEST).length).toBe(before + 1);
  });

  test("a complaint (ARF) about a message of the project is forwarded to its destination as received", async () => {
    const sent = await h.send({ from: "app@sender.test", to: ["reader@receiver.test"], subject: "Welcome", text: "Hello" });
    expect(sent.status).toBe(202);
    const delivered = await waitFor(() => mailsTo("reader@receiver.test")[0], 20_000);
    const returnPath = delivered.from;
    expect(returnPath).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{20}@ph-bounces\.sender\.test$/);
    const complaint = [
      "From: Feedback Loop <fbl@isp.example>",
      `To: ${returnPath}`,
      "Subject: Abuse report",
      "Message-ID: <arf-fwd-1@isp.example>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
      "",
      "--ARF",
      "Content-Type: text/plain",
      "",
      "This is an email abuse report.",
      "",
      "--ARF",
      "Content-Type: message/feedback-report",
      "",
      "Feedback-Type: abuse",
      "User-Agent: ExampleFBL/1.0",
      "Version: 1",
      `Original-Mail-From: <${returnPath}>`,
      "Original-Rcpt-To: <reader@receiver.test>",
      "",
      "--ARF",
      "Content-Type: message/rfc822",
      "",
      "From: app@sender.test",
      "To: reader@receiver.test",
      "Subject: Welcome",
      "",
      "Hello",
      "--ARF--",
      "",
    ].join("\r\n");
    const before = mailsTo(DEST).length;
    expect((await sendRaw(mx.port, { from: "fbl@isp.example", to: [returnPath] }, complaint)).response).toStartWith("250");
    const forwarded = await waitFor(() => mailsTo(DEST)[before], 20_000);
    const parsed = await simpleParser(forwarded.raw);
    expect(parsed.subject).toBe("Complaint report for sender.test");
    expect(forwarded.raw.includes(Buffer.from(complaint))).toBe(true);
    // The same complaint again is a duplicate for the recipient: not forwarded twice.
    expect((await sendRaw(mx.port, { from: "fbl@isp.example", to: [returnPath] }, complaint)).response).toStartWith("250");
    await Bun.sleep(1500);
    expect(mailsTo(DEST).length).toBe(before + 1);
  });

  test("the code mail is kept from the team: its code is in none of the message's readable surfaces (list, message, history, source, text, html, an auto-reply quoting it)", async () => {
    const dest = "sealed-dest@receiver.test";
    expect((await h.request("PUT", path, { body: { destination: dest } })).status).toBe(200);
    const mail = await waitFor(() => mailsTo(dest)[0], 20_000);
    const parsed = await simpleParser(mail.raw);
    const code = codeIn(parsed.text);
    // The recipient gets the code, and the subject does not carry it.
    expect(parsed.subject).toBe(`Confirm report forwarding to ${dest}`);
    const list = await h.request("GET", "/v1/messages?page[size]=100");
    expect(list.status).toBe(200);
    const item = list.json.data.find((m: { to: unknown }) => JSON.stringify(m.to).includes(dest));
    expect(item).toBeDefined();
    expect(list.text).not.toContain(code);
    const id = item.id as string;
    await waitFor(async () => (await h.request("GET", `/v1/messages/${id}`)).json.status === "delivered" || undefined, 20_000);
    for (const suffix of ["", "/events", "/recipients"]) {
      const r = await h.request("GET", `/v1/messages/${id}${suffix}`);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(code);
    }
    for (const suffix of ["/source", "/text", "/html"]) {
      const r = await h.request("GET", `/v1/messages/${id}${suffix}`);
      expect(r.status).toBe(410);
      expect(r.json.message).toContain("report forwarding verification code");
      expect(r.text).not.toContain(code);
    }
    // An automatic reply that quotes the mail (out of office) reaches the team without its text.
    const reply = [
      `From: Away <${dest}>`,
      `To: ${mail.from}`,
      "Subject: Out of office: Confirm report forwarding",
      "Auto-Submitted: auto-replied",
      "Message-ID: <ooo-sealed-1@receiver.test>",
      "",
      "I am away until Monday.",
      "",
      `> ${parsed.text?.split("\n").join("\n> ")}`,
      "",
    ].join("\r\n");
    expect((await sendRaw(mx.port, { from: "", to: [mail.from] }, reply)).response).toStartWith("250");
    const history = await waitFor(async () => {
      const r = await h.request("GET", `/v1/messages/${id}/events`);
      return r.json.data.some((e: { kind: string }) => e.kind === "message.auto_replied") ? r : undefined;
    }, 20_000);
    expect(history.text).toContain("Out of office");
    expect(history.text).not.toContain(code);
    // The code still verifies the destination.
    expect((await h.request("POST", `${path}/verify`, { body: { code } })).json.data).toMatchObject({ destination: dest, verified: true });
  });

  test("20 wrong codes sent at once spend the 5 attempts and no more are evaluated: the right code after them is refused", async () => {
    const other = "other-dest@receiver.test";
    const before = mailsTo(other).length;
    expect((await h.request("PUT", path, { body: { destination: other } })).json.data).toMatchObject({ destination: other, verified: false });
    const mail = await waitFor(() => mailsTo(other)[before], 20_000);
    const code = codeIn((await simpleParser(mail.raw)).text);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.request("POST", `${path}/verify`, { body: { code: wrong } })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(422));
    // Exactly 5 were evaluated (and counted); the other 15 were refused before being looked at.
    expect(answers.filter((a) => a.json.errors.code[0].startsWith("The code is not valid")).length).toBe(5);
    const right = await h.request("POST", `${path}/verify`, { body: { code } });
    expect(right.status).toBe(422);
    expect(right.json.errors.code[0]).toContain("tried too often");
    expect((await h.request("GET", path)).json.data.verified).toBe(false);
  });

  test("DELETE turns it off (204)", async () => {
    const del = await h.request("DELETE", path);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await h.request("GET", path)).json).toEqual({ data: { destination: null, verified: false, verified_at: null } });
  });
});
