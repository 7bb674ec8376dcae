import { useIncrementalVacuum } from "./pragmas.ts";
import { FINAL_STATUSES_SQL } from "./recipients.ts";
import { placeholders, SqliteExecutor, type SqlExecutor } from "./sql.ts";

/** One message of the walk in id order: whether retention already purged it. */
export type RetentionWalkRow = { id: string; purged: number };

/** What the database holds and could give back (SQLite; PostgreSQL reports nulls). */
export type StorageFootprint = { pageSize: number | null; pages: number | null; freePages: number | null; autoVacuum: string | null };

const AUTO_VACUUM_MODES = ["none", "full", "incremental"];

/**
 * A message is purged only when it and every one of its recipients reached a final status
 * before the cutoff: mail still queued, retried or half delivered is never touched, whatever its
 * age. An inbound message is final once its job processed it (processed, or quarantined: held
 * mail ages out like any other, then can no longer be released; it has no recipients). Checked
 * again inside the purge's own transaction, so a message that moved since the walk read it is
 * left alone.
 */
const PURGEABLE = `purged_at IS NULL AND created_at < ? AND status_changed_at < ?
  AND (status IN (${FINAL_STATUSES_SQL}) OR (type = 'inbound' AND status <> 'pending'))
  AND NOT EXISTS (SELECT 1 FROM recipients r WHERE r.message_id = messages.id AND (r.status NOT IN (${FINAL_STATUSES_SQL}) OR r.status_changed_at >= ?))`;


/**
 * Retention's statements (src/modules/retention/): walking the messages in id order, purging
 * what a message no longer needs once final for the retention window, and giving the space back.
 */
export class RetentionRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * The next `limit` messages after `after` whose id is below `before`, in id order. Ids are
   * UUIDv7, so id order is acceptance order and `before` (an id made of the cutoff's time) ends
   * the walk at the window; reading by primary key bounds each step whatever was purged already.
   */
  walk(after: string, before: string, limit: number): Promise<RetentionWalkRow[]> {
    return this.db.all<RetentionWalkRow>(
      "SELECT id, CASE WHEN purged_at IS NULL THEN 0 ELSE 1 END AS purged FROM messages WHERE id > ? AND id < ? ORDER BY id LIMIT ?",
      [after, before, limit],
    );
  }

  /**
   * Purges those of `ids` that are final since before `cutoff`: their bodies, headers and raw
   * source, their attachments' content (the attachment rows stay, as metadata), their published
   * events and those events' webhook delivery logs. The message, its recipients and its history
   * stay for statistics. Returns the ids purged (the others did not qualify).
   */
  async purge(ids: readonly string[], cutoff: number, now: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const list = placeholders(ids.length);
    const purged = (
      await this.db.all<{ id: string }>(`UPDATE messages SET purged_at = ? WHERE id IN (${list}) AND ${PURGEABLE} RETURNING id`, [now, ...ids, cutoff, cutoff, cutoff], {
        dynamic: true,
      })
    ).map((r) => r.id);
    if (purged.length === 0) return purged;
    const these = placeholders(purged.length);
    const opts = { dynamic: true };
    // The row goes rather than its columns: a row shrunk in place keeps its page (nothing after it
    // in key order ever fills that page again), a deleted one frees it. Readers take a missing row as no content.
    await this.db.run(`DELETE FROM message_contents WHERE message_id IN (${these})`, purged, opts);
    // The rows stay (filename, type, size are the message's metadata); an empty content is what a purged file reads as.
    await this.db.run(`UPDATE attachments SET content = ? WHERE message_id IN (${these})`, [new Uint8Array(0), ...purged], opts);
    await this.db.run(`DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM events WHERE message_id IN (${these}))`, purged, opts);
    await this.db.run(`DELETE FROM events WHERE message_id IN (${these})`, purged, opts);
    return purged;
  }

  /**
   * The route setting redact_email_content: drops the message's bodies, raw source and attachment
   * contents once every recipient has a final status (until then a retry still needs them), when
   * its route redacts. The message, its headers, recipients, history, events and the attachments'
   * metadata stay. True when it did (once: redacted_at is set).
   */
  async redactWhenFinal(messageId: string, now: number): Promise<boolean> {
    const done = await this.db.get<{ id: string }>(
      `UPDATE messages SET redacted_at = ? WHERE id = ? AND redacted_at IS NULL
         AND EXISTS (SELECT 1 FROM routes r WHERE r.id = messages.route_id AND r.redact_email_content = 1)
         AND NOT EXISTS (SELECT 1 FROM recipients r WHERE r.message_id = messages.id AND r.status NOT IN (${FINAL_STATUSES_SQL}))
       RETURNING id`,
      [now, messageId],
    );
    if (!done) return false;
    await this.db.run("UPDATE message_contents SET html = NULL, text = NULL, raw = NULL WHERE message_id = ?", [messageId]);
    await this.db.run("UPDATE attachments SET content = ? WHERE message_id = ?", [new Uint8Array(0), messageId]);
    return true;
  }

  /** When the message's content was purged or redacted (ms; null: kept, or no such message). */
  async contentDroppedAt(messageId: string): Promise<{ purged_at: number | null; redacted_at: number | null } | null> {
    return this.db.get<{ purged_at: number | null; redacted_at: number | null }>("SELECT purged_at, redacted_at FROM messages WHERE id = ?", [messageId]);
  }

  /** The same for the message of an attachment, by the attachment's id. */
  async attachmentContentDroppedAt(attachmentId: string): Promise<{ purged_at: number | null; redacted_at: number | null } | null> {
    return this.db.get<{ purged_at: number | null; redacted_at: number | null }>(
      "SELECT m.purged_at, m.redacted_at FROM attachments a JOIN messages m ON m.id = a.message_id WHERE a.id = ?",
      [attachmentId],
    );
  }

  /** The database file's pages and free pages (SQLite); nulls on PostgreSQL. */
  async footprint(): Promise<StorageFootprint> {
    if (this.db.dialect === "postgres") return { pageSize: null, pages: null, freePages: null, autoVacuum: null };
    const pragma = async (name: string) => Object.values((await this.db.get<Record<string, number>>(`PRAGMA ${name}`)) ?? {})[0] ?? 0;
    return {
      pageSize: await pragma("page_size"),
      pages: await pragma("page_count"),
      freePages: await pragma("freelist_count"),
      autoVacuum: AUTO_VACUUM_MODES[await pragma("auto_vacuum")] ?? null,
    };
  }

  /**
   * Switches an SQLite file to incremental auto-vacuum (pragmas.ts), once: on a file that was not
   * yet, this is a full VACUUM, run while nothing else writes (at start, before the listeners).
   * PostgreSQL has nothing to switch.
   */
  useIncrementalVacuum(beforeVacuum?: (bytes: number) => void): { vacuumed: boolean } {
    return this.db instanceof SqliteExecutor ? useIncrementalVacuum(this.db.sqlite, beforeVacuum) : { vacuumed: false };
  }

  /**
   * Removes up to `limit` DMARC aggregate and up to `limit` TLS reports about days before `day`
   * (YYYY-MM-DD), with their records and results; the number of reports removed. The children go
   * by report id (indexed), so nothing depends on the engine's cascades.
   */
  async deleteReportsBefore(day: string, limit: number): Promise<number> {
    let removed = 0;
    for (const [reports, children] of [
      ["dmarc_reports", "dmarc_report_records"],
      ["tlsrpt_reports", "tlsrpt_results"],
    ] as const) {
      const ids = (await this.db.all<{ id: string }>(`SELECT id FROM ${reports} WHERE day < ? ORDER BY day LIMIT ?`, [day, limit], { dynamic: true })).map((r) => r.id);
      if (ids.length === 0) continue;
      const list = placeholders(ids.length);
      await this.db.run(`DELETE FROM ${children} WHERE report_id IN (${list})`, ids, { dynamic: true });
      removed += (await this.db.run(`DELETE FROM ${reports} WHERE id IN (${list})`, ids, { dynamic: true })).changes;
    }
    return removed;
  }

  /**
   * Gives up to `pages` free pages back to the file system. dialect: SQLite moves pages from the
   * file's end into the free ones and truncates it (incremental auto-vacuum, see pragmas.ts);
   * PostgreSQL's autovacuum makes deleted rows' space reusable by itself, so there is nothing to do.
   */
  async reclaim(pages: number): Promise<void> {
    if (this.db.dialect === "sqlite") await this.db.run(`PRAGMA incremental_vacuum(${Math.max(1, Math.trunc(pages))})`, [], { dynamic: true });
  }
}
