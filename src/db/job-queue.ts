import type { Database, Statement } from "bun:sqlite";
import { exponentialBackoff } from "../jobs/backoff.ts";

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

/**
 * A durable queue in one SQLite table, which it owns (nothing else reads or writes `jobs`), in the style of goqite: a single UPDATE … RETURNING claims
 * due jobs and pushes their run_at to the end of the lease, so a worker that dies simply lets its
 * lease expire and the job becomes due again. `attempts` is a fencing token: a worker whose lease
 * expired and whose job was claimed again can no longer complete or fail it.
 *
 * All methods are synchronous; call enqueue/complete/fail inside a Writer batch to share fsyncs.
 */
export class JobQueue {
  private readonly insertStmt: Statement;
  private readonly claimStmt: Statement<Row>;
  private readonly completeStmt: Statement;
  private readonly retryStmt: Statement;
  private readonly deadStmt: Statement;
  private readonly extendStmt: Statement;
  private readonly nextDueStmt: Statement<{ t: number | null }, [string]>;
  /** Called (after the current turn, so after the enqueuing transaction commits) with queues that got jobs. */
  onEnqueue: ((queue: string) => void) | null = null;
  private readonly toWake = new Set<string>();

  constructor(
    private readonly sqlite: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.insertStmt = sqlite.prepare(
      "INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at) VALUES (?, ?, ?, 0, ?, ?)",
    );
    this.claimStmt = sqlite.prepare<Row, [number, string, number, number]>(
      `UPDATE jobs SET run_at = ?1, attempts = attempts + 1
       WHERE id IN (SELECT id FROM jobs WHERE queue = ?2 AND dead_at IS NULL AND run_at <= ?3 ORDER BY run_at LIMIT ?4)
       RETURNING id, queue, payload, attempts, max_attempts, created_at`,
    );
    this.completeStmt = sqlite.prepare("DELETE FROM jobs WHERE id = ? AND attempts = ?");
    this.retryStmt = sqlite.prepare("UPDATE jobs SET run_at = ?, last_error = ? WHERE id = ? AND attempts = ?");
    this.deadStmt = sqlite.prepare("UPDATE jobs SET dead_at = ?, last_error = ? WHERE id = ? AND attempts = ?");
    this.extendStmt = sqlite.prepare("UPDATE jobs SET run_at = ? WHERE id = ? AND attempts = ?");
    this.nextDueStmt = sqlite.prepare("SELECT min(run_at) AS t FROM jobs WHERE queue = ? AND dead_at IS NULL");
  }

  enqueue(queue: string, payload: unknown, opts: EnqueueOptions = {}): number {
    const now = this.now();
    const res = this.insertStmt.run(queue, JSON.stringify(payload), opts.runAt ?? now, opts.maxAttempts ?? 25, now);
    if (this.onEnqueue && (opts.runAt ?? now) <= now) {
      if (this.toWake.size === 0) {
        setImmediate(() => {
          const queues = [...this.toWake];
          this.toWake.clear();
          for (const q of queues) this.onEnqueue?.(q);
        });
      }
      this.toWake.add(queue);
    }
    return Number(res.lastInsertRowid);
  }

  /** Claims up to `limit` due jobs of `queue` for `leaseMs`, atomically. */
  claim<P = unknown>(queue: string, limit: number, leaseMs: number): Job<P>[] {
    const now = this.now();
    return this.claimStmt.all(now + leaseMs, queue, now, limit).map((r) => ({
      id: r.id,
      queue: r.queue,
      payload: JSON.parse(r.payload) as P,
      attempt: r.attempts,
      maxAttempts: r.max_attempts,
      createdAt: r.created_at,
    }));
  }

  /** Removes a finished job. False when this claim was superseded (lease expired, reclaimed). */
  complete(job: Job<unknown>): boolean {
    return this.completeStmt.run(job.id, job.attempt).changes === 1;
  }

  /** Keeps a long-running job leased for another `leaseMs`. */
  extend(job: Job<unknown>, leaseMs: number): boolean {
    return this.extendStmt.run(this.now() + leaseMs, job.id, job.attempt).changes === 1;
  }

  /**
   * Records a failure: retried after `delayMs` (default capped exponential backoff) unless the
   * job has used its attempts or `permanent` is set, in which case it is dead. Returns which.
   */
  fail(job: Job<unknown>, error: string, opts: { delayMs?: number; permanent?: boolean } = {}): "retry" | "dead" | "stale" {
    const dead = opts.permanent || job.attempt >= job.maxAttempts;
    const res = dead
      ? this.deadStmt.run(this.now(), error.slice(0, 2000), job.id, job.attempt)
      : this.retryStmt.run(this.now() + (opts.delayMs ?? exponentialBackoff(job.attempt)), error.slice(0, 2000), job.id, job.attempt);
    if (res.changes !== 1) return "stale";
    return dead ? "dead" : "retry";
  }

  /** Jobs not yet dead, per queue (for /metrics and tests). */
  depth(queue?: string): number {
    const row = queue
      ? this.sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM jobs WHERE queue = ? AND dead_at IS NULL").get(queue)
      : this.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE dead_at IS NULL").get();
    return row?.n ?? 0;
  }

  /** Jobs waiting or running and dead jobs, per queue (for /metrics). */
  countsByQueue(): { queue: string; pending: number; dead: number }[] {
    return this.sqlite
      .query<{ queue: string; pending: number; dead: number }, []>(
        "SELECT queue, sum(dead_at IS NULL) AS pending, sum(dead_at IS NOT NULL) AS dead FROM jobs GROUP BY queue",
      )
      .all();
  }

  /**
   * Drops the queued jobs of `queue` whose payload names one of the webhooks of a route (or of
   * every route of a project) about to be deleted, so no job is left pointing at a webhook that no
   * longer exists. Call inside the write that deletes them, before the DELETE.
   */
  dropWebhookJobs(queue: string, of: { routeId: string } | { projectId: string }): void {
    const [column, id] = "routeId" in of ? ["r.id", of.routeId] : ["r.project_id", of.projectId];
    this.sqlite
      .query(
        `DELETE FROM jobs WHERE queue = ? AND json_extract(payload, '$.webhookId') IN
           (SELECT w.id FROM webhooks w JOIN routes r ON r.id = w.route_id WHERE ${column} = ?)`,
      )
      .run(queue, id);
  }

  /** When the next job of `queue` is due (epoch ms), or null. */
  nextDue(queue: string): number | null {
    return this.nextDueStmt.get(queue)?.t ?? null;
  }
}
