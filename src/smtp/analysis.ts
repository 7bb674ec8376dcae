/**
 * What the inbound job needs to know about a raw message: its parsed parts (mailparser), its
 * SPF/DKIM/DMARC/ARC symbols (mailauth) and its content symbols. Pure and CPU-heavy, so it runs
 * on an analysis worker (analyzer.ts); the result is plain data that crosses threads.
 */
import type { AddressObject, ParsedMail, SimpleParserOptions } from "mailparser";
import { loadMailparser } from "../mail/libraries.ts";
import type { AuthResolver } from "./auth-resolver.ts";
import { authSymbols, contentSymbols, type SpamSymbol } from "./spam.ts";

export type Address = { email: string; name: string };

export interface AnalysisInput {
  ip: string;
  helo: string;
  mailFrom: string;
  hostname: string;
  envelopeRecipientCount: number;
  /** False when rspamd does the scoring. */
  checkAuth: boolean;
}

export interface AnalyzedAttachment {
  filename: string;
  contentType: string;
  contentId: string | null;
  disposition: "inline" | "attachment";
  content: Uint8Array;
}

export interface InboundAnalysis {
  parsed: boolean;
  from: Address | null;
  to: Address[];
  cc: Address[];
  replyTo: string[];
  subject: string;
  /** ISO 8601, or null when missing or unreadable. */
  date: string | null;
  messageIdHeader: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string | null;
  html: string | null;
  /** Header lines as received (unfolded), in order, duplicates kept. */
  headers: { name: string; value: string }[];
  attachments: AnalyzedAttachment[];
  /** Built-in symbols: authentication (when checked) then content. */
  symbols: SpamSymbol[];
}

const PARSE_OPTIONS: SimpleParserOptions = { skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true };

function addresses(a: AddressObject | AddressObject[] | undefined): Address[] {
  if (!a) return [];
  const out: Address[] = [];
  const walk = (list: AddressObject["value"]) => {
    for (const v of list) {
      if (v.group) walk(v.group);
      else if (v.address) out.push({ email: v.address, name: v.name ?? "" });
    }
  };
  for (const obj of Array.isArray(a) ? a : [a]) walk(obj.value);
  return out;
}

const unbracket = (id: string | undefined | null) => (id ? id.trim().replace(/^<|>$/g, "") || null : null);

function headBlock(raw: Uint8Array): string {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
  const end = text.search(/\r?\n\r?\n/);
  return end >= 0 ? text.slice(0, end) : text;
}

/** Header lines of a message mailparser could not read. */
function fallbackHeaderLines(raw: Uint8Array): { key: string; line: string }[] {
  return headBlock(raw)
    .split(/\r?\n(?![ \t])/)
    .filter((l) => l.includes(":"))
    .map((line) => ({ key: line.slice(0, line.indexOf(":")).trim().toLowerCase(), line }));
}

const headerList = (lines: readonly { line: string }[]) =>
  lines.map(({ line }) => {
    const colon = line.indexOf(":");
    return { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).replace(/\r?\n[ \t]+/g, " ").trim() };
  });

/**
 * What can be said of a message mailparser could not read (or whose analysis kept failing):
 * its header lines, its subject, and the text after the header block.
 */
export function unparsedAnalysis(rawBytes: Uint8Array, symbols: SpamSymbol[]): InboundAnalysis {
  const text = Buffer.from(rawBytes.buffer, rawBytes.byteOffset, rawBytes.byteLength).toString("utf8");
  const end = text.search(/\r?\n\r?\n/);
  const headers = headerList(fallbackHeaderLines(rawBytes));
  return {
    parsed: false,
    from: null,
    to: [],
    cc: [],
    replyTo: [],
    subject: headers.find((h) => h.name.toLowerCase() === "subject")?.value ?? "",
    date: null,
    messageIdHeader: null,
    inReplyTo: null,
    references: [],
    text: end >= 0 ? text.slice(end).trim() : "",
    html: null,
    headers,
    attachments: [],
    symbols,
  };
}

/** Parses, checks and scores one message. Never throws for a bad message. */
export async function analyzeInbound(rawBytes: Uint8Array, input: AnalysisInput, resolver: AuthResolver): Promise<InboundAnalysis> {
  const raw = Buffer.from(rawBytes.buffer, rawBytes.byteOffset, rawBytes.byteLength);
  let parsed: ParsedMail | null = null;
  try {
    parsed = await (await loadMailparser()).simpleParser(raw, PARSE_OPTIONS);
  } catch {
    parsed = null;
  }
  let auth: SpamSymbol[] = [];
  if (input.checkAuth) {
    try {
      auth = await authSymbols(raw, { ip: input.ip, helo: input.helo, mailFrom: input.mailFrom, hostname: input.hostname, resolver });
    } catch (err) {
      auth = [{ name: "AUTH_CHECK_ERROR", score: 0, options: [String((err as Error).message ?? err).slice(0, 200)], description: "SPF/DKIM/DMARC checks could not run" }];
    }
  }
  const symbols = [...auth, ...contentSymbols({ parsed, raw, envelopeRecipientCount: input.envelopeRecipientCount })];
  if (!parsed) return unparsedAnalysis(rawBytes, symbols);
  const refs = parsed.references;
  return {
    parsed: true,
    from: addresses(parsed.from)[0] ?? null,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    replyTo: addresses(parsed.replyTo).map((a) => a.email),
    subject: parsed.subject ?? "",
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null,
    messageIdHeader: unbracket(parsed.messageId),
    inReplyTo: unbracket(parsed.inReplyTo),
    references: (Array.isArray(refs) ? refs : refs ? [refs] : []).map((r) => unbracket(r)).filter((r): r is string => r !== null),
    text: parsed.text ?? null,
    html: typeof parsed.html === "string" ? parsed.html : null,
    headers: headerList(parsed.headerLines),
    attachments: parsed.attachments.map((a, i) => ({
      filename: a.filename || `attachment-${i + 1}`,
      contentType: (a.contentType || "application/octet-stream").toLowerCase(),
      contentId: unbracket(a.contentId) ?? unbracket(a.cid),
      disposition: a.contentDisposition === "inline" || a.related ? "inline" : "attachment",
      content: new Uint8Array(a.content.buffer, a.content.byteOffset, a.content.byteLength),
    })),
    symbols,
  };
}
