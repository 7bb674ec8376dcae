import { SQL } from "bun";
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
    return (await this.sql.unsafe(this.text(sql), [...params])) as unknown as Record<string, unknown>[] & { count: number };
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
