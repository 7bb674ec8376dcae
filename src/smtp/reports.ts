/**
 * Mail that arrives at a VERP bounce address is about one outbound recipient: a DSN (bounce or
 * delay), an ARF complaint, an automatic reply, a plain-text bounce, or something else. It is
 * classified before the 250 (parsing is local and quick) and applied in the same commit that
 * accepts it. None of it reaches the inbound routes.
 */
import type { ParsedMail, SimpleParserOptions } from "mailparser";
import { loadMailparser } from "../mail/libraries.ts";
import type { Repositories } from "../db/store.ts";
import type { RecipientWithMessage } from "../db/recipients.ts";
import { changeRecipientStatus } from "../events/message-status.ts";
import { publishEvent } from "../events/publish.ts";
import { newId, sha256Hex } from "../ids.ts";
import { clip, clipOrNull, FIELD_BOUNDS } from "../untrusted/bounds.ts";
import { findFeedbackReport, isComplaint, type FeedbackReport } from "../mail/arf.ts";
import { detectAutoReply } from "../mail/auto-reply.ts";
import { classifyDsnRecipient, classifyTextBounce, findDeliveryStatus, pickDsnRecipient, type BounceVerdict, type DeliveryStatusReport } from "../mail/dsn.ts";

interface ReportMeta {
  /** The report's Message-ID, or a digest of its bytes when it has none: the de-duplication key. */
  id: string;
  from: string | null;
  subject: string;
}

export type ReportAnalysis = ReportMeta &
  (
    | { kind: "dsn"; report: DeliveryStatusReport }
    | { kind: "arf"; report: FeedbackReport }
    | { kind: "auto_reply"; reason: string; text: string }
    | { kind: "text_bounce"; verdict: BounceVerdict }
    | { kind: "unrecognized" }
  );

const firstHeader = (parsed: ParsedMail) => (name: string) => {
  const line = parsed.headerLines.find((h) => h.key === name);
  if (!line) return undefined;
  const colon = line.line.indexOf(":");
  return colon >= 0 ? line.line.slice(colon + 1).replace(/\r?\n[ \t]+/g, " ").trim() : undefined;
};

/** Parses and classifies mail sent to a bounce address. Never throws on bad input. */
export async function analyzeReport(raw: Buffer, envelopeFrom: string | null): Promise<ReportAnalysis> {
  let parsed: ParsedMail;
  try {
    parsed = await (await loadMailparser()).simpleParser(raw, { keepDeliveryStatus: true, skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true } as SimpleParserOptions);
  } catch {
    return { kind: "unrecognized", id: `sha256:${sha256Hex(raw)}`, from: null, subject: "" };
  }
  // Bounded as an inbound message's fields are (src/untrusted/bounds.ts): stored in the history and published.
  const meta: ReportMeta = {
    id: clip(parsed.messageId?.replace(/^<|>$/g, "") || `sha256:${sha256Hex(raw)}`, FIELD_BOUNDS.messageId),
    from: clipOrNull(parsed.from?.value[0]?.address?.toLowerCase(), FIELD_BOUNDS.address),
    subject: clip(parsed.subject ?? "", FIELD_BOUNDS.subject),
  };
  const dsn = findDeliveryStatus(parsed);
  if (dsn) return { ...meta, kind: "dsn", report: dsn };
  const arf = findFeedbackReport(parsed);
  if (arf) return { ...meta, kind: "arf", report: arf };
  const auto = detectAutoReply(firstHeader(parsed), meta.subject);
  if (auto) return { ...meta, kind: "auto_reply", reason: clip(auto.reason, FIELD_BOUNDS.short), text: clip((parsed.text ?? "").trim(), 2000) };
  const text = classifyTextBounce({ envelopeFrom: envelopeFrom || null, from: meta.from, subject: meta.subject, text: parsed.text ?? "" });
  if (text) return { ...meta, kind: "text_bounce", verdict: text };
  return { ...meta, kind: "unrecognized" };
}

/** Statuses a delay may overwrite: the message is still on its way somewhere. */
const SOFT_FROM = new Set(["pending", "queued", "processed", "delivered", "soft_bounced"]);
/** Statuses a permanent failure may overwrite (asynchronous bounces come after "delivered"). */
const HARD_FROM = new Set(["pending", "queued", "processed", "delivered", "soft_bounced", "opened", "clicked", "failed"]);

export type ReportOutcome = "hard_bounced" | "soft_bounced" | "failed" | "spam_complaint" | "auto_replied" | "recorded" | "duplicate" | "unchanged" | "recipient_gone";

/**
 * Applies a classified report to the outbound recipient it is about, in the transaction that
 * accepts the report. The same report twice (same Message-ID, or same
 * bytes) changes nothing the second time, and a bounce never counts twice for a recipient.
 */
export async function applyReport(tx: Repositories, recipientId: string, a: ReportAnalysis, now = Date.now()): Promise<ReportOutcome> {
  const r = await tx.recipients.withMessage(recipientId);
  if (!r) return "recipient_gone";
  if (await tx.recipients.hasReport(r.message_id, r.id, a.id)) return "duplicate";
  const to: ReportTarget = { tx, r, now };
  const base = { id: a.id, from: a.from, subject: a.subject };
  switch (a.kind) {
    case "dsn":
      return applyDsn(to, base, a.report);
    case "text_bounce":
      return applyBounce(to, a.verdict, { ...base, type: "text_bounce", status: a.verdict.enhancedCode, diagnostic_code: clip(a.verdict.message, FIELD_BOUNDS.reply) });
    case "arf":
      return applyFeedback(to, base, a.report);
    case "auto_reply":
      // A reply to a sealed message (a report forwarding code's mail) may quote it: its text is kept from the team too.
      return applyAutoReply(to, { ...base, type: "auto_reply", reason: a.reason, text: (await tx.messageContents.sealed(r.message_id)) ? "" : a.text });
    case "unrecognized":
      await recordReport(to, "message.report_received", { ...base, type: "unrecognized" });
      return "recorded";
  }
}

/** The recipient a report is about, in the accepting transaction: what each step below works on. */
interface ReportTarget {
  tx: Repositories;
  r: RecipientWithMessage;
  now: number;
}

/** What every report's history entry carries about the report itself. */
type ReportBase = { id: string; from: string | null; subject: string };

/** A history entry for the recipient, with the report as received (no status change). */
async function recordReport({ tx, r, now }: ReportTarget, kind: string, report: Record<string, unknown>): Promise<void> {
  await tx.recipients.appendHistory({
    id: newId(),
    message_id: r.message_id,
    recipient_id: r.id,
    kind,
    status: null,
    data: JSON.stringify({ message_id: r.message_id, recipient: r.email, report }),
    created_at: now,
  });
}

/** A DSN: its entry for this recipient bounces it, or (delivered, relayed, expanded) is only recorded. */
async function applyDsn(to: ReportTarget, base: ReportBase, dsn: DeliveryStatusReport): Promise<ReportOutcome> {
  const entry = pickDsnRecipient(dsn, to.r.email);
  const report = {
    ...base,
    type: "dsn",
    reporting_mta: dsn.reportingMta,
    remote_mta: entry.remoteMta,
    final_recipient: entry.finalRecipient,
    action: entry.action,
    status: entry.status,
    diagnostic_code: entry.diagnosticCode,
  };
  const verdict = classifyDsnRecipient(entry, dsn.reportingMta);
  if (!verdict) {
    // A success report (delivered, relayed, expanded): history only.
    await recordReport(to, "message.report_received", report);
    return "recorded";
  }
  return applyBounce(to, verdict, report);
}

/** A bounce (DSN or plain text): the recipient's new status, unless it is already past what a bounce may change. */
async function applyBounce(to: ReportTarget, verdict: BounceVerdict, report: Record<string, unknown>): Promise<ReportOutcome> {
  const { r } = to;
  // An expiry is final but says nothing bad of the address: failed, like our own queue's, never a suppression.
  const allowed = verdict.type === "hard" ? HARD_FROM : SOFT_FROM;
  if (!allowed.has(r.status)) {
    // Already bounced, complained, unsubscribed…: keep a trace, count nothing.
    await recordReport(to, "message.report_received", { ...report, applied: false });
    return r.status === "hard_bounced" ? "duplicate" : "unchanged";
  }
  const status = verdict.type === "hard" ? "hard_bounced" : verdict.type === "expired" ? "failed" : "soft_bounced";
  await changeRecipientStatus(
    to.tx,
    {
      recipientId: r.id,
      status,
      response: { code: verdict.code, enhanced_code: verdict.enhancedCode, message: verdict.message },
      details: { report },
      suppress: verdict.type === "hard" ? "hard_bounce" : null,
    },
    to.now,
  );
  return status;
}

/** An ARF report: a complaint marks and suppresses the recipient (once); other feedback is only recorded. */
async function applyFeedback(to: ReportTarget, base: ReportBase, arf: FeedbackReport): Promise<ReportOutcome> {
  const report = {
    ...base,
    type: "arf",
    feedback_type: arf.feedbackType,
    user_agent: arf.userAgent,
    source_ip: arf.sourceIp,
    arrival_date: arf.arrivalDate,
    original_rcpt_to: arf.originalRcptTo,
  };
  if (!isComplaint(arf)) {
    await recordReport(to, "message.report_received", report);
    return "recorded";
  }
  if (to.r.status === "spam_complaint") {
    await recordReport(to, "message.report_received", { ...report, applied: false });
    return "duplicate";
  }
  await changeRecipientStatus(to.tx, { recipientId: to.r.id, status: "spam_complaint", details: { report }, suppress: "spam_complaint" }, to.now);
  return "spam_complaint";
}

/**
 * An automatic reply: recorded and published as message.auto_replied; the recipient's status
 * stays. On a route with suppress_auto_responders it is recorded (the message's events show it,
 * marked suppressed) and goes to no webhook.
 */
async function applyAutoReply(to: ReportTarget, report: Record<string, unknown>): Promise<ReportOutcome> {
  const { r } = to;
  const route = r.route_id ? await to.tx.routes.find(r.route_id) : null;
  if (route?.suppress_auto_responders === 1) {
    await recordReport(to, "message.auto_replied", { ...report, suppressed: true });
    return "auto_replied";
  }
  await recordReport(to, "message.auto_replied", report);
  await publishEvent(
    to.tx,
    {
      teamId: r.team_id,
      routeId: r.route_id,
      messageId: r.message_id,
      kind: "message.auto_replied",
      data: { message_id: r.message_id, recipient: r.email, status: r.status, tag: r.tag, tags: JSON.parse(r.tags), metadata: JSON.parse(r.metadata), report },
    },
    to.now,
  );
  return "auto_replied";
}
