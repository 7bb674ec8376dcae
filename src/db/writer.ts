import type { Database, Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { closeSync, fdatasync, openSync } from "node:fs";
import { ConflictError } from "../errors.ts";

type Pending = {
  work: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  unit: UnitOfWork | undefined;
  /** Runs without a savepoint of its own (WriteOptions.checksBeforeChanges). */
  checked: boolean;
  /** A checked write: the connection's count of changed rows as it began, to tell a refusal from a failure. */
  changesBefore?: number;
  /** Set once the work ran in the current transaction; settled after the commit (a unit's write: at once). */
  ran?: { ok: boolean; value: unknown };
};

/** How long a unit may keep its writes open before they are committed anyway (a handler that awaits I/O after writing). */
const HOLD_LIMIT_MS = 1000;

/**
 * The writes of one request, committed only if its answer succeeds. A unit's write runs in its
 * savepoint inside the group transaction like any other, but the savepoint stays open until the
 * unit is finished: released when the answer succeeds (the answer then waits for the group's
 * commit), rolled back when it fails, so a 4xx or 5xx leaves nothing behind. Further writes of
 * the unit while it is open run at once inside it. The group goes on with the next write only
 * when the unit is finished, which is within the same turn of the event loop for a handler that
 * writes last, as every handler here does; one that awaits I/O after writing holds the group at
 * most HOLD_LIMIT_MS, then its writes are committed as they stand (and the writer's
 * onHoldTimeout is told).
 */
export class UnitOfWork {
  private outcome: boolean | null = null;
  private onFinish: ((ok: boolean) => void) | null = null;
  private committed: Promise<void> = Promise.resolve();
  /** Set while one of the unit's savepoints is open in the group transaction. */
  holding = false;
  /** @internal The unit's further writes, run one after another inside its open savepoint. */
  turns: Promise<void> = Promise.resolve();

  /** The answer is known: `ok` commits the unit's writes (resolving once they are durable), otherwise they are rolled back. */
  finish(ok: boolean): Promise<void> {
    if (this.outcome === null) {
      this.outcome = ok;
      this.onFinish?.(ok);
      this.onFinish = null;
    }
    return this.outcome ? this.committed : Promise.resolve();
  }

  get failed(): boolean {
    return this.outcome === false;
  }

  get finished(): boolean {
    return this.outcome !== null;
  }

  /** @internal The writer waits here while the unit's savepoint is open; true means release it. */
  waitForOutcome(): Promise<boolean> {
    if (this.outcome !== null) return Promise.resolve(this.outcome);
    return new Promise((resolve) => {
      this.onFinish = resolve;
    });
  }

  /** @internal The hold limit passed: commit the unit's writes as they stand, without its answer. */
  expire(): void {
    const finish = this.onFinish;
    this.onFinish = null;
    finish?.(true);
  }

  /** @internal The commit that makes the unit's writes durable. */
  committedWith(commit: Promise<void>): void {
    this.committed = commit;
  }
}

const unitFailed = () => new Error("the request's unit of work has failed");

export interface WriteOptions {
  /**
   * The work throws every error a caller can cause before its first change, and once it has
   * returned its request cannot fail but by a bug: anything thrown after a change is the
   * storage's. Such a write runs without a savepoint of its own (on the send path SQLite's
   * copies of the pages it touches, kept to undo it, were ~6 % of the event loop per request).
   * A throw before any change (a refusal) fails the write alone, as with a savepoint. The price:
   * if it fails after a change, or its unit's answer fails anyway, the whole group transaction is
   * rolled back and every write in it fails with it.
   */
  checksBeforeChanges?: boolean;
}

/**
 * What a failed write means to its caller. A foreign key that no longer finds its row is a write
 * that lost a race against a delete (a webhook created as its route is deleted): a conflict the
 * client can retry, never a server error. Anything else is passed on as it is.
 */
function storageError(err: unknown): unknown {
  if ((err as { code?: unknown } | null)?.code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    return new ConflictError("Something this request refers to was deleted while it ran; nothing was changed.");
  }
  return err;
}

/**
 * Group commit. Writes that arrive in the same turn of the event loop run in one transaction,
 * so one fsync (synchronous=FULL) makes all of them durable; each caller's promise resolves only
 * after that commit. Each write runs inside its own savepoint, so one failing write is rolled
 * back and rejected alone while the others commit. A request's writes form a unit of work (see
 * UnitOfWork) that commits only with a successful answer.
 *
 * Commits are paced by load: a flush comes 0.25 ms per write the previous commit carried (at most
 * `commitIntervalMs`) after that commit ended, so under load the writes of several turns share
 * one commit (fewer fsyncs, and each page the batch touches written once) while a lightly loaded
 * writer flushes almost at once. It flushes at once when `flushAt` writes are waiting: then every
 * caller of a closed loop (claim → run → complete, 64 clients each awaiting its send) is waiting
 * on this commit, and waiting longer would only idle them.
 *
 * The fsync that makes a commit durable runs off the event loop: the batch commits with
 * synchronous=NORMAL (in the log, not yet synced) and its callers are answered once a sync of the
 * log (fdatasync on a thread of the pool) that began after the commit has ended, so requests go on
 * being served while the disk syncs, and commits made meanwhile share the next sync (see LogSync).
 * What is committed but not yet synced survives the process being killed (it is in the OS's page
 * cache), and nothing built on it is answered or acted on before the sync: the job runner's
 * claims are writes too, answered after a later sync that covers it.
 *
 * Work functions are synchronous by design: bun:sqlite transactions must never await.
 */
const PACE_MS_PER_WRITE = 0.25;

const ignore = () => {};

/**
 * Syncs of a WAL file, one at a time: `after()` promises a sync that starts after the call (the
 * one in flight may have started before the caller's commit), shared by all callers meanwhile.
 */
class LogSync {
  private inFlight: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private fd: number | null = null;

  constructor(private readonly path: string) {}

  after(): Promise<void> {
    if (!this.inFlight) return (this.inFlight = this.start());
    return (this.next ??= this.inFlight.then(ignore, ignore).then(() => {
      this.next = null;
      return (this.inFlight = this.start());
    }));
  }

  /** Waits for the syncs promised so far, then closes the file. */
  async close(): Promise<void> {
    await (this.next ?? this.inFlight)?.catch(ignore);
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private start(): Promise<void> {
    // Opened at the first sync: the log exists once a transaction has committed into it.
    let fd: number;
    try {
      fd = this.fd ??= openSync(this.path, "r");
    } catch (err) {
      return Promise.reject(err);
    }
    const done: Promise<void> = new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve()))).finally(() => {
      if (this.inFlight === done) this.inFlight = null;
    });
    return done;
  }
}

export class Writer {
  private queue: Pending[] = [];
  private scheduled = false;
  private timer: Timer | null = null;
  private stopped = false;
  private lastCommitAt = 0;
  private lastBatch = 0;
  /** Set while a batch waits for a unit of work's answer with its transaction open. */
  private draining: Promise<void> | null = null;
  /** The unit whose answer the open batch waits for, and since when. */
  private held: { unit: UnitOfWork; since: number } | null = null;
  private watchdog: Timer | null = null;
  private readonly units = new AsyncLocalStorage<UnitOfWork>();
  /** Told when a unit held the group past HOLD_LIMIT_MS and its writes were committed anyway. */
  onHoldTimeout: () => void = () => {};
  private readonly tx: Record<
    "begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo" | "innerSavepoint" | "innerRelease" | "innerRollbackTo" | "syncNormal" | "syncFull",
    Statement
  >;
  private readonly totalChanges: Statement<{ n: number }, []>;
  /** Commits made and writes they carried, for tests and metrics. */
  readonly stats = { commits: 0, writes: 0, largestBatch: 0 };
  /** The log's syncs, off the event loop; null when the database has no WAL file (in memory): commits are synchronous=FULL then. */
  private readonly logSync: LogSync | null;
  /** The sync that makes the last commit durable. */
  private durable: Promise<void> = Promise.resolve();

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
      innerSavepoint: sqlite.prepare("SAVEPOINT u"),
      innerRelease: sqlite.prepare("RELEASE u"),
      innerRollbackTo: sqlite.prepare("ROLLBACK TO u"),
      syncNormal: sqlite.prepare("PRAGMA synchronous = NORMAL"),
      syncFull: sqlite.prepare("PRAGMA synchronous = FULL"),
    };
    this.totalChanges = sqlite.prepare("SELECT total_changes() AS n");
    const mode = (sqlite.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
    const file = (sqlite.query("PRAGMA database_list").get() as { file: string }).file;
    this.logSync = mode === "wal" && file ? new LogSync(`${file}-wal`) : null;
  }

  /** Runs `fn` as a unit of work: its writes commit only once the unit is finished with ok (see UnitOfWork). */
  withUnit<T>(fn: () => T): T {
    return this.units.run(new UnitOfWork(), fn);
  }

  /**
   * Runs `fn` outside any unit of work: for bookkeeping a request does on the side (a token's
   * last use), which must neither wait for the request's answer nor hold the group meanwhile.
   */
  detached<T>(fn: () => T): T {
    return this.units.exit(fn);
  }

  /** The unit of work the caller runs in, if any. */
  currentUnit(): UnitOfWork | undefined {
    return this.units.getStore();
  }

  /**
   * Runs `work` inside the next group transaction; resolves with its result once committed, or,
   * inside a unit of work, as soon as it ran (the unit's finish() resolves at the commit).
   * `work` may be asynchronous: its savepoint stays open until it settles, so it must await
   * nothing but the database (never the network, never another write).
   */
  write<T>(work: () => T | Promise<T>, opts?: WriteOptions): Promise<T> {
    if (this.stopped) return Promise.reject(new Error("writer is stopped"));
    // A finished unit's context can linger in work its request left running; that writes on its own.
    const store = this.units.getStore();
    const unit = store && !store.finished ? store : undefined;
    if (unit?.holding) return this.runInsideUnit(unit, work);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject, unit, checked: opts?.checksBeforeChanges === true });
      // A drain under way picks the write up when the unit it waits for is finished.
      if (this.draining) return;
      if (!this.scheduled) {
        this.scheduled = true;
        const pace = Math.min(this.commitIntervalMs, this.lastBatch * PACE_MS_PER_WRITE);
        const wait = this.lastCommitAt + pace - performance.now();
        // Scheduled outside any unit: the batch, and whatever its work sets going (a runner woken
        // by an enqueue), must not run in the context of the request that happened to write first.
        this.detached(() => {
          if (wait > 0) this.timer = setTimeout(() => this.flush(), wait);
          else setImmediate(() => this.flush());
        });
      } else if (this.timer && this.queue.length >= this.flushAt) {
        clearTimeout(this.timer);
        this.timer = null;
        this.detached(() => setImmediate(() => this.flush()));
      }
    });
  }

  /**
   * Runs `work` in a transaction of its own, committed at once and without an fsync: it is in the
   * log (and survives the process being killed) as soon as this returns, and on disk once the
   * next group commit syncs the log. For the few records whose value is in being written the
   * instant something happens, not in being acknowledged (a remote server's 250). Runs between
   * group commits, since JavaScript never interleaves with a batch; only while a unit of work
   * holds a batch open past its turn (see HOLD_LIMIT_MS) does it join that batch instead.
   */
  commitNow<T>(work: () => T): T {
    if (this.stopped) throw new Error("writer is stopped");
    if (this.sqlite.inTransaction) return this.runInner(work);
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

  /** Runs `work` now in a savepoint inside the open transaction; an asynchronous one keeps it until it settles. */
  private runInner<T>(work: () => T): T;
  private runInner<T>(work: () => T | Promise<T>): T | Promise<T>;
  private runInner<T>(work: () => T | Promise<T>): T | Promise<T> {
    this.tx.innerSavepoint.run();
    const undo = (err: unknown): never => {
      this.tx.innerRollbackTo.run();
      this.tx.innerRelease.run();
      throw err;
    };
    const release = (value: T): T => {
      this.tx.innerRelease.run();
      return value;
    };
    let value: T | Promise<T>;
    try {
      value = work();
    } catch (err) {
      return undo(err);
    }
    return isThenable(value) ? Promise.resolve(value).then(release, undo) : release(value);
  }

  /**
   * A further write of a unit whose savepoint is open runs now, inside it, in a savepoint of its
   * own; the unit's writes take turns, so an asynchronous one keeps its savepoint to itself.
   */
  private runInsideUnit<T>(unit: UnitOfWork, work: () => T | Promise<T>): Promise<T> {
    const result = unit.turns.then(() => this.runInner(work));
    unit.turns = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  /**
   * Commits everything queued now. Synchronous unless a unit of work's write is among them: then
   * it returns a promise that settles once the drain is done. Safe to call at any time; used at shutdown.
   */
  flush(): void | Promise<void> {
    this.scheduled = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.draining) return this.draining;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      const result = this.runBatch(batch, 0);
      if (result instanceof Promise) {
        this.draining = result.then(() => {
          this.draining = null;
          if (this.queue.length > 0) return this.flush();
        });
        return this.draining;
      }
    }
  }

  /**
   * Runs `batch` from index `from` in one transaction: true once committed, false when the
   * transaction failed, or a promise of either when it has to wait with the transaction open:
   * for a write whose work is asynchronous, or for the answer of a unit of work.
   */
  private runBatch(batch: Pending[], from: number): boolean | Promise<boolean> {
    try {
      if (from === 0) {
        // synchronous cannot change inside a transaction: NORMAL from BEGIN to COMMIT, the sync follows off the loop.
        if (this.logSync) this.tx.syncNormal.run();
        this.tx.begin.run();
      }
      for (let i = from; i < batch.length; i++) {
        const p = batch[i]!;
        if (p.ran) continue; // ran inside its unit's open savepoint
        if (p.unit?.failed) {
          p.ran = { ok: false, value: unitFailed() };
          continue;
        }
        if (p.checked) p.changesBefore = this.totalChanges.get()!.n;
        else this.tx.savepoint.run();
        let value: unknown;
        try {
          value = p.work();
        } catch (err) {
          if (!this.failWrite(p, err)) return this.abandon(batch, err);
          continue;
        }
        if (isThenable(value)) {
          return Promise.resolve(value).then(
            (v) => this.afterWrite(batch, i, v) ?? this.runBatch(batch, i + 1),
            (err: unknown) => (this.failWrite(p, err) ? this.runBatch(batch, i + 1) : this.abandon(batch, err)),
          ).catch((err: unknown) => this.abandon(batch, err));
        }
        const held = this.afterWrite(batch, i, value);
        if (held !== null) return held;
      }
      this.tx.commit.run();
      if (this.logSync) this.tx.syncFull.run();
      this.lastCommitAt = performance.now();
      this.lastBatch = batch.length;
    } catch (err) {
      return this.abandon(batch, err);
    }
    this.stats.commits++;
    this.stats.writes += batch.length;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
    if (!this.logSync) {
      this.settle(batch, null);
      return true;
    }
    this.durable = this.logSync.after();
    this.durable.then(
      () => this.settle(batch, null),
      (err: unknown) => this.settle(batch, err),
    );
    return true;
  }

  /** Answers the writes of a committed batch once it is durable (`failure`: the log could not be synced). */
  private settle(batch: Pending[], failure: unknown): void {
    for (const p of batch) {
      if (p.unit && p.ran!.ok) continue; // handed its value when it ran; its unit learns through finish()
      if (failure !== null) p.reject(failure);
      else if (p.ran!.ok) p.resolve(p.ran!.value);
      else p.reject(p.ran!.value);
    }
  }

  /**
   * `batch[at]` ran and produced `value` in its open savepoint. A plain write is released and
   * null returned (the batch goes on); a unit's write is held for the unit's answer, and so is
   * the rest of the batch (the promise of how it ends).
   */
  private afterWrite(batch: Pending[], at: number, value: unknown): null | boolean | Promise<boolean> {
    const p = batch[at]!;
    p.ran = { ok: true, value };
    if (p.unit) return this.holdForUnit(batch, at, p.unit);
    if (!p.checked) this.tx.release.run();
    return null;
  }

  /**
   * `p` threw: undone alone (rolled back to its savepoint; a checked write that changed nothing
   * has nothing to undo) and true, or false when only rolling back the group can undo it (a
   * checked write that failed after a change).
   */
  private failWrite(p: Pending, err: unknown): boolean {
    if (!p.checked) this.undoWrite(p, err);
    else if (this.totalChanges.get()!.n === p.changesBefore) p.ran = { ok: false, value: storageError(err) };
    else return false;
    return true;
  }

  private undoWrite(p: Pending, err: unknown): void {
    this.tx.rollbackTo.run();
    this.tx.release.run();
    p.ran = { ok: false, value: storageError(err) };
  }

  /** The transaction itself failed: roll it back and fail every write of the batch. */
  private abandon(batch: Pending[], err: unknown): false {
    try {
      this.tx.rollback.run();
      if (this.logSync) this.tx.syncFull.run();
    } catch {
      // no transaction left to roll back
    }
    // A unit's write was handed its value already; its unit learns of the failure through finish().
    for (const p of batch) if (!(p.unit && p.ran?.ok)) p.reject(err);
    return false;
  }

  /**
   * The write at `batch[at]` belongs to `unit` and ran in the open savepoint: hand its value over,
   * run the unit's other queued writes inside that savepoint too (a handler awaiting two writes
   * at once), then wait for the unit's answer before releasing or rolling back and going on.
   */
  private holdForUnit(batch: Pending[], at: number, unit: UnitOfWork): Promise<boolean> {
    const commit = withResolvers();
    unit.committedWith(commit.promise);
    unit.holding = true;
    this.watchHold(unit);
    const first = batch[at]!;
    first.resolve(first.ran!.value);
    const laterInBatch = batch.slice(at + 1).filter((q) => q.unit === unit);
    const queued = this.queue.filter((q) => q.unit === unit);
    if (queued.length > 0) this.queue = this.queue.filter((q) => q.unit !== unit);
    for (const q of [...laterInBatch, ...queued]) {
      q.ran = { ok: true, value: undefined }; // settled through its own promise below
      this.runInsideUnit(unit, q.work).then(q.resolve, q.reject);
    }
    return unit
      .waitForOutcome()
      .then(async (ok) => {
        this.held = null;
        await unit.turns;
        unit.holding = false;
        if (first.checked) {
          // No savepoint of its own: a unit that fails anyway takes the group transaction with it.
          if (!ok) return this.abandon(batch, unitFailed());
        } else if (ok) this.tx.release.run();
        else {
          this.tx.rollbackTo.run();
          this.tx.release.run();
        }
        return this.runBatch(batch, at + 1);
      })
      .then((committed) => {
        if (committed) this.durable.then(commit.resolve, commit.reject);
        else commit.reject(new Error("the group commit failed"));
        return committed;
      });
  }

  /**
   * One watchdog for all holds instead of a timer per request: a hold normally ends within the
   * turn it began in; one still open past HOLD_LIMIT_MS is expired (its writes commit as they stand).
   */
  private watchHold(unit: UnitOfWork): void {
    this.held = { unit, since: performance.now() };
    this.watchdog ??= this.detached(() =>
      setInterval(() => {
        if (this.held && performance.now() - this.held.since > HOLD_LIMIT_MS) {
          const expired = this.held.unit;
          this.held = null;
          this.onHoldTimeout();
          expired.expire();
        }
      }, HOLD_LIMIT_MS / 4),
    );
    this.watchdog.unref?.();
  }

  /** Flushes what is queued and refuses further writes; resolves once the last batch has committed. */
  async stop(): Promise<void> {
    const flushed = this.flush();
    this.stopped = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    await flushed;
    await this.logSync?.close();
  }
}

function withResolvers(): { resolve: () => void; reject: (e: unknown) => void; promise: Promise<void> } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A unit nobody waits on must not surface as an unhandled rejection.
  promise.catch(() => {});
  return { resolve, reject, promise };
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === "function";
