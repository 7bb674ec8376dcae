/**
 * TLS reports (RFC 8460 §4): JSON, checked field by field and bounded (policies, failure
 * details). Dates are RFC 3339 strings.
 */
import { isIP } from "node:net";
import { clip } from "../untrusted/bounds.ts";
import { ReportRefused } from "./unpack.ts";

const MAX_POLICIES = 1_000;
const MAX_FAILURE_DETAILS = 10_000;
const MAX_DEPTH = 12;
const TEXT = 255;

export interface TlsPolicyResult {
  policyType: string;
  policyDomain: string;
  mxHosts: string[];
  successful: number;
  failed: number;
  failures: { resultType: string; mxHost: string; sendingIp: string | null; receivingIp: string | null; count: number }[];
}

export interface TlsReport {
  orgName: string;
  reportId: string;
  contact: string | null;
  begin: number;
  end: number;
  policies: TlsPolicyResult[];
}

type Node = Record<string, unknown>;
const obj = (v: unknown): Node | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Node) : null);
const str = (v: unknown): string | null => (typeof v === "string" ? clip(v.trim(), TEXT) : null);
const count = (v: unknown, what: string): number => {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1) throw new ReportRefused(`${what} is not a count`);
  return v;
};
const ip = (v: unknown): string | null => {
  const s = str(v);
  return s && isIP(s) !== 0 ? s.toLowerCase() : null;
};
const host = (v: unknown): string => (str(v) ?? "").toLowerCase().replace(/\.$/, "");

function depthOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

function time(v: unknown, what: string): number {
  const s = str(v);
  const t = s ? Date.parse(s) : NaN;
  if (!Number.isFinite(t)) throw new ReportRefused(`${what} is not a date-time`);
  return t;
}

export function parseTlsReport(text: string): TlsReport {
  if (depthOf(text) > MAX_DEPTH) throw new ReportRefused(`the JSON nests deeper than ${MAX_DEPTH} levels (the limit)`);
  let doc: Node | null;
  try {
    doc = obj(JSON.parse(text));
  } catch {
    throw new ReportRefused("the TLS report is not JSON");
  }
  if (!doc) throw new ReportRefused("the TLS report is not a JSON object");
  const orgName = str(doc["organization-name"]);
  const reportId = str(doc["report-id"]);
  const range = obj(doc["date-range"]);
  if (!orgName || !reportId || !range) throw new ReportRefused("the TLS report lacks organization-name, report-id or date-range");
  const begin = time(range["start-datetime"], "date-range start-datetime");
  const end = time(range["end-datetime"], "date-range end-datetime");
  if (end < begin) throw new ReportRefused("the TLS report's date-range ends before it begins");
  const raw = Array.isArray(doc.policies) ? doc.policies : [];
  if (raw.length > MAX_POLICIES) throw new ReportRefused(`the TLS report has more than ${MAX_POLICIES} policies (the limit)`);
  let details = 0;
  const policies: TlsPolicyResult[] = raw.map((p, i) => {
    const entry = obj(p);
    const policy = obj(entry?.policy);
    const summary = obj(entry?.summary);
    if (!entry || !policy || !summary) throw new ReportRefused(`policy ${i + 1} lacks policy or summary`);
    const failures = Array.isArray(entry["failure-details"]) ? entry["failure-details"] : [];
    details += failures.length;
    if (details > MAX_FAILURE_DETAILS) throw new ReportRefused(`the TLS report has more than ${MAX_FAILURE_DETAILS} failure details (the limit)`);
    return {
      policyType: (str(policy["policy-type"]) ?? "no-policy-found").toLowerCase(),
      policyDomain: host(policy["policy-domain"]),
      mxHosts: (Array.isArray(policy["mx-host"]) ? policy["mx-host"] : []).slice(0, 50).map(host).filter((h) => h !== ""),
      successful: count(summary["total-successful-session-count"], `policy ${i + 1}'s total-successful-session-count`),
      failed: count(summary["total-failure-session-count"], `policy ${i + 1}'s total-failure-session-count`),
      failures: failures.map((f, j) => {
        const d = obj(f);
        if (!d) throw new ReportRefused(`failure detail ${j + 1} of policy ${i + 1} is not an object`);
        return {
          resultType: (str(d["result-type"]) ?? "unknown").toLowerCase(),
          mxHost: host(d["receiving-mx-hostname"]),
          sendingIp: ip(d["sending-mta-ip"]),
          receivingIp: ip(d["receiving-ip"]),
          count: count(d["failed-session-count"], `failure detail ${j + 1}'s failed-session-count`),
        };
      }),
    };
  });
  return { orgName, reportId, contact: str(doc["contact-info"]), begin, end, policies };
}
