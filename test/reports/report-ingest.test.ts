/**
 * DMARC aggregate and TLS reports sent over real SMTP to the MX on loopback, at the report
 * addresses the domain's DNS records name: accepted without a route, stored once per report,
 * shown by the API per day and reporter; hostile reports refused with a logged reason; a domain
 * verified before report records existed keeps its verification.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { DMARC_RECOMMENDATION } from "../../src/dns/records.ts";
import { syncReportRecords } from "../../src/reports/report-records.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { waitFor } from "../helpers.ts";
import { sendRaw, startInbound, type InboundHarness } from "../smtp/support.ts";
import { billionLaughs, dmarcXml, gz, nestedZip, reportMail, rfc8460Example, zipBomb, zipOf } from "../support/report-files.ts";

let h: InboundHarness;
let domainId: string;
let dmarcAddress: string;
let tlsAddress: string;
const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
const DAY = "2026-12-05";
const BEGIN = Date.parse(`${DAY}T00:00:00Z`) / 1000;

beforeAll(async () => {
  h = await startInbound();
  const log = h.deps.log;
  const warn = log.warn.bind(log);
  log.warn = (msg, fields) => {
    warnings.push({ msg, fields });
    warn(msg, fields);
  };
  const res = await h.app.request("POST", "/v1/domains", { body: { domain: "example.com" } });
  expect(res.status).toBe(201);
  domainId = res.json.id;
  const records = res.json.dns_records as { kind: string; fqdn: string; content: string; verification_scope: string; purpose: string }[];
  const dmarc = records.find((r) => r.kind === "dmarc")!;
  const tls = records.find((r) => r.kind === "tls_rpt")!;
  dmarcAddress = /rua=mailto:([^;\s]+)/.exec(dmarc.content)![1]!;
  tlsAddress = /rua=mailto:([^;\s]+)/.exec(tls.content)![1]!;
});

afterAll(async () => {
  await h?.stop();
});

const send = (to: string, raw: Buffer) => sendRaw(h.port, { from: "noreply-dmarc-support@google.com", to: [to] }, raw);

describe("report addresses in the domain's records", () => {
  test("the DMARC record sends aggregate reports to Posthorn, and a TLS-RPT record is recommended", async () => {
    const res = await h.app.request("GET", `/v1/domains/${domainId}`);
    const records = res.json.dns_records as { kind: string; hostname: string; fqdn: string; content: string; verification_scope: string; purpose: string; required_for_verification: boolean }[];
    const inbound = h.deps.config.inboundDomain;
    const dmarc = records.find((r) => r.kind === "dmarc")!;
    expect(dmarc.content).toMatch(new RegExp(`^v=DMARC1; p=none; adkim=r; aspf=r; rua=mailto:dmarc\\+[0-9a-f]{32}\\.[0-9a-f]{16}@${inbound.replace(/\./g, "\\.")}$`));
    const tls = records.find((r) => r.kind === "tls_rpt")!;
    expect(tls).toMatchObject({ hostname: "_smtp._tls", fqdn: "_smtp._tls.example.com", purpose: "dmarc", verification_scope: "recommended", required_for_verification: false });
    expect(tls.content).toMatch(new RegExp(`^v=TLSRPTv1; rua=mailto:tlsrpt\\+[0-9a-f]{32}\\.[0-9a-f]{16}@${inbound.replace(/\./g, "\\.")}$`));
  });

  test("the API names the addresses and the authorization record the report domain publishes (RFC 7489 §7.1)", async () => {
    const res = await h.app.request("GET", `/v1/domains/${domainId}/deliverability/dmarc`);
    expect(res.status).toBe(200);
    const inbound = h.deps.config.inboundDomain;
    expect(res.json.report_addresses).toEqual({
      dmarc: dmarcAddress,
      tls_rpt: tlsAddress,
      authorization_record: { type: "TXT", fqdn: `example.com._report._dmarc.${inbound}`, wildcard: `*._report._dmarc.${inbound}`, content: "v=DMARC1" },
    });
  });

  test("RCPT: the report addresses are accepted without a route; a forged signature or an unknown domain is refused", async () => {
    const xml = dmarcXml({ org: "google.com", reportId: "rcpt-1", begin: BEGIN, end: BEGIN + 86399, domain: "example.com", rows: [] });
    const raw = await reportMail({ to: dmarcAddress, filename: "r.xml.gz", contentType: "application/gzip", content: gz(xml) });
    expect((await send(dmarcAddress, raw)).response).toStartWith("250");
    const forged = dmarcAddress.replace(/\.([0-9a-f]{16})@/, (_, sig: string) => `.${sig.startsWith("0") ? "1" : "0"}${sig.slice(1)}@`);
    await expect(send(forged, raw)).rejects.toThrow(/550/);
    const unknown = dmarcAddress.replace(/\+[0-9a-f]{32}\./, `+${"0".repeat(32)}.`);
    await expect(send(unknown, raw)).rejects.toThrow(/550/);
  });
});

describe("DMARC aggregate reports over SMTP", () => {
  test("a gzip report and a zip report are stored per day and reporter; the same report again is not counted twice", async () => {
    const google = dmarcXml({
      org: "google.com",
      reportId: "17648928001234567890",
      begin: BEGIN,
      end: BEGIN + 86399,
      domain: "example.com",
      rows: [
        { ip: "192.0.2.10", count: 90, dkim: "pass", spf: "pass", envelopeFrom: "ph-bounces.example.com" },
        { ip: "2001:db8::bad", count: 7, dkim: "fail", spf: "fail", disposition: "none" },
      ],
    });
    const microsoft = dmarcXml({
      org: "Enterprise Outlook",
      reportId: "a1b2c3d4e5f64f0a9b8c7d6e5f4a3b2c",
      begin: BEGIN,
      end: BEGIN + 86399,
      domain: "example.com",
      p: "none",
      rows: [{ ip: "192.0.2.10", count: 40, dkim: "pass", spf: "fail", envelopeFrom: "ph-bounces.example.com", spfAuth: "softfail" }],
    });
    const g = await reportMail({ to: dmarcAddress, filename: "google.com!example.com!1764892800!1764979199.xml.gz", contentType: "application/gzip", content: gz(google) });
    const m = await reportMail({ to: dmarcAddress, filename: "enterprise.protection.outlook.com!example.com!1764892800!1764979199.zip", contentType: "application/zip", content: zipOf("report.xml", microsoft) });
    for (const raw of [g, m, g]) expect((await send(dmarcAddress, raw)).response).toStartWith("250");

    const res = await h.app.request("GET", `/v1/domains/${domainId}/deliverability/dmarc?from=${DAY}&to=${DAY}`);
    expect(res.status).toBe(200);
    expect(res.json.reports).toBe(3); // the two above and the one of the RCPT test; the duplicate is not one
    const day = res.json.days.find((d: { date: string }) => d.date === DAY);
    const byOrg = Object.fromEntries(day.reporters.map((r: { org_name: string }) => [r.org_name, r]));
    // No outbound connection was made, so no address is ours: everything is "elsewhere".
    expect(byOrg["google.com"].elsewhere).toMatchObject({ messages: 97, spf_aligned: 90, dkim_aligned: 90, dmarc_pass: 90 });
    expect(byOrg["google.com"].elsewhere.sources.map((s: { source_ip: string; messages: number }) => [s.source_ip, s.messages])).toEqual([
      ["192.0.2.10", 90],
      ["2001:db8::bad", 7],
    ]);
    expect(byOrg["Enterprise Outlook"].elsewhere).toMatchObject({ messages: 40, spf_aligned: 0, dkim_aligned: 40, dmarc_pass: 40, spf_rate: 0, dmarc_rate: 1 });
  });

  test("a report about another domain sent to this domain's address is refused with a logged reason", async () => {
    const xml = dmarcXml({ org: "google.com", reportId: "other-1", begin: BEGIN, end: BEGIN + 86399, domain: "victim.example", rows: [{ ip: "192.0.2.99", count: 5, dkim: "pass", spf: "pass" }] });
    const raw = await reportMail({ to: dmarcAddress, filename: "r.xml", contentType: "text/xml", content: xml });
    expect((await send(dmarcAddress, raw)).response).toStartWith("250");
    expect(warnings.some((w) => w.msg === "report refused" && String(w.fields?.reason).includes("about victim.example, not example.com"))).toBe(true);
    const n = await h.app.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM dmarc_reports WHERE report_id = 'other-1'");
    expect(Number(n!.n)).toBe(0);
  });

  test("hostile reports over SMTP (1 GiB zip bomb, billion laughs, 10-level nested zip) are refused in bounded time and memory", async () => {
    const cases = [
      { name: "zip bomb", raw: await reportMail({ to: dmarcAddress, filename: "r.zip", contentType: "application/zip", content: zipBomb() }), reason: "inflates to more than" },
      { name: "billion laughs", raw: await reportMail({ to: dmarcAddress, filename: "r.xml.gz", contentType: "application/gzip", content: gz(billionLaughs()) }), reason: "DOCTYPE" },
      {
        name: "nested zip",
        raw: await reportMail({ to: dmarcAddress, filename: "r.zip", contentType: "application/zip", content: nestedZip(dmarcXml({ org: "x", reportId: "n", begin: BEGIN, end: BEGIN + 1, domain: "example.com", rows: [] })) }),
        reason: "nested archives",
      },
    ];
    const before = await h.app.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM dmarc_reports");
    for (const c of cases) {
      Bun.gc(true);
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      const t0 = performance.now();
      const reply = await send(dmarcAddress, c.raw);
      const ms = performance.now() - t0;
      clearInterval(sampler);
      expect(reply.response).toStartWith("250");
      const w = warnings.findLast((x) => x.msg === "report refused");
      expect(String(w?.fields?.reason)).toContain(c.reason);
      console.log(`over SMTP, ${c.name} (${(c.raw.length / 2 ** 20).toFixed(2)} MB message): answered in ${ms.toFixed(0)} ms, RSS +${((peak - rss0) / 2 ** 20).toFixed(0)} MB: ${w?.fields?.reason}`);
      expect(ms).toBeLessThan(10_000);
      expect((peak - rss0) / 2 ** 20).toBeLessThan(250);
    }
    const after = await h.app.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM dmarc_reports");
    expect(Number(after!.n)).toBe(Number(before!.n));
  });
});

describe("TLS reports over SMTP", () => {
  test("RFC 8460's example as application/tlsrpt+gzip: failures per receiving MX with their result types", async () => {
    const json = JSON.stringify(rfc8460Example("example.com", DAY));
    const raw = await reportMail({ to: tlsAddress, filename: "company-x.example!example.com!1764892800!1764979199!001.json.gz", contentType: "application/tlsrpt+gzip", content: gz(json) });
    expect((await sendRaw(h.port, { from: "sts-reporting@company-x.example", to: [tlsAddress] }, raw)).response).toStartWith("250");
    expect((await sendRaw(h.port, { from: "sts-reporting@company-x.example", to: [tlsAddress] }, raw)).response).toStartWith("250");
    const res = await h.app.request("GET", `/v1/domains/${domainId}/deliverability/tls?from=${DAY}&to=${DAY}`);
    expect(res.status).toBe(200);
    expect(res.json.reports).toBe(1);
    expect(res.json.days[0].reporters[0].policies[0]).toMatchObject({ policy_type: "sts", policy_domain: "example.com", successful: 5326, failed: 303 });
    expect(res.json.by_mx).toEqual([
      { mx_host: "mx2.mail.example.com", failed: 200, result_types: [{ result_type: "starttls-not-supported", sessions: 200 }] },
      { mx_host: "mx1.mail.example.com", failed: 100, result_types: [{ result_type: "certificate-expired", sessions: 100 }] },
      { mx_host: "mx-backup.mail.example.com", failed: 3, result_types: [{ result_type: "validation-failure", sessions: 3 }] },
    ]);
    expect(res.json.advice.map((a: { message: string }) => a.message)).toEqual([
      "200 sessions to mx2.mail.example.com failed (starttls-not-supported): mx2.mail.example.com does not offer STARTTLS: enable it there.",
      "100 sessions to mx1.mail.example.com failed (certificate-expired): the certificate of mx1.mail.example.com has expired: renew it.",
      "3 sessions to mx-backup.mail.example.com failed (validation-failure): the certificate of mx-backup.mail.example.com did not validate: check its chain, names and dates.",
    ]);
  });
});

describe("the API", () => {
  test("another team's domain is a 404; a bad period is a 422", async () => {
    const other = h.app.addTeam();
    expect((await h.app.request("GET", `/v1/domains/${domainId}/deliverability/dmarc`, { token: other.teamToken })).status).toBe(404);
    expect((await h.app.request("GET", `/v1/domains/${domainId}/deliverability/tls`, { token: other.teamToken })).status).toBe(404);
    const bad = await h.app.request("GET", `/v1/domains/${domainId}/deliverability/dmarc?from=2026-12-06&to=2026-12-01`);
    expect(bad.status).toBe(422);
    expect(bad.json.errors.from[0]).toContain("must not be after");
    expect((await h.app.request("GET", `/v1/domains/${domainId}/deliverability/dmarc?from=2026-02-30`)).status).toBe(422);
  });
});

describe("domains from before report addresses", () => {
  test("gain the TLS-RPT record and the DMARC rua at start-up, and stay verified", async () => {
    const res = await h.app.request("POST", "/v1/domains", { body: { domain: "old.example" } });
    const id = res.json.id as string;
    // As the domain was stored before: the DMARC recommendation without rua, no TLS-RPT record, verified.
    await h.app.sql.run("DELETE FROM dns_records WHERE domain_id = ? AND purpose = 'tls_rpt'", [id]);
    await h.app.sql.run("UPDATE dns_records SET content = ? WHERE domain_id = ? AND purpose = 'dmarc'", [DMARC_RECOMMENDATION, id]);
    const row = (await h.app.sql.get<{ dkim_selector: string; dkim_public_key: string }>("SELECT dkim_selector, dkim_public_key FROM domains WHERE id = ?", [id]))!;
    h.dns.set(`${row.dkim_selector}._domainkey.old.example`, "TXT", [dkimRecordContent(row.dkim_public_key)]);
    h.dns.set("_dmarc.old.example", "TXT", [DMARC_RECOMMENDATION]);
    const first = await h.app.request("POST", `/v1/domains/${id}/dns-records/verify`);
    expect(first.json.verified).toBe(true);

    const changed = await syncReportRecords(h.deps.store, await serverSecretOf(h.deps.store), h.deps.config.inboundDomain);
    expect(changed).toBeGreaterThanOrEqual(2);
    expect(await syncReportRecords(h.deps.store, await serverSecretOf(h.deps.store), h.deps.config.inboundDomain)).toBe(0);

    const after = await h.app.request("POST", `/v1/domains/${id}/dns-records/verify`);
    expect(after.json.verified).toBe(true);
    expect(after.json.data.status).toBe("verified");
    const records = after.json.data.dns_records as { kind: string; status: string; content: string }[];
    // The published DMARC record without rua still passes (any v=DMARC1 does); the TLS-RPT record is pending.
    expect(records.find((r) => r.kind === "dmarc")).toMatchObject({ status: "active" });
    expect(records.find((r) => r.kind === "dmarc")!.content).toContain("rua=mailto:dmarc+");
    expect(records.find((r) => r.kind === "tls_rpt")).toMatchObject({ status: "pending" });

    h.dns.set("_smtp._tls.old.example", "TXT", [records.find((r) => r.kind === "tls_rpt")!.content]);
    const third = await h.app.request("POST", `/v1/domains/${id}/dns-records/verify`);
    expect((third.json.data.dns_records as { kind: string; status: string }[]).find((r) => r.kind === "tls_rpt")!.status).toBe("active");
    h.dns.set("_smtp._tls.old.example", "TXT", ["v=TLSRPTv1; rua=mailto:tls@elsewhere.example"]);
    const fourth = await h.app.request("POST", `/v1/domains/${id}/dns-records/verify`);
    expect(fourth.json.verified).toBe(true);
    expect(fourth.json.failed.find((f: { kind: string }) => f.kind === "tls_rpt").reason).toContain("does not send reports to Posthorn");
  });
});
