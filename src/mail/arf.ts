/**
 * Abuse feedback reports (ARF, RFC 5965): a mailbox provider telling us a recipient marked our
 * mail as spam. A multipart/report (report-type=feedback-report) whose message/feedback-report
 * part holds the fields below, followed by the original message or its headers.
 */
import type { ParsedMail } from "mailparser";
import { parseFieldBlocks, stripTypePrefix } from "./dsn.ts";
import { clip, clipOrNull, FIELD_BOUNDS } from "../untrusted/bounds.ts";

export interface FeedbackReport {
  /** abuse | fraud | virus | other | not-spam (lower-cased); "abuse" when the field is missing. */
  feedbackType: string;
  userAgent: string | null;
  originalMailFrom: string | null;
  originalRcptTo: string | null;
  arrivalDate: string | null;
  sourceIp: string | null;
  reportedDomain: string | null;
}

const FEEDBACK_TYPES = new Set(["message/feedback-report"]);

/** Parses the body of a message/feedback-report part; null when it has no fields. */
export function parseFeedbackReport(text: string): FeedbackReport | null {
  const block = parseFieldBlocks(text, 1)[0];
  if (!block) return null;
  // Each field bounded (src/untrusted/bounds.ts): they are stored in the history and published.
  return {
    feedbackType: clip((block.get("feedback-type") ?? "abuse").trim().toLowerCase() || "abuse", FIELD_BOUNDS.short),
    userAgent: clipOrNull(block.get("user-agent"), FIELD_BOUNDS.short),
    originalMailFrom: clipOrNull(stripTypePrefix(block.get("original-mail-from"))?.toLowerCase(), FIELD_BOUNDS.address),
    originalRcptTo: clipOrNull(stripTypePrefix(block.get("original-rcpt-to"))?.toLowerCase(), FIELD_BOUNDS.address),
    arrivalDate: clipOrNull(block.get("arrival-date") ?? block.get("received-date"), FIELD_BOUNDS.short),
    sourceIp: clipOrNull(block.get("source-ip"), FIELD_BOUNDS.short),
    reportedDomain: clipOrNull(block.get("reported-domain"), FIELD_BOUNDS.host),
  };
}

/** The feedback report of a parsed message, or null when it is not an ARF report. */
export function findFeedbackReport(parsed: ParsedMail): FeedbackReport | null {
  const part = parsed.attachments.find((a) => FEEDBACK_TYPES.has(a.contentType.toLowerCase()));
  if (part) return parseFeedbackReport(part.content.toString("utf8"));
  // Some reporters label the report in the top-level type only and send the fields as text.
  const ct = parsed.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  if (ct?.value === "multipart/report" && ct.params?.["report-type"]?.toLowerCase() === "feedback-report" && parsed.text) {
    const report = parseFeedbackReport(parsed.text);
    return report && (report.originalMailFrom || report.userAgent) ? report : null;
  }
  return null;
}

/** A complaint counts against the recipient; "not-spam" reports the opposite and is ignored. */
export const isComplaint = (r: FeedbackReport): boolean => r.feedbackType !== "not-spam";
