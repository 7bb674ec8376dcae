/**
 * Bounds on what is kept of text that comes from outside (mail headers, reports, remote replies):
 * each stored or published field is cut to a documented length, the original stays only where it
 * came from (a message's source). docs/security.md lists the fields and their bounds.
 */

/**
 * Lengths, in characters (UTF-16 code units, as JavaScript and the API's JSON count them), of the
 * fields kept from a received message's header and from reports.
 */
export const FIELD_BOUNDS = {
  /** Subject: RFC 5322's line limit (§2.1.1), already more than any client shows. */
  subject: 998,
  /** A display name ("Alice Example" in `Alice Example <alice@…>`). */
  name: 256,
  /** An address: RFC 5321's local part (64) + "@" + a domain (255). */
  address: 320,
  /** Message-ID, In-Reply-To, each of References: RFC 5322's line limit. */
  messageId: 998,
  /** References kept: the first (the thread's root) and the last 99 (the nearest parents). */
  references: 100,
  /** Addresses kept per field (To, Cc, Reply-To). */
  addressesPerField: 100,
  /** A header's name, and each header value carried in message.inbound and stored. */
  headerName: 256,
  headerValue: 8192,
  /** All header names and values of one message together, and how many header fields. */
  headersTotal: 128 * 1024,
  headerCount: 1000,
  /** Attachments: file name (a file system's usual limit), content type (RFC 6838: 127 + "/" + 127), Content-ID. */
  filename: 255,
  contentType: 255,
  contentId: 998,
  /** Attachments kept per message (each is a row, and an entry of the payload and the API). */
  attachments: 1000,
  /** A host name (RFC 1035). */
  host: 255,
  /** A remote server's reply text, a report's diagnostic (an SMTP reply, RFC 5321 §4.5.3.1.5 allows 512 per line). */
  reply: 2000,
  /** Short report fields: action, feedback type, dates, IPs, user agents. */
  short: 256,
  /** A tracking hit's User-Agent as stored and published (real ones stay under ~400; the rules read it whole). */
  userAgent: 512,
  /** A spam symbol: its options (each, and how many) and description. */
  symbolOption: 256,
  symbolOptions: 20,
  symbols: 200,
} as const;

/**
 * Text from outside as a database keeps it: a NUL character (which PostgreSQL's text and jsonb
 * refuse, failing the whole write) becomes U+FFFD, as a decoder does with a byte it cannot read.
 */
export const storable = (text: string): string => (text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text);

/**
 * `text` cut to at most `max` UTF-16 code units, never between the two halves of a surrogate
 * pair (an emoji is kept whole or dropped, never left as a lone surrogate), and storable.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return storable(text);
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return storable(text.slice(0, end));
}

/** clip for a value that may be null or undefined (kept as null). */
export const clipOrNull = (text: string | null | undefined, max: number): string | null => (text == null ? null : clip(text, max));

/** At most `max` items: the first and the last max-1 (a References chain keeps its root and its nearest parents). */
export function firstAndLast<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  if (max <= 1) return items.slice(0, max);
  return [items[0]!, ...items.slice(items.length - (max - 1))];
}
