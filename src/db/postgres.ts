import { SQL } from "bun";
import { BadRequestError, ConflictError, DatabaseUnavailableError } from "../errors.ts";
import type { SqlExecutor, SqlValue } from "./sql.ts";

/**
 * `?` placeholders → PostgreSQL's `$1, $2, …`, leaving quoted strings, quoted identifiers and
 * comments alone. Repositories write one SQL text for both engines; this is the only rewrite.
 */
export function toPostgresPlaceholders(sql: string): string {
  let out = "";
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end === -1 ? sql.length - 1 : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === "?") out += `$${++n}`;
    else out += c;
  }
  return out;
}

/** PostgreSQL's int8 arrives as BigInt; every such value here is an epoch-ms time or a count. */
function plainRow<R>(row: Record<string, unknown>): R {
  for (const k in row) if (typeof row[k] === "bigint") row[k] = Number(row[k]);
  return row as R;
}

type Queryable = Pick<SQL, "unsafe">;

/** The PostgreSQL executor over Bun's built-in client: a pool, or one transaction's connection. */
export class PostgresExecutor implements SqlExecutor {
  readonly dialect = "postgres" as const;
  private readonly texts = new Map<string, string>();

  constructor(private readonly sql: Queryable) {}

  private text(sql: string): string {
    let t = this.texts.get(sql);
    if (t === undefined) {
      t = toPostgresPlaceholders(sql);
      if (this.texts.size < 10_000) this.texts.set(sql, t);
    }
    return t;
  }

  private async query(sql: string, params: readonly SqlValue[]) {
    try {
      return (await this.sql.unsafe(this.text(sql), [...params])) as unknown as Record<string, unknown>[] & { count: number };
    } catch (err) {
      throw postgresError(err);
    }
  }

  async all<R>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
    return (await this.query(sql, params)).map((r) => plainRow<R>(r));
  }

  async get<R>(sql: string, params: readonly SqlValue[] = []): Promise<R | null> {
    const rows = await this.query(sql, params);
    return rows.length ? plainRow<R>(rows[0]!) : null;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return { changes: (await this.query(sql, params)).count ?? 0 };
  }
}

/** A pooled client for `POSTHORN_DATABASE_URL`. int8 values come back as BigInt (then numbers, above), never as strings. */
export const postgresClient = (url: string, opts: { max?: number } = {}) => new SQL(url, { max: opts.max ?? 20, bigint: true });

/** SQLSTATE classes and driver codes that mean the server is gone or refuses connections, not that the statement is wrong. */
const UNAVAILABLE_STATES = /^(08|53|57P0[1-3])/;

/**
 * What a PostgreSQL failure means to the layer above: the database being unreachable is a 503
 * (DatabaseUnavailableError); a foreign key that lost its row, a unique value taken meanwhile, or
 * a deadlock with a concurrent transaction a 409 (the write lost a race and changed nothing; the
 * client may retry); a NUL character a 400 (PostgreSQL's text cannot hold one, and only a client
 * sends one: SQLite would have stored it). Anything else is passed on as it is.
 */
export function postgresError(err: unknown): unknown {
  const e = err as { code?: unknown; errno?: unknown; message?: unknown } | null;
  const state = typeof e?.errno === "string" ? e.errno : "";
  const code = typeof e?.code === "string" ? e.code : "";
  if (UNAVAILABLE_STATES.test(state) || /^ERR_POSTGRES_(CONNECTION|IDLE|LIFETIME|CONNECT)/.test(code)) {
    return new DatabaseUnavailableError(`${code || state}: ${String(e?.message ?? err)}`);
  }
  if (state === "23503") return new ConflictError("Something this request refers to was deleted while it ran; nothing was changed.");
  // Another node's transaction took the same unique value (a slug, a domain, an idempotency key) first.
  if (state === "23505") return new ConflictError("This conflicts with a change made at the same time; nothing was changed.");
  if (state === "40P01" || state === "40001") return new ConflictError("This request collided with a concurrent one and changed nothing; retry it.");
  if (state === "22021" && /0x00/.test(String(e?.message))) return new BadRequestError("Text may not contain the NUL character (\\u0000).");
  return err;
}
