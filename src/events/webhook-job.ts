import type { Deps } from "../context.ts";
import { scheduledBackoff, WEBHOOK_SCHEDULE_MS } from "../jobs/backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome, JobRunner, OutcomeWrite } from "../jobs/runner.ts";
import { webhookSenderFor, type WebhookSender } from "./deliver.ts";
import { WEBHOOK_QUEUE, type WebhookJob } from "./publish.ts";

export interface WebhookJobOptions {
  sender?: WebhookSender;
  /** Delays between attempts (tests shorten them); default DESIGN.md §7's schedule. */
  scheduleMs?: readonly number[];
  concurrency?: number;
  /** How long a claimed delivery is held; must exceed the timeout plus DNS time. */
  leaseMs?: number;
}

/**
 * The "webhook" job: one attempt to deliver one event to one webhook. Success completes the job;
 * 410 disables the webhook and ends it; anything else (non-2xx, timeout, network or DNS error, a
 * refused address) is retried on the schedule, honouring Retry-After, until the job's attempts
 * run out. The attempt row and the job's fate commit together.
 */
export function webhookJobHandler(deps: Deps, sender: WebhookSender, scheduleMs: readonly number[] = WEBHOOK_SCHEDULE_MS) {
  return async (job: Job<WebhookJob>): Promise<JobOutcome> => {
    const { webhookId, eventId } = job.payload;
    const [hook, ev] = await Promise.all([deps.store.read.webhooks.find(webhookId), deps.store.read.events.find(eventId)]);
    // Deleted, disabled or no longer subscribed: the queued delivery is dropped.
    if (!hook || !hook.enabled || !ev || !(JSON.parse(hook.events) as string[]).includes(ev.kind)) {
      return { type: "done" };
    }
    const result = await sender.send({ url: hook.url, secret: hook.secret, event: ev.kind, body: ev.body, attempt: job.attempt });
    const now = Date.now();
    const record =
      (nextAttemptAt: number | null): OutcomeWrite =>
      async (tx) =>
        void (await tx.webhooks.recordAttempt({ webhookId, eventId, event: ev.kind, attempt: job.attempt, result, nextAttemptAt }, now));

    if (result.outcome === "succeeded") return { type: "done", write: record(null) };
    const error = result.error ?? "failed";
    if (result.gone) return { type: "dead", error, write: record(null) };
    const delayMs = scheduledBackoff(job.attempt, scheduleMs, { requestedMs: result.retryAfterMs });
    const last = job.attempt >= job.maxAttempts;
    deps.log.debug("webhook attempt failed", { webhook: webhookId, event: eventId, attempt: job.attempt, error });
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
