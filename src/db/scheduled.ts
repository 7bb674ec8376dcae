import { placeholders, ROWS_PER_STATEMENT, type SqlExecutor } from "./sql.ts";

/** A message as scheduling sees it: whose it is, its status and when it is to go out. */
export type ScheduledMessageRow = {
  id: string;
  type: string;
  team_id: string;
  project_id: string | null;
  route_id: string | null;
  status: string;
  scheduled_at: number | null;
  tag: string | null;
  /** JSON text: [{name, value}]. */
  tags: string;
  metadata: string;
};

/** A recipient a release moved from scheduled to queued: the ones to send to, unless suppressed since. */
export type ReleasedRecipientRow = { id: string; message_id: string; email: string };

/** A message.queued history entry of a release. */
export type ReleaseHistoryRow = { id: string; message_id: string; data: string; created_at: number };

const COLUMNS = "id, type, team_id, project_id, route_id, status, scheduled_at, tag, tags, metadata";
const scheduledRow = (row: ScheduledMessageRow): ScheduledMessageRow => ({ ...row, scheduled_at: row.scheduled_at === null ? null : Number(row.scheduled_at) });

/**
 * Scheduled sending (src/sending/scheduled-job.ts, src/modules/schedule/): the message row is the
 * one arbiter of a scheduled message's fate. Its job's release, a reschedule and a cancel each
 * change it only `WHERE status = 'scheduled'`, so whichever commits first wins and the others
 * change nothing (on PostgreSQL the later ones wait for the row's lock, then see the new status).
 */
export class ScheduledRepository {
  constructor(private readonly db: SqlExecutor) {}

  async find(id: string): Promise<ScheduledMessageRow | null> {
    const row = await this.db.get<ScheduledMessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = ?`, [id]);
    return row ? scheduledRow(row) : null;
  }

  /** The messages among `ids` that still exist, as scheduling sees them (one statement). */
  async findMany(ids: readonly string[]): Promise<ScheduledMessageRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.all<ScheduledMessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id IN (${placeholders(ids.length)})`, [...ids], { dynamic: true });
    return rows.map(scheduledRow);
  }

  /**
   * A batch's release, set-based: of the messages `ids`, those still scheduled and due by `now`
   * become queued, with their scheduled recipients, in two statements whatever the batch's size.
   * Returns the messages released and those recipients; a message canceled, released already or
   * moved past `now` (its row's lock waited for, then its new status seen) is not among them.
   */
  async releaseMany(ids: readonly string[], now: number): Promise<{ messages: ScheduledMessageRow[]; recipients: ReleasedRecipientRow[] }> {
    if (ids.length === 0) return { messages: [], recipients: [] };
    const rows = await this.db.all<ScheduledMessageRow>(
      `UPDATE messages SET status = 'queued', status_changed_at = ?, updated_at = ?
       WHERE id IN (${placeholders(ids.length)}) AND status = 'scheduled' AND scheduled_at <= ? RETURNING ${COLUMNS}`,
      [now, now, ...ids, now],
      { dynamic: true },
    );
    if (rows.length === 0) return { messages: [], recipients: [] };
    const recipients = await this.db.all<ReleasedRecipientRow>(
      `UPDATE recipients SET status = 'queued', status_changed_at = ? WHERE message_id IN (${placeholders(rows.length)}) AND status = 'scheduled'
       RETURNING id, message_id, email`,
      [now, ...rows.map((r) => r.id)],
      { dynamic: true },
    );
    return { messages: rows.map(scheduledRow), recipients };
  }

  /** The releases' message.queued entries in the messages' history, in multi-row INSERTs. */
  async recordReleases(entries: readonly ReleaseHistoryRow[]): Promise<void> {
    for (let i = 0; i < entries.length; i += ROWS_PER_STATEMENT) {
      const chunk = entries.slice(i, i + ROWS_PER_STATEMENT);
      await this.db.runDeferred(
        `INSERT INTO message_events (id, message_id, recipient_id, kind, status, data, created_at)
         VALUES ${chunk.map(() => "(?, ?, NULL, 'message.queued', 'queued', ?, ?)").join(", ")}`,
        chunk.flatMap((e) => [e.id, e.message_id, e.data, e.created_at]),
        { dynamic: true },
      );
    }
  }

  /** Moves a scheduled message to `at`; false, changing nothing, once it has left `scheduled`. */
  async reschedule(id: string, at: number, now: number): Promise<boolean> {
    const res = await this.db.run("UPDATE messages SET scheduled_at = ?, updated_at = ? WHERE id = ? AND status = 'scheduled'", [at, now, id]);
    return res.changes === 1;
  }

  /** Cancels a scheduled message and its recipients; false, changing nothing, once it has left `scheduled`. */
  async cancel(id: string, now: number): Promise<boolean> {
    const res = await this.db.run("UPDATE messages SET status = 'canceled', status_changed_at = ?, updated_at = ? WHERE id = ? AND status = 'scheduled'", [
      now,
      now,
      id,
    ]);
    if (res.changes !== 1) return false;
    await this.db.run("UPDATE recipients SET status = 'canceled', status_changed_at = ? WHERE message_id = ? AND status = 'scheduled'", [now, id]);
    return true;
  }
}
