import type { ReservedSQL, SQL } from "bun";
import { AsyncLocalStorage } from "node:async_hooks";
import { DatabaseUnavailableError } from "../errors.ts";
import { JOBS_CHANNEL, JobSignals } from "./job-queue.ts";
import { LockRepository } from "./locks.ts";
import { migratePostgres } from "./migrate-pg.ts";
import { PipelinedExecutor, PostgresExecutor, postgresClient, postgresError } from "./postgres.ts";
import type { SqlExecutor, SqlOptions, SqlValue } from "./sql.ts";
import { repositories, type Repositories, type Store, type StoreStats } from "./store.ts";

/** An open transaction on a reserved connection, its statements pipelined where they can be. */
type Transaction = { conn: ReservedSQL; exec: PipelinedExecutor; tx: Repositories; enqueued: Set<string> };

/** How long a unit may keep its transaction open before it is committed anyway (as on SQLite). */
const HOLD_LIMIT_MS = 1000;

/**
 * At most `size` connections in use; a caller waits for one at most `waitMs`, then gets a 503
 * (DatabaseUnavailableError) having started nothing. Bun's pool would queue without bound.
 */
class Gate {
  private used = 0;
  private readonly waiting: { go: () => void; timer: Timer }[] = [];
  constructor(
    private readonly size: number,
    private readonly waitMs: number,
  ) {}

  acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        go: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          reject(new DatabaseUnavailableError(`no database connection free within ${this.waitMs} ms (pool of ${this.size})`));
        }, this.waitMs),
      };
      this.waiting.push(entry);
    });
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next.go();
    else this.used--;
  }

  async with<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

/** Reads on the pool, each statement holding a connection through the gate. */
class GatedExecutor implements SqlExecutor {
  readonly dialect = "postgres" as const;
  constructor(
    private readonly inner: PostgresExecutor,
    private readonly gate: Gate,
  ) {}
  all<R>(sql: string, params?: readonly SqlValue[]): Promise<R[]> {
    return this.gate.with(() => this.inner.all<R>(sql, params));
  }
  get<R>(sql: string, params?: readonly SqlValue[]): Promise<R | null> {
    return this.gate.with(() => this.inner.get<R>(sql, params));
  }
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.gate.with(() => this.inner.run(sql, params));
  }
  runDeferred(sql: string, params?: readonly SqlValue[], opts?: SqlOptions): Promise<void> {
    return this.gate.with(() => this.inner.runDeferred(sql, params, opts));
  }
}

/**
 * A request's writes on PostgreSQL: its first write reserves a connection and opens a
 * transaction; later writes run in savepoints of it; `finish(ok)` commits or rolls back and
 * gives the connection back. The same contract as the SQLite writer's UnitOfWork.
 */
class PostgresUnit {
  private t: Transaction | null = null;
  private outcome: boolean | null = null;
  private turns: Promise<unknown> = Promise.resolve();
  private timer: Timer | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly store: PostgresStore) {}

  get finished(): boolean {
    return this.outcome !== null;
  }

  /** The open transaction's repositories, once the unit has written (its reads must see its writes). */
  get openTx(): Repositories | null {
    return this.outcome === null ? (this.t?.tx ?? null) : null;
  }

  run<T>(fn: (tx: Repositories) => T | Promise<T>): Promise<T> {
    const result = this.turns.then(async () => {
      if (this.outcome !== null) throw new Error("the request's unit of work has finished");
      if (!this.t) {
        const t = (this.t = await this.store.open());
        // A failed commit here has nobody to tell: the request's own finish() reports it.
        this.timer = setTimeout(() => this.finish(true).catch(() => {}), HOLD_LIMIT_MS);
        this.timer.unref?.();
        try {
          const value = await fn(t.tx);
          // Its failures are this write's, not the next one's: wait for what it pipelined.
          await t.exec.settle();
          return value;
        } catch (err) {
          // Nothing of the unit was written yet: roll back and let a later write start afresh.
          await this.close(false);
          throw err;
        }
      }
      const { exec, tx } = this.t;
      exec.controlLater("SAVEPOINT w");
      try {
        const value = await fn(tx);
        await exec.control("RELEASE w");
        return value;
      } catch (err) {
        await exec.control("ROLLBACK TO w").catch(() => {});
        exec.rolledBack();
        throw err;
      }
    });
    this.turns = result.catch(() => {});
    return result.catch((err: unknown) => {
      throw postgresError(err);
    });
  }

  finish(ok: boolean): Promise<void> {
    if (this.outcome === null) this.outcome = ok;
    return this.turns.then(() => this.close(this.outcome!));
  }

  private close(ok: boolean): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const t = this.t;
    if (!t) return this.closing ?? Promise.resolve();
    this.t = null;
    // A rollback that fails (the connection is gone) has undone the transaction all the same.
    this.closing = ok ? this.store.end(t, true) : this.store.end(t, false).catch(() => {});
    return this.closing;
  }
}

/**
 * PostgreSQL: a pool shared by reads and transactions, gated (see Gate). A write outside a
 * request is one transaction; a request's writes form a unit (PostgresUnit). Once a transaction
 * that enqueued jobs has committed, every node's runner is told: this node's at once, the others
 * by a NOTIFY this store sends, and hears, on a control connection of its own. The NOTIFY is not
 * part of the enqueuing transaction: PostgreSQL serializes the commits of notifying transactions
 * (one global lock held through the WAL flush), which would undo the group commit of concurrent
 * sends; NOTIFYs are coalesced per queue instead.
 */
export class PostgresStore implements Store {
  private readonly pool: Repositories;
  readonly signals = new JobSignals();
  readonly stats: StoreStats = { commits: 0, writes: 0, largestBatch: 1 };
  private readonly units = new AsyncLocalStorage<PostgresUnit | null>();
  private readonly gate: Gate;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly url: string | null;
  private controlClient: SQL | null = null;
  private pinger: LockRepository | null = null;
  /** Queues with new due jobs whose NOTIFY is about to go out. */
  private readonly toNotify = new Set<string>();

  constructor(
    private readonly sql: SQL,
    opts: { poolSize: number; poolWaitMs: number; url?: string },
  ) {
    this.gate = new Gate(opts.poolSize, opts.poolWaitMs);
    this.url = opts.url ?? null;
    // A statement on the pool commits as it returns: its enqueues are announced at once.
    this.pool = repositories(new GatedExecutor(new PostgresExecutor(sql), this.gate), {
      enqueued: (q) => this.announce(q),
      later: (q, at) => this.signals.later(q, at),
    });
  }

  /** The connection for health checks and NOTIFY, apart from the pool (see ping). */
  private control(): SQL {
    if (!this.url) return this.sql;
    return (this.controlClient ??= postgresClient(this.url, { max: 1 }));
  }

  /** A committed enqueue: wakes this node's runner, and (coalesced) every other node's. */
  private announce(queue: string): void {
    this.signals.enqueued(queue);
    if (this.toNotify.size === 0) {
      setImmediate(() => {
        const queues = [...this.toNotify];
        this.toNotify.clear();
        // Lost NOTIFYs cost latency only: runners also poll (pollMs).
        for (const q of queues) this.control().unsafe("SELECT pg_notify($1, $2)", [JOBS_CHANNEL, q]).catch(() => {});
      });
    }
    this.toNotify.add(queue);
  }

  /**
   * Reads on the pool; inside a unit of work that has written, on its transaction, so a request
   * reads what it wrote (as on SQLite, where reads and writes share one connection).
   */
  get read(): Repositories {
    return this.units.getStore()?.openTx ?? this.pool;
  }

  /** Starts hearing other nodes' enqueues (LISTEN). */
  async listen(): Promise<void> {
    const listener = (await (this.sql as unknown as { listen(ch: string, cb: (payload: string) => void): Promise<{ unlisten(): Promise<void> }> }).listen(
      JOBS_CHANNEL,
      (queue) => this.signals.enqueued(queue),
    )) as { unlisten(): Promise<void> };
    this.unlisten = () => listener.unlisten();
  }

  /** @internal A reserved connection with an open transaction, repositories on it, and the queues it enqueues to. */
  async open(): Promise<Transaction> {
    await this.gate.acquire();
    let conn: ReservedSQL | null = null;
    try {
      conn = await this.sql.reserve();
      const exec = new PipelinedExecutor(conn);
      // The connection runs its statements in order: BEGIN goes out with the first one.
      exec.controlLater("BEGIN");
      const enqueued = new Set<string>();
      // A job due later wakes this node's runner for its time (a hint: a rollback leaves a timer that finds nothing).
      return { conn, exec, enqueued, tx: repositories(exec, { enqueued: (q) => enqueued.add(q), later: (q, at) => this.signals.later(q, at) }) };
    } catch (err) {
      conn?.release();
      this.gate.release();
      throw postgresError(err);
    }
  }

  /** @internal Commits (or rolls back), gives the connection back, and announces what a commit enqueued. */
  async end(t: Transaction, ok: boolean): Promise<void> {
    const { conn, exec } = t;
    try {
      await exec.control(ok ? "COMMIT" : "ROLLBACK");
      if (ok) {
        this.stats.commits++;
        this.stats.writes++;
        for (const q of t.enqueued) this.announce(q);
      }
    } catch (err) {
      throw postgresError(err);
    } finally {
      conn.release();
      this.gate.release();
    }
  }

  async write<T>(fn: (tx: Repositories) => T | Promise<T>): Promise<T> {
    const unit = this.units.getStore();
    if (unit && !unit.finished) return unit.run(fn);
    const t = await this.open();
    let value: T;
    try {
      value = await fn(t.tx);
    } catch (err) {
      await this.end(t, false).catch(() => {});
      throw postgresError(err);
    }
    await this.end(t, true);
    return value;
  }

  writeNow<T>(fn: (tx: Repositories) => Promise<T>): Promise<T> {
    // One statement on the pool is its own transaction, committed when it returns.
    return this.detached(() => fn(this.pool));
  }

  withUnit<T>(fn: () => T): T {
    return this.units.run(new PostgresUnit(this), fn);
  }

  detached<T>(fn: () => T): T {
    return this.units.run(null, fn);
  }

  currentUnit(): PostgresUnit | undefined {
    return this.units.getStore() ?? undefined;
  }

  /**
   * On a connection of its own, outside the pool's gate: a health check tells whether the
   * database answers, and must not queue behind requests when every pooled connection is busy.
   */
  async ping(): Promise<void> {
    if (!this.url) return this.pool.locks.ping();
    this.pinger ??= new LockRepository(new PostgresExecutor(this.control()));
    await this.pinger.ping();
  }

  async close(): Promise<void> {
    await this.unlisten?.().catch(() => {});
    await this.controlClient?.close({ timeout: 1 }).catch(() => {});
    await this.sql.close({ timeout: 5 });
  }
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/**
 * A pool of at most `max` connections to `url`, having checked that the server answers. Throws
 * `unreachable(reason)` (a one-line start-up error) when it cannot be reached or refuses the
 * credentials.
 */
export async function connectPostgres(url: string, max: number, unreachable: (detail: string) => Error): Promise<SQL> {
  const sql = postgresClient(url, { max });
  try {
    await sql.unsafe("SELECT 1");
    return sql;
  } catch (err) {
    await sql.close({ timeout: 1 }).catch(() => {});
    const message = String((err as { message?: unknown })?.message ?? err).split("\n")[0];
    throw unreachable(`cannot connect to ${redactedUrl(url)}: ${message}`);
  }
}

/** Connects (see connectPostgres), applies the embedded migrations (once across nodes), and LISTENs for other nodes' enqueues. */
export async function openPostgresStore(
  url: string,
  opts: { poolSize: number; poolWaitMs: number },
  unreachable: (detail: string) => Error,
): Promise<PostgresStore> {
  const sql = await connectPostgres(url, opts.poolSize, unreachable);
  await migratePostgres(sql);
  const store = new PostgresStore(sql, { ...opts, url });
  await store.listen();
  return store;
}
