/**
 * Retry delays: capped exponential backoff and fixed schedules, with jitter, and the schedules of
 * outbound mail and webhooks. Pure arithmetic, a leaf: the job queue (db/job-queue.ts) and every
 * queue's handler (mail/outbound-job.ts, smtp/inbound-job.ts, events/webhook-job.ts, tls/) use it.
 */

/**
 * Capped exponential backoff with ±jitter. `attempt` counts from 1 (the delay after the first
 * failure). The result never exceeds `capMs`, jitter included.
 */
export function exponentialBackoff(
  attempt: number,
  { baseMs = 1000, capMs = 3_600_000, jitter = 0.1 }: { baseMs?: number; capMs?: number; jitter?: number } = {},
  random: () => number = Math.random,
): number {
  const raw = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  const spread = raw * jitter * (random() * 2 - 1);
  return Math.max(0, Math.min(capMs, Math.round(raw + spread)));
}

/**
 * A fixed schedule (e.g. 1 m, 5 m, 15 m, …) whose last step repeats, with ±jitter.
 * `attempt` counts from 1. A remote's requested delay ("try again in N") wins when longer.
 */
export function scheduledBackoff(
  attempt: number,
  scheduleMs: readonly number[],
  { jitter = 0.1, requestedMs }: { jitter?: number; requestedMs?: number | null } = {},
  random: () => number = Math.random,
): number {
  const step = scheduleMs[Math.min(attempt, scheduleMs.length) - 1] ?? scheduleMs[scheduleMs.length - 1]!;
  const jittered = Math.round(step * (1 + jitter * (random() * 2 - 1)));
  return requestedMs && requestedMs > jittered ? requestedMs : jittered;
}

const M = 60_000;
const H = 60 * M;
/** Outbound mail soft failures (docs/sending.md, Delivery); the last step repeats until the queue lifetime. */
export const DELIVERY_SCHEDULE_MS = [1 * M, 5 * M, 15 * M, 30 * M, 1 * H, 2 * H, 4 * H] as const;
/** Webhook deliveries (docs/webhooks.md, Retries and the delivery log). */
export const WEBHOOK_SCHEDULE_MS = [30_000, 2 * M, 10 * M, 30 * M, 1 * H, 2 * H, 4 * H, 8 * H, 16 * H, 24 * H] as const;
