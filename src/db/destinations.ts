import type { SqlExecutor } from "./sql.ts";

/** One destination's shaping state as the nodes share it (see src/mail/shaping.ts). */
export interface DestinationRow {
  /** The sorted MX host set of its domains ("mx1.example,mx2.example"), or "relay:<host>". */
  name: string;
  /** Recipient domains seen going there (JSON array, a few). */
  domains: string;
  /** Limits in force; null = none. */
  concurrency: number | null;
  per_minute: number | null;
  /** Epoch ms; in the past (or null) when not paused. */
  paused_until: number | null;
  strikes: number;
  /** The remote's last rate reply (RemoteReply as JSON). */
  last_reply: string | null;
  throttled_at: number | null;
  /** The node (process) that wrote this version. */
  updated_by: string;
  updated_at: number;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const rowOf = (r: DestinationRow): DestinationRow => ({
  ...r,
  concurrency: num(r.concurrency),
  per_minute: num(r.per_minute),
  paused_until: num(r.paused_until),
  strikes: Number(r.strikes),
  throttled_at: num(r.throttled_at),
  updated_at: Number(r.updated_at),
});

const COLUMNS = "name, domains, concurrency, per_minute, paused_until, strikes, last_reply, throttled_at, updated_by, updated_at";

/**
 * A pause is never shortened by a node that had not heard of it yet: the later paused_until of
 * the two wins. The only statement that differs between the engines (max/GREATEST).
 */
const FLAVORS = {
  sqlite: { laterPause: "max(coalesce(destinations.paused_until, 0), coalesce(excluded.paused_until, 0))" },
  postgres: { laterPause: "GREATEST(coalesce(destinations.paused_until, 0), coalesce(excluded.paused_until, 0))" },
} as const;

/**
 * The destinations table: written when a destination is first seen, throttled or ramped back up
 * (at most about once a second each), read by every node once a second for what changed.
 */
export class DestinationRepository {
  private readonly sql: (typeof FLAVORS)[keyof typeof FLAVORS];

  constructor(private readonly db: SqlExecutor) {
    this.sql = FLAVORS[db.dialect];
  }

  /** Rows written at or after `since` (epoch ms), oldest first. */
  async changedSince(since: number): Promise<DestinationRow[]> {
    const rows = await this.db.all<DestinationRow>(`SELECT ${COLUMNS} FROM destinations WHERE updated_at >= ? ORDER BY updated_at`, [since]);
    return rows.map(rowOf);
  }

  /** Every destination, paused ones first, then by name; at most `limit`. */
  async list(limit: number): Promise<DestinationRow[]> {
    const rows = await this.db.all<DestinationRow>(
      `SELECT ${COLUMNS} FROM destinations ORDER BY coalesce(paused_until, 0) DESC, name LIMIT ?`,
      [limit],
    );
    return rows.map(rowOf);
  }

  /** Records a destination seen for the first time, or the domains it now has; its limits are left as they are. */
  async seen(name: string, domains: readonly string[], by: string, now: number): Promise<void> {
    await this.db.run(
      `INSERT INTO destinations (${COLUMNS}) VALUES (?, ?, NULL, NULL, NULL, 0, NULL, NULL, ?, ?)
       ON CONFLICT (name) DO UPDATE SET domains = excluded.domains`,
      [name, JSON.stringify(domains), by, now],
    );
  }

  /** Writes a destination's whole state; a pause already stored that ends later is kept. */
  async save(row: DestinationRow): Promise<void> {
    await this.db.run(
      `INSERT INTO destinations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET domains = excluded.domains, concurrency = excluded.concurrency,
         per_minute = excluded.per_minute, paused_until = ${this.sql.laterPause}, strikes = excluded.strikes,
         last_reply = coalesce(excluded.last_reply, destinations.last_reply), throttled_at = excluded.throttled_at,
         updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
      [row.name, row.domains, row.concurrency, row.per_minute, row.paused_until, row.strikes, row.last_reply, row.throttled_at, row.updated_by, row.updated_at],
    );
  }
}
