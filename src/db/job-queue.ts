import { exponentialBackoff } from "../pacing/backoff.ts";
import { ROWS_PER_STATEMENT, type SqlExecutor } from "./sql.ts";

export interface Job<P = unknown> {
  id: number;
  queue: string;
  payload: P;
  /** This claim's number (1 for the first run); also the token that completes or fails it. */
  attempt: number;
  maxAttempts: number;
  createdAt: number;
}

export interface EnqueueOptions {
  /** Epoch ms at which the job becomes due; default now. */
  runAt?: number;
  maxAttempts?: number;
}

type Row = { id: number; queue: string; payload: string; attempts: number; max_attempts: number; created_at: number };

/** The channel on which PostgreSQL tells every node's runner that a queue got due work. */
export const JOBS_CHANNEL = "posthorn_jobs";

/** Told of each due job a queue gets; what it does with that is the engine's business. */
export interface EnqueueListener {
  enqueued(queue: string): void;
  /**
   * Told of a job that becomes due later (at `runAt`), so that this process's runner can wake
   * for it then rather than at its next poll: a scheduled message fires at its time.
   */
  later?(queue: string, runAt: number): void;
}

/**
 * Who hears of enqueued work in this process: the runner sets `onEnqueue`. Told after the current
 * turn, so after a SQLite group commit that carried the enqueue; on PostgreSQL once the enqueuing
 * transaction has committed, when every node (this one included) also hears it through NOTIFY.
 */
export class JobSignals implements EnqueueListener {
  onEnqueue: ((queue: string) => void) | null = null;
  /** Set by the runner: a job of `queue` becomes due at `runAt`. */
  onLater: ((queue: string, runAt: number) => void) | null = null;
  private readonly toWake = new Set<string>();

  later(queue: string, runAt: number): void {
    this.onLater?.(queue, runAt);
  }

  enqueued(queue: string): void {
    if (!this.onEnqueue) return;
    if (this.toWake.size === 0) {
      setImmediate(() => {
        const queues = [...this.toWake];
        this.toWake.clear();
        for (const q of queues) this.onEnqueue?.(q);
      });
    }
    this.toWake.add(queue);
  }
}

/**
 * The statements that differ between the engines, side by side. The claim takes due jobs in one
 * UPDATE … RETURNING; PostgreSQL skips rows another node's claim has locked, so nodes never wait
 * on each other or take the same job.
 */
const FLAVORS = {
  sqlite: {
    insert: "INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at) VALUES (?, ?, ?, 0, ?, ?)",
    claim: `UPDATE jobs SET run_at = ?, attempts = attempts + 1
            WHERE id IN (SELECT id FROM jobs WHERE queue = ? AND dead_at IS NULL AND run_at <= ? ORDER BY run_at LIMIT ?)
            RETURNING id, queue, payload, attempts, max_attempts, created_at`,
    webhookOfPayload: "json_extract(payload, '$.webhookId')",
    pendingDead: "sum(dead_at IS NULL) AS pending, sum(dead_at IS NOT NULL) AS dead",
    // The expression of the jobs_message index, written exactly as there so that it is used.
    messageOfPayload: "json_extract(payload, '$.messageId')",
  },
  postgres: {
    insert: "INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at) VALUES (?, ?, ?, 0, ?, ?)",
    claim: `UPDATE jobs SET run_at = ?, attempts = attempts + 1
            WHERE id IN (SELECT id FROM jobs WHERE queue = ? AND dead_at IS NULL AND run_at <= ? ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id, queue, payload, attempts, max_attempts, created_at`,
    webhookOfPayload: "(payload::jsonb ->> 'webhookId')",
    pendingDead: "count(*) FILTER (WHERE dead_at IS NULL) AS pending, count(*) FILTER (WHERE dead_at IS NOT NULL) AS dead",
    messageOfPayload: "(payload::jsonb ->> 'messageId')",
  },
} as const;

/**
 * A durable queue in one table, which it owns (nothing else reads or writes `jobs`), in the style
 * of goqite: one UPDATE … RETURNING claims due jobs and pushes their run_at to the end of the
 * lease, so a worker (or node) that dies simply lets its lease expire and the job becomes due
 * again. `attempts` is a fencing token: a worker whose lease expired and whose job was claimed
 * again can no longer complete or fail it.
 *
 * It is a repository like the others: bound to the store's reads, or to one transaction's writes
 * (`tx.jobs.enqueue(…)` inside `store.write`), so a job is queued with the change that needs it.
 */
export class JobQueue {
  private readonly sql: (typeof FLAVORS)[keyof typeof FLAVORS];

  constructor(
    private readonly db: SqlExecutor,
    private readonly signals: EnqueueListener = new JobSignals(),
    private readonly now: () => number = Date.now,
  ) {
    this.sql = FLAVORS[db.dialect];
  }

  /** Queues a job. Inside a transaction the signal waits for its commit (see JobSignals). */
  async enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<void> {
    const now = this.now();
    const runAt = opts.runAt ?? now;
    const params = [queue, JSON.stringify(payload), runAt, opts.maxAttempts ?? 25, now];
    await this.db.runDeferred(this.sql.insert, params);
    if (runAt <= now) this.signals.enqueued(queue);
    else this.signals.later?.(queue, runAt);
  }

  /**
   * Queues one job per payload, all due at the same time, in multi-row INSERTs (ROWS_PER_STATEMENT a
   * statement): set-based work (a batch of scheduled messages released together) enqueues its
   * follow-up jobs in a constant number of statements. The signal goes out once.
   */
  async enqueueMany(queue: string, payloads: readonly unknown[], opts: EnqueueOptions = {}): Promise<void> {
    if (payloads.length === 0) return;
    const now = this.now();
    const runAt = opts.runAt ?? now;
    const max = opts.maxAttempts ?? 25;
    for (let i = 0; i < payloads.length; i += ROWS_PER_STATEMENT) {
      const chunk = payloads.slice(i, i + ROWS_PER_STATEMENT);
      await this.db.runDeferred(
        `INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at) VALUES ${chunk.map(() => "(?, ?, ?, 0, ?, ?)").join(", ")}`,
        chunk.flatMap((p) => [queue, JSON.stringify(p), runAt, max, now]),
        { dynamic: true },
      );
    }
    if (runAt <= now) this.signals.enqueued(queue);
    else this.signals.later?.(queue, runAt);
  }

  /**
   * Enqueues a job unless `queue` already has one waiting or running: for periodic work that
   * re-enqueues itself, so it runs once across the cluster however many nodes start it. Call it
   * after `tx.locks.take(…)` on a name of the queue's, so concurrent callers take turns.
   */
  async enqueueOnce(queue: string, payload: unknown, opts: EnqueueOptions = {}): Promise<boolean> {
    if ((await this.depth(queue)) > 0) return false;
    await this.enqueue(queue, payload, opts);
    return true;
  }

  /** Claims up to `limit` due jobs of `queue` for `leaseMs`, atomically. */
  async claim<P = unknown>(queue: string, limit: number, leaseMs: number): Promise<Job<P>[]> {
    const now = this.now();
    const rows = await this.db.all<Row>(this.sql.claim, [now + leaseMs, queue, now, limit]);
    return rows.map((r) => ({
      id: Number(r.id),
      queue: r.queue,
      payload: JSON.parse(r.payload) as P,
      attempt: r.attempts,
      maxAttempts: r.max_attempts,
      createdAt: r.created_at,
    }));
  }

  /** Removes a finished job. False when this claim was superseded (lease expired, reclaimed). */
  async complete(job: Job<unknown>): Promise<boolean> {
    return (await this.db.run("DELETE FROM jobs WHERE id = ? AND attempts = ?", [job.id, job.attempt])).changes === 1;
  }

  /**
   * Removes finished jobs in one statement (complete, for a batch): each only if its claim still
   * holds it (the same fencing as complete). Returns how many were removed.
   */
  async completeMany(jobs: readonly Job<unknown>[]): Promise<number> {
    let removed = 0;
    for (let i = 0; i < jobs.length; i += ROWS_PER_STATEMENT) {
      const chunk = jobs.slice(i, i + ROWS_PER_STATEMENT);
      const res = await this.db.run(
        `DELETE FROM jobs WHERE ${chunk.map(() => "(id = ? AND attempts = ?)").join(" OR ")}`,
        chunk.flatMap((j) => [j.id, j.attempt]),
        { dynamic: true },
      );
      removed += res.changes;
    }
    return removed;
  }

  /** Keeps a long-running job leased for another `leaseMs`. */
  async extend(job: Job<unknown>, leaseMs: number): Promise<boolean> {
    return (await this.db.run("UPDATE jobs SET run_at = ? WHERE id = ? AND attempts = ?", [this.now() + leaseMs, job.id, job.attempt])).changes === 1;
  }

  /**
   * Records a failure: retried after `delayMs` (default capped exponential backoff) unless the
   * job has used its attempts or `permanent` is set, in which case it is dead. Returns which.
   */
  async fail(job: Job<unknown>, error: string, opts: { delayMs?: number; permanent?: boolean } = {}): Promise<"retry" | "dead" | "stale"> {
    const dead = opts.permanent || job.attempt >= job.maxAttempts;
    const message = error.slice(0, 2000);
    const res = dead
      ? await this.db.run("UPDATE jobs SET dead_at = ?, last_error = ? WHERE id = ? AND attempts = ?", [this.now(), message, job.id, job.attempt])
      : await this.db.run("UPDATE jobs SET run_at = ?, last_error = ? WHERE id = ? AND attempts = ?", [
          this.now() + (opts.delayMs ?? exponentialBackoff(job.attempt)),
          message,
          job.id,
          job.attempt,
        ]);
    if (res.changes !== 1) return "stale";
    return dead ? "dead" : "retry";
  }

  /**
   * Puts a claimed job off by `delayMs` without using up one of its attempts: the claim that
   * counted one is given back by raising max_attempts (attempts stays the fencing token).
   */
  async defer(job: Job<unknown>, delayMs: number): Promise<boolean> {
    const res = await this.db.run("UPDATE jobs SET run_at = ?, max_attempts = max_attempts + 1 WHERE id = ? AND attempts = ?", [
      this.now() + Math.max(0, delayMs),
      job.id,
      job.attempt,
    ]);
    return res.changes === 1;
  }

  /** Jobs not yet dead, of one queue or of all (for /metrics and tests). */
  async depth(queue?: string): Promise<number> {
    const row = queue
      ? await this.db.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = ? AND dead_at IS NULL", [queue])
      : await this.db.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE dead_at IS NULL");
    return Number(row?.n ?? 0);
  }

  /** Jobs waiting or running and dead jobs, per queue (for /metrics). */
  async countsByQueue(): Promise<{ queue: string; pending: number; dead: number }[]> {
    const rows = await this.db.all<{ queue: string; pending: number; dead: number }>(
      `SELECT queue, ${this.sql.pendingDead} FROM jobs GROUP BY queue ORDER BY queue`,
    );
    return rows.map((r) => ({ queue: r.queue, pending: Number(r.pending ?? 0), dead: Number(r.dead ?? 0) }));
  }

  /**
   * Drops the queued jobs of `queue` whose payload names one of the webhooks of a route (or of
   * every route of a project) about to be deleted, so no job is left pointing at a webhook that no
   * longer exists. Call inside the write that deletes them, before the DELETE.
   */
  async dropWebhookJobs(queue: string, of: { routeId: string } | { projectId: string }): Promise<void> {
    const [column, id] = "routeId" in of ? ["r.id", of.routeId] : ["r.project_id", of.projectId];
    await this.db.run(
      `DELETE FROM jobs WHERE queue = ? AND ${this.sql.webhookOfPayload} IN
         (SELECT w.id FROM webhooks w JOIN routes r ON r.id = w.route_id WHERE ${column} = ?)`,
      [queue, id],
    );
  }

  /** The live (not dead) jobs of `queue` whose payload names one of `messageIds`, with when each is due next. */
  async ofMessages(queue: string, messageIds: readonly string[]): Promise<{ message_id: string; run_at: number }[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.db.all<{ message_id: string; run_at: number }>(
      `SELECT ${this.sql.messageOfPayload} AS message_id, run_at FROM jobs
       WHERE queue = ? AND ${this.sql.messageOfPayload} IN (${messageIds.map(() => "?").join(", ")}) AND dead_at IS NULL`,
      [queue, ...messageIds],
      { dynamic: true },
    );
    return rows.map((r) => ({ message_id: r.message_id, run_at: Number(r.run_at) }));
  }

  /**
   * Makes the live jobs of `queue` that name one of `messageIds` due now, unless they are due
   * within `leaseMs` anyway: a claimed job's run_at is the end of its lease, never further than
   * that, so a job running now is never made claimable a second time. Returns the ids of the
   * messages whose job was moved.
   */
  async hurry(queue: string, messageIds: readonly string[], leaseMs: number): Promise<string[]> {
    if (messageIds.length === 0) return [];
    const now = this.now();
    const rows = await this.db.all<{ message_id: string }>(
      `UPDATE jobs SET run_at = ? WHERE queue = ? AND ${this.sql.messageOfPayload} IN (${messageIds.map(() => "?").join(", ")})
       AND dead_at IS NULL AND run_at > ? RETURNING ${this.sql.messageOfPayload} AS message_id`,
      [now, queue, ...messageIds, now + leaseMs],
      { dynamic: true },
    );
    if (rows.length > 0) this.signals.enqueued(queue);
    return rows.map((r) => r.message_id);
  }

  /**
   * Removes the jobs of `queue` that name one of `messageIds` and are not running (due later
   * than `leaseMs` from now, or dead); a running one finishes on its own.
   */
  async dropOfMessages(queue: string, messageIds: readonly string[], leaseMs: number): Promise<void> {
    if (messageIds.length === 0) return;
    await this.db.run(
      `DELETE FROM jobs WHERE queue = ? AND ${this.sql.messageOfPayload} IN (${messageIds.map(() => "?").join(", ")})
       AND (dead_at IS NOT NULL OR run_at > ?)`,
      [queue, ...messageIds, this.now() + leaseMs],
      { dynamic: true },
    );
  }

  /**
   * Removes every job of `queue` that names `messageId`, running or not: a claim under way can no
   * longer complete, fail or defer it (its fencing token names no row), so whatever it decides
   * must be decided on the message's row too (src/sending/scheduled-job.ts). Returns how many.
   */
  async dropAllOfMessage(queue: string, messageId: string): Promise<number> {
    const res = await this.db.run(`DELETE FROM jobs WHERE queue = ? AND ${this.sql.messageOfPayload} = ?`, [queue, messageId]);
    return res.changes;
  }

  /** When the next job of `queue` is due (epoch ms), or null. */
  async nextDue(queue: string): Promise<number | null> {
    const row = await this.db.get<{ t: number | null }>("SELECT min(run_at) AS t FROM jobs WHERE queue = ? AND dead_at IS NULL", [queue]);
    return row?.t == null ? null : Number(row.t);
  }
}
