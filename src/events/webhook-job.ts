import type { Deps } from "../context.ts";
import { scheduledBackoff, WEBHOOK_SCHEDULE_MS } from "../pacing/backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { Repositories, Store } from "../db/store.ts";
import type { JobOutcome, JobRunner, OutcomeWrite } from "../jobs/runner.ts";
import { webhookSenderFor, type WebhookSender } from "./webhook-post.ts";
import { WEBHOOK_MAX_ATTEMPTS, WEBHOOK_QUEUE, type WebhookJob } from "./publish.ts";

export interface WebhookJobOptions {
  sender?: WebhookSender;
  /** Delays between attempts (tests shorten them); default the schedule in src/pacing/backoff.ts (docs/webhooks.md). */
  scheduleMs?: readonly number[];
  concurrency?: number;
  /** How long a claimed delivery is held; must exceed the timeout plus DNS time. */
  leaseMs?: number;
}

/**
 * Puts the event's next attempt number at the webhook on record before the attempt goes out (it
 * is sent in X-Service-Attempt), so a queued retry and a redelivery by hand never share one.
 * Committed on its own, outside any unit of work the caller is in: held there, it would keep
 * every other write waiting while the receiver answers. The lock keeps two nodes from taking the
 * same number. Null when the webhook is gone.
 */
export function reserveWebhookAttempt(store: Store, a: { webhookId: string; eventId: string; event: string; atLeast?: number }) {
  return store.detached(() =>
    store.write(async (tx) => {
      await tx.locks.take(`webhook-attempt:${a.webhookId}:${a.eventId}`);
      return tx.webhooks.reserveAttempt(a);
    }),
  );
}

/** Named lock that takes turns between the deliveries of one message's events to one webhook (see webhookJobHandler). */
const orderLock = (webhookId: string, messageId: string) => `webhook-order:${webhookId}:${messageId}`;

/**
 * The "webhook" job: one attempt to deliver one event to one webhook. Success completes the job;
 * 410 disables the webhook and ends it; anything else (non-2xx, timeout, network or DNS error, a
 * refused address) is retried on the schedule, honouring Retry-After, until the job's attempts
 * run out. The job's attempts drive the schedule; the number sent is the event's next at the
 * webhook, redeliveries counted. The attempt's result and the job's fate commit together.
 *
 * One message's events reach a webhook in the order they happened (docs/webhooks.md): a job is
 * not sent while a job queued before it for the same message and webhook is live (queued, under
 * way or waiting for a retry). It is put off, without using an attempt, until well after that
 * one is due (see `until`); the earlier job, once done or dead, makes the ones behind it due at once. The
 * put-off re-checks in its own transaction, under a lock the earlier job's outcome takes too, so
 * an earlier job that ends between the check and the put-off cannot leave it waiting.
 */
export function webhookJobHandler(deps: Deps, sender: WebhookSender, scheduleMs: readonly number[] = WEBHOOK_SCHEDULE_MS, leaseMs = sender.timeoutMs + 30_000) {
  return async (job: Job<WebhookJob>): Promise<JobOutcome> => {
    const { webhookId, eventId, messageId } = job.payload;
    const [hook, ev, ahead] = await Promise.all([
      deps.store.read.webhooks.find(webhookId),
      deps.store.read.events.find(eventId),
      messageId ? deps.store.read.jobs.webhookJobAhead(WEBHOOK_QUEUE, { beforeId: job.id, webhookId, messageId }) : null,
    ]);
    if (messageId && ahead !== null) {
      // An earlier job under way or waiting for its retry: until a lease past its due time (the
      // end of its lease, or its retry's time), woken by it before that unless its node died. One
      // due but not yet claimed: a second, when it will be under way.
      const until = (due: number) => (due > Date.now() ? due + leaseMs + 1000 - Date.now() : 1000);
      const outcome = {
        type: "defer" as const,
        delayMs: until(ahead),
        // The runner settles the job after this write, with the delay it leaves.
        write: async (tx: Repositories) => {
          await tx.locks.take(orderLock(webhookId, messageId));
          const still = await tx.jobs.webhookJobAhead(WEBHOOK_QUEUE, { beforeId: job.id, webhookId, messageId });
          outcome.delayMs = still === null ? 0 : until(still);
        },
      };
      return outcome;
    }
    // Done or dead, this job lets the ones behind it (same message, same webhook) go now.
    const ended = (write?: OutcomeWrite): OutcomeWrite | undefined =>
      messageId
        ? async (tx) => {
            await write?.(tx);
            await tx.locks.take(orderLock(webhookId, messageId));
            await tx.jobs.wakeWebhookJobsBehind(WEBHOOK_QUEUE, { afterId: job.id, webhookId, messageId, leaseMs });
          }
        : write;
    // Deleted, disabled or no longer subscribed: the queued delivery is dropped.
    if (!hook || !hook.enabled || !ev || !(JSON.parse(hook.events) as string[]).includes(ev.kind)) {
      return { type: "done", write: ended() };
    }
    // Claims given back by put-offs (each raised max_attempts by one) are not attempts.
    const tries = job.attempt - Math.max(0, job.maxAttempts - WEBHOOK_MAX_ATTEMPTS);
    // The first attempt is number 1 without a reservation (a commit and an fsync before it went
    // out: -20-35 % deliveries per second): until it is on record the event has no delivery to
    // redeliver, and the job is the event's only one at the webhook. Retries take theirs on record.
    let reserved: { id: string; attempt: number } | null = null;
    if (tries > 1) {
      reserved = await reserveWebhookAttempt(deps.store, { webhookId, eventId, event: ev.kind, atLeast: tries });
      if (!reserved) return { type: "done", write: ended() }; // the webhook was deleted meanwhile
    }
    const attempt = reserved?.attempt ?? 1;
    const result = await sender.send({ url: hook.url, secret: hook.secret, event: ev.kind, body: ev.body, attempt });
    const now = Date.now();
    const record =
      (nextAttemptAt: number | null): OutcomeWrite =>
      async (tx) =>
        void (reserved
          ? await tx.webhooks.completeAttempt(reserved.id, webhookId, result, nextAttemptAt, now)
          : await tx.webhooks.recordAttempt({ webhookId, eventId, event: ev.kind, attempt, result, nextAttemptAt }, now));

    if (result.outcome === "succeeded") return { type: "done", write: ended(record(null)) };
    const error = result.error ?? "failed";
    if (result.gone) return { type: "dead", error, write: ended(record(null)) };
    const delayMs = scheduledBackoff(tries, scheduleMs, { requestedMs: result.retryAfterMs });
    const last = job.attempt >= job.maxAttempts;
    deps.log.debug("webhook attempt failed", { webhook: webhookId, event: eventId, attempt, error });
    // The last attempt's failure kills the job: the ones behind it go then.
    return { type: "retry", delayMs, error, write: last ? ended(record(null)) : record(now + delayMs) };
  };
}

/** Registers the "webhook" queue on the runner. */
export function registerWebhookJobs(runner: JobRunner, deps: Deps, opts: WebhookJobOptions = {}): void {
  const sender = opts.sender ?? webhookSenderFor(deps);
  const leaseMs = opts.leaseMs ?? sender.timeoutMs + 30_000;
  runner.register(WEBHOOK_QUEUE, webhookJobHandler(deps, sender, opts.scheduleMs, leaseMs), {
    concurrency: opts.concurrency ?? deps.config.webhookConcurrency,
    leaseMs,
  });
}
