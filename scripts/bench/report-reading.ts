// Reading DMARC and TLS reports (src/reports/) within bounds, and refusing hostile ones, with the
// time and resident memory each costs, beside anchors measured in the same run: JSON.parse of a
// TLS report of the same size as the XML (what parsing costs without XML), and gunzip of a legit
// file of 20 MB (what reaching the output limit costs without a bomb). Prints ratios.
//
//   bun scripts/bench/report-reading.ts [records=5000] [rounds=3]
import { gunzipSync } from "fflate";
import { parseDmarcAggregate } from "../../src/reports/dmarc-aggregate.ts";
import { readReportMessage } from "../../src/reports/report-message.ts";
import { ReportRefused, unpackReport } from "../../src/reports/unpack.ts";
import { billionLaughs, dmarcXml, gz, nestedZip, reportMail, zipBomb } from "../../test/support/report-files.ts";

const RECORDS = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 3);

async function measure(name: string, fn: () => unknown | Promise<unknown>): Promise<{ ms: number; rssMb: number }> {
  const times: number[] = [];
  let growth = 0;
  for (let i = 0; i < ROUNDS; i++) {
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    const t0 = performance.now();
    try {
      await fn();
    } catch (err) {
      if (!(err instanceof ReportRefused)) throw err;
    }
    times.push(performance.now() - t0);
    peak = Math.max(peak, process.memoryUsage().rss);
    clearInterval(sampler);
    growth = Math.max(growth, (peak - before) / 2 ** 20);
  }
  const ms = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  console.log(`${name.padEnd(48)} ${ms.toFixed(1).padStart(9)} ms  RSS +${growth.toFixed(0)} MB`);
  return { ms, rssMb: growth };
}

const day = Math.floor(Date.now() / 86_400_000) * 86_400;
const rows = Array.from({ length: RECORDS }, (_, i) => ({
  ip: i % 2 ? `2001:db8:${(i % 65536).toString(16)}::1` : `198.51.${(i >> 8) % 256}.${i % 256}`,
  count: 1 + (i % 50),
  dkim: (i % 3 ? "pass" : "fail") as "pass" | "fail",
  spf: (i % 5 ? "pass" : "fail") as "pass" | "fail",
}));
const xml = dmarcXml({ org: "google.com", reportId: "bench", begin: day, end: day + 86399, domain: "example.com", rows });
const json = JSON.stringify({ records: rows.map((r) => ({ ...r, pad: "x".repeat(Math.max(0, Math.floor(xml.length / RECORDS) - 80)) })) });
const legit = new Uint8Array(20 * 2 ** 20 - 1024).map((_, i) => (i * 7919) % 251);
const legitGz = gz(legit);

console.log(`DMARC report: ${RECORDS} records, ${(xml.length / 2 ** 20).toFixed(1)} MB XML; anchor JSON ${(json.length / 2 ** 20).toFixed(1)} MB`);
const anchorJson = await measure("anchor: JSON.parse of the same size", () => JSON.parse(json));
const xmlParse = await measure("parseDmarcAggregate (fast-xml-parser)", () => parseDmarcAggregate(xml));
const anchorGunzip = await measure("anchor: gunzipSync of a legit 20 MB file", () => gunzipSync(legitGz));
const bombRaw = await reportMail({ to: "dmarc@x", filename: "r.zip", contentType: "application/zip", content: zipBomb() });
const bomb = await measure("1 GiB zip bomb in a mail: refused at 20 MB", () => readReportMessage(bombRaw, "dmarc"));
const laughsRaw = await reportMail({ to: "dmarc@x", filename: "r.xml.gz", contentType: "application/gzip", content: gz(billionLaughs()) });
await measure("billion laughs in a mail: refused", () => readReportMessage(laughsRaw, "dmarc"));
const nestedRaw = await reportMail({ to: "dmarc@x", filename: "r.zip", contentType: "application/zip", content: nestedZip(xml.slice(0, 2000), 10) });
await measure("10-level nested zip in a mail: refused", () => readReportMessage(nestedRaw, "dmarc"));
const xmlGz = gz(xml);
await measure("unpackReport of the report gzipped", () => unpackReport(xmlGz));

console.log(`\nXML parse / JSON.parse of the same size: ${(xmlParse.ms / anchorJson.ms).toFixed(1)}x`);
console.log(`zip bomb refusal / gunzip of a legit 20 MB file: ${(bomb.ms / anchorGunzip.ms).toFixed(1)}x (RSS +${bomb.rssMb.toFixed(0)} MB vs +${anchorGunzip.rssMb.toFixed(0)} MB)`);
