import type { Deps } from "../../context.ts";
import type { Cursor } from "../../db/keyset.ts";
import { QUEUE_SORT, QUEUED_STATUSES, type QueueFilter, type QueuedMessageRow } from "../../db/queue.ts";
import type { Repositories } from "../../db/store.ts";
import { ConflictError, NotFoundError } from "../../errors.ts";
import { changeDueRecipientStatus, type RemoteReply } from "../../events/message-status.ts";
import { decodeCursor } from "../../db/keyset.ts";
import { parsePage } from "../../http/pagination.ts";
import { iso } from "../../ids.ts";
import { OUTBOUND_LEASE_MS, OUTBOUND_MAX_ATTEMPTS, OUTBOUND_QUEUE, type OutboundJob } from "../../mail/outbound-job.ts";
import { warmupHoldReason } from "../../mail/warmup.ts";
import type { BulkResultData, QueueActionQuery, QueuedMessageData } from "./model.ts";

type Ctx = Pick<Deps, "store">;

/** Messages per transaction of a bulk action: a cancel of 100,000 is many short writes, never one long one. */
export const BULK_BATCH = 200;

const QUEUED = new Set<string>(QUEUED_STATUSES);
const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();
const parseReply = (raw: string | null): RemoteReply | null => (raw ? (JSON.parse(raw) as RemoteReply) : null);

const filterOf = (q: QueueActionQuery): QueueFilter => ({
  domain: q["filter[domain]"]?.toLowerCase(),
  routeId: q["filter[route_id]"]?.toLowerCase(),
  status: q["filter[status]"],
});

/**
 * A scheduled message waits for its time, not in the delivery queue: an attempt now would send it
 * early, and its cancel is the service's (status canceled), so the queue's actions leave it alone.
 */
const SCHEDULED = "scheduled";

/** The queue's rows with their recipients still queued and their job's next run. */
async function describe(read: Repositories, rows: QueuedMessageRow[]): Promise<QueuedMessageData[]> {
  const ids = rows.map((r) => r.id);
  const [recipients, jobs, warmups] = await Promise.all([read.queue.recipientsOf(ids), read.jobs.ofMessages(OUTBOUND_QUEUE, ids), read.warmups.ofMessages(ids)]);
  const nextRun = new Map(jobs.map((j) => [j.message_id, j.run_at]));
  const warmupOf = new Map(warmups.map((w) => [w.message_id, w]));
  const now = Date.now();
  const byMessage = Map.groupBy(recipients, (r) => r.message_id);
  return rows.map((m) => {
    const mine = byMessage.get(m.id) ?? [];
    const last = mine.filter((r) => r.last_response).sort((a, b) => b.status_changed_at - a.status_changed_at)[0];
    const run = nextRun.get(m.id);
    return {
      id: m.id,
      route_id: m.route_id,
      status: m.status,
      from_email: m.from_email,
      subject: m.subject,
      created_at: iso(m.created_at)!,
      scheduled_at: iso(m.scheduled_at),
      next_attempt_at: run === undefined ? null : iso(run)!,
      attempts: Math.max(0, ...mine.map((r) => r.attempts)),
      last_response: parseReply(last?.last_response ?? null),
      held_reason: warmupHoldReason(warmupOf.get(m.id), mine, run, now),
      recipients: mine.map((r) => ({
        email: r.email,
        status: r.status,
        attempts: r.attempts,
        last_response: parseReply(r.last_response),
        status_changed_at: iso(r.status_changed_at)!,
      })),
    };
  });
}

/** One page of the team's queued outbound messages, oldest first. */
export async function listQueue(deps: Ctx, teamId: string, q: Record<string, unknown>) {
  const page = parsePage(q, QUEUE_SORT.length);
  const result = await deps.store.read.queue.list(teamId, filterOf(q as QueueActionQuery), page);
  return { page: result, data: await describe(deps.store.read, result.rows), size: page.size };
}

/**
 * Makes the messages' outbound jobs due now (a job under way is left to finish); a message whose
 * job is gone gets a new one. Attempt counts and the queue lifetime are untouched. Returns the
 * ids of the messages that will be attempted now.
 */
async function retryIn(tx: Repositories, ids: string[]): Promise<string[]> {
  const hurried = await tx.jobs.hurry(OUTBOUND_QUEUE, ids, OUTBOUND_LEASE_MS);
  const withJob = new Set((await tx.jobs.ofMessages(OUTBOUND_QUEUE, ids)).map((j) => j.message_id));
  const orphans = ids.filter((id) => !withJob.has(id));
  for (const messageId of orphans) await tx.jobs.enqueue(OUTBOUND_QUEUE, { messageId } satisfies OutboundJob, { maxAttempts: OUTBOUND_MAX_ATTEMPTS });
  return [...hurried, ...orphans];
}

/**
 * Cancels the messages' recipients still queued (only those at `domain`, if given): each becomes
 * failed with reason cancelled, through the same status change as any failure (history, webhook
 * event). A recipient whose delivery the receiving server already accepted (a receipt of an
 * attempt under way) is left for the attempt to record; a recipient the attempt recorded first
 * is final and skipped. Jobs left with nothing to deliver are removed, unless under way (they
 * then finish without delivering). Returns the recipients cancelled per message.
 */
async function cancelIn(tx: Repositories, ids: string[], domain: string | undefined): Promise<Map<string, number>> {
  const now = Date.now();
  const recipients = await tx.queue.recipientsOf(ids);
  const accepted = new Set<string>();
  for (const id of new Set(recipients.filter((r) => r.status === "processed").map((r) => r.message_id))) {
    for (const rc of await tx.deliveries.receiptsOf(id)) accepted.add(rc.recipient_id);
  }
  const cancelled = new Map<string, number>();
  for (const r of recipients) {
    if ((domain !== undefined && domainOf(r.email) !== domain) || accepted.has(r.id)) continue;
    const change = { recipientId: r.id, status: "failed", response: null, details: { reason: "cancelled" } } as const;
    if (await changeDueRecipientStatus(tx, change, now)) cancelled.set(r.message_id, (cancelled.get(r.message_id) ?? 0) + 1);
  }
  const touched = [...cancelled.keys()];
  const left = new Set((await tx.queue.recipientsOf(touched)).map((r) => r.message_id));
  const finished = touched.filter((id) => !left.has(id));
  await tx.jobs.dropOfMessages(OUTBOUND_QUEUE, finished, OUTBOUND_LEASE_MS);
  // Final now: a route with redact_email_content keeps none of their content (docs/sending.md).
  for (const id of finished) await tx.retention.redactWhenFinal(id, now);
  return cancelled;
}

/** One of the team's messages that is still queued: 404 when unknown to the team, 409 when final or inbound. */
async function queuedMessage(deps: Ctx, teamId: string, id: string, action: string) {
  const m = await deps.store.read.messages.findOfTeam(id, teamId);
  if (!m) throw new NotFoundError("Message");
  if (m.type !== "outbound") throw new ConflictError(`Only outbound messages can be ${action}; this message is inbound.`);
  if (!QUEUED.has(m.status)) throw new ConflictError(`The message is ${m.status}: only a message still in the delivery queue can be ${action}.`);
  if (m.status === SCHEDULED) {
    const how = action === "retried" ? "PATCH /v1/messages/{id} moves its time" : "POST /v1/messages/{id}/cancel cancels it";
    throw new ConflictError(`The message is scheduled for ${iso(m.scheduled_at)}, not yet in the delivery queue: ${how}.`, "MESSAGE_SCHEDULED");
  }
  return m;
}

/** The message, if still queued, as the queue lists it (null once final). */
async function queueEntry(deps: Ctx, teamId: string, id: string): Promise<QueuedMessageData | null> {
  const row = await deps.store.read.messages.findOfTeam(id, teamId);
  if (!row || !QUEUED.has(row.status)) return null;
  return (await describe(deps.store.read, [row]))[0]!;
}

/** Attempt the message now. `started`: false when an attempt was already under way or due within its lease. */
export async function retryMessage(deps: Ctx, teamId: string, id: string): Promise<{ started: boolean; data: QueuedMessageData | null }> {
  await queuedMessage(deps, teamId, id, "retried");
  const moved = await deps.store.write((tx) => retryIn(tx, [id]));
  return { started: moved.length > 0, data: await queueEntry(deps, teamId, id) };
}

/** Cancel the message's remaining recipients. */
export async function cancelMessage(deps: Ctx, teamId: string, id: string): Promise<{ cancelled: number; data: QueuedMessageData | null }> {
  await queuedMessage(deps, teamId, id, "cancelled");
  const cancelled = await deps.store.write((tx) => cancelIn(tx, [id], undefined));
  return { cancelled: cancelled.get(id) ?? 0, data: await queueEntry(deps, teamId, id) };
}

/**
 * Walks the team's queue matching the filters, one transaction per batch. The batches commit as
 * they go, outside the request's unit of work (which would hold them all in one transaction
 * until the answer): a bulk action stopped half-way has done the batches before.
 */
async function eachBatch(deps: Ctx, teamId: string, filter: QueueFilter, act: (rows: QueuedMessageRow[]) => Promise<void>): Promise<void> {
  let cursor: Cursor | null = null;
  for (;;) {
    const page = await deps.store.read.queue.list(teamId, filter, { size: BULK_BATCH, cursor });
    // A scheduled message never goes back to the queue's other statuses: skipped here, it stays skipped.
    const rows = page.rows.filter((r) => r.status !== SCHEDULED);
    if (rows.length > 0) await deps.store.detached(() => act(rows));
    if (!page.nextCursor) return;
    cursor = decodeCursor(page.nextCursor, QUEUE_SORT.length);
  }
}

/** Every queued message matching the filters attempted now; counts what was made due. */
export async function retryQueue(deps: Ctx, teamId: string, q: QueueActionQuery): Promise<BulkResultData> {
  const result = { messages: 0, recipients: 0 };
  await eachBatch(deps, teamId, filterOf(q), async (rows) => {
    // Counted in the same transaction: the recipients made due, not those left after a delivery since.
    const moved = await deps.store.write(async (tx) => {
      const ids = await retryIn(tx, rows.map((r) => r.id));
      return { ids, recipients: (await tx.queue.recipientsOf(ids)).length };
    });
    result.messages += moved.ids.length;
    result.recipients += moved.recipients;
  });
  return result;
}

/** Every queued message matching the filters cancelled (with filter[domain], only its recipients at that domain). */
export async function cancelQueue(deps: Ctx, teamId: string, q: QueueActionQuery): Promise<BulkResultData> {
  const filter = filterOf(q);
  const result = { messages: 0, recipients: 0 };
  await eachBatch(deps, teamId, filter, async (rows) => {
    const cancelled = await deps.store.write((tx) => cancelIn(tx, rows.map((r) => r.id), filter.domain));
    result.messages += cancelled.size;
    for (const n of cancelled.values()) result.recipients += n;
  });
  return result;
}
