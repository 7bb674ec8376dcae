import type { EnqueueListener } from "./job-queue.ts";
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

/**
 * What each subscribed webhook's delivery job is. `machine`: the event is a tracking hit
 * classified as a machine, sent only to webhooks that include machine events.
 */
export type DeliveryJobSpec = { queue: string; maxAttempts: number; machine?: boolean; audience?: Audience };

/**
 * Whose webhooks an event without a route goes to: every webhook of the team's routes, or of one
 * project's routes (a team- or project-scoped suppression). Absent, an event goes to its route's
 * webhooks, and one without a route to none.
 */
export type Audience = { scope: "team" } | { scope: "project"; projectId: string };

/** The webhooks an event goes to, as SQL selecting `w.id` (and its parameters, before kind and machine). */
function audienceOf(e: EventRow, audience: Audience | undefined): { from: string; params: string[] } | null {
  if (!audience) return e.route_id === null ? null : { from: "FROM webhooks w WHERE w.route_id = ?", params: [e.route_id] };
  if (audience.scope === "team") return { from: "FROM webhooks w WHERE w.team_id = ?", params: [e.team_id] };
  return { from: "FROM webhooks w JOIN routes r ON r.id = w.route_id WHERE w.team_id = ? AND r.project_id = ?", params: [e.team_id, audience.projectId] };
}

/**
 * The statements that differ between the engines, side by side: one job per enabled webhook of
 * the route subscribed to the kind (`events` holds a JSON array of kinds), its payload
 * `{"eventId", "webhookId"}`. PostgreSQL records the event in the same statement, when a job is
 * made for it.
 */
const FLAVORS = {
  sqlite: {
    // Read first, then one INSERT per webhook: an INSERT … SELECT costs SQLite ~20 µs even when
    // it selects nothing, and most routes have no webhook. The kind is found as a quoted string
    // in the JSON array (kinds are plain ASCII): json_each would cost 3.6 µs a call, this 0.3 µs
    // (measured).
    subscribed: (from: string) => `SELECT w.id ${from} AND w.enabled = 1 AND instr(w.events, '"' || ? || '"') > 0 AND (? = 0 OR w.include_machine_events = 1)`,
    delivery: "INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at) VALUES (?, json_object('eventId', ?, 'webhookId', ?), ?, 0, ?, ?)",
  },
  postgres: {
    recordWithDeliveries: (from: string) => `WITH w AS (SELECT w.id ${from} AND w.enabled = 1 AND w.events::jsonb @> jsonb_build_array(?::text) AND (?::integer = 0 OR w.include_machine_events = 1)),
      e AS (INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at)
        SELECT ?::text, ?::text, ?::text, ?::text, ?::text, ?::text, ?::bigint WHERE EXISTS (SELECT 1 FROM w))
      INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at)
      SELECT ?, json_build_object('eventId', ?::text, 'webhookId', w.id)::text, ?, 0, ?, ? FROM w`,
  },
};

/** Recorded events (what webhooks are sent). */
export class EventRepository {
  constructor(
    private readonly db: SqlExecutor,
    private readonly signals: EnqueueListener,
  ) {}

  /**
   * Queues a delivery job for each enabled webhook of the event's route subscribed to its kind
   * (and, for a machine's tracking hit, including machine events), and records the event, the
   * body those jobs send, when there is at least one. An event no webhook receives leaves no row:
   * nothing else reads it (a message's history is `message_events`), and it was a third of the
   * rows written per message. Nothing is read back: on PostgreSQL it is one pipelined statement.
   */
  async record(e: EventRow, job: DeliveryJobSpec): Promise<void> {
    const audience = audienceOf(e, job.audience);
    if (audience === null) return; // webhooks belong to routes
    if (this.db.dialect === "postgres") {
      const hooks = [...audience.params, e.kind, job.machine ? 1 : 0];
      const event = [e.id, e.team_id, e.route_id, e.message_id, e.kind, e.body, e.created_at];
      const deliveries = [job.queue, e.id, e.created_at, job.maxAttempts, e.created_at];
      const onDone = (jobs: number) => jobs > 0 && this.signals.enqueued(job.queue);
      return this.db.runDeferred(FLAVORS.postgres.recordWithDeliveries(audience.from), [...hooks, ...event, ...deliveries], { onDone });
    }
    const hooks = await this.db.all<{ id: string }>(FLAVORS.sqlite.subscribed(audience.from), [...audience.params, e.kind, job.machine ? 1 : 0]);
    if (hooks.length === 0) return;
    await this.insert(e);
    for (const hook of hooks) {
      await this.db.runDeferred(FLAVORS.sqlite.delivery, [job.queue, e.id, hook.id, e.created_at, job.maxAttempts, e.created_at]);
    }
    this.signals.enqueued(job.queue);
  }

  async insert(e: EventRow): Promise<void> {
    await this.db.runDeferred("INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
      e.id,
      e.team_id,
      e.route_id,
      e.message_id,
      e.kind,
      e.body,
      e.created_at,
    ]);
  }

  /** How many enabled webhooks of the route are subscribed to `kind` (those its event would go to). */
  async subscribedCount(routeId: string, kind: string): Promise<number> {
    const subscribed =
      this.db.dialect === "postgres" ? "w.events::jsonb @> jsonb_build_array(?::text)" : "instr(w.events, '\"' || ? || '\"') > 0";
    const row = await this.db.get<{ n: number | string }>(`SELECT count(*) AS n FROM webhooks w WHERE w.route_id = ? AND w.enabled = 1 AND ${subscribed}`, [routeId, kind]);
    return Number(row?.n ?? 0);
  }

  /** The kind and body of an event, for delivering it. */
  find(id: string): Promise<Pick<EventRow, "kind" | "body"> | null> {
    return this.db.get("SELECT kind, body FROM events WHERE id = ?", [id]);
  }
}
