import type { Writer } from "../db/writer.ts";
import type { Logger } from "../log.ts";
import type { Job, JobQueue } from "./queue.ts";

/**
 * What a handler decided. `write` runs in the same transaction that completes, retries or kills
 * the job, so a state change and the job's fate are committed together.
 */
export type JobOutcome =
  | { type: "done"; write?: () => void }
  | { type: "retry"; delayMs: number; error: string; write?: () => void }
  | { type: "dead"; error: string; write?: () => void };

export type JobHandler<P = any> = (job: Job<P>) => Promise<JobOutcome | void>;

export interface QueueOptions {
  concurrency: number;
  leaseMs: number;
  /** Jobs claimed per claim statement. */
  batch?: number;
  /** Longest idle sleep between polls; enqueues in this process wake the runner at once. */
  pollMs?: number;
}

type Lane = { name: string; handler: JobHandler; opts: Required<QueueOptions>; inflight: number; timer: Timer | null; pumping: boolean };

/** Runs handlers for queued jobs with bounded concurrency per queue. */
export class JobRunner {
  private readonly lanes = new Map<string, Lane>();
  private running = false;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly queue: JobQueue,
    private readonly writer: Writer,
    private readonly log: Logger,
  ) {}

  register<P>(name: string, handler: JobHandler<P>, opts: QueueOptions): this {
    this.lanes.set(name, {
      name,
      handler: handler as JobHandler,
      opts: { batch: Math.min(opts.concurrency, 100), pollMs: 1000, ...opts },
      inflight: 0,
      timer: null,
      pumping: false,
    });
    return this;
  }

  start(): void {
    this.running = true;
    for (const lane of this.lanes.values()) this.pump(lane);
  }

  /** Tells the runner that `queue` has new due work (called after an enqueue commits). */
  wake(queue?: string): void {
    if (!this.running) return;
    for (const lane of this.lanes.values()) if (!queue || lane.name === queue) this.pump(lane);
  }

  /** Stops claiming and waits (up to `timeoutMs`) for running jobs to finish. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    for (const lane of this.lanes.values()) if (lane.timer) clearTimeout(lane.timer);
    const deadline = Date.now() + timeoutMs;
    while (this.inflight() > 0 && Date.now() < deadline) {
      await new Promise<void>((r) => {
        this.idle.add(r);
        setTimeout(r, 50);
      });
    }
  }

  inflight(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.inflight;
    return n;
  }

  private pump(lane: Lane): void {
    if (!this.running || lane.pumping) return;
    lane.pumping = true;
    try {
      if (lane.timer) {
        clearTimeout(lane.timer);
        lane.timer = null;
      }
      while (this.running && lane.inflight < lane.opts.concurrency) {
        const want = Math.min(lane.opts.batch, lane.opts.concurrency - lane.inflight);
        let jobs: Job[];
        try {
          jobs = this.queue.claim(lane.name, want, lane.opts.leaseMs);
        } catch (err) {
          this.log.error("job claim failed", { queue: lane.name, error: String(err) });
          break;
        }
        for (const job of jobs) this.run(lane, job);
        if (jobs.length < want) break;
      }
      if (this.running && lane.inflight < lane.opts.concurrency) {
        const next = this.queue.nextDue(lane.name);
        const wait = next === null ? lane.opts.pollMs : Math.max(5, Math.min(lane.opts.pollMs, next - Date.now()));
        lane.timer = setTimeout(() => this.pump(lane), wait);
      }
    } finally {
      lane.pumping = false;
    }
  }

  private run(lane: Lane, job: Job): void {
    lane.inflight++;
    const finish = (outcome: JobOutcome): Promise<unknown> =>
      this.writer.write(() => {
        outcome.write?.();
        if (outcome.type === "done") return this.queue.complete(job);
        if (outcome.type === "retry") return this.queue.fail(job, outcome.error, { delayMs: outcome.delayMs });
        return this.queue.fail(job, outcome.error, { permanent: true });
      });

    lane
      .handler(job)
      .then(
        (outcome) => finish(outcome ?? { type: "done" }),
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          this.log.warn("job failed", { queue: lane.name, job: job.id, attempt: job.attempt, error: message });
          return this.writer.write(() => this.queue.fail(job, message));
        },
      )
      .catch((err: unknown) => this.log.error("job bookkeeping failed", { queue: lane.name, job: job.id, error: String(err) }))
      .finally(() => {
        lane.inflight--;
        for (const r of this.idle) r();
        this.idle.clear();
        this.pump(lane);
      });
  }
}
