import { iso, newId } from "../ids.ts";
import { keysetPageOf, whereEquals, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";

export type WebhookRow = {
  id: string;
  team_id: string;
  route_id: string;
  name: string;
  url: string;
  /** JSON array of event kinds. */
  events: string;
  enabled: number;
  /** 1: also sent tracking hits classified as machines. */
  include_machine_events: number;
  secret: string;
  disabled_reason: string | null;
  last_called_at: number | null;
  created_at: number;
  updated_at: number;
};

export type DeliveryRow = {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  attempt: number;
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: number | null;
  created_at: number;
};

/** One attempt to deliver an event to a webhook, as the sender reported it. */
export interface AttemptRecord {
  webhookId: string;
  eventId: string;
  event: string;
  attempt: number;
  result: { outcome: string; statusCode: number | null; durationMs: number; error: string | null; responseExcerpt: string | null; gone?: boolean };
  nextAttemptAt: number | null;
}

export type WebhookUpdate = Pick<WebhookRow, "name" | "url" | "events" | "enabled" | "include_machine_events" | "disabled_reason" | "updated_at">;

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

/** What an attempt put on record before it went out says until its result is in. */
const UNANSWERED = "No answer on record: the attempt was under way, or the server stopped before it could record the answer.";

/** Webhooks and their delivery attempts. */
export class WebhookRepository {
  constructor(private readonly db: SqlExecutor) {}

  findOfTeam(id: string, teamId: string): Promise<WebhookRow | null> {
    return this.db.get<WebhookRow>("SELECT * FROM webhooks WHERE id = ? AND team_id = ?", [id, teamId]);
  }

  find(id: string): Promise<WebhookRow | null> {
    return this.db.get<WebhookRow>("SELECT * FROM webhooks WHERE id = ?", [id]);
  }

  async insert(row: WebhookRow): Promise<void> {
    await this.db.run(
      `INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, include_machine_events, secret, disabled_reason, last_called_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [row.id, row.team_id, row.route_id, row.name, row.url, row.events, row.enabled, row.include_machine_events, row.secret, row.disabled_reason, row.last_called_at, row.created_at, row.updated_at],
    );
  }

  update(id: string, teamId: string, u: WebhookUpdate): Promise<WebhookRow | null> {
    return this.db.get<WebhookRow>(
      `UPDATE webhooks SET name = ?, url = ?, events = ?, enabled = ?, include_machine_events = ?, disabled_reason = ?, updated_at = ?
       WHERE id = ? AND team_id = ? RETURNING *`,
      [u.name, u.url, u.events, u.enabled, u.include_machine_events, u.disabled_reason, u.updated_at, id, teamId],
    );
  }

  setSecret(id: string, teamId: string, secret: string, now: number): Promise<WebhookRow | null> {
    return this.db.get<WebhookRow>("UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ? AND team_id = ? RETURNING *", [secret, now, id, teamId]);
  }

  /** True when it existed. */
  async delete(id: string, teamId: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM webhooks WHERE id = ? AND team_id = ?", [id, teamId])).changes > 0;
  }

  list(teamId: string, filter: { routeId?: string; enabled?: boolean }, page: Page): Promise<KeysetPage<WebhookRow>> {
    const where = ["team_id = ?"];
    const params: (string | number)[] = [teamId];
    whereEquals(where, params, { route_id: filter.routeId || undefined, enabled: filter.enabled === undefined ? undefined : filter.enabled ? 1 : 0 });
    const columns = page.sort.map((k) => k.column);
    return keysetPageOf<WebhookRow>(this.db, {
      select: "SELECT * FROM webhooks",
      where,
      params,
      ...page,
      valuesOf: (row) => columns.map((c) => (row as unknown as Record<string, string | number>)[c]!),
    });
  }

  listDeliveries(webhookId: string, filter: { event?: string; outcome?: string; eventId?: string }, page: Page): Promise<KeysetPage<DeliveryRow>> {
    const where = ["webhook_id = ?"];
    const params: string[] = [webhookId];
    whereEquals(where, params, { event: filter.event || undefined, outcome: filter.outcome || undefined, event_id: filter.eventId || undefined });
    return keysetPageOf<DeliveryRow>(this.db, {
      select: "SELECT * FROM webhook_deliveries",
      where,
      params,
      ...page,
      valuesOf: (row) => [row.created_at, row.id],
    });
  }

  /** One of the webhook's delivery attempts; null when unknown or another webhook's. */
  findDelivery(id: string, webhookId: string): Promise<DeliveryRow | null> {
    return this.db.get<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE id = ? AND webhook_id = ?", [id, webhookId]);
  }

  /**
   * Puts the event's next attempt number at the webhook on record before the attempt goes out
   * (the number is sent in X-Service-Attempt), so attempts made at once never share one. The row
   * reads failed, with no answer, until completeAttempt fills it in, and stays so if the server
   * stops first. The number is at least `atLeast` (a queued retry's own count: an attempt lost to
   * a crash is not on record, yet went out). On PostgreSQL the caller holds a lock on (webhook,
   * event) for the transaction: two nodes would otherwise read the same maximum. Null when the
   * webhook is gone.
   */
  async reserveAttempt(
    a: { webhookId: string; eventId: string; event: string; atLeast?: number },
    now = Date.now(),
  ): Promise<{ id: string; attempt: number } | null> {
    const id = newId();
    const atLeast = a.atLeast ?? 1;
    const row = await this.db.get<{ attempt: number }>(
      `INSERT INTO webhook_deliveries
         (id, webhook_id, event_id, event, attempt, outcome, status_code, duration_ms, error, response_excerpt, next_attempt_at, created_at)
       SELECT ?, ?, ?, ?,
         (SELECT CASE WHEN coalesce(max(attempt), 0) + 1 > ? THEN coalesce(max(attempt), 0) + 1 ELSE ? END
            FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?),
         'failed', NULL, 0, ?, NULL, NULL, ?
       WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?)
       RETURNING attempt`,
      [id, a.webhookId, a.eventId, a.event, atLeast, atLeast, a.webhookId, a.eventId, UNANSWERED, now, a.webhookId],
    );
    return row ? { id, attempt: Number(row.attempt) } : null;
  }

  /**
   * Fills in an attempt reserveAttempt put on record, with the sender's result and when the next
   * one is due (null: none), and stamps the webhook as recordAttempt does. False when the row is
   * gone (the webhook was deleted meanwhile).
   */
  async completeAttempt(
    id: string,
    webhookId: string,
    result: AttemptRecord["result"],
    nextAttemptAt: number | null = null,
    now = Date.now(),
  ): Promise<boolean> {
    const r = result;
    const updated = await this.db.run(
      "UPDATE webhook_deliveries SET outcome = ?, status_code = ?, duration_ms = ?, error = ?, response_excerpt = ?, next_attempt_at = ?, created_at = ? WHERE id = ? AND webhook_id = ?",
      [r.outcome, r.statusCode, r.durationMs, r.error, r.responseExcerpt, nextAttemptAt, now, id, webhookId],
    );
    if (updated.changes === 0) return false;
    await this.stamp(webhookId, r.gone === true, now);
    return true;
  }

  /**
   * Records one attempt and stamps the webhook's last_called_at; on 410 Gone also disables it.
   * Nothing is written when the webhook was deleted meanwhile. Returns the delivery row's id, or null.
   */
  async recordAttempt(a: AttemptRecord, now = Date.now()): Promise<string | null> {
    const id = newId();
    const r = a.result;
    const inserted = await this.db.run(
      `INSERT INTO webhook_deliveries
         (id, webhook_id, event_id, event, attempt, outcome, status_code, duration_ms, error, response_excerpt, next_attempt_at, created_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = ?)`,
      [id, a.webhookId, a.eventId, a.event, a.attempt, r.outcome, r.statusCode, r.durationMs, r.error, r.responseExcerpt, a.nextAttemptAt, now, a.webhookId],
    );
    if (inserted.changes === 0) return null;
    await this.stamp(a.webhookId, r.gone === true, now);
    return id;
  }

  /** The webhook's last_called_at; after a 410 Gone it is also disabled. */
  private async stamp(webhookId: string, gone: boolean, now: number): Promise<void> {
    if (gone) {
      await this.db.run("UPDATE webhooks SET last_called_at = ?, enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?", [
        now,
        `The receiver answered 410 Gone at ${iso(now)}; deliveries stopped. Re-enable the webhook to resume.`,
        now,
        webhookId,
      ]);
    } else {
      await this.db.run("UPDATE webhooks SET last_called_at = ? WHERE id = ?", [now, webhookId]);
    }
  }
}
