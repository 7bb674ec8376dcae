/**
 * Retention of received reports (docs/deliverability.md, Retention): DMARC aggregate and TLS
 * reports about days more than REPORT_RETENTION_DAYS ago go with their records in the retention
 * pass; younger ones stay whole. The reports arrive over real SMTP at the domain's report addresses.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { purgeDeliverabilityReports, REPORT_RETENTION_DAYS, RETENTION_QUEUE, retentionHandler } from "../../src/modules/retention/service.ts";
import { engine } from "../helpers.ts";
import { sendRaw, startInbound, type InboundHarness } from "../smtp/support.ts";
import { dmarcXml, gz, reportMail, rfc8460Example } from "../support/report-files.ts";

const DAY_S = 86_400;
let h: InboundHarness;

beforeAll(async () => {
  h = await startInbound();
});

afterAll(async () => {
  await h?.stop();
});

const count = async (table: string) => Number((await h.app.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);

test(`reports about days more than ${REPORT_RETENTION_DAYS} days ago are dropped with their records by the retention job's pass, younger ones stay (${engine})`, async () => {
  const res = await h.app.request("POST", "/v1/domains", { body: { domain: "example.com" } });
  expect(res.status).toBe(201);
  const records = res.json.dns_records as { kind: string; content: string }[];
  const dmarcAddress = /rua=mailto:([^;\s]+)/.exec(records.find((r) => r.kind === "dmarc")!.content)![1]!;
  const tlsAddress = /rua=mailto:([^;\s]+)/.exec(records.find((r) => r.kind === "tls_rpt")!.content)![1]!;

  const now = Date.now();
  const today = Math.floor(now / 1000 / DAY_S) * DAY_S;
  // One report of each kind about the day REPORT_RETENTION_DAYS + 2 ago, one about REPORT_RETENTION_DAYS - 2 ago.
  const days = { old: today - (REPORT_RETENTION_DAYS + 2) * DAY_S, kept: today - (REPORT_RETENTION_DAYS - 2) * DAY_S };
  for (const [name, begin] of Object.entries(days)) {
    const xml = dmarcXml({
      org: "google.com",
      reportId: `${name}.google`,
      begin,
      end: begin + DAY_S - 1,
      domain: "example.com",
      rows: [
        { ip: "192.0.2.7", count: 10, dkim: "pass", spf: "pass" },
        { ip: "203.0.113.66", count: 3, dkim: "fail", spf: "fail" },
      ],
    });
    const dmarc = await reportMail({ to: dmarcAddress, filename: `google.com!example.com!${begin}!${begin + DAY_S - 1}.xml.gz`, contentType: "application/gzip", content: gz(xml) });
    expect((await sendRaw(h.port, { from: "noreply-dmarc-support@google.com", to: [dmarcAddress] }, dmarc)).response).toStartWith("250");
    const day = new Date(begin * 1000).toISOString().slice(0, 10);
    const tls = await reportMail({
      to: tlsAddress,
      filename: `company-x.example!example.com!${begin}!${begin + DAY_S - 1}!001.json.gz`,
      contentType: "application/tlsrpt+gzip",
      content: gz(JSON.stringify(rfc8460Example("example.com", day, `${name}-tls`))),
    });
    expect((await sendRaw(h.port, { from: "sts-reporting@company-x.example", to: [tlsAddress] }, tls)).response).toStartWith("250");
  }
  expect([await count("dmarc_reports"), await count("dmarc_report_records"), await count("tlsrpt_reports"), await count("tlsrpt_results")]).toEqual([2, 4, 2, 10]);

  // The retention job's pass (no messages to walk, so the pass ends at once and drops the reports).
  const outcome = await retentionHandler(h.deps)({ id: 1, queue: RETENTION_QUEUE, payload: {}, attempt: 1, maxAttempts: 100, createdAt: now });
  expect(outcome).toMatchObject({ type: "done" });
  expect([await count("dmarc_reports"), await count("dmarc_report_records"), await count("tlsrpt_reports"), await count("tlsrpt_results")]).toEqual([1, 2, 1, 5]);
  const keptDay = new Date(days.kept * 1000).toISOString().slice(0, 10);
  expect(await h.app.sql.all<{ report_id: string; day: string }>("SELECT report_id, day FROM dmarc_reports")).toEqual([{ report_id: "kept.google", day: keptDay }]);
  expect(await h.app.sql.all<{ report_id: string; day: string }>("SELECT report_id, day FROM tlsrpt_reports")).toEqual([{ report_id: "kept-tls", day: keptDay }]);
  expect(await purgeDeliverabilityReports(h.deps, now)).toBe(0);
});
