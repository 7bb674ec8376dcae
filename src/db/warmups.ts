import type { SqlExecutor } from "./sql.ts";

/** A domain's warm-up as stored: schedule is the JSON array of daily caps. */
export interface WarmupRow {
  domain_id: string;
  enabled: boolean;
  schedule: number[];
  started_at: number;
  created_at: number;
  updated_at: number;
}

type Raw = { domain_id: string; enabled: number; schedule: string; started_at: number | string; created_at: number | string; updated_at: number | string };
const row = (r: Raw): WarmupRow => ({
  domain_id: r.domain_id,
  enabled: Number(r.enabled) === 1,
  schedule: JSON.parse(r.schedule) as number[],
  started_at: Number(r.started_at),
  created_at: Number(r.created_at),
  updated_at: Number(r.updated_at),
});

/** Warm-up settings of sending domains and their per-day counters (src/deliverability/warmup.ts). */
export class WarmupRepository {
  constructor(private readonly db: SqlExecutor) {}

  async get(domainId: string): Promise<WarmupRow | null> {
    const r = await this.db.get<Raw>("SELECT domain_id, enabled, schedule, started_at, created_at, updated_at FROM domain_warmups WHERE domain_id = ?", [domainId]);
    return r ? row(r) : null;
  }

  async put(w: WarmupRow): Promise<void> {
    await this.db.run(
      `INSERT INTO domain_warmups (domain_id, enabled, schedule, started_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (domain_id) DO UPDATE SET enabled = excluded.enabled, schedule = excluded.schedule, started_at = excluded.started_at, updated_at = excluded.updated_at`,
      [w.domain_id, w.enabled ? 1 : 0, JSON.stringify(w.schedule), w.started_at, w.created_at, w.updated_at],
    );
  }

  /**
   * The enabled warm-up of a message's sending domain, with the message's route type (broadcast
   * or transactional); null when its domain has none. Two lookups by primary key.
   */
  async ofMessage(messageId: string): Promise<(WarmupRow & { route_type: string | null }) | null> {
    const r = await this.db.get<Raw & { route_type: string | null }>(
      `SELECT w.domain_id, w.enabled, w.schedule, w.started_at, w.created_at, w.updated_at, (SELECT route_type FROM routes WHERE id = m.route_id) AS route_type
       FROM messages m JOIN domain_warmups w ON w.domain_id = m.domain_id WHERE m.id = ? AND w.enabled = 1`,
      [messageId],
    );
    return r ? { ...row(r), route_type: r.route_type } : null;
  }

  /** Recipients counted for the domain on the day (YYYY-MM-DD). */
  async countOf(domainId: string, day: string): Promise<number> {
    const r = await this.db.get<{ sent: number | string }>("SELECT sent FROM warmup_counts WHERE domain_id = ? AND day = ?", [domainId, day]);
    return r ? Number(r.sent) : 0;
  }

  /** The counts of a domain's days from `from` on, oldest first. */
  async daysOf(domainId: string, from: string): Promise<{ day: string; sent: number }[]> {
    const rows = await this.db.all<{ day: string; sent: number | string }>("SELECT day, sent FROM warmup_counts WHERE domain_id = ? AND day >= ? ORDER BY day", [domainId, from]);
    return rows.map((r) => ({ day: r.day, sent: Number(r.sent) }));
  }

  /**
   * Takes `n` from the day's allowance of `limit`, atomically: true when the count was raised,
   * false (and nothing changed) when it would pass the limit. The first take of a day always
   * succeeds, so that a message with more recipients than a day's cap goes alone rather than
   * never. On PostgreSQL the upsert locks the day's row until the transaction ends: concurrent
   * takes, on any node, queue behind it and see its count.
   */
  async take(domainId: string, day: string, n: number, limit: number): Promise<boolean> {
    const r = await this.db.run(
      `INSERT INTO warmup_counts (domain_id, day, sent) VALUES (?, ?, ?)
       ON CONFLICT (domain_id, day) DO UPDATE SET sent = warmup_counts.sent + excluded.sent WHERE warmup_counts.sent + excluded.sent <= ?`,
      [domainId, day, n, limit],
    );
    return r.changes > 0;
  }

  /**
   * Messages of the domain whose first attempt waits for a time after `now` (their job deferred):
   * held by the warm-up until its release, or for a per-destination slot. Jobs are found by the
   * message index (jobs_message).
   */
  async heldCount(domainId: string, now: number): Promise<number> {
    const payload = this.db.dialect === "postgres" ? "(j.payload::jsonb ->> 'messageId')" : "json_extract(j.payload, '$.messageId')";
    const r = await this.db.get<{ n: number | string }>(
      `SELECT count(*) AS n FROM messages m
       WHERE m.domain_id = ? AND EXISTS (SELECT 1 FROM recipients r WHERE r.message_id = m.id AND r.status = 'pending')
         AND EXISTS (SELECT 1 FROM jobs j WHERE j.queue = 'outbound' AND ${payload} = m.id AND j.dead_at IS NULL AND j.run_at > ?)`,
      [domainId, now],
    );
    return Number(r?.n ?? 0);
  }

  /** The enabled warm-ups of the given messages' domains, by message (the queue view's reason for a held message). */
  async ofMessages(messageIds: string[]): Promise<(WarmupRow & { message_id: string; route_type: string | null })[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.db.all<Raw & { message_id: string; route_type: string | null }>(
      `SELECT m.id AS message_id, w.domain_id, w.enabled, w.schedule, w.started_at, w.created_at, w.updated_at, (SELECT route_type FROM routes WHERE id = m.route_id) AS route_type
       FROM messages m JOIN domain_warmups w ON w.domain_id = m.domain_id WHERE m.id IN (${messageIds.map(() => "?").join(", ")}) AND w.enabled = 1`,
      messageIds,
    );
    return rows.map((r) => ({ ...row(r), message_id: r.message_id, route_type: r.route_type }));
  }
}
