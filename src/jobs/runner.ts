import type { Repositories, Store } from "../db/store.ts";
import type { Logger } from "../log.ts";
import type { Job } from "../db/job-queue.ts";

/** A write that goes with a job's outcome: given the transaction's repositories. */
export type OutcomeWrite = (tx: Repositories) => void | Promise<void>;

/**
 * What a handler decided. `write` runs in the same transaction that completes, retries or kills
 * the job, so a state change and the job's fate are committed together.
 */
export type JobOutcome =
  | { type: "done"; write?: OutcomeWrite }
  | { type: "retry"; delayMs: number; error: string; write?: OutcomeWrite }
  /** Put off without counting as an attempt (e.g. held back by traffic shaping); no error recorded. */
  | { type: "defer"; delayMs: number; write?: OutcomeWrite }
  | { type: "dead"; error: string; write?: OutcomeWrite };

export type JobHandler<P = any> = (job: Job<P>) => Promise<JobOutcome | void>;

/**
 * A handler of a whole claimed batch (registerBatch): returns the one write that does the batch's
 * work and settles every one of its jobs (completes, defers or fails each), committed together.
 * Should it throw, or its write fail, each job of the batch is failed (retried with backoff).
 */
export type BatchHandler<P = any> = (jobs: Job<P>[]) => Promise<OutcomeWrite>;

export interface QueueOptions {
  concurrency: number;
  leaseMs: number;
  /** Jobs claimed per claim statement. */
  batch?: number;
  /** Longest idle sleep between polls; enqueues in this process wake the runner at once. */
  pollMs?: number;
}

type Lane = {
  name: string;
  handler: JobHandler;
  /** Set by registerBatch: each claim's jobs go to it together (runBatch), not one by one to `handler`. */
  batchHandler: BatchHandler | null;
  opts: Required<QueueOptions>;
  inflight: number;
  timer: Timer | null;
  /** When `timer` fires (epoch ms). */
  timerAt: number;
  /** The earliest job due later that this process enqueued while a claim was in flight (wakeAt), 0 for none. */
  hintAt: number;
  pumping: boolean;
  again: boolean;
  /** A pump is scheduled for the next turn (see release in run). */
  refill: boolean;
};

/** Runs handlers for queued jobs with bounded concurrency per queue. */
export class JobRunner {
  private readonly lanes = new Map<string, Lane>();
  private running = false;
  private readonly idle = new Set<() => void>();
  /** Outcomes being committed: a slot is freed before its outcome commits, and stop() waits for these too. */
  private readonly settling = new Set<Promise<unknown>>();

  private readonly store: Store;
  private readonly log: Logger;

  constructor(deps: { store: Store; log: Logger }) {
    ({ store: this.store, log: this.log } = deps);
  }

  register<P>(name: string, handler: JobHandler<P>, opts: QueueOptions): this {
    this.lanes.set(name, {
      name,
      handler: handler as JobHandler,
      batchHandler: null,
      opts: { batch: Math.min(opts.concurrency, 100), pollMs: 1000, ...opts },
      inflight: 0,
      timer: null,
      timerAt: 0,
      hintAt: 0,
      pumping: false,
      again: false,
      refill: false,
    });
    return this;
  }

  /**
   * A queue whose jobs are handled a claimed batch at a time, in one write (set-based work: the
   * scheduled queue's releases, src/sending/scheduled-job.ts). A batch holds `jobs.length` of the
   * lane's `concurrency` until its write commits; `batch` is the most jobs per claim and write.
   */
  registerBatch<P>(name: string, handler: BatchHandler<P>, opts: QueueOptions): this {
    this.register(name, () => Promise.reject(new Error(`${name} is a batch queue`)), opts);
    this.lanes.get(name)!.batchHandler = handler as BatchHandler;
    return this;
  }

  /** Starts claiming; from now on every enqueue in this process wakes the runner. */
  start(): void {
    this.running = true;
    this.store.signals.onEnqueue = (queue) => this.wake(queue);
    this.store.signals.onLater = (queue, runAt) => this.wakeAt(queue, runAt);
    for (const lane of this.lanes.values()) void this.pump(lane);
  }

  /** Tells the runner that `queue` has new due work (called after an enqueue commits). */
  wake(queue?: string): void {
    if (!this.running) return;
    // Jobs never run inside the unit of work of a request that happens to wake the runner.
    this.store.detached(() => {
      for (const lane of this.lanes.values()) if (!queue || lane.name === queue) void this.pump(lane);
    });
  }

  /**
   * Tells the runner that `queue` gets a job due at `runAt`: an idle lane whose timer would fire
   * later is set to fire then, so the job starts at its time rather than at the next poll (up to
   * pollMs late). Other nodes poll, and then sleep exactly until their next due job.
   */
  wakeAt(queue: string, runAt: number): void {
    const lane = this.lanes.get(queue);
    if (!this.running || !lane) return;
    if (lane.pumping) lane.hintAt = lane.hintAt === 0 ? runAt : Math.min(lane.hintAt, runAt);
    else if (lane.timer && lane.timerAt > runAt) this.sleep(lane, runAt - Date.now());
  }

  private sleep(lane: Lane, ms: number): void {
    if (lane.timer) clearTimeout(lane.timer);
    const wait = Math.max(5, ms);
    lane.timerAt = Date.now() + wait;
    lane.timer = setTimeout(() => {
      lane.timer = null;
      void this.pump(lane);
    }, wait);
  }

  /** Stops claiming and waits (up to `timeoutMs`) for running jobs to finish. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.running = false;
    this.store.signals.onEnqueue = null;
    this.store.signals.onLater = null;
    for (const lane of this.lanes.values()) if (lane.timer) clearTimeout(lane.timer);
    const deadline = Date.now() + timeoutMs;
    while (this.inflight() > 0 && Date.now() < deadline) {
      await new Promise<void>((r) => {
        this.idle.add(r);
        setTimeout(r, 50);
      });
    }
    // The outcomes of the jobs that finished are committed before the store may close.
    if (this.settling.size > 0) await Promise.race([Promise.allSettled([...this.settling]), Bun.sleep(Math.max(0, deadline - Date.now()))]);
  }

  inflight(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.inflight;
    return n;
  }

  /**
   * Claims due jobs into free slots. Claims go through the group-commit writer so that they share
   * a commit (one fsync) with the completions of the same turn. Re-entrant calls while a claim is
   * in flight set `again`, so a slot freed meanwhile is filled by the running pump.
   */
  private async pump(lane: Lane): Promise<void> {
    if (!this.running) return;
    if (lane.pumping) {
      lane.again = true;
      return;
    }
    lane.pumping = true;
    try {
      if (lane.timer) {
        clearTimeout(lane.timer);
        lane.timer = null;
      }
      do {
        lane.again = false;
        while (this.running && lane.inflight < lane.opts.concurrency) {
          const want = Math.min(lane.opts.batch, lane.opts.concurrency - lane.inflight);
          const jobs = await this.store.write((tx) => tx.jobs.claim(lane.name, want, lane.opts.leaseMs));
          if (lane.batchHandler) this.runBatch(lane, jobs);
          else for (const job of jobs) this.run(lane, job);
          if (jobs.length < want) break;
        }
      } while (lane.again && this.running && lane.inflight < lane.opts.concurrency);
      if (this.running && lane.inflight < lane.opts.concurrency) {
        const next = await this.store.read.jobs.nextDue(lane.name);
        // A job enqueued during this claim may not be committed yet, and so not in nextDue.
        const hint = lane.hintAt > Date.now() ? lane.hintAt : Infinity;
        lane.hintAt = 0;
        this.sleep(lane, Math.min(lane.opts.pollMs, hint - Date.now(), next === null ? Infinity : next - Date.now()));
      }
    } catch (err) {
      this.log.error("job claim failed", { queue: lane.name, error: String(err) });
      if (this.running) this.sleep(lane, lane.opts.pollMs);
    } finally {
      lane.pumping = false;
    }
  }

  /** A claimed batch through its lane's batch handler, in one write; its slots are freed once that commits. */
  private runBatch(lane: Lane, jobs: Job[]): void {
    if (jobs.length === 0) return;
    lane.inflight += jobs.length;
    const settled = lane.batchHandler!(jobs)
      .then((write) => this.store.write(write))
      .catch(async (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        this.log.warn("job batch failed", { queue: lane.name, jobs: jobs.length, error: message });
        await this.store.write(async (tx) => {
          for (const job of jobs) await tx.jobs.fail(job, message);
        });
      })
      .catch((err: unknown) => this.log.error("job bookkeeping failed", { queue: lane.name, jobs: jobs.length, error: String(err) }))
      .finally(() => {
        this.settling.delete(settled);
        lane.inflight -= jobs.length;
        for (const r of this.idle) r();
        this.idle.clear();
        void this.pump(lane);
      });
    this.settling.add(settled);
  }

  private run(lane: Lane, job: Job): void {
    lane.inflight++;
    const settle = (tx: Repositories, outcome: JobOutcome): Promise<unknown> => {
      if (outcome.type === "done") return tx.jobs.complete(job);
      if (outcome.type === "retry") return tx.jobs.fail(job, outcome.error, { delayMs: outcome.delayMs });
      if (outcome.type === "defer") return tx.jobs.defer(job, outcome.delayMs);
      return tx.jobs.fail(job, outcome.error, { permanent: true });
    };
    const finish = (outcome: JobOutcome): Promise<unknown> =>
      this.store.write(async (tx) => {
        await outcome.write?.(tx);
        return settle(tx, outcome);
      });
    // The slot is freed as soon as the handler settles: the job stays leased until its outcome
    // commits, so it cannot be claimed twice, and the next claim shares that commit.
    // Refilled once every handler that settled together has freed its slot (a microtask runs
    // after the settlements already queued): one claim for all of them, queued before the writer's
    // flush (a later task), so it shares the commit of their outcomes instead of waiting for the next.
    const release = () => {
      lane.inflight--;
      for (const r of this.idle) r();
      this.idle.clear();
      if (lane.refill) return;
      lane.refill = true;
      queueMicrotask(() => {
        lane.refill = false;
        void this.pump(lane);
      });
    };

    const settled = lane
      .handler(job)
      .then(
        (outcome) => {
          const done = finish(outcome ?? { type: "done" });
          release();
          return done;
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          this.log.warn("job failed", { queue: lane.name, job: job.id, attempt: job.attempt, error: message });
          const done = this.store.write((tx) => tx.jobs.fail(job, message));
          release();
          return done;
        },
      )
      .catch((err: unknown) => this.log.error("job bookkeeping failed", { queue: lane.name, job: job.id, error: String(err) }))
      .finally(() => this.settling.delete(settled));
    this.settling.add(settled);
  }
}
