/**
 * The `scheduled_at` of a send or a reschedule: an ISO 8601 (RFC 3339) date-time with an explicit
 * offset, `Z` or `±hh:mm`, later than now and at most SCHEDULE_WINDOW_MS ahead. A time without an
 * offset is refused rather than read as UTC (the service's reading) or as the server's zone:
 * either guess sends at the wrong hour somewhere. English times ("tomorrow 9am") are refused too.
 * A time in the past is refused, not sent now: a client whose clock is behind would otherwise
 * send at once what it meant for later (docs/sending.md, Scheduled sending).
 */

/** How far ahead a message may be scheduled: 30 days, as Resend allows. */
export const SCHEDULE_WINDOW_MS = 30 * 24 * 3600 * 1000;

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

/** The instant (epoch ms) a date-time with an offset names, or null when it is not one (malformed, no offset, no such day). */
export function parseOffsetDateTime(value: string): number | null {
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? "0"].map(Number) as [number, number, number, number, number, number];
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 31 February over into March: the day must survive the round trip.
  if (new Date(local).getUTCDate() !== day) return null;
  let offset = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return local - offset;
}

/** What a scheduled_at value means at `now`: the instant, or why it is refused (the 422's message). */
export function checkScheduledAt(value: unknown, now: number): { at: number } | { error: string } {
  if (typeof value !== "string") return { error: "The scheduled_at field must be a date-time string such as 2030-01-31T09:00:00Z." };
  const at = parseOffsetDateTime(value.trim());
  if (at === null) {
    return {
      error: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value.trim())
        ? "The scheduled_at field needs an offset: end it with Z (UTC) or ±hh:mm, e.g. 2030-01-31T09:00:00Z or 2030-01-31T10:00:00+01:00."
        : "The scheduled_at field must be an ISO 8601 date-time with an offset, e.g. 2030-01-31T09:00:00Z or 2030-01-31T10:00:00+01:00.",
    };
  }
  if (at <= now) return { error: "The scheduled_at field must be in the future; leave it out to send now." };
  if (at > now + SCHEDULE_WINDOW_MS) return { error: `The scheduled_at field may be at most ${SCHEDULE_WINDOW_MS / 86_400_000} days ahead.` };
  return { at };
}
