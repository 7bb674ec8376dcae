import type { Database, SQLQueryBindings } from "bun:sqlite";
import { query, stmt } from "./statements.ts";

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/**
 * How repositories talk to a database: SQL with `?` placeholders, one interface for both engines.
 * Every method is asynchronous so that PostgreSQL can implement it; on SQLite the statement runs
 * at once and the promise is already settled. `cached` statements are prepared once for the life
 * of the connection (fixed SQL); SQL built at run time (lists with filters) uses `dynamic`.
 */
export interface SqlExecutor {
  readonly dialect: "sqlite" | "postgres";
  all<R>(sql: string, params?: readonly SqlValue[], opts?: SqlOptions): Promise<R[]>;
  get<R>(sql: string, params?: readonly SqlValue[], opts?: SqlOptions): Promise<R | null>;
  run(sql: string, params?: readonly SqlValue[], opts?: SqlOptions): Promise<{ changes: number }>;
  /**
   * A change whose outcome the caller does not read, and whose failure fails the whole write. In
   * a PostgreSQL transaction it is sent without waiting for the answer (pipelined behind the
   * statements before it); a failure surfaces at the transaction's next awaited statement, at
   * its savepoint's release or at its commit. Elsewhere it is `run`.
   */
  runDeferred(sql: string, params?: readonly SqlValue[], opts?: SqlOptions): Promise<void>;
  /**
   * runDeferred, folded where the engine can into the transaction's next change (PostgreSQL: a
   * data-modifying CTE of it, so one statement less). Absent: use runDeferred.
   */
  runWithNext?(sql: string, params: readonly SqlValue[]): void;
}

export interface SqlOptions {
  /** The SQL is built at run time: do not keep its prepared statement forever. */
  dynamic?: boolean;
  /** runDeferred: told how many rows the change touched, once it ran (before its transaction commits). */
  onDone?: (changes: number) => void;
}

/** The SQLite executor: bun:sqlite underneath, so every call completes before it returns. */
export class SqliteExecutor implements SqlExecutor {
  readonly dialect = "sqlite" as const;
  constructor(readonly sqlite: Database) {}

  private prepare(sql: string, opts?: SqlOptions) {
    return opts?.dynamic ? query(this.sqlite, sql) : stmt(this.sqlite, sql);
  }

  all<R>(sql: string, params: readonly SqlValue[] = [], opts?: SqlOptions): Promise<R[]> {
    return settled(() => this.prepare(sql, opts).all(...(params as SQLQueryBindings[])) as R[]);
  }

  get<R>(sql: string, params: readonly SqlValue[] = [], opts?: SqlOptions): Promise<R | null> {
    return settled(() => (this.prepare(sql, opts).get(...(params as SQLQueryBindings[])) as R | null) ?? null);
  }

  run(sql: string, params: readonly SqlValue[] = [], opts?: SqlOptions): Promise<{ changes: number }> {
    return settled(() => ({ changes: this.prepare(sql, opts).run(...(params as SQLQueryBindings[])).changes }));
  }

  runDeferred(sql: string, params: readonly SqlValue[] = [], opts?: SqlOptions): Promise<void> {
    try {
      const { changes } = this.prepare(sql, opts).run(...(params as SQLQueryBindings[]));
      opts?.onDone?.(changes);
      return DONE;
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/** `n` parameter marks for an IN list or a VALUES row: "?, ?, ?". */
export const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");

/** Rows per multi-row INSERT or DELETE of set-based work: well under either engine's bound on parameters. */
export const ROWS_PER_STATEMENT = 500;

/** What a deferred change returns: one settled promise serves every call. */
export const DONE: Promise<void> = Promise.resolve();

/** Runs `fn` now; its result or its error as a settled promise (an error rejects, as on PostgreSQL, never throws). */
function settled<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
