import type { RecipientWithMessage } from "../db/recipients.ts";
import type { Repositories } from "../db/store.ts";
import { newId } from "../ids.ts";
import { clip, clipOrNull, FIELD_BOUNDS } from "../untrusted/bounds.ts";
import { publishEvent, type EventKind } from "./publish.ts";
import { rollStatusChange } from "./stat-rollup.ts";
import { addSuppressionRow } from "./suppression-events.ts";
import { candidateValues, strongestHit } from "./suppression-rules.ts";
import type { SuppressionHit } from "../db/suppressions.ts";
import { aggregateStatus, FINAL_RECIPIENT_STATUSES, type MessageStatus } from "../db/recipient-status.ts";

/** The webhook event kind a recipient status change publishes, if any. */
const STATUS_EVENT: Partial<Record<string, EventKind>> = {
  processed: "message.sent",
  delivered: "message.delivered",
  soft_bounced: "message.soft_bounced",
  hard_bounced: "message.hard_bounced",
  failed: "message.failed",
  suppressed: "message.suppressed",
  opened: "message.opened",
  clicked: "message.clicked",
  spam_complaint: "message.spam_complaint",
  unsubscribed: "message.unsubscribed",
  policy_rejected: "message.policy_rejected",
};

export type RemoteReply = { code: number | null; enhanced_code: string | null; message: string };

export interface RecipientChange {
  recipientId: string;
  status: MessageStatus;
  /** The remote server's reply for delivery outcomes. */
  response?: RemoteReply | null;
  /** Extra fields for the history row and the webhook event (bounce details, url clicked, …). */
  details?: Record<string, unknown>;
  /** Add a team-scope suppression with this reason (hard bounces, complaints). */
  suppress?: "hard_bounce" | "spam_complaint" | "unsubscribe" | null;
  /** Count this as a delivery attempt. */
  attempted?: boolean;
}

export type { RecipientWithMessage };

/**
 * Applies a recipient's status change: updates the recipient, appends to the message's history,
 * re-derives the message status, publishes the webhook event(s), and adds a suppression when
 * asked. Call it with the transaction of the change's cause. Several changes of one recipient
 * (queued, then processed) are applied in order from one read. Returns the message's status afterwards.
 */
export async function changeRecipientStatus(tx: Repositories, change: RecipientChange | readonly RecipientChange[], now = Date.now()): Promise<string> {
  return (await applyChanges(tx, change, now, false)).messageStatus;
}

/**
 * changeRecipientStatus for delivery itself (the outbound job): nothing is changed, and false
 * returned, when the recipient already has a final status, which another write (a cancel, a
 * report) committed while the attempt was under way. Whichever commits first wins.
 */
export async function changeDueRecipientStatus(tx: Repositories, change: RecipientChange | readonly RecipientChange[], now = Date.now()): Promise<boolean> {
  return (await applyChanges(tx, change, now, true)).applied;
}

/**
 * A remote reply as kept: its text is a remote server's (or a report's) words, bounded
 * (src/untrusted/bounds.ts) wherever it came from, for the recipient's row, its history and the event.
 */
const boundReply = (r: RemoteReply): RemoteReply => ({
  code: r.code,
  enhanced_code: clipOrNull(r.enhanced_code, 16),
  message: clip(r.message, FIELD_BOUNDS.reply),
});

async function applyChanges(tx: Repositories, change: RecipientChange | readonly RecipientChange[], now: number, onlyIfDue: boolean) {
  const given: readonly RecipientChange[] = Array.isArray(change) ? change : [change as RecipientChange];
  const changes = given.map((c) => (c.response ? { ...c, response: boundReply(c.response) } : c));
  const r = await tx.recipients.withMessage(changes[0]!.recipientId);
  if (!r) throw new Error(`recipient ${changes[0]!.recipientId} not found`);
  // A final recipient is left alone, but for one case: a delivery over a failure. Only a cancel
  // fails a recipient while an attempt is in flight; when that attempt's 250 comes after it, the
  // receiver has the message, and the record says so rather than keep a cancel that did not happen.
  const deliveredAfterCancel = r.status === "failed" && changes.some((c) => c.status === "delivered");
  if (onlyIfDue && FINAL_RECIPIENT_STATUSES.has(r.status) && !deliveredAfterCancel) return { applied: false, messageStatus: r.message_status };
  const before = { attempts: r.attempts, messageStatus: r.message_status };
  let response: string | null = null;
  for (const c of changes) {
    await recordChange(tx, r, c, now);
    if (c.response) response = JSON.stringify(c.response);
  }
  // The recipient's and the message's rows are written once, as the last change leaves them
  // (queued then processed: one update of each, not two; the history has both).
  await tx.recipients.setStatus(r.id, r.status, now, { attempts: r.attempts - before.attempts, response });
  // A message's recipients are fixed when it is accepted: a lone recipient's status is the message's.
  const statuses = r.recipient_count === 1 ? [r.status] : await tx.recipients.statusesOf(r.message_id);
  r.message_status = aggregateStatus(statuses);
  if (r.message_status !== before.messageStatus) await tx.recipients.setMessageStatus(r.message_id, r.message_status, now);
  return { applied: true, messageStatus: r.message_status };
}

/** One change of `r` in the message's history and to webhooks (and a suppression); `r` is brought up to date with it. */
async function recordChange(tx: Repositories, r: RecipientWithMessage, change: RecipientChange, now: number): Promise<void> {
  const kind = STATUS_EVENT[change.status];
  const eventData = recipientEventData(r, change.status, { ...(change.response ? { response: change.response } : {}), ...change.details });
  await appendHistory(tx, r, kind ?? `message.${change.status}`, change.status, eventData, now);

  // message.sent goes out once per recipient, at its first attempt; a retry's "processed" is in
  // the history only.
  const retried = change.status === "processed" && r.attempts > 0;
  // The statistics rollups, in this same transaction (docs/statistics.md).
  await rollStatusChange(tx, r, change, retried, now);
  if (kind && !retried) {
    await publishEvent(tx, { teamId: r.team_id, routeId: r.route_id, messageId: r.message_id, kind, data: eventData }, now);
  }
  if (change.status === "soft_bounced" || change.status === "hard_bounced") {
    await publishEvent(
      tx,
      {
        teamId: r.team_id,
        routeId: r.route_id,
        messageId: r.message_id,
        kind: "message.bounced",
        data: { ...eventData, bounce_type: change.status === "hard_bounced" ? "hard" : "soft" },
      },
      now,
    );
  }
  if (change.suppress) await addSuppression(tx, { teamId: r.team_id, scope: "team", email: r.email, reason: change.suppress, sourceMessageId: r.message_id }, now);
  r.status = change.status;
  if (change.attempted) r.attempts++;
}

type EventRecipient = Pick<RecipientWithMessage, "id" | "message_id" | "email" | "team_id" | "route_id" | "tag" | "tags" | "metadata">;

/** What a recipient's history row and webhook event carry: who, the status, the message's tag, tags and metadata, and the details. */
const recipientEventData = (r: EventRecipient, status: string, details: Record<string, unknown> = {}): Record<string, unknown> => ({
  message_id: r.message_id,
  recipient: r.email,
  status,
  tag: r.tag,
  tags: JSON.parse(r.tags),
  metadata: JSON.parse(r.metadata),
  ...details,
});

function appendHistory(tx: Repositories, r: EventRecipient, kind: string, status: string | null, data: Record<string, unknown>, now: number): Promise<void> {
  return tx.recipients.appendHistory({ id: newId(), message_id: r.message_id, recipient_id: r.id, kind, status, data: JSON.stringify(data), created_at: now });
}

/**
 * An engagement that changes no status (a machine's open, a second click): in the message's
 * history, without a status, and published as `kind` with the recipient's current `status`.
 * A machine's hit (`details.machine`) goes only to webhooks that include machine events.
 */
export async function recordObservation(
  tx: Repositories,
  r: EventRecipient & { status: string },
  kind: EventKind,
  details: Record<string, unknown>,
  now = Date.now(),
): Promise<void> {
  const data = recipientEventData(r, r.status, details);
  await appendHistory(tx, r, kind, null, data, now);
  await publishEvent(tx, { teamId: r.team_id, routeId: r.route_id, messageId: r.message_id, kind, data, machine: details.machine === true }, now);
}

export interface SuppressionInput {
  teamId: string;
  scope: "team" | "project" | "route";
  projectId?: string | null;
  routeId?: string | null;
  email: string;
  reason: "hard_bounce" | "spam_complaint" | "unsubscribe" | "manual";
  /** The message whose bounce, complaint or unsubscribe caused it (automatic suppressions). */
  sourceMessageId?: string | null;
}

export const suppressionScopeKey = (s: Pick<SuppressionInput, "scope" | "projectId" | "routeId">): string =>
  s.scope === "team" ? "team" : s.scope === "project" ? `project:${s.projectId}` : `route:${s.routeId}`;

/** Adds an address suppression unless one exists for that scope and address (published as suppression.added). True when added. */
export async function addSuppression(tx: Repositories, s: SuppressionInput, now = Date.now()): Promise<boolean> {
  const added = await addSuppressionRow(tx, {
    id: newId(),
    team_id: s.teamId,
    scope: s.scope,
    project_id: s.scope === "project" ? (s.projectId ?? null) : null,
    route_id: s.scope === "route" ? (s.routeId ?? null) : null,
    scope_key: suppressionScopeKey(s),
    type: "email",
    email: s.email.toLowerCase(),
    reason: s.reason,
    source_message_id: s.sourceMessageId ?? null,
    created_at: now,
  }, now);
  return added !== null;
}

/**
 * The addresses among `emails` (lower-cased) suppressed for a message of this team, project and
 * route, each with the suppression that stops it: an address, domain or extension suppression of
 * the team, the project, the route or the global list (src/events/suppression-rules.ts).
 */
export async function suppressedAmong(
  read: Repositories,
  scope: { teamId: string; projectId: string; routeId: string },
  emails: readonly string[],
): Promise<Map<string, SuppressionHit>> {
  const lowered = [...new Set(emails.map((e) => e.toLowerCase()))];
  const values = [...new Set(lowered.flatMap(candidateValues))];
  const hits = await read.suppressions.hitsAmong(scope.teamId, ["team", `project:${scope.projectId}`, `route:${scope.routeId}`], values);
  const suppressed = new Map<string, SuppressionHit>();
  if (hits.length === 0) return suppressed;
  for (const email of lowered) {
    const hit = strongestHit(hits, email);
    if (hit) suppressed.set(email, hit);
  }
  return suppressed;
}
