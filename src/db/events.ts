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
