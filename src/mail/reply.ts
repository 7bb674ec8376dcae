import type { RemoteReply } from "../events/message-status.ts";
import { clip, FIELD_BOUNDS } from "../untrusted/bounds.ts";

/** What one delivery attempt to one recipient came to. */
export type Verdict = "delivered" | "soft" | "hard";

/**
 * Splits an SMTP reply ("550-5.1.1 first line\n550 5.1.1 second line") into its code, its
 * RFC 3463 enhanced status code and its text (lines joined by a space).
 */
export function parseReply(reply: string): RemoteReply {
  const lines = reply
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const first = /^(\d{3})(?:[ -]|$)/.exec(lines[0] ?? "");
  const code = first ? Number(first[1]) : null;
  let enhanced: string | null = null;
  const text = lines
    .map((line) => {
      let rest = line.replace(/^\d{3}(?:[ -]|$)/, "");
      const m = /^([245]\.\d{1,3}\.\d{1,3})(?:\s+|$)/.exec(rest);
      if (m) {
        enhanced ??= m[1]!;
        rest = rest.slice(m[0].length);
      }
      return rest;
    })
    .filter(Boolean)
    .join(" ");
  // Bounded and storable (src/untrusted/bounds.ts): a remote's words go to the recipient, the history, the
  // events and the destination's last_reply; a NUL would fail their write on PostgreSQL.
  return { code, enhanced_code: enhanced, message: clip(text, FIELD_BOUNDS.reply) };
}

/** 2xx delivered, 4xx retry, 5xx give up; no code (a local or network failure) retries. */
export function verdictOf(reply: RemoteReply): Verdict {
  if (reply.code === null) return "soft";
  if (reply.code >= 200 && reply.code < 300) return "delivered";
  if (reply.code >= 500 && reply.code < 600) return "hard";
  return "soft";
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A remote's request to come back later, e.g. "451 4.7.1 Greylisted, try again in 5 minutes"
 * or "please retry after 300 seconds". Capped at a day. Null when the reply asks nothing.
 */
export function requestedRetryMs(text: string): number | null {
  const m = /\b(?:try|retry)\b[a-z ,]{0,30}?\b(?:in|after)\s+(\d{1,6})\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b/i.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]!.charAt(0).toLowerCase()]!;
  return Math.min(ms, 24 * 3_600_000);
}

/** Text of a temporary refusal that is about our sending rate, not about the message or the address. */
const RATE_TEXT = /\brate\b|rate[- ]?limit|\btoo many\b|\btry (?:again )?later\b|\bslow down\b|\bthrottl/i;

/**
 * Whether a reply tells us to send to that destination more slowly (per-destination shaping):
 * any 421 (the server is closing the channel: overloaded, or limiting us), 4.7.28 (Gmail's "rate
 * limited"), or another 4xx whose text speaks of rate, too many, try later, slow down or
 * throttling. Not 4.5.3 "too many recipients", which is about one message, nor a reply about one
 * address or mailbox, nor greylisting.
 */
export function isRateReply(reply: RemoteReply): boolean {
  if (reply.code === 421) return true;
  if (reply.code === null || reply.code < 400 || reply.code >= 500) return false;
  if (reply.enhanced_code === "4.7.28") return true;
  // The text counts only where the refusal is not about one address or mailbox (x.1.x, x.2.x: a
  // full or busy mailbox "try again later" says nothing of the destination) nor about one message
  // (4.5.3 "too many recipients"), and greylisting is no rate: pausing a destination would only
  // delay the retry it asks for.
  const subject = reply.enhanced_code?.split(".")[1];
  if (subject === "1" || subject === "2" || reply.enhanced_code === "4.5.3") return false;
  return RATE_TEXT.test(reply.message) && !/gr[ae]y[- ]?list/i.test(reply.message);
}
