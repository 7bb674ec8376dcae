/**
 * Reports received on the MX at a domain's report address (src/smtp/rcpt-resolver.ts): read
 * before the 250 on a thread of their own (report-reader.ts; bounded: unpack.ts,
 * dmarc-aggregate.ts, tls-report.ts, and in time by the thread's limit), then stored in the
 * commit that accepts the message, per domain and day, once per (domain, organization, report id).
 * A report that cannot be read is not stored; the reason is logged. The message is still accepted
 * (250): a reporter retrying a report we cannot read would only send it again.
 */
import type { Repositories } from "../db/store.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import type { ReportKind } from "./report-addresses.ts";
import type { ParsedReport } from "./report-message.ts";
import { readReportInThread, type ReadOptions } from "./report-reader.ts";
import { ReportRefused } from "./unpack.ts";

/** Who a report is for: the domain its address names, never what the report says. */
export interface ReportRecipient {
  report: ReportKind;
  domainId: string;
  teamId: string;
  address: string;
}

export interface ReadReport {
  to: ReportRecipient;
  parsed: ParsedReport;
}

/** The UTC day (YYYY-MM-DD) a report counts for: the date of the middle of its period. */
export const reportDay = (begin: number, end: number): string => new Date(begin + Math.floor((end - begin) / 2)).toISOString().slice(0, 10);

const within = (name: string, domain: string) => name === domain || name.endsWith(`.${domain}`);

/**
 * The reports in a message, one per report address it was sent to (read once per kind), each
 * checked to be about the domain its address belongs to. Refusals are logged and skipped.
 */
export async function readReports(
  targets: readonly ReportRecipient[],
  raw: Buffer,
  domainName: (domainId: string) => Promise<string | null>,
  log: Logger,
  opts?: ReadOptions,
): Promise<ReadReport[]> {
  const byKind = new Map<ReportKind, Promise<ParsedReport>>();
  const out: ReadReport[] = [];
  for (const to of targets) {
    if (out.some((r) => r.to.domainId === to.domainId && r.to.report === to.report)) continue;
    const started = Date.now();
    try {
      let parsing = byKind.get(to.report);
      if (!parsing) byKind.set(to.report, (parsing = readReportInThread(raw, to.report, opts)));
      const parsed = await parsing;
      const domain = await domainName(to.domainId);
      if (!domain) continue;
      const about = parsed.kind === "dmarc" ? [parsed.report.policy.domain] : parsed.report.policies.map((p) => p.policyDomain);
      const foreign = about.find((d) => !within(d, domain));
      if (foreign !== undefined) throw new ReportRefused(`the report is about ${foreign || "no domain"}, not ${domain}, whose report address it was sent to`);
      out.push({ to, parsed });
    } catch (err) {
      // Not stored either way; a failure that is not a refusal (a bug, a thread that died) is an error in the log.
      if (err instanceof ReportRefused) log.warn("report refused", { kind: to.report, domain_id: to.domainId, reason: err.reason, bytes: raw.length, ms: Date.now() - started });
      else log.error("report could not be read", { kind: to.report, domain_id: to.domainId, error: err instanceof Error ? err.message : String(err), bytes: raw.length });
    }
  }
  return out;
}

/** Stores a read report; false when it was stored already (the same organization and report id). */
export async function storeReport(tx: Pick<Repositories, "deliverabilityReports">, r: ReadReport, now: number): Promise<boolean> {
  const base = { id: newId(), team_id: r.to.teamId, domain_id: r.to.domainId, received_at: now };
  if (r.parsed.kind === "dmarc") {
    const rep = r.parsed.report;
    return tx.deliverabilityReports.insertDmarc(
      {
        ...base,
        org_name: rep.orgName,
        report_id: rep.reportId,
        reporter_email: rep.email,
        begin_at: rep.begin,
        end_at: rep.end,
        day: reportDay(rep.begin, rep.end),
        policy: JSON.stringify(rep.policy),
        messages: rep.records.reduce((n, x) => n + x.count, 0),
      },
      rep.records.map((x) => ({
        id: newId(),
        source_ip: x.sourceIp,
        count: x.count,
        disposition: x.disposition,
        dkim: x.dkim,
        spf: x.spf,
        header_from: x.headerFrom,
        envelope_from: x.envelopeFrom,
        dkim_results: JSON.stringify(x.dkimResults),
        spf_results: JSON.stringify(x.spfResults),
      })),
    );
  }
  const rep = r.parsed.report;
  const results = rep.policies.flatMap((p) => [
    // The summary: result types "success" and "failure" (every failed session, with or without details).
    { id: newId(), policy_type: p.policyType, policy_domain: p.policyDomain, mx_host: "", result_type: "success", sending_ip: null, receiving_ip: null, count: p.successful },
    { id: newId(), policy_type: p.policyType, policy_domain: p.policyDomain, mx_host: "", result_type: "failure", sending_ip: null, receiving_ip: null, count: p.failed },
    ...p.failures.map((f) => ({
      id: newId(),
      policy_type: p.policyType,
      policy_domain: p.policyDomain,
      mx_host: f.mxHost,
      result_type: f.resultType,
      sending_ip: f.sendingIp,
      receiving_ip: f.receivingIp,
      count: f.count,
    })),
  ]);
  return tx.deliverabilityReports.insertTls(
    { ...base, org_name: rep.orgName, report_id: rep.reportId, contact: rep.contact, begin_at: rep.begin, end_at: rep.end, day: reportDay(rep.begin, rep.end) },
    results,
  );
}
