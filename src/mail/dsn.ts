/**
 * Delivery status notifications (RFC 3464): what a remote MTA reports about mail we sent.
 * A DSN is a multipart/report (report-type=delivery-status) whose message/delivery-status part
 * holds one block of per-message fields and one block per recipient, in header syntax.
 */
import type { ParsedMail } from "mailparser";
import { clip, clipOrNull, FIELD_BOUNDS } from "../untrusted/bounds.ts";

/** The fields of one header-syntax block, names lower-cased, folded lines joined. */
export type FieldBlock = Map<string, string>;

/**
 * Splits header-syntax text into blocks separated by blank lines (RFC 3464 §2.1, RFC 5965 §3.1).
 * A repeated field keeps its first value, as the RFCs allow each field once per block.
 */
export function parseFieldBlocks(text: string, maxBlocks: number = MAX_FIELD_BLOCKS): FieldBlock[] {
  const blocks: FieldBlock[] = [];
  let current: FieldBlock | null = null;
  let last: string | null = null;
  // Lines one at a time (no array of all of them), and no more blocks, fields or characters per
  // value than are kept: a report is text from outside, up to the message size.
  const lines = /[^\r\n]*(?:\r\n?|\n|$)/g;
  for (let m = lines.exec(text); m !== null && m[0] !== "" && blocks.length < maxBlocks; m = lines.exec(text)) {
    const line = m[0].replace(/[\r\n]+$/, "");
    if (line.trim() === "") {
      if (current && current.size > 0) blocks.push(current);
      current = null;
      last = null;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      // Continuation of a folded field.
      const value = current && last ? current.get(last)! : null;
      if (value !== null && value.length < FIELD_BOUNDS.reply) current!.set(last!, clip(`${value} ${line.trim()}`.trim(), FIELD_BOUNDS.reply));
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    current ??= new Map();
    if (!current.has(name) && current.size < MAX_FIELDS_PER_BLOCK && name.length <= FIELD_BOUNDS.headerName) {
      current.set(name, clip(line.slice(colon + 1).trim(), FIELD_BOUNDS.reply));
      last = name;
    } else {
      last = null;
    }
  }
  if (current && current.size > 0 && blocks.length < maxBlocks) blocks.push(current);
  return blocks;
}

/** Blocks read of a report (the per-message one and a recipient each: a DSN about our mail names one), and fields per block. */
export const MAX_FIELD_BLOCKS = 101;
const MAX_FIELDS_PER_BLOCK = 100;

/** "rfc822; bob@example.net" → "bob@example.net"; "dns; mx.example.net" → "mx.example.net". */
export function stripTypePrefix(value: string | undefined | null): string | null {
  if (!value) return null;
  const semi = value.indexOf(";");
  const v = (semi >= 0 ? value.slice(semi + 1) : value).trim().replace(/^<(.*)>$/, "$1");
  return v || null;
}

export interface DsnRecipient {
  finalRecipient: string | null;
  originalRecipient: string | null;
  /** failed | delayed | delivered | relayed | expanded (lower-cased), null when absent. */
  action: string | null;
  /** The RFC 3463 status, e.g. "5.1.1". */
  status: string | null;
  /** The remote server's words, with the "smtp;" type prefix removed. */
  diagnosticCode: string | null;
  remoteMta: string | null;
}

export interface DeliveryStatusReport {
  reportingMta: string | null;
  recipients: DsnRecipient[];
}

const STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})$/;

/** Parses the body of a message/delivery-status part. Null when it has no recipient block. */
export function parseDeliveryStatus(text: string): DeliveryStatusReport | null {
  const blocks = parseFieldBlocks(text);
  if (blocks.length === 0) return null;
  // The per-message block comes first; it has no Final-Recipient. Tolerate a missing one.
  const hasMessageBlock = !blocks[0]!.has("final-recipient") && !blocks[0]!.has("action");
  const messageBlock = hasMessageBlock ? blocks[0]! : new Map<string, string>();
  const recipients = (hasMessageBlock ? blocks.slice(1) : blocks)
    .filter((b) => b.has("final-recipient") || b.has("action") || b.has("status"))
    .map((b): DsnRecipient => {
      const statusRaw = (b.get("status") ?? "").trim().split(/\s+/)[0] ?? "";
      return {
        finalRecipient: clipOrNull(stripTypePrefix(b.get("final-recipient"))?.toLowerCase(), FIELD_BOUNDS.address),
        originalRecipient: clipOrNull(stripTypePrefix(b.get("original-recipient"))?.toLowerCase(), FIELD_BOUNDS.address),
        action: clipOrNull(b.get("action")?.trim().toLowerCase() || null, FIELD_BOUNDS.short),
        status: STATUS.test(statusRaw) ? statusRaw : null,
        diagnosticCode: clipOrNull(stripTypePrefix(b.get("diagnostic-code")), FIELD_BOUNDS.reply),
        remoteMta: clipOrNull(stripTypePrefix(b.get("remote-mta")), FIELD_BOUNDS.host),
      };
    });
  if (recipients.length === 0) return null;
  return { reportingMta: clipOrNull(stripTypePrefix(messageBlock.get("reporting-mta")), FIELD_BOUNDS.host), recipients };
}

const DELIVERY_STATUS_TYPES = new Set(["message/delivery-status", "message/global-delivery-status"]);

/**
 * The delivery-status report of a parsed message, or null when it is not a DSN. Parse the
 * message with mailparser's `keepDeliveryStatus: true`, so that the status part stays an
 * attachment instead of being folded into the text body.
 */
export function findDeliveryStatus(parsed: ParsedMail): DeliveryStatusReport | null {
  const part = parsed.attachments.find((a) => DELIVERY_STATUS_TYPES.has(a.contentType.toLowerCase()));
  if (!part) return null;
  return parseDeliveryStatus(part.content.toString("utf8"));
}

/**
 * hard: a permanent failure (5.x.x) — the address is bad; soft: a delay, still being retried;
 * expired: the reporting server gave up after temporary failures only (Action failed with a
 * 4.x.x status: mailbox full, over quota, …) — not delivered, but the address is not bad.
 */
export type BounceType = "hard" | "soft" | "expired";

export interface BounceVerdict {
  type: BounceType;
  /** The basic SMTP reply code, when the diagnostic carries one. */
  code: number | null;
  enhancedCode: string | null;
  message: string;
}

/**
 * The verdict of a recipient block: Action "failed" with a 5.x.x status (or none) is hard, with
 * a 4.x.x status expired (Postfix, for one, reports the last temporary status when a message
 * leaves its queue undelivered); Action "delayed" is soft; without an Action the status class
 * decides (5 hard, 4 soft). delivered/relayed/expanded (success reports) → null.
 */
export function classifyDsnRecipient(r: DsnRecipient, reportingMta: string | null = null): BounceVerdict | null {
  const cls = r.status?.[0] ?? null;
  let type: BounceType | null = null;
  const diagClass = /\b([245])\.\d{1,3}\.\d{1,3}\b/.exec(r.diagnosticCode ?? "")?.[1] ?? null;
  if (r.action === "failed") type = (cls ?? diagClass) === "4" ? "expired" : "hard";
  else if (r.action === "delayed") type = "soft";
  else if (r.action === null) type = cls === "5" ? "hard" : cls === "4" ? "soft" : null;
  if (!type) return null;
  const diag = r.diagnosticCode ?? "";
  const codeMatch = /^\s*([245]\d\d)\b/.exec(diag);
  const enhancedInDiag = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(diag)?.[1] ?? null;
  const message =
    diag ||
    `${r.action ?? "failed"}${r.status ? ` with status ${r.status}` : ""} (reported by ${reportingMta ?? r.remoteMta ?? "a remote server"})`;
  return { type, code: codeMatch ? Number(codeMatch[1]) : null, enhancedCode: r.status ?? enhancedInDiag, message };
}

/**
 * The recipient block about `email` (matched on Final- or Original-Recipient), else the first
 * block that reports a failure or delay, else the first block.
 */
export function pickDsnRecipient(report: DeliveryStatusReport, email: string | null): DsnRecipient {
  const wanted = email?.toLowerCase();
  return (
    (wanted && report.recipients.find((r) => r.finalRecipient === wanted || r.originalRecipient === wanted)) ||
    report.recipients.find((r) => r.action === "failed" || r.action === "delayed") ||
    report.recipients[0]!
  );
}

const BOUNCE_SUBJECT =
  /(undeliver|undelivered|delivery (status notification|has failed|failure|failed)|returned mail|mail delivery (failed|failure|system)|failure notice|non[- ]?delivery|delivery problem|could not be delivered)/i;

/**
 * Bounces that are not RFC 3464 reports (qmail, old Exchange and others write plain text):
 * from a null sender or MAILER-DAEMON/postmaster with a bounce-like subject, classified by the
 * first enhanced status code (or failing that, the first SMTP reply code) in the text.
 * Null when the message does not look like a bounce or names no code.
 */
export function classifyTextBounce(opts: { envelopeFrom: string | null; from: string | null; subject: string; text: string }): BounceVerdict | null {
  const fromDaemon = !opts.envelopeFrom || /^(mailer-daemon|postmaster)@/i.test(opts.from ?? "");
  if (!fromDaemon || !BOUNCE_SUBJECT.test(opts.subject)) return null;
  const lines = opts.text.split(/\r?\n/);
  for (const line of lines) {
    const enhanced = /\b([45])\.(\d{1,3})\.(\d{1,3})\b/.exec(line);
    if (enhanced) {
      const code = /\b([45]\d\d)[ -]/.exec(line);
      return { type: enhanced[1] === "5" ? "hard" : "soft", code: code ? Number(code[1]) : null, enhancedCode: enhanced[0], message: line.trim().slice(0, 500) };
    }
  }
  for (const line of lines) {
    const code = /(?:^|\s)([45])(\d\d)[ -]\S/.exec(line);
    if (code) return { type: code[1] === "5" ? "hard" : "soft", code: Number(code[1]! + code[2]!), enhancedCode: null, message: line.trim().slice(0, 500) };
  }
  return null;
}
