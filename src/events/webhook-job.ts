import type { Deps } from "../context.ts";
import { scheduledBackoff, WEBHOOK_SCHEDULE_MS } from "../pacing/backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { Store } from "../db/store.ts";
import type { JobOutcome, JobRunner, OutcomeWrite } from "../jobs/runner.ts";
import { webhookSenderFor, type WebhookSender } from "./webhook-post.ts";
import { WEBHOOK_QUEUE, type WebhookJob } from "./publish.ts";

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

/**
 * The "webhook" job: one attempt to deliver one event to one webhook. Success completes the job;
 * 410 disables the webhook and ends it; anything else (non-2xx, timeout, network or DNS error, a
 * refused address) is retried on the schedule, honouring Retry-After, until the job's attempts
 * run out. The job's attempts drive the schedule; the number sent is the event's next at the
 * webhook, redeliveries counted. The attempt's result and the job's fate commit together.
 */
export function webhookJobHandler(deps: Deps, sender: WebhookSender, scheduleMs: readonly number[] = WEBHOOK_SCHEDULE_MS) {
  return async (job: Job<WebhookJob>): Promise<JobOutcome> => {
    const { webhookId, eventId } = job.payload;
    const [hook, ev] = await Promise.all([deps.store.read.webhooks.find(webhookId), deps.store.read.events.find(eventId)]);
    // Deleted, disabled or no longer subscribed: the queued delivery is dropped.
    if (!hook || !hook.enabled || !ev || !(JSON.parse(hook.events) as string[]).includes(ev.kind)) {
      return { type: "done" };
    }
    // The first attempt is number 1 without a reservation (a commit and an fsync before it went
    // out: -20-35 % deliveries per second): until it is on record the event has no delivery to
    // redeliver, and the job is the event's only one at the webhook. Retries take theirs on record.
    let reserved: { id: string; attempt: number } | null = null;
    if (job.attempt > 1) {
      reserved = await reserveWebhookAttempt(deps.store, { webhookId, eventId, event: ev.kind, atLeast: job.attempt });
      if (!reserved) return { type: "done" }; // the webhook was deleted meanwhile
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

    if (result.outcome === "succeeded") return { type: "done", write: record(null) };
    const error = result.error ?? "failed";
    if (result.gone) return { type: "dead", error, write: record(null) };
    const delayMs = scheduledBackoff(job.attempt, scheduleMs, { requestedMs: result.retryAfterMs });
    const last = job.attempt >= job.maxAttempts;
    deps.log.debug("webhook attempt failed", { webhook: webhookId, event: eventId, attempt, error });
    return { type: "retry", delayMs, error, write: record(last ? null : now + delayMs) };
  };
}

/** Registers the "webhook" queue on the runner. */
export function registerWebhookJobs(runner: JobRunner, deps: Deps, opts: WebhookJobOptions = {}): void {
  const sender = opts.sender ?? webhookSenderFor(deps);
  runner.register(WEBHOOK_QUEUE, webhookJobHandler(deps, sender, opts.scheduleMs), {
    concurrency: opts.concurrency ?? deps.config.webhookConcurrency,
    leaseMs: opts.leaseMs ?? sender.timeoutMs + 30_000,
  });
}
