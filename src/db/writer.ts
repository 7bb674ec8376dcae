import type { Database, Statement } from "bun:sqlite";

type Pending = { work: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void };

/**
 * Group commit. Writes that arrive in the same turn of the event loop run in one transaction,
 * so one fsync (synchronous=FULL) makes all of them durable; each caller's promise resolves only
 * after that commit. Each write runs inside its own savepoint, so one failing write is rolled
 * back and rejected alone while the others commit.
 *
 * Commits are paced by load: a flush comes 0.25 ms per write the previous commit carried (at most
 * `commitIntervalMs`) after that commit ended, so under load the writes of several turns share
 * one commit (fewer fsyncs, and each page the batch touches written once) while a lightly loaded
 * writer flushes almost at once. It flushes at once when `flushAt` writes are waiting: then every
 * caller of a closed loop (claim → run → complete, 64 clients each awaiting its send) is waiting
 * on this commit, and waiting longer would only idle them.
 *
 * Work functions are synchronous by design: bun:sqlite transactions must never await.
 */
const PACE_MS_PER_WRITE = 0.25;

export class Writer {
  private queue: Pending[] = [];
  private scheduled = false;
  private timer: Timer | null = null;
  private stopped = false;
  private lastCommitAt = 0;
  private lastBatch = 0;
  private readonly tx: Record<"begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo" | "syncNormal" | "syncFull", Statement>;
  /** Commits made and writes they carried, for tests and metrics. */
  readonly stats = { commits: 0, writes: 0, largestBatch: 0 };

  constructor(
    private readonly sqlite: Database,
    private readonly maxBatch = 1000,
    private readonly commitIntervalMs = 5,
    private readonly flushAt = 64,
  ) {
    // Prepared once: these run several times per write, and exec() would parse them each time.
    this.tx = {
      begin: sqlite.prepare("BEGIN IMMEDIATE"),
      commit: sqlite.prepare("COMMIT"),
      rollback: sqlite.prepare("ROLLBACK"),
      savepoint: sqlite.prepare("SAVEPOINT w"),
      release: sqlite.prepare("RELEASE w"),
      rollbackTo: sqlite.prepare("ROLLBACK TO w"),
      syncNormal: sqlite.prepare("PRAGMA synchronous = NORMAL"),
      syncFull: sqlite.prepare("PRAGMA synchronous = FULL"),
    };
  }

  /** Runs `work` inside the next group transaction; resolves with its result once committed. */
  write<T>(work: () => T): Promise<T> {
    if (this.stopped) return Promise.reject(new Error("writer is stopped"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        const pace = Math.min(this.commitIntervalMs, this.lastBatch * PACE_MS_PER_WRITE);
        const wait = this.lastCommitAt + pace - performance.now();
        if (wait > 0) this.timer = setTimeout(() => this.flush(), wait);
        else setImmediate(() => this.flush());
      } else if (this.timer && this.queue.length >= this.flushAt) {
        clearTimeout(this.timer);
        this.timer = null;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Runs `work` in a transaction of its own, committed at once and without an fsync: it is in the
   * log (and survives the process being killed) as soon as this returns, and on disk once the
   * next group commit syncs the log. For the few records whose value is in being written the
   * instant something happens, not in being acknowledged (a remote server's 250). Runs between
   * group commits, since JavaScript never interleaves with flush().
   */
  commitNow<T>(work: () => T): T {
    if (this.stopped) throw new Error("writer is stopped");
    // NORMAL, not OFF: a checkpoint this commit may trigger still syncs the log and the database.
    this.tx.syncNormal.run();
    try {
      this.tx.begin.run();
      try {
        const value = work();
        this.tx.commit.run();
        return value;
      } catch (err) {
        this.tx.rollback.run();
        throw err;
      }
    } finally {
      this.tx.syncFull.run();
    }
  }

  /** Commits everything queued now. Safe to call at any time; used at shutdown. */
  flush(): void {
    this.scheduled = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      const results: { ok: boolean; value: unknown }[] = [];
      try {
        this.tx.begin.run();
        for (const p of batch) {
          this.tx.savepoint.run();
          try {
            results.push({ ok: true, value: p.work() });
            this.tx.release.run();
          } catch (err) {
            this.tx.rollbackTo.run();
            this.tx.release.run();
            results.push({ ok: false, value: err });
          }
        }
        this.tx.commit.run();
        this.lastCommitAt = performance.now();
        this.lastBatch = batch.length;
      } catch (err) {
        try {
          this.tx.rollback.run();
        } catch {
          // no transaction left to roll back
        }
        for (const p of batch) p.reject(err);
        continue;
      }
      this.stats.commits++;
      this.stats.writes += batch.length;
      this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
      batch.forEach((p, i) => {
        const r = results[i]!;
        if (r.ok) p.resolve(r.value);
        else p.reject(r.value);
      });
    }
  }

  /** Flushes what is queued and refuses further writes. */
  stop(): void {
    this.flush();
    this.stopped = true;
  }
}
