import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import type { Deps } from "../context.ts";
import { iso, newId } from "../ids.ts";
import { scheduledBackoff, WEBHOOK_SCHEDULE_MS } from "../jobs/backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { webhookSenderFor, type AttemptResult, type WebhookSender } from "./deliver.ts";
import { WEBHOOK_QUEUE, type WebhookJob } from "./publish.ts";

export interface AttemptRecord {
  webhookId: string;
  eventId: string;
  event: string;
  attempt: number;
  result: AttemptResult;
  nextAttemptAt: number | null;
}

/**
 * Records one attempt and stamps the webhook's last_called_at; on 410 Gone also disables it.
 * Synchronous, for a Writer transaction. Nothing is written when the webhook was deleted meanwhile.
 * Returns the delivery row's id, or null.
 */
export function recordAttempt(sqlite: Database, a: AttemptRecord, now = Date.now()): string | null {
  const id = newId();
  const r = a.result;
  const inserted = stmt(sqlite, `INSERT INTO webhook_deliveries
         (id, webhook_id, event_id, event, attempt, outcome, status_code, duration_ms, error, response_excerpt, next_attempt_at, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?)`)
    .run(id, a.webhookId, a.eventId, a.event, a.attempt, r.outcome, r.statusCode, r.durationMs, r.error, r.responseExcerpt, a.nextAttemptAt, now, a.webhookId);
  if (inserted.changes === 0) return null;
  if (r.gone) {
    stmt(sqlite, "UPDATE webhooks SET last_called_at = ?, enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?")
      .run(now, `The receiver answered 410 Gone at ${iso(now)}; deliveries stopped. Re-enable the webhook to resume.`, now, a.webhookId);
  } else {
    stmt(sqlite, "UPDATE webhooks SET last_called_at = ? WHERE id = ?").run(now, a.webhookId);
  }
  return id;
}

type HookRow = { id: string; url: string; secret: string; enabled: number; events: string };
type EventRow = { kind: string; body: string };

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
  const hookStmt = deps.sqlite.prepare<HookRow, [string]>("SELECT id, url, secret, enabled, events FROM webhooks WHERE id = ?");
  const eventStmt = deps.sqlite.prepare<EventRow, [string]>("SELECT kind, body FROM events WHERE id = ?");

  return async (job: Job<WebhookJob>): Promise<JobOutcome> => {
    const { webhookId, eventId } = job.payload;
    const hook = hookStmt.get(webhookId);
    const ev = eventStmt.get(eventId);
    // Deleted, disabled or no longer subscribed: the queued delivery is dropped.
    if (!hook || !hook.enabled || !ev || !(JSON.parse(hook.events) as string[]).includes(ev.kind)) {
      return { type: "done" };
    }
    const result = await sender.send({ url: hook.url, secret: hook.secret, event: ev.kind, body: ev.body, attempt: job.attempt });
    const now = Date.now();
    const record = (nextAttemptAt: number | null) => () =>
      void recordAttempt(deps.sqlite, { webhookId, eventId, event: ev.kind, attempt: job.attempt, result, nextAttemptAt }, now);

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
