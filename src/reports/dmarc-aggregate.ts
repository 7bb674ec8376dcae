/**
 * DMARC aggregate reports (RFC 7489 Appendix C; DMARCbis' namespace is read the same) parsed from
 * XML with fast-xml-parser, within bounds: no DOCTYPE (so no entities to expand: a "billion
 * laughs" is refused before parsing), entity processing off, at most MAX_DEPTH nested elements,
 * at most MAX_RECORDS records. Every value is checked and clipped: the report comes from anyone
 * who knows the address.
 */
import { isIP } from "node:net";
import { XMLParser } from "fast-xml-parser";
import { clip } from "../untrusted/bounds.ts";
import { ReportRefused } from "./unpack.ts";

export const MAX_RECORDS = 50_000;
const MAX_DEPTH = 12;
const TEXT = 255;

export interface DmarcAuthDkim {
  domain: string;
  selector: string | null;
  result: string;
}
export interface DmarcAuthSpf {
  domain: string;
  scope: string | null;
  result: string;
}

export interface DmarcRecord {
  sourceIp: string;
  count: number;
  disposition: string;
  /** policy_evaluated: the DMARC-aligned verdicts. */
  dkim: string;
  spf: string;
  headerFrom: string;
  envelopeFrom: string | null;
  dkimResults: DmarcAuthDkim[];
  spfResults: DmarcAuthSpf[];
}

export interface DmarcAggregateReport {
  orgName: string;
  email: string | null;
  reportId: string;
  begin: number;
  end: number;
  policy: { domain: string; p: string; sp: string | null; adkim: string; aspf: string; pct: number };
  records: DmarcRecord[];
}

const ARRAYS = new Set(["record", "dkim", "spf", "error", "reason"]);

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  trimValues: true,
  maxNestedTags: MAX_DEPTH,
  isArray: (name, path) => ARRAYS.has(name) && (name === "record" || String(path).includes("auth_results") || name === "error" || name === "reason"),
});

/** The five predefined XML entities and character references (entity processing is off). */
const decode = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-f]{1,6}|#[0-9]{1,7});/gi, (m, e: string) => {
    const l = e.toLowerCase();
    if (l === "lt") return "<";
    if (l === "gt") return ">";
    if (l === "amp") return "&";
    if (l === "quot") return '"';
    if (l === "apos") return "'";
    const code = l.startsWith("#x") ? parseInt(l.slice(2), 16) : parseInt(l.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });

type Node = Record<string, unknown>;
const obj = (v: unknown): Node | null => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Node) : null);
const str = (v: unknown): string | null => (typeof v === "string" ? clip(decode(v).trim(), TEXT) : typeof v === "number" ? String(v) : null);
const lower = (v: unknown, fallback: string): string => (str(v) ?? fallback).toLowerCase();
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null || v === "" ? [] : [v]);

function int(v: unknown, what: string, max = Number.MAX_SAFE_INTEGER): number {
  const s = str(v);
  if (s === null || !/^\d{1,16}$/.test(s)) throw new ReportRefused(`${what} is not a whole number`);
  const n = Number(s);
  if (n > max) throw new ReportRefused(`${what} is too large`);
  return n;
}

/** Refuses what a report never needs and a parser should never see: DOCTYPE and ENTITY declarations. */
export function refuseDeclarations(text: string): void {
  if (/<!DOCTYPE/i.test(text)) throw new ReportRefused("the XML declares a DOCTYPE (entity expansion is refused)");
  if (/<!ENTITY/i.test(text)) throw new ReportRefused("the XML declares an ENTITY (entity expansion is refused)");
}

/** Parses one aggregate report; throws ReportRefused saying why when it is not one or breaks a bound. */
export function parseDmarcAggregate(xml: string): DmarcAggregateReport {
  refuseDeclarations(xml);
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new ReportRefused(`the XML is not well-formed or nests too deep (${clip((err as Error).message, 200)})`);
  }
  const feedback = obj(doc.feedback);
  if (!feedback) throw new ReportRefused("the XML is not a DMARC aggregate report (no <feedback> element)");
  const meta = obj(feedback.report_metadata);
  const published = obj(feedback.policy_published);
  if (!meta || !published) throw new ReportRefused("the report has no report_metadata or policy_published");
  const orgName = str(meta.org_name);
  const reportId = str(meta.report_id);
  const range = obj(meta.date_range);
  if (!orgName || !reportId || !range) throw new ReportRefused("the report's metadata lacks org_name, report_id or date_range");
  const begin = int(range.begin, "date_range begin") * 1000;
  const end = int(range.end, "date_range end") * 1000;
  if (end < begin) throw new ReportRefused("the report's date_range ends before it begins");
  const domain = lower(published.domain, "");
  if (!domain) throw new ReportRefused("the report's policy_published has no domain");
  const pctText = str(published.pct);
  const policy = {
    domain,
    p: lower(published.p, "none"),
    sp: str(published.sp)?.toLowerCase() ?? null,
    adkim: lower(published.adkim, "r"),
    aspf: lower(published.aspf, "r"),
    pct: pctText && /^\d{1,3}$/.test(pctText) ? Math.min(100, Number(pctText)) : 100,
  };
  const rawRecords = list(feedback.record);
  if (rawRecords.length > MAX_RECORDS) throw new ReportRefused(`the report has ${rawRecords.length} records, more than ${MAX_RECORDS} (the limit)`);
  const records: DmarcRecord[] = [];
  for (const [i, r] of rawRecords.entries()) {
    const rec = obj(r);
    const row = obj(rec?.row);
    const evaluated = obj(row?.policy_evaluated);
    const ids = obj(rec?.identifiers);
    if (!rec || !row || !evaluated || !ids) throw new ReportRefused(`record ${i + 1} lacks row, policy_evaluated or identifiers`);
    const sourceIp = str(row.source_ip) ?? "";
    if (isIP(sourceIp) === 0) throw new ReportRefused(`record ${i + 1}'s source_ip is not an IP address`);
    const auth = obj(rec.auth_results) ?? {};
    records.push({
      sourceIp: sourceIp.toLowerCase(),
      count: int(row.count, `record ${i + 1}'s count`, 2 ** 31 - 1),
      disposition: lower(evaluated.disposition, "none"),
      dkim: lower(evaluated.dkim, "fail"),
      spf: lower(evaluated.spf, "fail"),
      headerFrom: lower(ids.header_from, domain),
      envelopeFrom: str(ids.envelope_from)?.toLowerCase() || null,
      dkimResults: list(auth.dkim)
        .slice(0, 20)
        .map(obj)
        .filter((d): d is Node => d !== null)
        .map((d) => ({ domain: lower(d.domain, ""), selector: str(d.selector), result: lower(d.result, "none") })),
      spfResults: list(auth.spf)
        .slice(0, 20)
        .map(obj)
        .filter((d): d is Node => d !== null)
        .map((d) => ({ domain: lower(d.domain, ""), scope: str(d.scope), result: lower(d.result, "none") })),
    });
  }
  return { orgName, email: str(meta.email), reportId, begin, end, policy, records };
}
