/**
 * A report as it arrives by mail: the MIME message is parsed (mailparser), its report attachment
 * found by media type or file name, unpacked within bounds (unpack.ts) and parsed as the address
 * it came to says: a DMARC aggregate report (XML) or a TLS report (JSON).
 */
import type { SimpleParserOptions } from "mailparser";
import { loadMailparser } from "../mail/libraries.ts";
import { parseDmarcAggregate, type DmarcAggregateReport } from "./dmarc-aggregate.ts";
import type { ReportKind } from "./report-addresses.ts";
import { parseTlsReport, type TlsReport } from "./tls-report.ts";
import { DEFAULT_UNPACK_LIMITS, ReportRefused, unpackReport, type UnpackLimits } from "./unpack.ts";

export type ParsedReport = { kind: "dmarc"; report: DmarcAggregateReport } | { kind: "tlsrpt"; report: TlsReport };

const DMARC_TYPES = /^(application\/(gzip|x-gzip|zip|x-zip-compressed|xml|octet-stream)|text\/xml)$/i;
const DMARC_NAMES = /\.(xml|xml\.gz|gz|zip)$/i;
const TLS_TYPES = /^(application\/(tlsrpt\+gzip|tlsrpt\+json|gzip|x-gzip|json|octet-stream))$/i;
const TLS_NAMES = /\.(json|json\.gz|gz)$/i;

interface Part {
  contentType: string;
  filename?: string;
  content: Buffer;
}

/** The attachment that holds the report, or null. */
function reportPart(kind: ReportKind, parts: Part[]): Part | null {
  const [types, names] = kind === "dmarc" ? [DMARC_TYPES, DMARC_NAMES] : [TLS_TYPES, TLS_NAMES];
  return parts.find((p) => types.test(p.contentType) && (p.contentType.toLowerCase() !== "application/octet-stream" || names.test(p.filename ?? ""))) ?? parts.find((p) => names.test(p.filename ?? "")) ?? null;
}

/** The report in a received message; throws ReportRefused saying why it cannot be read. */
export async function readReportMessage(raw: Buffer, kind: ReportKind, limits: UnpackLimits = DEFAULT_UNPACK_LIMITS): Promise<ParsedReport> {
  const started = Date.now();
  let parsed;
  try {
    parsed = await (await loadMailparser()).simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true } as SimpleParserOptions);
  } catch (err) {
    throw new ReportRefused(`the message cannot be parsed (${(err as Error).message})`);
  }
  const parts: Part[] = parsed.attachments.map((a) => ({ contentType: a.contentType, filename: a.filename, content: a.content }));
  // A report sent as the body itself (a few small reporters do).
  if (parts.length === 0 && typeof parsed.text === "string" && parsed.text.trim().startsWith(kind === "dmarc" ? "<" : "{")) {
    parts.push({ contentType: kind === "dmarc" ? "text/xml" : "application/json", content: Buffer.from(parsed.text.trim()) });
  }
  const part = reportPart(kind, parts);
  if (!part) throw new ReportRefused(`the message has no ${kind === "dmarc" ? "DMARC aggregate report (XML, gzip or zip)" : "TLS report (JSON or gzip)"} attached`);
  const bytes = unpackReport(part.content, { ...limits, maxMs: Math.max(1, limits.maxMs - (Date.now() - started)) });
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return kind === "dmarc" ? { kind, report: parseDmarcAggregate(text) } : { kind, report: parseTlsReport(text) };
}
