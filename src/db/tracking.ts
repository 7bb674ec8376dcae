import type { SqlExecutor } from "./sql.ts";

/** A recipient as an open or click of it needs it: who, where, and when the 250 came. */
export interface HitTarget {
  id: string;
  message_id: string;
  email: string;
  status: string;
  team_id: string;
  route_id: string | null;
  tag: string | null;
  /** The message's name-value tags, JSON text. */
  tags: string;
  metadata: string;
  /** The time of the recipient's first message.delivered, or null while it has none. */
  delivered_at: number | null;
}

/** Every kind of hit and verdict (people 0, machines 1), as rows of VALUES. */
const VERDICTS = "VALUES ('open', 0), ('open', 1), ('click', 0), ('click', 1)";
/** Hits of the verdict `v` on the route `routeId` (an SQL expression) whose message was created at or after `?` (tracking_hits_route). */
const verdictCount = (routeId: string) =>
  `(SELECT count(*) FROM tracking_hits h WHERE h.route_id = ${routeId} AND h.kind = v.kind AND h.machine = v.machine AND h.message_created_at >= ?)`;

export interface TrackingHitRow {
  id: string;
  message_id: string;
  recipient_id: string;
  kind: "open" | "click";
  link_index: number | null;
  ip: string | null;
  user_agent: string | null;
  machine: boolean;
  machine_reason: string | null;
  created_at: number;
}

export type RecentHit = { kind: "open" | "click"; link_index: number | null; machine: number; created_at: number };
/** Hits of one kind and verdict (machine 1/0). */
export type HitCountRow = { kind: "open" | "click"; machine: number; n: number };

const TARGET = `SELECT r.id, r.message_id, r.email, r.status, m.team_id, m.route_id, m.tag, m.tags, m.metadata,
    (SELECT min(e.created_at) FROM message_events e
      WHERE e.message_id = r.message_id AND e.recipient_id = r.id AND e.kind = 'message.delivered') AS delivered_at
  FROM recipients r JOIN messages m ON m.id = r.message_id
  WHERE r.id = ? AND r.message_id = ?`;

/** Open and click tracking: the links a message's click tokens stand for, and every hit seen. */
export class TrackingRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The original URLs of a message's tracked links, stored with the composed message. */
  async addLinks(messageId: string, urls: readonly string[]): Promise<void> {
    for (const [i, url] of urls.entries()) {
      await this.db.runDeferred("INSERT INTO tracked_links (message_id, link_index, url) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [messageId, i, url]);
    }
  }

  async linkUrl(messageId: string, linkIndex: number): Promise<string | null> {
    return (await this.db.get<{ url: string }>("SELECT url FROM tracked_links WHERE message_id = ? AND link_index = ?", [messageId, linkIndex]))?.url ?? null;
  }

  /** The recipient a token names, if it is one of that message's. */
  async target(messageId: string, recipientId: string): Promise<HitTarget | null> {
    const row = await this.db.get<HitTarget>(TARGET, [recipientId, messageId]);
    // PostgreSQL gives an aggregate of a bigint as text.
    return row && { ...row, delivered_at: row.delivered_at === null ? null : Number(row.delivered_at) };
  }

  /** The recipient's hits since `since`, newest first (bursts, and whether one is the first). */
  async recentHits(recipientId: string, since: number): Promise<RecentHit[]> {
    const rows = await this.db.all<RecentHit>(
      "SELECT kind, link_index, machine, created_at FROM tracking_hits WHERE recipient_id = ? AND created_at >= ? ORDER BY created_at DESC, id DESC LIMIT 100",
      [recipientId, since],
    );
    return rows.map((h) => ({ ...h, created_at: Number(h.created_at) }));
  }

  /** Whether the recipient has a hit of this kind by people (machine false) or by machines. */
  async seen(recipientId: string, kind: "open" | "click", machine: boolean): Promise<boolean> {
    const row = await this.db.get("SELECT 1 AS one FROM tracking_hits WHERE recipient_id = ? AND kind = ? AND machine = ? LIMIT 1", [recipientId, kind, machine ? 1 : 0]);
    return row !== null;
  }

  /**
   * Hits on the route's messages created since `since`: one range of tracking_hits_route per kind
   * and verdict (joining the window's messages to their hits probed tracking_hits once per message,
   * ~25 ms a route per 100,000 messages on SQLite).
   */
  async countsOfRoute(routeId: string, since: number): Promise<HitCountRow[]> {
    return this.nonZero(
      `WITH verdicts (kind, machine) AS (${VERDICTS}) SELECT v.kind, v.machine, ${verdictCount("?")} AS n FROM verdicts v`,
      [routeId, since],
    );
  }

  /** Hits on the messages of the project's routes created since `since`. */
  async countsOfProject(projectId: string, since: number): Promise<HitCountRow[]> {
    return this.nonZero(
      `WITH verdicts (kind, machine) AS (${VERDICTS})
       SELECT v.kind, v.machine, ${verdictCount("r.id")} AS n FROM routes r CROSS JOIN verdicts v WHERE r.project_id = ?`,
      [since, projectId],
    );
  }

  /** The rows with hits (filtered here: `WHERE n > 0` in SQL would count each twice). */
  private async nonZero(sql: string, params: (string | number)[]): Promise<HitCountRow[]> {
    return (await this.db.all<HitCountRow>(sql, params)).filter((r) => r.n > 0);
  }

  /** The recipient's clicks since `since` judged human are a machine's after all (a burst found later). */
  async reclassifyClicks(recipientId: string, since: number, reason: string): Promise<void> {
    await this.db.runDeferred("UPDATE tracking_hits SET machine = 1, machine_reason = ? WHERE recipient_id = ? AND kind = 'click' AND machine = 0 AND created_at >= ?", [
      reason,
      recipientId,
      since,
    ]);
  }

  /** Stores the hit with its message's route and creation time (which never change; a deleted route sets both route_ids null). */
  async recordHit(hit: TrackingHitRow): Promise<void> {
    await this.db.runDeferred(
      `INSERT INTO tracking_hits (id, message_id, recipient_id, kind, link_index, ip, user_agent, machine, machine_reason, created_at, route_id, message_created_at)
       SELECT ?, m.id, ?, ?, ?, ?, ?, ?, ?, ?, m.route_id, m.created_at FROM messages m WHERE m.id = ?`,
      [hit.id, hit.recipient_id, hit.kind, hit.link_index, hit.ip, hit.user_agent, hit.machine ? 1 : 0, hit.machine_reason, hit.created_at, hit.message_id],
    );
  }
}
