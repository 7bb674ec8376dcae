import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import nodemailer from "nodemailer";
import { newRoute } from "../../src/modules/projects/service.ts";
import { attachmentDownloadUrl } from "../../src/auth/attachment-links.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { waitFor } from "../helpers.ts";
import { makeTestCert } from "../webhooks/support.ts";
import { compose, dkimSigned, eventBodies, RawSmtpClient, sendRaw, startInbound, type InboundHarness } from "./support.ts";
import { requireTool, SPAMASSASSIN_SAMPLES } from "../support/tools.ts";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");

function messageRow(h: InboundHarness, id: string) {
  return h.app.sql.get<{ type: string; status: string; route_id: string; from_email: string; subject: string; spam_score: number; spam_symbols: string }>(
    "SELECT type, status, route_id, from_email, subject, spam_score, spam_symbols FROM messages WHERE id = ?",
    [id],
  );
}

const inboundCount = async (h: InboundHarness) => (await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages WHERE type = 'inbound'"))!.n;

describe("MX listener: mail for inbound routes", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound();
  });
  afterAll(() => h.stop());

  test("a multipart message with attachments and an inline image arrives as message.inbound with the full payload", async () => {
    // Route addresses match case-insensitively; the subaddress is passed on as written.
    const rcpt = h.inboundAddress.replace(/^(\w+)@/, (_m, local: string) => `${local.toUpperCase()}+Order-42@`);
    const raw = await dkimSigned(
      await compose({
        from: "Alice Example <alice@sender.test>",
        to: `Support <${rcpt}>`,
        cc: "Bob <bob@example.org>",
        replyTo: "replies@sender.test",
        subject: "Help with order 42",
        date: new Date("2024-05-01T10:00:00Z"),
        messageId: "<order-42@sender.test>",
        inReplyTo: "<earlier@posthorn.test>",
        references: ["<first@posthorn.test>", "<earlier@posthorn.test>"],
        text: "Hello, my order is late.",
        html: '<p>Hello, my order is <b>late</b>.<img src="cid:logo@sender.test"></p>',
        attachments: [
          { filename: "invoice.txt", content: "Invoice 42: 10 EUR" },
          { filename: "logo.png", content: PNG, cid: "logo@sender.test", contentType: "image/png" },
        ],
      }),
      h.sender,
    );
    const info = await sendRaw(h.port, { from: "alice@sender.test", to: [rcpt] }, raw);
    expect(info.response).toMatch(/^250 2\.6\.0 Queued as [0-9a-f-]{36}$/);
    const messageId = /Queued as (\S+)/.exec(info.response)![1]!;

    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === messageId));
    const routeRow = (await h.app.sql.get<{ project_id: string }>("SELECT project_id FROM routes WHERE id = ?", [h.inboundRouteId]))!;
    expect(ev.event).toBe("message.inbound");
    const { headers, attachments, spam_symbols, ...rest } = ev.data;
    expect(rest).toEqual({
      message_id: messageId,
      status: "processed",
      route: { id: h.inboundRouteId, slug: "inbound", name: "Inbound", project_id: routeRow.project_id },
      from: { email: "alice@sender.test", name: "Alice Example" },
      to: [{ email: rcpt, name: "Support" }],
      cc: [{ email: "bob@example.org", name: "Bob" }],
      reply_to: ["replies@sender.test"],
      // The envelope recipient as given (domain lower-cased), and its subaddress as given.
      recipient: rcpt,
      recipients: [rcpt],
      subaddress: "Order-42",
      envelope_from: "alice@sender.test",
      subject: "Help with order 42",
      date: "2024-05-01T10:00:00.000Z",
      message_id_header: "order-42@sender.test",
      in_reply_to: "earlier@posthorn.test",
      references: ["first@posthorn.test", "earlier@posthorn.test"],
      body: { text: "Hello, my order is late.", html: '<p>Hello, my order is <b>late</b>.<img src="cid:logo@sender.test"></p>' },
      spam_score: -0.9,
      received_at: expect.any(String),
    });
    // SPF passes for 127.0.0.1, the DKIM signature verifies, DMARC passes aligned; no ARC.
    expect(spam_symbols.map((s: { name: string }) => s.name)).toEqual(["R_SPF_ALLOW", "R_DKIM_ALLOW", "DMARC_POLICY_ALLOW", "ARC_NA"]);
    expect(spam_symbols[1]).toEqual({ name: "R_DKIM_ALLOW", score: -0.2, options: ["sender.test:s1"], description: "DKIM signature verified" });
    // Headers in order, our Received trace first, duplicates kept.
    expect(headers[0].name).toBe("Received");
    expect(headers[0].value).toContain(`by mx.posthorn.test (Posthorn) with ESMTP id ${messageId}`);
    expect(headers.find((x: { name: string }) => x.name === "Subject").value).toBe("Help with order 42");
    expect(headers.some((x: { name: string }) => x.name === "DKIM-Signature")).toBe(true);
    // Attachments inline as base64, the inline image with its Content-ID.
    const byName = Object.fromEntries(attachments.map((a: { filename: string }) => [a.filename, a]));
    expect(byName["invoice.txt"]).toEqual({
      id: expect.any(String),
      filename: "invoice.txt",
      content_type: "text/plain",
      content_id: null,
      disposition: "attachment",
      size: 18,
      content: Buffer.from("Invoice 42: 10 EUR").toString("base64"),
    });
    expect(byName["logo.png"]).toMatchObject({ content_type: "image/png", content_id: "logo@sender.test", disposition: "inline", size: PNG.length });
    expect(Buffer.from(byName["logo.png"].content, "base64").equals(PNG)).toBe(true);

    // Stored as an inbound message with its content, raw MIME and attachments.
    const row = (await messageRow(h, messageId))!;
    expect(row).toMatchObject({ type: "inbound", status: "processed", route_id: h.inboundRouteId, from_email: "alice@sender.test", subject: "Help with order 42", spam_score: -0.9 });
    expect(JSON.parse(row.spam_symbols)).toEqual(spam_symbols);
    const content = (await h.app.sql.get<{ raw: Uint8Array; text: string; html: string }>("SELECT raw, text, html FROM message_contents WHERE message_id = ?", [messageId]))!;
    const stored = Buffer.from(content.raw).toString();
    expect(stored.startsWith("Received: from ")).toBe(true);
    expect(stored.endsWith(raw.toString())).toBe(true);
    expect(content.text).toBe("Hello, my order is late.");
    const files = await h.app.sql.all<{ filename: string; size: number }>("SELECT filename, size FROM attachments WHERE message_id = ? ORDER BY filename", [messageId]);
    expect(files).toEqual([{ filename: "invoice.txt", size: 18 }, { filename: "logo.png", size: PNG.length }]);
    // The webhook fan-out would go to the route's webhooks; the history has the step too.
    const history = await h.app.sql.all<{ kind: string; status: string }>("SELECT kind, status FROM message_events WHERE message_id = ?", [messageId]);
    expect(history).toEqual([{ kind: "message.inbound", status: "processed" }]);
  });

  test("attachment_delivery url: the payload carries signed links that download, and forged or expired links are 404", async () => {
    await h.app.sql.run("UPDATE routes SET attachment_delivery = 'url' WHERE id = ?", [h.inboundRouteId]);
    try {
      const raw = await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: "Report", text: "see attached", attachments: [{ filename: "report é.csv", content: "a,b\n1,2\n" }] });
      const info = await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);
      const messageId = /Queued as (\S+)/.exec(info.response)![1]!;
      const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === messageId));
      const [a] = ev.data.attachments;
      expect(a.content).toBeUndefined();
      expect(a.url).toMatch(new RegExp(`^http://localhost:8080/v1/attachments/${a.id}/download\\?expires=\\d+&signature=[0-9a-f]{32}$`));
      const expiresIn = Date.parse(a.expires_at) - Date.now();
      expect(expiresIn).toBeGreaterThan(6.9 * 24 * 3600_000);
      expect(expiresIn).toBeLessThanOrEqual(7 * 24 * 3600_000);

      const get = (url: string) => h.app.app.handle(new Request(url.replace("http://localhost:8080", "http://localhost")));
      const ok = await get(a.url);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toBe("a,b\n1,2\n");
      expect(ok.headers.get("content-type")).toBe("text/csv");
      expect(ok.headers.get("content-disposition")).toBe(`attachment; filename="report _.csv"; filename*=UTF-8''report%20%C3%A9.csv`);
      expect(ok.headers.get("x-content-type-options")).toBe("nosniff");

      const forged = await get(a.url.replace(/signature=(.)/, (_m: string, c: string) => `signature=${c === "0" ? "1" : "0"}`));
      expect(forged.status).toBe(404);
      expect(await forged.json()).toEqual({ message: "Attachment not found.", error: "not_found" });
      const laterExpiry = await get(a.url.replace(/expires=(\d+)/, (_m: string, e: string) => `expires=${Number(e) + 1000}`));
      expect(laterExpiry.status).toBe(404);
      const expired = attachmentDownloadUrl(await serverSecretOf(h.deps.store), "http://localhost:8080", a.id, Date.now() - 8 * 24 * 3600_000);
      expect((await get(expired.url)).status).toBe(404);
      expect((await get(`http://localhost:8080/v1/attachments/${a.id}/download`)).status).toBe(404);
    } finally {
      await h.app.sql.run("UPDATE routes SET attachment_delivery = 'inline' WHERE id = ?", [h.inboundRouteId]);
    }
  });

  test("an invalid DKIM signature scores R_DKIM_REJECT; a forged sender over the threshold is quarantined, published to no webhook", async () => {
    const signed = await dkimSigned(await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: "Invoice", text: "Pay now" }), h.sender);
    const tampered = Buffer.from(signed.toString().replace("Pay now", "Pay me now"));
    const info = await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, tampered);
    const id = /Queued as (\S+)/.exec(info.response)![1]!;
    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id));
    const dkim = ev.data.spam_symbols.find((s: { name: string }) => s.name.startsWith("R_DKIM"));
    expect(dkim).toMatchObject({ name: "R_DKIM_REJECT", score: 1, options: ["sender.test:s1"] });

    // forged.test publishes SPF -all and DMARC p=reject; the signature claims sender.test's key for it.
    h.dns.set("forged.test", "TXT", ["v=spf1 -all"]);
    h.dns.set("_dmarc.forged.test", "TXT", ["v=DMARC1; p=reject"]);
    const forged = Buffer.from(
      (await dkimSigned(await compose({ from: "ceo@forged.test", to: h.inboundAddress, subject: "Wire transfer", text: "Send money" }), h.sender))
        .toString()
        .replace("Send money", "Send more money"),
    );
    const rejectedInfo = await sendRaw(h.port, { from: "ceo@forged.test", to: [h.inboundAddress] }, forged);
    // Accepted at SMTP (the verdict comes after the durable commit) …
    expect(rejectedInfo.response).toStartWith("250 ");
    const rid = /Queued as (\S+)/.exec(rejectedInfo.response)![1]!;
    const held = await waitFor(async () => {
      const r = await messageRow(h, rid);
      return r && r.status !== "pending" ? r : undefined;
    });
    // … scored SPF fail 1 + DKIM reject 1 + DMARC reject 3 = 5 ≥ the default threshold 5: held.
    expect(held).toMatchObject({ status: "quarantined", subject: "Wire transfer", spam_score: 5 });
    expect(JSON.parse(held.spam_symbols).map((s: { name: string; score: number }) => `${s.name}=${s.score}`)).toEqual([
      "R_SPF_FAIL=1",
      "R_DKIM_REJECT=1",
      "DMARC_POLICY_REJECT=3",
      "ARC_NA=0",
    ]);
    const history = await h.app.sql.all<{ kind: string; status: string; data: string }>("SELECT kind, status, data FROM message_events WHERE message_id = ?", [rid]);
    expect(history.map((e) => [e.kind, e.status])).toEqual([["message.inbound_spam_blocked", "quarantined"]]);
    expect(JSON.parse(history[0]!.data)).toMatchObject({ spam_score: 5, spam_threshold: 5, envelope: { mail_from: "ceo@forged.test", recipients: [h.inboundAddress] } });
    // Every kind is subscribed on the route (subscribeEveryRoute): no event at all was published for it.
    expect((await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE message_id = ?", [rid]))!.n).toBe(0);
  });

  test("GTUBE, SpamAssassin's test string, scores 1000: quarantined at the default threshold, also when base64-encoded", async () => {
    const gtube = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X";
    for (const encoding of ["7bit", "base64"] as const) {
      const body = `This is the GTUBE, the\nGeneric Test for Unsolicited Bulk Email\n\n${gtube}\n`;
      const raw = [
        "From: alice@sender.test",
        `To: ${h.inboundAddress}`,
        `Subject: Test spam mail (GTUBE, ${encoding})`,
        `Message-ID: <gtube-${encoding}@sender.test>`,
        "Date: Wed, 1 May 2024 10:00:00 +0000",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=us-ascii",
        `Content-Transfer-Encoding: ${encoding}`,
        "",
        encoding === "base64" ? Buffer.from(body).toString("base64") : body,
      ].join("\r\n");
      const info = await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, await dkimSigned(Buffer.from(raw), h.sender));
      const id = /Queued as (\S+)/.exec(info.response)![1]!;
      const row = await waitFor(async () => {
        const r = await messageRow(h, id);
        return r && r.status !== "pending" ? r : undefined;
      });
      expect(JSON.parse(row.spam_symbols).find((s: { name: string }) => s.name === "GTUBE")).toMatchObject({ score: 1000 });
      expect(row.spam_score).toBeGreaterThanOrEqual(5);
      expect(row.status).toBe("quarantined");
    }
  });

  // Debian's spamassassin package ships these two (.ci/run installs it): its GTUBE sample and a real
  // newsletter from 2001, sent here as received, with their own headers and 20-year-old Received chain.
  const samples = SPAMASSASSIN_SAMPLES;
  test.skipIf(!requireTool("spamassassin"))("SpamAssassin's sample spam is quarantined and its sample ham is delivered as message.inbound", async () => {
    const verdicts: Record<string, { id: string; status: string; score: number; symbols: string[] }> = {};
    for (const [name, from] of [
      ["sample-spam.txt", "sender@example.net"],
      ["sample-nonspam.txt", "tbtf-approval@world.std.com"],
    ] as const) {
      const raw = readFileSync(join(samples, name), "utf8").replace(/\r?\n/g, "\r\n");
      const info = await sendRaw(h.port, { from, to: [h.inboundAddress] }, Buffer.from(raw));
      const id = /Queued as (\S+)/.exec(info.response)![1]!;
      const row = await waitFor(async () => {
        const r = await messageRow(h, id);
        return r && r.status !== "pending" ? r : undefined;
      });
      verdicts[name] = { id, status: row.status, score: row.spam_score, symbols: JSON.parse(row.spam_symbols).map((s: { name: string }) => s.name) };
    }
    expect(verdicts["sample-spam.txt"]).toMatchObject({ status: "quarantined" });
    expect(verdicts["sample-spam.txt"]!.symbols).toContain("GTUBE");
    expect(verdicts["sample-nonspam.txt"]!.status).toBe("processed");
    expect(verdicts["sample-nonspam.txt"]!.score).toBeLessThan(5);
    expect(verdicts["sample-nonspam.txt"]!.symbols).not.toContain("GTUBE");
    const ham = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === verdicts["sample-nonspam.txt"]!.id));
    expect(ham.data.subject).toBe("TBTF ping for 2001-04-20: Reviving");
  });

  test("open relay attempts and unknown mailboxes are refused at RCPT; nothing is stored", async () => {
    const before = await inboundCount(h);
    const { client, greeting } = await RawSmtpClient.connect(h.port);
    expect(greeting.text).toBe("220 mx.posthorn.test ESMTP Posthorn");
    await client.send("EHLO relay.test");
    expect((await client.send("MAIL FROM:<spammer@relay.test>")).code).toBe(250);
    expect((await client.send("RCPT TO:<victim@gmail.com>")).text).toBe("550 5.7.1 Relaying denied: this server only accepts mail for its own addresses");
    expect((await client.send("RCPT TO:<victim@mx.posthorn.test>")).text).toStartWith("550 5.7.1 ");
    expect((await client.send(`RCPT TO:<nobody@${h.inboundAddress.split("@")[1]}>`)).text).toBe("550 5.1.1 No such mailbox here");
    // A route address of another domain part is not ours either.
    expect((await client.send(`RCPT TO:<${h.inboundAddress.split("@")[0]}@gmail.com>`)).code).toBe(550);
    expect((await client.send("DATA")).code).toBe(503);
    client.close();
    expect(await inboundCount(h)).toBe(before);
  });

  test("mail for a deleted route is refused at RCPT, not accepted and dropped", async () => {
    const route = newRoute({
      teamId: h.app.team.teamId,
      projectId: h.app.team.projectId,
      name: "Temp",
      slug: "temp-inbound",
      routeType: "inbound",
      isDefault: false,
      inboundDomain: h.deps.config.inboundDomain,
    });
    await h.deps.store.write((tx) => tx.routes.insert(route));
    const routeId = route.id;
    const address = (await h.app.sql.get<{ a: string }>("SELECT inbound_address AS a FROM routes WHERE id = ?", [routeId]))!.a;
    const { client } = await RawSmtpClient.connect(h.port);
    await client.send("EHLO a.test");
    await client.send("MAIL FROM:<a@sender.test>");
    expect((await client.send(`RCPT TO:<${address}>`)).code).toBe(250);
    await client.send("RSET");
    await h.app.sql.run("DELETE FROM routes WHERE id = ?", [routeId]);
    await client.send("MAIL FROM:<a@sender.test>");
    expect((await client.send(`RCPT TO:<${address}>`)).text).toBe("550 5.1.1 No such mailbox here");
    client.close();
  });

  test("any address at a verified inbound domain is accepted; an unverified domain is not", async () => {
    await h.app.sql.run("UPDATE routes SET inbound_domain = 'support.acme.test', inbound_domain_verified_at = NULL WHERE id = ?", [h.inboundRouteId]);
    try {
      const { client } = await RawSmtpClient.connect(h.port);
      await client.send("EHLO a.test");
      await client.send("MAIL FROM:<a@sender.test>");
      expect((await client.send("RCPT TO:<help@support.acme.test>")).text).toStartWith("550 5.7.1 ");
      client.close();

      await h.app.sql.run("UPDATE routes SET inbound_domain_verified_at = ? WHERE id = ?", [Date.now(), h.inboundRouteId]);
      const raw = await compose({ from: "alice@sender.test", to: "Help <Help+Billing@Support.ACME.test>", subject: "Billing", text: "question" });
      const info = await sendRaw(h.port, { from: "alice@sender.test", to: ["Help+Billing@Support.ACME.test"] }, raw);
      const id = /Queued as (\S+)/.exec(info.response)![1]!;
      const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id));
      expect(ev.data.recipient).toBe("Help+Billing@support.acme.test");
      expect(ev.data.subaddress).toBe("Billing");
      expect(ev.data.route.id).toBe(h.inboundRouteId);
    } finally {
      await h.app.sql.run("UPDATE routes SET inbound_domain = NULL, inbound_domain_verified_at = NULL WHERE id = ?", [h.inboundRouteId]);
    }
  });

  test("malformed MIME and raw 8-bit headers are accepted, stored and published", async () => {
    const malformed = [
      "From: =?utf-8?B?broken <mallory@sender.test>",
      `To: ${h.inboundAddress}`,
      "Subject: Überweisung für Jürgen – 8-bit ✓",
      "Content-Type: multipart/mixed; boundary=\"never-closed\"",
      "",
      "--never-closed",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: base64",
      "",
      "!!!this is not base64!!!",
      "--never-closed",
      "Content-Type: application/octet-stream",
      "",
      "half a part",
    ].join("\r\n");
    const { client } = await RawSmtpClient.connect(h.port);
    const res = await client.transaction("mallory@sender.test", [h.inboundAddress], Buffer.from(malformed, "utf8"));
    client.close();
    expect(res.final!.code).toBe(250);
    const id = /Queued as (\S+)/.exec(res.final!.text)![1]!;
    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id));
    expect(ev.data.subject).toBe("Überweisung für Jürgen – 8-bit ✓");
    expect(ev.data.spam_symbols.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(["MISSING_DATE", "MISSING_MID", "R_DKIM_NA"]));
    // The raw bytes are kept exactly.
    const raw = (await h.app.sql.get<{ raw: Uint8Array }>("SELECT raw FROM message_contents WHERE message_id = ?", [id]))!.raw;
    expect(Buffer.from(raw).toString("utf8")).toContain("Subject: Überweisung für Jürgen – 8-bit ✓\r\n");
  });
});

describe("MX listener: names claimed by a sending domain another team verified never reach a route", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound();
  });
  afterAll(() => h.stop());

  const inboundRouteOf = async (projectId: string) =>
    (await h.app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound' AND is_default = 1", [projectId]))!.id;
  const rcpt = async (address: string) => {
    const { client } = await RawSmtpClient.connect(h.port);
    try {
      await client.send("EHLO a.test");
      await client.send("MAIL FROM:<a@sender.test>");
      return (await client.send(`RCPT TO:<${address}>`)).text;
    } finally {
      client.close();
    }
  };
  const messagesOf = async (token: string) => (await h.app.request("GET", "/v1/messages", { token })).json.data as unknown[];
  const publish = (records: { type: string; fqdn: string; content: string }[]) => {
    for (const r of records) {
      if (r.type === "MX") h.dns.set(r.fqdn, "MX", [{ exchange: r.content, priority: 10 }]);
      else h.dns.set(r.fqdn, "TXT", [r.content]);
    }
  };
  /** Team A registers the domain and proves it (its records published, verified: active). */
  const registerVerified = async (name: string) => {
    const d = await h.app.request("POST", "/v1/domains", { body: { domain: name } });
    expect(d.status).toBe(201);
    publish(d.json.dns_records);
    expect((await h.app.request("POST", `/v1/domains/${d.json.id}/dns-records/verify`)).json.data.sending_status).toBe("active");
  };

  test("the attack: team B's route on ph-bounces.<team A's domain> gets neither postmaster@, abuse@ nor forged VERP mail", async () => {
    await registerVerified("a-corp.test");
    const b = h.app.addTeam();
    const theirs = await inboundRouteOf(b.projectId);
    const put = await h.app.request("PUT", `/v1/routes/${theirs}`, { token: b.teamToken, body: { inbound_settings: { inbound_domain: "ph-bounces.a-corp.test" } } });
    expect(put.status).toBe(409);
    // The state an older version could leave behind (MX-only verification, after A's): verified all the same.
    await h.app.sql.run("UPDATE routes SET inbound_domain = 'ph-bounces.a-corp.test', inbound_domain_verified_at = ? WHERE id = ?", [Date.now() + 1, theirs]);
    const { client } = await RawSmtpClient.connect(h.port);
    const raw = await compose({ from: "mallory@sender.test", to: "postmaster@ph-bounces.a-corp.test", subject: "Delivery report", text: "bounce" });
    const targets = ["postmaster@ph-bounces.a-corp.test", "abuse@PH-BOUNCES.a-corp.test", "b.forged0000000000000000000000000000@ph-bounces.a-corp.test"];
    const result = await client.transaction("mallory@sender.test", targets, raw);
    client.close();
    for (const r of result.rcpt) expect(r.text).toBe("550 5.1.1 No such mailbox here");
    expect(result.final).toBeNull();
    expect(await messagesOf(b.teamToken)).toEqual([]);
    expect(await inboundCount(h)).toBe(0);
  });

  test("any name under team A's verified domain is refused for team B's route at RCPT, even if marked verified after it; team A's own route gets its own names", async () => {
    const b = h.app.addTeam();
    const theirs = await inboundRouteOf(b.projectId);
    await h.app.sql.run("UPDATE routes SET inbound_domain = 'track.a-corp.test', inbound_domain_verified_at = ? WHERE id = ?", [Date.now() + 1, theirs]);
    expect(await rcpt("x@track.a-corp.test")).toStartWith("550 ");
    expect(await rcpt("x@TRACK.A-CORP.TEST")).toStartWith("550 ");
    // Team A, which verified a-corp.test, may receive there.
    await h.app.sql.run("UPDATE routes SET inbound_domain = NULL, inbound_domain_verified_at = NULL WHERE id = ?", [theirs]);
    await h.app.sql.run("UPDATE routes SET inbound_domain = 'track.a-corp.test', inbound_domain_verified_at = ? WHERE id = ?", [Date.now(), h.inboundRouteId]);
    try {
      expect(await rcpt("x@track.a-corp.test")).toStartWith("250 ");
      // But never at its own return-path name: those addresses are bounces.
      await h.app.sql.run("UPDATE routes SET inbound_domain = 'ph-bounces.a-corp.test' WHERE id = ?", [h.inboundRouteId]);
      expect(await rcpt("postmaster@ph-bounces.a-corp.test")).toBe("550 5.1.1 No such mailbox here");
    } finally {
      await h.app.sql.run("UPDATE routes SET inbound_domain = NULL, inbound_domain_verified_at = NULL WHERE id = ?", [h.inboundRouteId]);
    }
    expect(await messagesOf(b.teamToken)).toEqual([]);
  });

  test("reverse order: team B verifies in.b-later.test (MX and TXT), then team A registers and verifies b-later.test → B's route keeps it", async () => {
    const b = h.app.addTeam();
    const theirs = await inboundRouteOf(b.projectId);
    const put = await h.app.request("PUT", `/v1/routes/${theirs}`, { token: b.teamToken, body: { inbound_settings: { inbound_domain: "in.b-later.test" } } });
    expect(put.status).toBe(200);
    publish(put.json.data.inbound_domain_records);
    const verified = await h.app.request("POST", `/v1/routes/${theirs}/verify-inbound-domain`, { token: b.teamToken });
    expect(verified.json.data.verified).toBe(true);
    expect(await rcpt("x@in.b-later.test")).toStartWith("250 ");

    // A registration proves nothing; A's proof of the parent comes after B's of the name.
    await registerVerified("b-later.test");
    expect((await h.app.request("GET", `/v1/routes/${theirs}`, { token: b.teamToken })).json.inbound_domain_verified_at).toBeString();
    expect(await rcpt("x@in.b-later.test")).toStartWith("250 ");
    // The listener's own check: a verification recorded after A's proof would not count.
    await h.app.sql.run("UPDATE routes SET inbound_domain_verified_at = ? WHERE id = ?", [Date.now() + 1, theirs]);
    expect(await rcpt("x@in.b-later.test")).toStartWith("550 ");
  });
});

describe("MX listener: limits", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound({ env: { POSTHORN_MAX_MESSAGE_BYTES: "20000" }, listener: { socketTimeoutMs: 600, maxClients: 8, maxBufferedBytes: 25_000 } });
  });
  afterAll(() => h.stop());

  test("SIZE is advertised; a larger message is refused with 552 (declared or not) and the session goes on", async () => {
    const { client } = await RawSmtpClient.connect(h.port);
    const ehlo = await client.send("EHLO big.test");
    expect(ehlo.lines).toContain("SIZE 20000");
    expect(ehlo.lines).toContain("ENHANCEDSTATUSCODES");
    expect(ehlo.lines).toContain("8BITMIME");
    expect(ehlo.lines).not.toContain("STARTTLS");
    expect((await client.send("MAIL FROM:<a@sender.test> SIZE=30000")).text).toBe("552 5.3.4 Error: message exceeds fixed maximum message size 20000");
    await client.send("RSET");

    const big = `Subject: big\r\n\r\n${"x".repeat(998)}\r\n`.repeat(25);
    const res = await client.transaction("a@sender.test", [h.inboundAddress], big);
    expect(res.final!.code).toBe(552);
    expect(await inboundCount(h)).toBe(0);
    const small = await client.transaction("a@sender.test", [h.inboundAddress], "Subject: small\r\n\r\nok\r\n");
    expect(small.final!.code).toBe(250);
    client.close();
    expect(await inboundCount(h)).toBe(1);
  });

  test("a 1,000-recipient RCPT flood: 100 accepted, the rest 452 4.5.3; others are served meanwhile", async () => {
    const { client } = await RawSmtpClient.connect(h.port);
    await client.send("EHLO flood.test");
    await client.send("MAIL FROM:<flood@sender.test>");
    const [local, domain] = h.inboundAddress.split("@");
    // Pipelined, as a flooding client would.
    client.write(Array.from({ length: 1000 }, (_, i) => `RCPT TO:<${local}+${i}@${domain}>\r\n`).join(""));
    const other = sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: "meanwhile", text: "hi" }));
    const replies = [];
    for (let i = 0; i < 1000; i++) replies.push(await client.read());
    expect(replies.filter((r) => r.code === 250)).toHaveLength(100);
    expect(replies.slice(100).every((r) => r.text === "452 4.5.3 Error: too many recipients")).toBe(true);
    expect((await other).response).toStartWith("250 ");

    expect((await client.send("DATA")).code).toBe(354);
    client.write("Subject: flood\r\n\r\nhello\r\n.\r\n");
    const final = await client.read();
    expect(final.code).toBe(250);
    client.close();
    const id = /Queued as (\S+)/.exec(final.text)![1]!;
    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id));
    // One message for the route, naming every accepted recipient.
    expect(ev.data.recipients).toHaveLength(100);
    expect(ev.data.recipient).toBe(`${local}+0@${domain}`);
    expect(ev.data.spam_symbols.find((s: { name: string }) => s.name === "MANY_RECIPIENTS")).toMatchObject({ score: 1.5, options: ["100"] });
  });

  test("a client that stalls mid-DATA is dropped after the timeout; others are served and nothing accepted is lost", async () => {
    const before = await inboundCount(h);
    const { client: staller } = await RawSmtpClient.connect(h.port);
    await staller.send("EHLO slow.test");
    await staller.send("MAIL FROM:<slow@sender.test>");
    await staller.send(`RCPT TO:<${h.inboundAddress}>`);
    expect((await staller.send("DATA")).code).toBe(354);
    staller.write("Subject: never finished\r\n\r\nhalf of it");

    const sent = [];
    for (let i = 0; i < 3; i++) {
      const raw = await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: `while stalled ${i}`, text: "hi" });
      sent.push(/Queued as (\S+)/.exec((await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw)).response)![1]!);
    }
    await staller.closedPromise;
    for (const id of sent) await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id));
    expect(await inboundCount(h)).toBe(before + 3);
    expect((await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages WHERE subject = 'never finished'"))!.n).toBe(0);
  });

  test("when the sessions together hold too much message data, the next message gets 452 4.3.1 and can retry", async () => {
    const { client: a } = await RawSmtpClient.connect(h.port);
    await a.send("EHLO a.test");
    await a.send("MAIL FROM:<a@sender.test>");
    await a.send(`RCPT TO:<${h.inboundAddress}>`);
    expect((await a.send("DATA")).code).toBe(354);
    a.write(`Subject: first\r\n\r\n${"a".repeat(15_000)}\r\n`);
    await Bun.sleep(50);
    const b = `Subject: second\r\n\r\n${"b".repeat(15_000)}\r\n`;
    const { client } = await RawSmtpClient.connect(h.port);
    const refused = await client.transaction("b@sender.test", [h.inboundAddress], b);
    expect(refused.final!.text).toBe("452 4.3.1 Too much mail in progress, try again later");
    a.write(".\r\n");
    expect((await a.read()).code).toBe(250);
    const retried = await client.transaction("b@sender.test", [h.inboundAddress], b);
    expect(retried.final!.code).toBe(250);
    a.close();
    client.close();
  });

  test("connections beyond maxClients are turned away with 421", async () => {
    const open = await Promise.all(Array.from({ length: 8 }, () => RawSmtpClient.connect(h.port)));
    expect(open.every((o) => o.greeting.code === 220)).toBe(true);
    const extra = await RawSmtpClient.connect(h.port);
    expect(extra.greeting.code).toBe(421);
    for (const o of [...open, extra]) o.client.close();
  });
});

test("STARTTLS is offered with POSTHORN_TLS_CERT/KEY and mail arrives over TLS", async () => {
  const cert = makeTestCert(["mx.posthorn.test"]);
  const dir = dirname(cert.caPath);
  const h = await startInbound({ env: { POSTHORN_TLS_CERT: join(dir, "leaf.pem"), POSTHORN_TLS_KEY: join(dir, "leaf.key") } });
  try {
    const { client } = await RawSmtpClient.connect(h.port);
    expect((await client.send("EHLO tls.test")).lines).toContain("STARTTLS");
    client.close();
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: h.port,
      requireTLS: true,
      tls: { ca: cert.caPem, servername: "mx.posthorn.test" },
      logger: false,
    });
    const info = await transport.sendMail({ from: "alice@sender.test", to: h.inboundAddress, subject: "over tls", text: "secret" });
    transport.close();
    const id = /Queued as (\S+)/.exec(info.response)![1]!;
    const ev = await waitFor(async () => (await eventBodies(h.deps, "message.inbound")).find((e) => e.data.message_id === id));
    expect(ev.data.headers[0].value).toContain("with ESMTPS id");
  } finally {
    await h.stop();
  }
});
