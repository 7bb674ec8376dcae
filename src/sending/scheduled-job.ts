/**
 * Scheduled sending: a message accepted with a `scheduled_at` waits as `scheduled`, with one job
 * in the `scheduled` queue due at its time (not in the outbound queue, whose claims and depth it
 * would otherwise share with mail to send now). At its time the job releases it: in one commit,
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
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { OUTBOUND_MAX_ATTEMPTS, OUTBOUND_QUEUE, type OutboundJob } from "../mail/outbound-job.ts";

export const SCHEDULED_QUEUE = "scheduled";
/** A release is one short write; a node that dies holding a claim gives it back after this. */
export const SCHEDULED_LEASE_MS = 5_000;
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

/** A scheduling change in the message's history and to its route's webhooks. */
async function recordScheduling(tx: Repositories, s: Scheduling, kind: EventKind | "message.queued", status: string, extra: Record<string, unknown>, now: number): Promise<void> {
  const data = { message_id: s.messageId, status, scheduled_at: iso(s.at), ...extra, tag: s.tag, tags: s.tags, metadata: s.metadata };
  await tx.recipients.appendHistory({ id: newId(), message_id: s.messageId, recipient_id: null, kind, status, data: JSON.stringify(data), created_at: now });
  if (kind !== "message.queued") await publishEvent(tx, { teamId: s.teamId, routeId: s.routeId, messageId: s.messageId, kind, data }, now);
}

/**
 * Inside the accepting write, for an accepted message with someone left to send to (stored
 * `scheduled` with its recipients, and its history entry message.created, created scheduled):
 * message.scheduled to the webhooks, and its job due at its time.
 */
export async function scheduleMessage(tx: Repositories, s: Omit<Scheduling, "routeId"> & { routeId: string }, now: number): Promise<void> {
  const data = { message_id: s.messageId, status: "scheduled", scheduled_at: iso(s.at), tag: s.tag, tags: s.tags, metadata: s.metadata };
  await publishEvent(tx, { teamId: s.teamId, routeId: s.routeId, messageId: s.messageId, kind: "message.scheduled", data }, now);
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
 * The job at the message's time: nothing to do once it has left `scheduled`; put off (without
 * using an attempt) when run early; else the release, committed with the job's completion.
 */
export async function runScheduledJob(deps: Pick<Deps, "store">, job: Job<ScheduledJob>): Promise<JobOutcome> {
  const m = await deps.store.read.scheduled.find(job.payload.messageId);
  if (!m || m.status !== "scheduled" || m.scheduled_at === null) return { type: "done" };
  const wait = m.scheduled_at - Date.now();
  if (wait > 0) return { type: "defer", delayMs: wait };
  return { type: "done", write: (tx) => releaseMessage(tx, m) };
}

/**
 * scheduled → queued, and the outbound job, if the message is still scheduled and due (else
 * nothing); recipients suppressed since acceptance are marked suppressed and not sent to.
 */
async function releaseMessage(tx: Repositories, m: ScheduledMessageRow): Promise<void> {
  const now = Date.now();
  if (!(await tx.scheduled.release(m.id, now))) return;
  await recordScheduling(tx, schedulingOf(m, m.scheduled_at ?? now), "message.queued", "queued", {}, now);
  // Suppressions are asked again at its time: an address that unsubscribed, bounced or was
  // suppressed while the message waited is not sent to (as at acceptance, with the same reason).
  let sendable = 0;
  if (m.project_id !== null && m.route_id !== null) {
    const due = await tx.recipients.dueOf(m.id);
    const hits = await suppressedAmong(tx, { teamId: m.team_id, projectId: m.project_id, routeId: m.route_id }, due.map((r) => r.email));
    for (const r of due) {
      const hit = hits.get(r.email.toLowerCase());
      if (hit) await changeRecipientStatus(tx, { recipientId: r.id, status: "suppressed", details: { reason: "suppressed", suppression: hit } }, now);
      else sendable++;
    }
  } else sendable = 1;
  if (sendable > 0) await tx.jobs.enqueue(OUTBOUND_QUEUE, { messageId: m.id } satisfies OutboundJob, { maxAttempts: OUTBOUND_MAX_ATTEMPTS });
  else await tx.retention.redactWhenFinal(m.id, now);
}

/** Registers the scheduled queue's handler (src/job-handlers.ts). */
export function registerScheduledJobs(runner: JobRunner, deps: Pick<Deps, "store">, opts: { concurrency?: number } = {}): void {
  runner.register<ScheduledJob>(SCHEDULED_QUEUE, (job) => runScheduledJob(deps, job), {
    concurrency: opts.concurrency ?? 100,
    leaseMs: SCHEDULED_LEASE_MS,
    batch: 100,
  });
}
