/**
 * The counters of the statistics rollups (stat_hours, stat_days; docs/statistics.md): one integer
 * column each, added to as events happen, in the event's own transaction. A leaf: the schemas of
 * both engines, the repository and the services read the names from here.
 */

/** Counts of things that happened, one per column. */
export const STAT_COUNTERS = [
  /** A recipient handed to delivery for the first time (message.sent). */
  "sent",
  /** Every further attempt of a recipient (a retry). */
  "retried",
  "delivered",
  /** Every deferral (a soft bounce: an attempt that will be retried). */
  "soft_bounced",
  "hard_bounced",
  /** Given up: the queue lifetime ran out, an expiry report, a cancel. */
  "failed",
  "suppressed",
  "complained",
  "unsubscribed",
  /** Deliveries of a message with open (click) tracking on: the base of the open (click) rates. */
  "open_tracked_delivered",
  "click_tracked_delivered",
  /** Opens and clicks by verdict (src/modules/tracking/classify.ts): every hit, and the recipients' first hit of each class (_unique). */
  "opens_human",
  "opens_human_unique",
  "opens_privacy",
  "opens_privacy_unique",
  "opens_machine",
  "opens_machine_unique",
  "clicks_human",
  "clicks_human_unique",
  "clicks_privacy",
  "clicks_privacy_unique",
  "clicks_machine",
  "clicks_machine_unique",
  /** Inbound messages processed (all of them), and those the spam policy rejected. */
  "inbound_received",
  "inbound_rejected",
] as const;

export type StatCounter = (typeof STAT_COUNTERS)[number];

/**
 * The counters of stat_accepts, kept apart: the send path adds to them, and one small row is
 * a quarter of the cost of a wide one (the send API's rate is what they must not slow down).
 * accepted: outbound messages accepted (the send API or SMTP submission), one per message;
 * recipients: their recipients (to, cc, bcc).
 */
export const ACCEPT_COUNTERS = ["accepted", "recipients"] as const;

/**
 * Delivery latency (acceptance to the recipient's 250) as a log-scale histogram: bucket 0 is
 * under LATENCY_BASE_MS, bucket k (1 ≤ k < LATENCY_BUCKETS - 1) is [base·√2^(k-1), base·√2^k),
 * the last is everything above (about 9.7 days). A percentile read from it is the bucket's
 * geometric middle: within 19 % of the true value.
 */
export const LATENCY_BUCKETS = 48;
export const LATENCY_BASE_MS = 100;
export const LATENCY_COLUMNS = Array.from({ length: LATENCY_BUCKETS }, (_, k) => `lat_${String(k).padStart(2, "0")}`);

/** Every counter column of a rollup row, counters first, then the latency histogram. */
export const STAT_COLUMNS: readonly string[] = [...STAT_COUNTERS, ...LATENCY_COLUMNS];

/** The histogram bucket of a latency in ms. */
export function latencyBucket(ms: number): number {
  if (!(ms >= LATENCY_BASE_MS)) return 0;
  const k = Math.floor(2 * Math.log2(ms / LATENCY_BASE_MS)) + 1;
  return Math.min(LATENCY_BUCKETS - 1, k);
}

/** The value a percentile in bucket k reads as: the bucket's geometric middle (ms). */
export function latencyBucketValue(k: number): number {
  if (k <= 0) return LATENCY_BASE_MS / 2;
  const low = LATENCY_BASE_MS * Math.SQRT2 ** (k - 1);
  return Math.round(low * 2 ** 0.25);
}
