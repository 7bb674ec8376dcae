import type { SqlExecutor } from "./sql.ts";

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

/**
 * Scheduled sending (src/sending/scheduled-job.ts, src/modules/schedule/): the message row is the
 * one arbiter of a scheduled message's fate. Its job's release, a reschedule and a cancel each
 * change it only `WHERE status = 'scheduled'`, so whichever commits first wins and the others
 * change nothing (on PostgreSQL the later ones wait for the row's lock, then see the new status).
 */
export class ScheduledRepository {
  constructor(private readonly db: SqlExecutor) {}

  async find(id: string): Promise<ScheduledMessageRow | null> {
    const row = await this.db.get<ScheduledMessageRow>(
      "SELECT id, type, team_id, project_id, route_id, status, scheduled_at, tag, tags, metadata FROM messages WHERE id = ?",
      [id],
    );
    return row ? { ...row, scheduled_at: row.scheduled_at === null ? null : Number(row.scheduled_at) } : null;
  }

  /**
   * The time has come: scheduled → queued, its recipients with it. False, changing nothing, when
   * the message is no longer scheduled (canceled, already released) or was moved past `now`.
   */
  async release(id: string, now: number): Promise<boolean> {
    const res = await this.db.run(
      "UPDATE messages SET status = 'queued', status_changed_at = ?, updated_at = ? WHERE id = ? AND status = 'scheduled' AND scheduled_at <= ?",
      [now, now, id, now],
    );
    if (res.changes !== 1) return false;
    await this.db.run("UPDATE recipients SET status = 'queued', status_changed_at = ? WHERE message_id = ? AND status = 'scheduled'", [now, id]);
    return true;
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
