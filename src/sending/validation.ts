/**
 * Checking emails for sending, without the database: the request's shape, addresses, limits,
 * headers, metadata and attachments. What needs the database (the route, the From domain) is
 * checked by acceptMessages (acceptance.ts) through ProjectLookup.
 */
import { extname } from "node:path";
import { detectMimeType } from "nodemailer/lib/mime-funcs";
import type { Address } from "../db/schema.ts";
import { ValidationError, fieldErrors } from "../errors.ts";
import { parseAddress, type ParsedAddress } from "../mail/address.ts";
import { emptyDict } from "../untrusted/dict.ts";
import { LIMITS } from "./limits.ts";
import { checkScheduledAt } from "./schedule-time.ts";

/** One email as the send endpoints take it (the spec's single-send body). */
export interface SendInput {
  from: string;
  subject: string;
  to: string[];
  route?: string | null;
  tag?: string | null;
  html?: string | null;
  text?: string | null;
  cc?: string[] | null;
  bcc?: string[] | null;
  reply_to?: string[] | null;
  headers?: Record<string, string> | null;
  metadata?: Record<string, string> | null;
  attachments?: { filename: string; content: string; content_id?: string | null; content_type?: string | null }[] | null;
  /** Override the route's open / click tracking for this email (docs/tracking.md, Turning it on). */
  track_opens?: boolean | null;
  track_clicks?: boolean | null;
  /** Name-value tags beside `tag` (docs/sending.md, Tags). */
  tags?: { name: string; value: string }[] | null;
  /** Lettermint's per-email settings; settings.tls is the delivery's TLS policy (docs/sending.md, Per-email settings). */
  settings?: { track_opens?: boolean; track_clicks?: boolean; tls?: string } | null;
  /** Send at this time (ISO 8601 with an offset) rather than now: schedule-time.ts. */
  scheduled_at?: string | null;
}

/**
 * Headers a caller may not set: the ones the service writes itself (addresses, subject, date,
 * ids, signature, envelope) and the MIME structure headers the composer owns.
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "dkim-signature",
  "return-path",
  "received",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
]);
/** Headers broadcast routes set themselves (RFC 8058 one-click unsubscribe). */
export const LIST_UNSUBSCRIBE_HEADERS: ReadonlySet<string> = new Set(["list-unsubscribe", "list-unsubscribe-post"]);

const HEADER_NAME = /^[!-9;-~]+$/;
const CONTENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/**
 * What may not reach a header: every C0 control but TAB (CR, LF and NUL among them), DEL, and the
 * C1 controls. A header value or display name holding one is refused (422 naming the field),
 * never written raw or encoded into the header.
 */
export const HEADER_CONTROL = /[\0-\x08\x0a-\x1f\x7f-\x9f]/;

/** A validated email, ready to store. */
export interface PreparedEmail {
  index: number;
  from: ParsedAddress;
  subject: string;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: string[];
  route: string | null;
  tag: string | null;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  attachments: { filename: string; contentType: string; contentId: string | null; content: Buffer }[];
  /** Distinct recipients, first mention wins: to, then cc, then bcc. */
  recipients: { email: string; kind: "to" | "cc" | "bcc" }[];
  /** The send's tracking override; null: the route's setting. */
  trackOpens: boolean | null;
  trackClicks: boolean | null;
  /** Name-value tags, in the order given; names unique. */
  tags: MessageTag[];
  /** settings.tls; null: the route's policy. */
  tls: TlsPolicy | null;
  /** When to send (epoch ms, scheduled_at); null: now. */
  scheduledAt: number | null;
}

export type MessageTag = { name: string; value: string };
/** How a message is delivered: STARTTLS when offered (opportunistic), or only over TLS with a verified certificate (enforced). */
export type TlsPolicy = "opportunistic" | "enforced";
export const TLS_POLICIES: readonly TlsPolicy[] = ["opportunistic", "enforced"];

/** Messages by field path ("from", "3.subject"), as a ValidationError carries them. */
export type Errors = Record<string, string[]>;
export const addError = (errors: Errors, path: string, message: string) => void (errors[path] ??= []).push(message);

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");

/** Why an address was refused: control characters (they would reach the header), or its syntax. */
const addressError = (raw: unknown): string =>
  typeof raw === "string" && HEADER_CONTROL.test(raw)
    ? "The address may not contain line breaks or other control characters."
    : `${JSON.stringify(String(raw).slice(0, 100))} is not a valid email address.`;

function addressList(errors: Errors, path: string, value: unknown, opts: { required?: boolean; max: number }): ParsedAddress[] {
  if (value === undefined || value === null) {
    if (opts.required) addError(errors, path, `The ${path.split(".").pop()} field is required.`);
    return [];
  }
  if (!isStringArray(value)) {
    addError(errors, path, `The ${path.split(".").pop()} field must be an array of email addresses.`);
    return [];
  }
  if (opts.required && value.length === 0) addError(errors, path, `The ${path.split(".").pop()} field must contain at least one address.`);
  if (value.length > opts.max) {
    addError(errors, path, `The ${path.split(".").pop()} field may contain at most ${opts.max} addresses.`);
    return [];
  }
  const out: ParsedAddress[] = [];
  value.forEach((raw, i) => {
    const a = parseAddress(raw);
    if (a) out.push(a);
    else addError(errors, `${path}.${i}`, addressError(raw));
  });
  return out;
}

/**
 * Where one email's checks write: `errors`, under the email's prefix `p` ("" or "3."). Each check
 * below looks at one field, adds what is wrong with it and returns what it kept; the order of the
 * checks is the order of the error keys in the answer.
 */
interface Checks {
  errors: Errors;
  p: string;
}

/** Everything that can be checked without the database. Errors are keyed under `p` ("" or "3."). */
function prepareEmail(input: SendInput, index: number, p: string, maxBytes: number, errors: Errors): PreparedEmail | null {
  const before = Object.keys(errors).length;
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    addError(errors, p ? p.slice(0, -1) : "body", "Each email must be an object.");
    return null;
  }
  const c: Checks = { errors, p };
  const from = checkFrom(c, input.from);
  const subject = checkSubject(c, input.subject);
  const to = addressList(errors, `${p}to`, input.to, { required: true, max: LIMITS.recipients });
  const cc = addressList(errors, `${p}cc`, input.cc, { max: LIMITS.recipients });
  const bcc = addressList(errors, `${p}bcc`, input.bcc, { max: LIMITS.recipients });
  const replyTo = addressList(errors, `${p}reply_to`, input.reply_to, { max: LIMITS.replyTo });
  const tag = checkTag(c, input.tag);
  const route = checkRoute(c, input.route);
  const { html, text } = checkBody(c, input);
  const headers = checkHeaders(c, input.headers);
  const metadata = checkMetadata(c, input.metadata);
  const attachments = checkAttachments(c, input.attachments);
  checkSize(c, maxBytes, html, text, attachments);
  const recipients = distinctRecipients(to, cc, bcc);
  if (recipients.length > LIMITS.recipients) addError(errors, `${p}to`, `An email may have at most ${LIMITS.recipients} distinct recipients (to, cc and bcc together).`);
  const trackOpens = checkTracking(c, "track_opens", input.track_opens);
  const trackClicks = checkTracking(c, "track_clicks", input.track_clicks);
  const tags = checkTags(c, input.tags, tag !== null);
  const tls = checkTlsSetting(c, input.settings);
  const scheduledAt = checkSchedule(c, input.scheduled_at);

  if (Object.keys(errors).length !== before || !from) return null;
  const addr = (a: ParsedAddress): Address => ({ email: a.email, name: a.name });
  return {
    index,
    from,
    subject,
    to: to.map(addr),
    cc: cc.map(addr),
    bcc: bcc.map(addr),
    replyTo: replyTo.map((a) => (a.name ? `${JSON.stringify(a.name)} <${a.email}>` : a.email)),
    route,
    tag,
    html,
    text,
    headers,
    metadata,
    attachments,
    recipients,
    trackOpens,
    trackClicks,
    tags,
    tls,
    scheduledAt,
  };
}

/** scheduled_at: the instant to send at (epoch ms), or null to send now (schedule-time.ts). */
function checkSchedule({ errors, p }: Checks, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const checked = checkScheduledAt(value, Date.now());
  if ("error" in checked) addError(errors, `${p}scheduled_at`, checked.error);
  return "at" in checked ? checked.at : null;
}

function checkFrom({ errors, p }: Checks, value: unknown): ParsedAddress | null {
  const from = parseAddress(value);
  if (!from) {
    addError(errors, `${p}from`, typeof value === "string" && HEADER_CONTROL.test(value)
      ? "The from field may not contain line breaks or other control characters."
      : 'The from field must be an email address, optionally with a name: "Name <user@example.com>".');
  }
  return from;
}

function checkSubject({ errors, p }: Checks, value: unknown): string {
  if (typeof value !== "string") addError(errors, `${p}subject`, "The subject field is required.");
  else if (value.length > LIMITS.subject) addError(errors, `${p}subject`, `The subject may not be longer than ${LIMITS.subject} characters.`);
  else if (HEADER_CONTROL.test(value)) addError(errors, `${p}subject`, "The subject may not contain line breaks or other control characters.");
  else return value;
  return "";
}

function checkTag({ errors, p }: Checks, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length > LIMITS.tag || !/^[A-Za-z0-9_ -]*$/.test(value)) {
    addError(errors, `${p}tag`, `The tag may contain letters, digits, underscores, hyphens and spaces, at most ${LIMITS.tag} characters.`);
    return null;
  }
  return value || null;
}

export const TAG_NAME = /^[A-Za-z0-9_-]{1,32}$/;
export const TAG_VALUE = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * tags: at most LIMITS.tags {name, value} pairs, one fewer beside a `tag` (the service counts it
 * among them); names 1 to 32 and values 1 to 64 ASCII letters, digits, underscores or hyphens;
 * names unique (case-sensitive) and not starting with the service's reserved "__lettermint".
 */
function checkTags({ errors, p }: Checks, value: unknown, withTag: boolean): MessageTag[] {
  const tags: MessageTag[] = [];
  if (value === undefined || value === null) return tags;
  const max = withTag ? LIMITS.tags - 1 : LIMITS.tags;
  if (!Array.isArray(value)) addError(errors, `${p}tags`, "The tags field must be an array of {name, value} objects.");
  else if (value.length > max) {
    addError(errors, `${p}tags`, `An email may have at most ${LIMITS.tags} tags, ${LIMITS.tags - 1} beside a tag; ${value.length} were given${withTag ? " with a tag" : ""}.`);
  } else {
    const names = new Set<string>();
    value.forEach((t: unknown, i) => {
      const at = `${p}tags.${i}`;
      const { name, value: v } = (typeof t === "object" && t !== null ? t : {}) as { name?: unknown; value?: unknown };
      const ok = Object.keys(errors).length;
      if (typeof name !== "string" || !TAG_NAME.test(name)) addError(errors, `${at}.name`, "A tag name must be 1 to 32 ASCII letters, digits, underscores or hyphens.");
      else if (name.toLowerCase().startsWith("__lettermint")) addError(errors, `${at}.name`, "Tag names starting with __lettermint are reserved.");
      else if (names.has(name)) addError(errors, `${at}.name`, `The tag name ${name} is given twice; names must be unique.`);
      if (typeof v !== "string" || !TAG_VALUE.test(v)) addError(errors, `${at}.value`, "A tag value must be 1 to 64 ASCII letters, digits, underscores or hyphens.");
      if (Object.keys(errors).length === ok) {
        names.add(name as string);
        tags.push({ name: name as string, value: v as string });
      }
    });
  }
  return tags;
}

/** settings.tls: opportunistic, enforced, or absent (null: the route's policy). */
function checkTlsSetting({ errors, p }: Checks, settings: SendInput["settings"]): TlsPolicy | null {
  const tls: unknown = settings?.tls;
  if (tls === undefined || tls === null) return null;
  if (typeof tls !== "string" || !(TLS_POLICIES as readonly string[]).includes(tls)) {
    addError(errors, `${p}settings.tls`, "The settings.tls field must be opportunistic or enforced.");
    return null;
  }
  return tls as TlsPolicy;
}

function checkRoute({ errors, p }: Checks, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !value || value.length > 255) {
    addError(errors, `${p}route`, "The route field must be a route slug or id.");
    return null;
  }
  return value;
}

/** html and text: each optional and at least LIMITS.bodyMin long, one of them required. */
function checkBody(c: Checks, input: SendInput): { html: string | null; text: string | null } {
  const body = (field: "html" | "text"): string | null => {
    const v: unknown = input[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== "string" || v.length < LIMITS.bodyMin) {
      addError(c.errors, `${c.p}${field}`, `The ${field} field must be at least ${LIMITS.bodyMin} characters.`);
      return null;
    }
    return v;
  };
  const html = body("html");
  const text = body("text");
  if ((input.html === undefined || input.html === null) && (input.text === undefined || input.text === null)) {
    addError(c.errors, `${c.p}html`, "Either html or text is required.");
  }
  return { html, text };
}

function checkHeaders({ errors, p }: Checks, value: unknown): Record<string, string> {
  const headers = emptyDict<string>();
  if (value === undefined || value === null) return headers;
  if (!isStringRecord(value)) {
    addError(errors, `${p}headers`, "The headers field must be an object of string values.");
    return headers;
  }
  const entries = Object.entries(value);
  // Past the limit nothing else is looked at: the answer is the same, and it stays O(limit).
  if (entries.length > LIMITS.headers) addError(errors, `${p}headers`, `At most ${LIMITS.headers} custom headers are allowed.`);
  const seen = new Set<string>();
  for (const [name, v] of entries.length > LIMITS.headers ? [] : entries) {
    const path = `${p}headers.${name}`;
    if (!HEADER_NAME.test(name) || name.length > LIMITS.headerName) {
      addError(errors, path, `${JSON.stringify(name.slice(0, 100))} is not a valid header name (printable ASCII without spaces or colons).`);
    } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
      addError(errors, path, `The ${name} header is set by the service and cannot be overridden.`);
    } else if (HEADER_CONTROL.test(v)) {
      addError(errors, path, `The ${name} header value may not contain line breaks or other control characters.`);
    } else if (v.length > LIMITS.headerValue) {
      addError(errors, path, `The ${name} header value may not be longer than ${LIMITS.headerValue} characters.`);
    } else if (seen.has(name.toLowerCase())) {
      addError(errors, path, `The ${name} header is given twice.`);
    } else {
      seen.add(name.toLowerCase());
      headers[name] = v;
    }
  }
  return headers;
}

function checkMetadata({ errors, p }: Checks, value: unknown): Record<string, string> {
  const metadata = emptyDict<string>();
  if (value === undefined || value === null) return metadata;
  if (!isStringRecord(value)) {
    addError(errors, `${p}metadata`, "The metadata field must be an object of string values.");
    return metadata;
  }
  const entries = Object.entries(value);
  if (entries.length > LIMITS.metadataKeys) addError(errors, `${p}metadata`, `At most ${LIMITS.metadataKeys} metadata keys are allowed.`);
  for (const [k, v] of entries.length > LIMITS.metadataKeys ? [] : entries) {
    if (!k || k.length > LIMITS.metadataKey) addError(errors, `${p}metadata`, `Metadata keys must be 1 to ${LIMITS.metadataKey} characters.`);
    else if (v.length > LIMITS.metadataValue) addError(errors, `${p}metadata.${k}`, `Metadata values may not be longer than ${LIMITS.metadataValue} characters.`);
    else metadata[k] = v;
  }
  return metadata;
}

type PreparedAttachment = PreparedEmail["attachments"][number];
type AttachmentInput = NonNullable<SendInput["attachments"]>[number];

function checkAttachments({ errors, p }: Checks, value: SendInput["attachments"]): PreparedAttachment[] {
  const attachments: PreparedAttachment[] = [];
  if (value === undefined || value === null) return attachments;
  if (!Array.isArray(value)) addError(errors, `${p}attachments`, "The attachments field must be an array.");
  else if (value.length > LIMITS.attachments) addError(errors, `${p}attachments`, `At most ${LIMITS.attachments} attachments are allowed.`);
  else {
    // content_ids seen so far: each may be used once.
    const cids = new Set<string>();
    value.forEach((a, i) => {
      const attachment = checkAttachment(errors, `${p}attachments.${i}`, a, cids);
      if (attachment) attachments.push(attachment);
    });
  }
  return attachments;
}

/** One attachment, its errors under `ap` ("attachments.2"); null when any of its fields is wrong. */
function checkAttachment(errors: Errors, ap: string, a: AttachmentInput, cids: Set<string>): PreparedAttachment | null {
  if (typeof a !== "object" || a === null) {
    addError(errors, ap, "Each attachment must be an object.");
    return null;
  }
  const ok = Object.keys(errors).length;
  if (typeof a.filename !== "string" || !a.filename || a.filename.length > 255 || /[\0-\x1f\x7f-\x9f]/.test(a.filename)) {
    addError(errors, `${ap}.filename`, "The filename must be 1 to 255 characters without control characters.");
  }
  let content: Buffer | null = null;
  if (typeof a.content !== "string") addError(errors, `${ap}.content`, "The content must be a base64 string.");
  else {
    const b64 = a.content.replace(/\s+/g, "");
    if (!BASE64.test(b64) || b64.length % 4 === 1) addError(errors, `${ap}.content`, "The content must be valid base64.");
    else content = Buffer.from(b64, "base64");
  }
  const contentId = checkContentId(errors, ap, a.content_id, cids);
  let contentType = "";
  if (a.content_type !== undefined && a.content_type !== null) {
    if (typeof a.content_type !== "string" || !CONTENT_TYPE.test(a.content_type) || a.content_type.length > 255) {
      addError(errors, `${ap}.content_type`, "The content_type must be a MIME type such as image/png.");
    } else contentType = a.content_type.toLowerCase();
  }
  if (Object.keys(errors).length !== ok || !content) return null;
  contentType ||= detectMimeType(extname(a.filename).slice(1).toLowerCase() || "bin");
  return { filename: a.filename, contentType, contentId, content };
}

/** An attachment's content_id without its angle brackets, once per email (`cids`), or null. */
function checkContentId(errors: Errors, ap: string, value: unknown, cids: Set<string>): string | null {
  if (value === undefined || value === null) return null;
  const cid = typeof value === "string" ? value.replace(/^<(.*)>$/, "$1") : "";
  if (!cid || cid.length > 255 || !/^[\x21-\x7e]+$/.test(cid) || /[<>"]/.test(cid)) {
    addError(errors, `${ap}.content_id`, "The content_id must be 1 to 255 printable characters without spaces, quotes or angle brackets.");
  } else if (cids.has(cid)) addError(errors, `${ap}.content_id`, `The content_id ${cid} is used twice.`);
  else {
    cids.add(cid);
    return cid;
  }
  return null;
}

/** html, text and the decoded attachments together, at most `maxBytes`. */
function checkSize({ errors, p }: Checks, maxBytes: number, html: string | null, text: string | null, attachments: readonly PreparedAttachment[]): void {
  let bytes = Buffer.byteLength(html ?? "") + Buffer.byteLength(text ?? "");
  for (const a of attachments) bytes += a.content.length;
  if (bytes > maxBytes) addError(errors, `${p}attachments`, `The email is larger than the limit of ${maxBytes} bytes (html, text and decoded attachments).`);
}

/** Distinct recipients (by address, case-insensitive), first mention wins: to, then cc, then bcc. */
function distinctRecipients(to: readonly ParsedAddress[], cc: readonly ParsedAddress[], bcc: readonly ParsedAddress[]): PreparedEmail["recipients"] {
  const seen = new Set<string>();
  const recipients: PreparedEmail["recipients"] = [];
  for (const [list, kind] of [
    [to, "to"],
    [cc, "cc"],
    [bcc, "bcc"],
  ] as const) {
    for (const a of list) {
      const key = a.email.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      recipients.push({ email: a.email, kind });
    }
  }
  return recipients;
}

/** track_opens / track_clicks: true, false, or null for the route's setting. */
function checkTracking({ errors, p }: Checks, field: "track_opens" | "track_clicks", value: unknown): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "boolean") addError(errors, `${p}${field}`, `The ${field} field must be true, false or null.`);
  return value === true;
}

/**
 * Checks an Idempotency-Key and a request's emails: all of them or none, so any invalid one
 * throws a ValidationError (keys prefixed by the item index, "3.subject", when `batch`).
 */
export function validateEmails(
  inputs: readonly SendInput[],
  opts: { idempotencyKey?: string | null; batch?: boolean; maxMessageBytes: number },
): PreparedEmail[] {
  const key = opts.idempotencyKey;
  if (key !== undefined && key !== null && (typeof key !== "string" || key.length < 1 || key.length > LIMITS.idempotencyKey)) {
    throw ValidationError.field("Idempotency-Key", `The Idempotency-Key header must be 1 to ${LIMITS.idempotencyKey} characters.`);
  }
  if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > LIMITS.batch) {
    throw ValidationError.field("body", `Between 1 and ${LIMITS.batch} emails can be sent at once.`);
  }
  const errors: Errors = fieldErrors();
  const prepared: PreparedEmail[] = [];
  inputs.forEach((input, i) => {
    const email = prepareEmail(input, i, opts.batch ? `${i}.` : "", opts.maxMessageBytes, errors);
    if (email) prepared.push(email);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return prepared;
}
