/**
 * Reading DMARC aggregate and TLS reports within bounds: the formats of the RFCs, reports shaped
 * like those of large receivers, and hostile files (a 1 GiB zip bomb, a billion laughs, a zip
 * nested ten deep, XML nested deep), each refused with a reason, in bounded time and memory.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "bun:test";
import { dmarcAdvice, tlsAdvice } from "../../src/reports/advice.ts";
import { parseDmarcAggregate } from "../../src/reports/dmarc-aggregate.ts";
import { readReportMessage, type ParsedReport } from "../../src/reports/report-message.ts";
import { readReportInThread } from "../../src/reports/report-reader.ts";
import { parseTlsReport } from "../../src/reports/tls-report.ts";
import { ReportRefused, unpackReport } from "../../src/reports/unpack.ts";
import { tempDir } from "../helpers.ts";
import { billionLaughs, deepXml, dmarcXml, gz, nestedZip, reportMail, rfc8460Example, zipBomb, zipOf, type DmarcRow } from "../support/report-files.ts";

const DAY = Date.UTC(2026, 11, 5) / 1000;

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ReportRefused) return err.reason;
    throw err;
  }
  throw new Error("not refused");
}

async function refusalOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ReportRefused) return err.reason;
    throw err;
  }
  throw new Error("not refused");
}

/** Runs fn and measures its time and the growth of the process's resident memory. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; rssGrowthMb: number }> {
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, ms: performance.now() - t0, rssGrowthMb: (peak - before) / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

describe("DMARC aggregate reports", () => {
  test("a report in RFC 7489 Appendix C's format is read field by field, gzip and zip alike", () => {
    const xml = dmarcXml({
      org: "google.com",
      reportId: "12598866915817748661",
      begin: DAY,
      end: DAY + 86399,
      domain: "example.com",
      p: "none",
      rows: [
        { ip: "203.0.113.7", count: 12, dkim: "pass", spf: "fail", envelopeFrom: "ph-bounces.example.com" },
        { ip: "2001:db8::25", count: 3, dkim: "fail", spf: "fail", disposition: "quarantine" },
      ],
    });
    for (const bytes of [new TextEncoder().encode(xml), gz(xml), zipOf("google.com!example.com!1764892800!1764979199.xml", xml)]) {
      const r = parseDmarcAggregate(new TextDecoder().decode(unpackReport(bytes)));
      expect(r.orgName).toBe("google.com");
      expect(r.reportId).toBe("12598866915817748661");
      expect(r.begin).toBe(DAY * 1000);
      expect(r.policy).toEqual({ domain: "example.com", p: "none", sp: "none", adkim: "r", aspf: "r", pct: 100 });
      expect(r.records).toHaveLength(2);
      expect(r.records[0]).toMatchObject({ sourceIp: "203.0.113.7", count: 12, disposition: "none", dkim: "pass", spf: "fail", envelopeFrom: "ph-bounces.example.com" });
      expect(r.records[0]!.dkimResults).toEqual([{ domain: "example.com", selector: "ph1", result: "pass" }]);
      expect(r.records[1]).toMatchObject({ sourceIp: "2001:db8::25", disposition: "quarantine" });
    }
  });

  test("a large receiver's report: 5,000 records, IPv6 sources, DMARCbis namespace, read in bounded time", () => {
    const rows: DmarcRow[] = Array.from({ length: 5_000 }, (_, i) => ({
      ip: i % 2 ? `2001:db8:${(i % 65536).toString(16)}::${(i % 997).toString(16)}` : `198.51.${(i >> 8) % 256}.${i % 256}`,
      count: 1 + (i % 50),
      dkim: i % 3 ? "pass" : "fail",
      spf: i % 5 ? "pass" : "fail",
    }));
    const xml = dmarcXml({ org: "Yahoo", reportId: "1764892800.123456", begin: DAY, end: DAY + 86399, domain: "example.com", p: "quarantine", sp: "reject", pct: 50, rows, namespace: true });
    const t0 = performance.now();
    const r = parseDmarcAggregate(new TextDecoder().decode(unpackReport(gz(xml))));
    const ms = performance.now() - t0;
    expect(r.records).toHaveLength(5_000);
    expect(r.records.reduce((n, x) => n + x.count, 0)).toBe(rows.reduce((n, x) => n + x.count, 0));
    expect(r.policy).toMatchObject({ p: "quarantine", sp: "reject", pct: 50 });
    expect(r.records[1]!.sourceIp).toContain("2001:db8:");
    console.log(`5,000-record report (${(xml.length / 2 ** 20).toFixed(1)} MB XML): read in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(10_000);
  });

  test("values that are not what the schema says are refused with the reason", () => {
    const base = { org: "x", reportId: "1", begin: DAY, end: DAY + 1, domain: "example.com", rows: [{ ip: "203.0.113.1", count: 1, dkim: "pass" as const, spf: "pass" as const }] };
    expect(refusal(() => parseDmarcAggregate(dmarcXml({ ...base, rows: [{ ...base.rows[0]!, ip: "not-an-ip" }] })))).toContain("source_ip is not an IP address");
    expect(refusal(() => parseDmarcAggregate(dmarcXml(base).replace("<count>1</count>", "<count>-1</count>")))).toContain("count is not a whole number");
    expect(refusal(() => parseDmarcAggregate(dmarcXml({ ...base, begin: DAY + 10, end: DAY })))).toContain("ends before it begins");
    expect(refusal(() => parseDmarcAggregate("<html><body>hi</body></html>"))).toContain("no <feedback> element");
    expect(refusal(() => parseDmarcAggregate("<feedback><!-- an unclosed comment </feedback>"))).toContain("not well-formed");
  });
});

describe("TLS reports", () => {
  test("RFC 8460 §4.4's example is read: summary and failure details per receiving MX", () => {
    const r = parseTlsReport(new TextDecoder().decode(unpackReport(gz(JSON.stringify(rfc8460Example("company-y.example", "2016-04-01"))))));
    expect(r.orgName).toBe("Company-X");
    expect(r.begin).toBe(Date.parse("2016-04-01T00:00:00Z"));
    expect(r.policies).toHaveLength(1);
    const p = r.policies[0]!;
    expect(p).toMatchObject({ policyType: "sts", policyDomain: "company-y.example", successful: 5326, failed: 303 });
    expect(p.failures.map((f) => [f.mxHost, f.resultType, f.count])).toEqual([
      ["mx1.mail.company-y.example", "certificate-expired", 100],
      ["mx2.mail.company-y.example", "starttls-not-supported", 200],
      ["mx-backup.mail.company-y.example", "validation-failure", 3],
    ]);
    expect(p.failures[0]!.sendingIp).toBe("2001:db8:abcd:12::1".replace("12::1", "0012::1"));
  });

  test("JSON nested deeper than a report is refused before it is parsed", () => {
    expect(refusal(() => parseTlsReport(`${"[".repeat(100_000)}${"]".repeat(100_000)}`))).toContain("nests deeper");
    expect(refusal(() => parseTlsReport("{}"))).toContain("lacks organization-name");
  });
});

describe("hostile files", () => {
  test("a 1 GiB zip bomb is refused at the 20 MB limit, quickly and without taking the memory", async () => {
    const bomb = zipBomb();
    expect(bomb.length).toBeLessThan(2 * 2 ** 20);
    const raw = await reportMail({ to: "dmarc@x", filename: "google.com!example.com!1!2.zip", contentType: "application/zip", content: bomb });
    const m = await measured(() => refusalOf(readReportMessage(raw, "dmarc")));
    console.log(`zip bomb (${(bomb.length / 2 ** 20).toFixed(2)} MB zip of 1 GiB): refused in ${m.ms.toFixed(0)} ms, RSS +${m.rssGrowthMb.toFixed(0)} MB: ${m.value}`);
    expect(m.value).toContain("inflates to more than 20971520 bytes");
    expect(m.ms).toBeLessThan(5_000);
    expect(m.rssGrowthMb).toBeLessThan(200);
  });

  test("a gzip bomb (1 GiB of zeros) is refused the same way", async () => {
    const bomb = zipBomb();
    // The zip's deflate stream inside a gzip frame.
    const start = 30 + "report.xml".length;
    const deflate = bomb.subarray(start, bomb.length - 46 - "report.xml".length - 22);
    const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    const trailer = Buffer.alloc(8);
    const gzBomb = Buffer.concat([header, deflate, trailer]);
    const m = await measured(async () => refusal(() => unpackReport(gzBomb)));
    console.log(`gzip bomb: refused in ${m.ms.toFixed(0)} ms, RSS +${m.rssGrowthMb.toFixed(0)} MB`);
    expect(m.value).toContain("inflates to more than");
    expect(m.rssGrowthMb).toBeLessThan(200);
  });

  test("an XML entity expansion (billion laughs) is refused before parsing", async () => {
    const raw = await reportMail({ to: "dmarc@x", filename: "report.xml.gz", contentType: "application/gzip", content: gz(billionLaughs()) });
    const m = await measured(() => refusalOf(readReportMessage(raw, "dmarc")));
    console.log(`billion laughs: refused in ${m.ms.toFixed(0)} ms, RSS +${m.rssGrowthMb.toFixed(0)} MB: ${m.value}`);
    expect(m.value).toContain("DOCTYPE");
    expect(m.ms).toBeLessThan(1_000);
  });

  test("a zip nested ten levels deep is refused: one level is all a report may be packed in", async () => {
    const xml = dmarcXml({ org: "x", reportId: "1", begin: DAY, end: DAY + 1, domain: "example.com", rows: [] });
    const raw = await reportMail({ to: "dmarc@x", filename: "report.zip", contentType: "application/zip", content: nestedZip(xml, 10) });
    const m = await measured(() => refusalOf(readReportMessage(raw, "dmarc")));
    console.log(`10-level nested zip: refused in ${m.ms.toFixed(0)} ms: ${m.value}`);
    expect(m.value).toContain("nested archives are refused");
  });

  test("XML nested 100,000 deep is refused by the parser's depth limit", () => {
    expect(refusal(() => parseDmarcAggregate(deepXml()))).toContain("nests too deep");
  });

  test("a zip of several files, and corrupt or truncated archives, are refused", () => {
    const two = zipOf("a.xml", "<feedback/>");
    const many = new Uint8Array([...two]);
    expect(refusal(() => unpackReport(gz("x").subarray(0, 12)))).toMatch(/truncated|corrupt/);
    expect(refusal(() => unpackReport(many.subarray(0, 20)))).toMatch(/truncated|corrupt|no file/);
  });
});

describe("read on a thread of its own", () => {
  test("a report is read off the event loop; one that takes longer than the limit is stopped and refused", async () => {
    const rows: DmarcRow[] = Array.from({ length: 5_000 }, (_, i) => ({ ip: `198.51.${(i >> 8) % 256}.${i % 256}`, count: 1, dkim: "pass", spf: "pass" }));
    const xml = dmarcXml({ org: "Yahoo", reportId: "thread-1", begin: DAY, end: DAY + 86399, domain: "example.com", rows });
    const raw = await reportMail({ to: "dmarc@x", filename: "r.xml.gz", contentType: "application/gzip", content: gz(xml) });
    // The event loop's longest pause while a report is read: on this thread (the anchor, one long
    // pause for the parse) and on a thread of its own. Both are measured in this run, so a loaded
    // machine slows both alike.
    const longestPause = async (read: () => Promise<ParsedReport>) => {
      let last = performance.now();
      let longestGap = 0;
      const ticker = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
      }, 5);
      const t0 = performance.now();
      const report = await read();
      const ms = performance.now() - t0;
      clearInterval(ticker);
      longestGap = Math.max(longestGap, performance.now() - last);
      return { report, ms, longestGap };
    };
    const onLoop = await longestPause(() => readReportMessage(raw, "dmarc"));
    const onThread = await longestPause(() => readReportInThread(raw, "dmarc"));
    const read = onThread.report;
    expect(read.kind).toBe("dmarc");
    expect(read.kind === "dmarc" && read.report.records.length).toBe(5_000);
    console.log(
      `5,000-record report: read on the event loop in ${onLoop.ms.toFixed(0)} ms (longest pause ${onLoop.longestGap.toFixed(0)} ms); ` +
        `on a thread in ${onThread.ms.toFixed(0)} ms (longest pause ${onThread.longestGap.toFixed(0)} ms)`,
    );
    expect(onLoop.longestGap).toBeGreaterThan(100);
    expect(onThread.longestGap).toBeLessThan(onLoop.longestGap / 2);

    const t1 = performance.now();
    const reason = await refusalOf(readReportInThread(raw, "dmarc", { timeoutMs: 30 }));
    expect(reason).toBe("reading the report took longer than 30 ms (the limit)");
    expect(performance.now() - t1).toBeLessThan(1_000);
  });
});

test("a thread that fails (its script missing or throwing) does not lose the report: it is read on this thread", async () => {
  const dir = tempDir("report-thread-");
  const broken = join(dir, "broken-thread.ts");
  writeFileSync(broken, 'throw new Error("broken thread");\n');
  const raw = await reportMail({ to: "dmarc@x", filename: "r.xml.gz", contentType: "application/gzip", content: gz(dmarcXml({ org: "x", reportId: "fallback", begin: DAY, end: DAY + 1, domain: "example.com", rows: [] })) });
  for (const workerUrl of [broken, join(dir, "missing-thread.ts")]) {
    const read = await readReportInThread(raw, "dmarc", { workerUrl });
    expect(read.kind === "dmarc" && read.report.reportId).toBe("fallback");
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("advice", () => {
  test("names the fix: our address failing SPF, an unknown source failing DMARC", () => {
    const advice = dmarcAdvice("example.com", "none", [
      { ip: "203.0.113.7", ours: true, messages: 100, dkimAligned: 100, spfAligned: 88, dmarcPass: 100, spfDomain: "ph-bounces.example.com" },
      { ip: "198.51.100.9", ours: false, messages: 40, dkimAligned: 0, spfAligned: 0, dmarcPass: 0, spfDomain: "example.com" },
    ]);
    expect(advice.map((a) => a.message)).toEqual([
      "40 messages from 198.51.100.9, not a Posthorn address, failed DMARC for example.com: if it is a service sending for you, add ip4:198.51.100.9 to the SPF record of example.com or have it sign with DKIM as example.com; if not, it is spoofing, which p=quarantine or p=reject in the DMARC record stops.",
      "12 % of mail from 203.0.113.7 fails SPF: add ip4:203.0.113.7 to the SPF record of ph-bounces.example.com.",
    ]);
  });

  test("all of our mail passing under p=none: advises a stricter policy; IPv6 sources get ip6:", () => {
    const advice = dmarcAdvice("example.com", "none", [{ ip: "2001:db8::7", ours: true, messages: 50, dkimAligned: 50, spfAligned: 50, dmarcPass: 50, spfDomain: null }]);
    expect(advice.map((a) => a.kind)).toEqual(["tighten_policy"]);
    const spf = dmarcAdvice("example.com", "reject", [{ ip: "2001:db8::7", ours: true, messages: 50, dkimAligned: 50, spfAligned: 40, dmarcPass: 50, spfDomain: null }]);
    expect(spf[0]!.message).toBe("20 % of mail from 2001:db8::7 fails SPF: add ip6:2001:db8::7 to the SPF record of example.com.");
  });

  test("TLS advice names the fix per MX host and result type; a policy failure names the MTA-STS host", () => {
    const advice = tlsAdvice("example.com", [
      { mx_host: "", result_types: [{ result_type: "sts-policy-fetch-error", sessions: 4 }] },
      { mx_host: "mx.example.com", result_types: [{ result_type: "certificate-host-mismatch", sessions: 9 }, { result_type: "something-new", sessions: 1 }] },
    ]);
    expect(advice.map((a) => a.message)).toEqual([
      "9 sessions to mx.example.com failed (certificate-host-mismatch): the certificate of mx.example.com does not name it: add mx.example.com to the certificate.",
      "4 sessions to an MX host of example.com failed (sts-policy-fetch-error): the MTA-STS policy of example.com could not be fetched: serve https://mta-sts.example.com/.well-known/mta-sts.txt over valid HTTPS.",
      "1 session to mx.example.com failed (something-new): see the reports' failure details for mx.example.com.",
    ]);
  });
});
