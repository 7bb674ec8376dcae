/**
 * Scheduled sending: a message accepted with a `scheduled_at` waits as `scheduled`, with one job
 * in the `scheduled` queue due at its time (not in the outbound queue, whose claims and depth it
 * would otherwise share with mail to send now). At its time the job releases it (claimed with
 * the other jobs due then and released together, releaseBatch): in one commit,
 * the message and its recipients become `queued`, the history says so, and its outbound job is
 * enqueued; from there it is sent as any other message.
 *
 * Exactly once: the release, a reschedule and a cancel each change the message's row only while
 * it is `scheduled` (src/db/scheduled.ts), so whichever commits first wins; the other changes
 * nothing (a 409 for the API). A reschedule or cancel also removes the message's job, and a
 * reschedule enqueues a new one at the new time, in the same commit; a claim of the old job still
 * under way then finds its release refused (the time moved past now, or the message canceled)
 * and its completion fenced off. A job claimed twice (a lease that expired on a slow node) is
 * released once, by the row.
 */
import type { Deps } from "../context.ts";
import type { Job } from "../db/job-queue.ts";
import type { ScheduledMessageRow } from "../db/scheduled.ts";
import type { Repositories } from "../db/store.ts";
import { changeRecipientStatus, suppressedAmong } from "../events/message-status.ts";
import { publishEvent, type EventKind } from "../events/publish.ts";
import { iso, newId } from "../ids.ts";
import type { JobRunner, OutcomeWrite } from "../jobs/runner.ts";
import { OUTBOUND_MAX_ATTEMPTS, OUTBOUND_QUEUE, type OutboundJob } from "../mail/outbound-job.ts";

export const SCHEDULED_QUEUE = "scheduled";
/** A release is one short write; a node that dies holding a claim gives it back after this. */
export const SCHEDULED_LEASE_MS = 5_000;
/** Jobs per claim and release write. */
const SCHEDULED_BATCH = 500;
/** Jobs in flight per node: up to this many batches' writes run side by side (on PostgreSQL, each its own connection). */
const SCHEDULED_CONCURRENCY = 4 * SCHEDULED_BATCH;
/** Claims of one message's job; a defer (a job run early) gives its claim back. */
const SCHEDULED_MAX_ATTEMPTS = 100;

export interface ScheduledJob {
  messageId: string;
}

/** What a scheduling event names besides the message: its tag, tags and metadata, as the message's other events do. */
interface Scheduling {
  teamId: string;
  routeId: string | null;
  messageId: string;
  /** The time to send (epoch ms). */
  at: number;
  tag: string | null;
  tags: { name: string; value: string }[];
  metadata: Record<string, string>;
}

/** What a scheduling entry of the history and its webhook carry: the message, its new status and time, its tag, tags and metadata. */
const schedulingData = (s: Scheduling, status: string, extra: Record<string, unknown> = {}) => ({
  message_id: s.messageId,
  status,
  scheduled_at: iso(s.at),
  ...extra,
  tag: s.tag,
  tags: s.tags,
  metadata: s.metadata,
});

/** A scheduling change in the message's history and to its route's webhooks. */
async function recordScheduling(tx: Repositories, s: Scheduling, kind: EventKind, status: string, extra: Record<string, unknown>, now: number): Promise<void> {
  const data = schedulingData(s, status, extra);
  await tx.recipients.appendHistory({ id: newId(), message_id: s.messageId, recipient_id: null, kind, status, data: JSON.stringify(data), created_at: now });
  await publishEvent(tx, { teamId: s.teamId, routeId: s.routeId, messageId: s.messageId, kind, data }, now);
}

/**
 * Inside the accepting write, for an accepted message with someone left to send to (stored
 * `scheduled` with its recipients, and its history entry message.created, created scheduled):
 * message.scheduled to the webhooks, and its job due at its time.
 */
export async function scheduleMessage(tx: Repositories, s: Omit<Scheduling, "routeId"> & { routeId: string }, now: number): Promise<void> {
  await publishEvent(tx, { teamId: s.teamId, routeId: s.routeId, messageId: s.messageId, kind: "message.scheduled", data: schedulingData(s, "scheduled") }, now);
  await tx.jobs.enqueue(SCHEDULED_QUEUE, { messageId: s.messageId } satisfies ScheduledJob, { runAt: s.at, maxAttempts: SCHEDULED_MAX_ATTEMPTS });
}

const schedulingOf = (m: ScheduledMessageRow, at: number): Scheduling => ({
  teamId: m.team_id,
  routeId: m.route_id,
  messageId: m.id,
  at,
  tag: m.tag,
  tags: JSON.parse(m.tags) as Scheduling["tags"],
  metadata: JSON.parse(m.metadata) as Record<string, string>,
});

/**
 * Moves a scheduled message to `at` (inside a write): its job replaced by one due then, and
 * message.rescheduled recorded. False, changing nothing, once the message has left `scheduled`.
 */
export async function rescheduleMessage(tx: Repositories, m: ScheduledMessageRow, at: number, now: number): Promise<boolean> {
  if (!(await tx.scheduled.reschedule(m.id, at, now))) return false;
  await tx.jobs.dropAllOfMessage(SCHEDULED_QUEUE, m.id);
  await tx.jobs.enqueue(SCHEDULED_QUEUE, { messageId: m.id } satisfies ScheduledJob, { runAt: at, maxAttempts: SCHEDULED_MAX_ATTEMPTS });
  await recordScheduling(tx, schedulingOf(m, at), "message.rescheduled", "scheduled", { previous_scheduled_at: iso(m.scheduled_at) }, now);
  return true;
}

/**
 * Cancels a scheduled message (inside a write): it and its recipients `canceled`, its job gone,
 * message.canceled recorded. False, changing nothing, once the message has left `scheduled`.
 */
export async function cancelScheduledMessage(tx: Repositories, m: ScheduledMessageRow, now: number): Promise<boolean> {
  if (!(await tx.scheduled.cancel(m.id, now))) return false;
  await tx.jobs.dropAllOfMessage(SCHEDULED_QUEUE, m.id);
  await recordScheduling(tx, schedulingOf(m, m.scheduled_at ?? now), "message.canceled", "canceled", {}, now);
  // Final now: a redacting route keeps none of its content (docs/sending.md, Route settings).
  await tx.retention.redactWhenFinal(m.id, now);
  return true;
}

/**
 * A claimed batch of the queue's jobs, released set-based in one write (registered with
 * registerBatch): one UPDATE … RETURNING moves the messages still scheduled and due to queued
 * (with their recipients), one multi-row INSERT records their history, one suppression probe per
 * sending scope (route) asks again for all their recipients, one multi-row INSERT enqueues their
 * outbound jobs, one DELETE completes the jobs; the outbound lane wakes once that commits. A
 * statement count that does not grow with the batch: 2,000 messages due in one second no longer
 * cost 2,000 transactions of ~8 round trips each on PostgreSQL.
 *
 * Exactly once as before: a message is released only by the UPDATE that finds it `scheduled`; a
 * job whose message left `scheduled` (canceled, rescheduled, released by another claim of the
 * same job) is completed having changed nothing; one run early (its message not due yet) is put
 * off to the message's time without using an attempt.
 */
export function releaseBatch(jobs: readonly Job<ScheduledJob>[]): OutcomeWrite {
  return async (tx) => {
    const now = Date.now();
    const ids = [...new Set(jobs.map((j) => j.payload.messageId))];
    const { messages, recipients } = await tx.scheduled.releaseMany(ids, now);
    const released = new Set(messages.map((m) => m.id));
    await tx.scheduled.recordReleases(
      messages.map((m) => ({ id: newId(), message_id: m.id, data: JSON.stringify(schedulingData(schedulingOf(m, m.scheduled_at ?? now), "queued")), created_at: now })),
    );
    // Suppressions are asked again at its time: an address that unsubscribed, bounced or was
    // suppressed while the message waited is not sent to (as at acceptance, with the same reason).
    const sendable = new Set<string>();
    const byScope = new Map<string, { scope: { teamId: string; projectId: string; routeId: string }; ids: Set<string> }>();
    for (const m of messages) {
      if (m.project_id === null || m.route_id === null) {
        sendable.add(m.id);
        continue;
      }
      const key = `${m.team_id} ${m.project_id} ${m.route_id}`;
      const group = byScope.get(key) ?? byScope.set(key, { scope: { teamId: m.team_id, projectId: m.project_id, routeId: m.route_id }, ids: new Set() }).get(key)!;
      group.ids.add(m.id);
    }
    for (const { scope, ids: inScope } of byScope.values()) {
      const due = recipients.filter((r) => inScope.has(r.message_id));
      const hits = await suppressedAmong(tx, scope, due.map((r) => r.email));
      for (const r of due) {
        const hit = hits.get(r.email.toLowerCase());
        if (hit) await changeRecipientStatus(tx, { recipientId: r.id, status: "suppressed", details: { reason: "suppressed", suppression: hit } }, now);
        else sendable.add(r.message_id);
      }
    }
    await tx.jobs.enqueueMany(
      OUTBOUND_QUEUE,
      messages.filter((m) => sendable.has(m.id)).map((m) => ({ messageId: m.id }) satisfies OutboundJob),
      { maxAttempts: OUTBOUND_MAX_ATTEMPTS },
    );
    for (const m of messages) if (!sendable.has(m.id)) await tx.retention.redactWhenFinal(m.id, now);

    // The jobs: done, unless run before their message's time (put off to it).
    const done = jobs.filter((j) => released.has(j.payload.messageId));
    const rest = jobs.filter((j) => !released.has(j.payload.messageId));
    if (rest.length > 0) {
      const still = new Map((await tx.scheduled.findMany(rest.map((j) => j.payload.messageId))).map((m) => [m.id, m]));
      for (const job of rest) {
        const m = still.get(job.payload.messageId);
        if (m && m.status === "scheduled" && m.scheduled_at !== null && m.scheduled_at > now) await tx.jobs.defer(job, m.scheduled_at - now);
        else done.push(job);
      }
    }
    await tx.jobs.completeMany(done);
  };
}

/** Registers the scheduled queue's handler (src/job-handlers.ts). */
export function registerScheduledJobs(runner: JobRunner, _deps: Pick<Deps, "store">, opts: { concurrency?: number; batch?: number } = {}): void {
  runner.registerBatch<ScheduledJob>(SCHEDULED_QUEUE, async (jobs) => releaseBatch(jobs), {
    concurrency: opts.concurrency ?? SCHEDULED_CONCURRENCY,
    leaseMs: SCHEDULED_LEASE_MS,
    batch: opts.batch ?? SCHEDULED_BATCH,
  });
}
