/**
 * The vocabulary of a recipient's (and a message's) status: the names, which of them delivery no
 * longer changes, and how a message's status derives from its recipients'. Plain data and one pure
 * function, imported by the repositories (db/queue.ts, db/recipients.ts, db/routes.ts), by the API
 * models, and by events/message-status.ts, which applies a change (history, webhooks, suppressions).
 */
export const MESSAGE_STATUSES = [
  "scheduled",
  "pending",
  "queued",
  // Inbound mail held at or above its route's spam threshold until released (POST /v1/messages/{id}/process).
  "quarantined",
  "suppressed",
  "processed",
  "delivered",
  "opened",
  "clicked",
  "soft_bounced",
  "hard_bounced",
  "spam_complaint",
  "failed",
  "blocked",
  "policy_rejected",
  "unsubscribed",
  "canceled",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A recipient in one of these states will not change again by delivery. */
export const FINAL_RECIPIENT_STATUSES: ReadonlySet<string> = new Set([
  "delivered",
  "hard_bounced",
  "failed",
  "suppressed",
  "blocked",
  "policy_rejected",
  "spam_complaint",
  "unsubscribed",
  "opened",
  "clicked",
  "canceled",
]);

/**
 * How a message's status is derived from its recipients': the highest-ranked recipient status
 * wins. Work still under way ranks above any outcome, so a message reads soft_bounced while any
 * recipient is still being retried, and delivered once some recipient got it and none is pending.
 */
const AGGREGATE_RANK: readonly string[] = [
  "soft_bounced",
  "processed",
  "queued",
  "pending",
  // Waiting for its scheduled_at (src/sending/scheduled-job.ts): not yet in the delivery queue.
  "scheduled",
  "spam_complaint",
  "unsubscribed",
  "clicked",
  "opened",
  "delivered",
  "hard_bounced",
  "failed",
  "blocked",
  "policy_rejected",
  "suppressed",
  // A scheduled message canceled before its time (POST /v1/messages/{id}/cancel).
  "canceled",
];

export function aggregateStatus(statuses: readonly string[]): string {
  let best = -1;
  for (const s of statuses) {
    const r = AGGREGATE_RANK.indexOf(s);
    if (r !== -1 && (best === -1 || r < best)) best = r;
  }
  return best === -1 ? (statuses[0] ?? "pending") : AGGREGATE_RANK[best]!;
}
