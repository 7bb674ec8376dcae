import type { SqlExecutor } from "./sql.ts";

export type EventRow = {
  id: string;
  team_id: string;
  route_id: string | null;
  message_id: string | null;
  kind: string;
  /** The serialized webhook body: the exact bytes that are signed and sent. */
  body: string;
  created_at: number;
};

/** Recorded events (what webhooks are sent). */
export class EventRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Records an event and returns the enabled webhooks of its route (id, subscribed kinds as JSON),
   * which get a delivery job each. On PostgreSQL one round trip (the INSERT in a WITH).
   */
  async record(e: EventRow): Promise<{ id: string; events: string }[]> {
    const values = [e.id, e.team_id, e.route_id, e.message_id, e.kind, e.body, e.created_at];
    if (e.route_id === null) {
      await this.insert(e);
      return [];
    }
    if (this.db.dialect === "postgres") {
      return this.db.all(
        `WITH e AS (INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?))
         SELECT id, events FROM webhooks WHERE route_id = ? AND enabled = 1`,
        [...values, e.route_id],
      );
    }
    await this.insert(e);
    return this.db.all("SELECT id, events FROM webhooks WHERE route_id = ? AND enabled = 1", [e.route_id]);
  }

  async insert(e: EventRow): Promise<void> {
    await this.db.run("INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
      e.id,
      e.team_id,
      e.route_id,
      e.message_id,
      e.kind,
      e.body,
      e.created_at,
    ]);
  }

  /** The kind and body of an event, for delivering it. */
  find(id: string): Promise<Pick<EventRow, "kind" | "body"> | null> {
    return this.db.get("SELECT kind, body FROM events WHERE id = ?", [id]);
  }
}
