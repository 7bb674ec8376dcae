/**
 * What the inbound job needs to know about a raw message: its parsed parts (mailparser), its
 * SPF/DKIM/DMARC/ARC symbols (mailauth) and its content symbols. Pure and CPU-heavy, so it runs
 * on an analysis worker (analysis-pool.ts); the result is plain data that crosses threads.
 */
import type { AddressObject, ParsedMail, SimpleParserOptions } from "mailparser";
import { loadMailparser } from "../mail/libraries.ts";
import type { AuthResolver } from "./auth-resolver.ts";
import { authSymbols, contentSymbols, type SpamSymbol } from "./spam.ts";
import { clip, clipOrNull, FIELD_BOUNDS, firstAndLast, storable } from "../untrusted/bounds.ts";

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

/**
 * What the parser is given of a node's header block at most (mailsplit refuses a larger one,
 * failing the whole parse; its default is 1 MB): the view below stays under it.
 */
const MAX_HEAD_BYTES = 1024 * 1024;
const PARSE_OPTIONS = { skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true, maxHeadSize: MAX_HEAD_BYTES } as SimpleParserOptions;

/**
 * Bytes of one header field the parser sees: far more than what is kept of any field
 * (FIELD_BOUNDS, in characters; an encoded word takes up to 4/3 × 3 bytes per character and some
 * 12 bytes per word), far less than what a 25 MB message could put in one.
 */
export const PARSE_FIELD_BYTES = 64 * 1024;
/** Bytes of the whole top-level header block the parser sees. */
export const PARSE_HEAD_BYTES = 512 * 1024;

const isWsp = (b: number | undefined) => b === 0x20 || b === 0x09;

/** Fields the parser reads even past the header block's bounds (the first of each). */
const ESSENTIAL_FIELDS = new Set(["from", "to", "cc", "reply-to", "subject", "date", "message-id", "in-reply-to", "references", "mime-version", "content-type", "content-transfer-encoding"]);

/**
 * The message as the parser should see it: the same bytes, but for a top-level header block
 * with a field longer than PARSE_FIELD_BYTES (cut at its last line break before that), more
 * than FIELD_BOUNDS.headerCount fields or more than PARSE_HEAD_BYTES (the fields past that are
 * left out, but for the first of each ESSENTIAL_FIELDS name). A 20 MB Subject is then a 64 KB one to the parser, which otherwise holds several
 * copies of it (or fails, and the unparsed fallback held the whole header block as text). The
 * message itself (the stored source, the DKIM checks) is not changed. No copy when nothing is cut.
 */
export function boundedParseView(raw: Buffer): Buffer {
  const kept: Buffer[] = [];
  let changed = false;
  let total = 0;
  let fields = 0;
  let fieldStart = 0;
  let pos = 0;
  const seen = new Set<string>();
  let headEnd = raw.length;
  // A field runs from its first line to the next line that does not start with white space.
  const closeField = (end: number) => {
    if (end <= fieldStart) return;
    fields++;
    let field = raw.subarray(fieldStart, end);
    if (field.length > PARSE_FIELD_BYTES) {
      changed = true;
      const lastBreak = field.lastIndexOf(0x0a, PARSE_FIELD_BYTES - 1);
      field = lastBreak > 0 ? field.subarray(0, lastBreak + 1) : Buffer.concat([field.subarray(0, PARSE_FIELD_BYTES), Buffer.from("\r\n")]);
    }
    const name = () => field.subarray(0, Math.max(0, field.indexOf(0x3a))).toString("latin1").trim().toLowerCase();
    if (fields > FIELD_BOUNDS.headerCount || total + field.length > PARSE_HEAD_BYTES) {
      changed = true;
      // Past the bounds, a field that gives the message its structure or its identity is still
      // read, the first of each name (at most a dozen fields of PARSE_FIELD_BYTES).
      const n = name();
      if (!ESSENTIAL_FIELDS.has(n) || seen.has(n)) return;
      seen.add(n);
    } else if (ESSENTIAL_FIELDS.has(name())) seen.add(name());
    total += field.length;
    kept.push(field);
  };
  while (pos < raw.length) {
    const nl = raw.indexOf(0x0a, pos);
    const lineEnd = nl === -1 ? raw.length : nl + 1;
    const empty = raw[pos] === 0x0a || (raw[pos] === 0x0d && raw[pos + 1] === 0x0a);
    if (empty) {
      closeField(pos);
      headEnd = pos;
      break;
    }
    if (pos > 0 && !isWsp(raw[pos])) {
      closeField(pos);
      fieldStart = pos;
    }
    pos = lineEnd;
  }
  if (pos >= raw.length) closeField(raw.length);
  if (!changed) return raw;
  return Buffer.concat([...kept, raw.subarray(headEnd)]);
}

/** An address as kept: its name and address cut to their bounds. */
const boundAddress = (a: Address): Address => ({ email: clip(a.email, FIELD_BOUNDS.address), name: clip(a.name, FIELD_BOUNDS.name) });

function addresses(a: AddressObject | AddressObject[] | undefined): Address[] {
  if (!a) return [];
  const out: Address[] = [];
  const max = FIELD_BOUNDS.addressesPerField;
  const walk = (list: AddressObject["value"]) => {
    for (const v of list) {
      if (out.length >= max) return;
      if (v.group) walk(v.group);
      else if (v.address) out.push(boundAddress({ email: v.address, name: v.name ?? "" }));
    }
  };
  for (const obj of Array.isArray(a) ? a : [a]) walk(obj.value);
  return out;
}

const unbracket = (id: string | undefined | null) => (id ? clipOrNull(id.trim().replace(/^<|>$/g, "") || null, FIELD_BOUNDS.messageId) : null);

/** The byte offset of the blank line that ends the header block, or the message's length. */
function headEndOf(raw: Uint8Array): number {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const crlf = buf.indexOf("\r\n\r\n");
  const lf = buf.indexOf("\n\n");
  if (crlf === -1) return lf === -1 ? buf.length : lf + 1;
  return lf === -1 ? crlf + 2 : Math.min(crlf + 2, lf + 1);
}

/** Header lines of a message mailparser could not read (of its bounded view: see boundedParseView). */
function fallbackHeaderLines(view: Buffer): { key: string; line: string }[] {
  return view
    .subarray(0, headEndOf(view))
    .toString("utf8")
    .split(/\r?\n(?![ \t])/)
    .filter((l) => l.includes(":"))
    .map((line) => ({ key: line.slice(0, line.indexOf(":")).trim().toLowerCase(), line }));
}

/**
 * Header lines as name and unfolded value, each cut to its bound, at most
 * FIELD_BOUNDS.headerCount of them and FIELD_BOUNDS.headersTotal characters in all (the fields
 * past that are left out; the source has them).
 */
function headerList(lines: readonly { line: string }[]): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  let total = 0;
  for (const { line } of lines) {
    if (out.length >= FIELD_BOUNDS.headerCount) break;
    const colon = line.indexOf(":");
    const name = clip(line.slice(0, colon).trim(), FIELD_BOUNDS.headerName);
    const value = clip(line.slice(colon + 1, colon + 1 + FIELD_BOUNDS.headerValue * 2).replace(/\r?\n[ \t]+/g, " ").trim(), FIELD_BOUNDS.headerValue);
    total += name.length + value.length;
    if (total > FIELD_BOUNDS.headersTotal) break;
    out.push({ name, value });
  }
  return out;
}

const headerValueOf = (headers: { name: string; value: string }[], name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;

/**
 * What can be said of a message mailparser could not read (or whose analysis kept failing):
 * its header lines, its subject, and the text after the header block.
 */
export function unparsedAnalysis(rawBytes: Uint8Array, symbols: SpamSymbol[]): InboundAnalysis {
  const raw = Buffer.from(rawBytes.buffer, rawBytes.byteOffset, rawBytes.byteLength);
  const view = boundedParseView(raw);
  const headers = headerList(fallbackHeaderLines(view));
  const bodyStart = headEndOf(raw);
  return {
    parsed: false,
    from: null,
    to: [],
    cc: [],
    replyTo: [],
    subject: clip(headerValueOf(headers, "subject") ?? "", FIELD_BOUNDS.subject),
    date: null,
    messageIdHeader: null,
    inReplyTo: null,
    references: [],
    text: bodyStart < raw.length ? storable(raw.subarray(bodyStart).toString("utf8").trim()) : "",
    html: null,
    headers,
    attachments: [],
    symbols,
  };
}

/** Parses, checks and scores one message. Never throws for a bad message. */
export async function analyzeInbound(rawBytes: Uint8Array, input: AnalysisInput, resolver: AuthResolver): Promise<InboundAnalysis> {
  // The checks read what the parser reads: a header field past its bound is not read by either
  // (a DKIM signature over a cut field then fails, as it would after Postfix's header_size_limit).
  const raw = boundedParseView(Buffer.from(rawBytes.buffer, rawBytes.byteOffset, rawBytes.byteLength));
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
  if (!parsed) return unparsedAnalysis(raw, symbols);
  const refs = parsed.references;
  return {
    parsed: true,
    from: addresses(parsed.from)[0] ?? null,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    replyTo: addresses(parsed.replyTo).map((a) => a.email),
    subject: clip(parsed.subject ?? "", FIELD_BOUNDS.subject),
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null,
    messageIdHeader: unbracket(parsed.messageId),
    inReplyTo: unbracket(parsed.inReplyTo),
    references: firstAndLast(Array.isArray(refs) ? refs : refs ? [refs] : [], FIELD_BOUNDS.references)
      .map((r) => unbracket(r))
      .filter((r): r is string => r !== null),
    text: parsed.text === undefined ? null : storable(parsed.text),
    html: typeof parsed.html === "string" ? storable(parsed.html) : null,
    headers: headerList(parsed.headerLines),
    // Each a row and an entry of the payload; past the bound they are in the source only.
    attachments: parsed.attachments.slice(0, FIELD_BOUNDS.attachments).map((a, i) => ({
      filename: clip(a.filename || `attachment-${i + 1}`, FIELD_BOUNDS.filename),
      contentType: clip((a.contentType || "application/octet-stream").toLowerCase(), FIELD_BOUNDS.contentType),
      contentId: clipOrNull(unbracket(a.contentId) ?? unbracket(a.cid), FIELD_BOUNDS.contentId),
      disposition: a.contentDisposition === "inline" || a.related ? "inline" : "attachment",
      content: new Uint8Array(a.content.buffer, a.content.byteOffset, a.content.byteLength),
    })),
    symbols,
  };
}
