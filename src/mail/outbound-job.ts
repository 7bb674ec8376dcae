/**
 * The outbound queue: one job per accepted message. Its first run composes and DKIM-signs the
 * message (stored as its raw source), marks the recipients queued and processed, and delivers to
 * every destination domain over SMTP (direct to MX, through the relay, or to the sink), all with
 * the composed bytes in hand. Soft failures retry the same job on DELIVERY_SCHEDULE_MS until the
 * queue lifetime; a retry finds the raw source stored and only delivers.
 *
 * This file registers the queue and owns the stage's lifetime (the lease kept while a job runs,
 * shutdown); the steps of a run are in outbound-attempt.ts, the state they share in
 * outbound-context.ts.
 */
import type { Deps } from "../context.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { runOutboundJob, type OutboundJob } from "./outbound-attempt.ts";
import { openOutboundContext, type OutboundContext, type OutboundOptions } from "./outbound-context.ts";
import type { SmtpSender } from "./smtp-pool.ts";

export type { OutboundJob } from "./outbound-attempt.ts";
export type { OutboundOptions } from "./outbound-context.ts";

export const OUTBOUND_QUEUE = "outbound";
/** Claims of one message's job, crashes included; the queue lifetime ends it long before. */
export const OUTBOUND_MAX_ATTEMPTS = 1000;
/** How long a claimed job is held by default (renewed while it runs); queue control leaves a job due within it alone. */
export const OUTBOUND_LEASE_MS = 10_000;

/**
 * The jobs under way, each kept leased while it runs (so that a short lease is safe for slow SMTP
 * servers), so that shutdown can stop starting new ones and let these finish before the
 * connections close.
 */
class OutboundWork {
  private closing = false;
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    readonly ctx: OutboundContext,
    private readonly leaseMs: number,
  ) {}

  /** Runs a claimed job; while shutting down, claimed jobs are put back untouched rather than started. */
  run(job: Job<OutboundJob>): Promise<JobOutcome> {
    if (this.closing) return Promise.resolve({ type: "retry", delayMs: 1000, error: "server shutting down" });
    this.ctx.warm();
    const p = this.leased(job);
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p)).catch(() => {});
    return p;
  }

  private async leased(job: Job<OutboundJob>): Promise<JobOutcome> {
    const timer = setInterval(() => {
      this.ctx.deps.store.write((tx) => tx.jobs.extend(job, this.leaseMs)).catch(() => {});
    }, this.leaseMs / 3);
    try {
      return await runOutboundJob(this.ctx, job);
    } finally {
      clearInterval(timer);
    }
  }

  /** Stops starting jobs and waits (up to 15 s) for those under way, so that no accepted reply goes unrecorded. */
  async stop(): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + 15_000;
    while (this.inflight.size > 0 && Date.now() < deadline) await Promise.race([Promise.allSettled([...this.inflight]), Bun.sleep(100)]);
  }
}

/** The outbound stage of each Deps, closed at shutdown by closeOutbound. */
const stages = new WeakMap<Deps, OutboundWork>();

/**
 * Shutdown: stops starting deliveries, lets those under way finish (up to 15 s) so that no
 * accepted reply goes unrecorded, then closes the SMTP connections and compose workers.
 */
export async function closeOutbound(deps: Deps): Promise<void> {
  const work = stages.get(deps);
  if (!work) return;
  stages.delete(deps);
  await work.stop();
  work.ctx.pools.close();
  work.ctx.composer.close();
  work.ctx.shaper?.close();
}

/** Registers the outbound queue. Returns the pools (tests read their stats). */
export function registerOutboundJobs(runner: JobRunner, deps: Deps, opts: OutboundOptions = {}): SmtpSender {
  void closeOutbound(deps);
  const work = new OutboundWork(openOutboundContext(deps, opts), opts.leaseMs ?? OUTBOUND_LEASE_MS);
  stages.set(deps, work);
  runner.register<OutboundJob>(OUTBOUND_QUEUE, (job) => work.run(job), { concurrency: opts.concurrency ?? deps.config.deliveryConcurrency, leaseMs: opts.leaseMs ?? OUTBOUND_LEASE_MS });
  return work.ctx.pools;
}
