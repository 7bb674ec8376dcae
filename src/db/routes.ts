import { keysetPageOf, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";
import { MESSAGE_STATUSES } from "./recipient-status.ts";

/** Every (type, status) a message can have, as rows of VALUES (constants of the code, no input). */
export const STATUS_PAIRS = `VALUES ${["inbound", "outbound"].flatMap((type) => MESSAGE_STATUSES.map((status) => `('${type}', '${status}')`)).join(", ")}`;
/** Messages of the pair `p` on the route `routeId` (an SQL expression) created at or after `?` (messages_route_type_status_created). */
export const pairCount = (routeId: string) => `(SELECT count(*) FROM messages m WHERE m.route_id = ${routeId} AND m.type = p.type AND m.status = p.status AND m.created_at >= ?)`;

export type RouteRow = {
  id: string;
  team_id: string;
  project_id: string;
  slug: string;
  name: string;
  route_type: "transactional" | "broadcast" | "inbound";
  is_default: number;
  inbound_address: string | null;
  inbound_domain: string | null;
  inbound_domain_verified_at: number | null;
  inbound_spam_threshold: number | null;
  attachment_delivery: string;
  track_opens: number;
  track_clicks: number;
  /** The route's settings (docs/sending.md, Route settings); booleans as 0/1. */
  generate_plaintext_fallback: number;
  suppress_auto_responders: number;
  suppress_disposable_recipients: number;
  tls: "opportunistic" | "enforced";
  redact_email_content: number;
  disable_hosted_unsubscribe: number;
  created_at: number;
  updated_at: number;
};

/** The route settings stored as columns of routes (RouteRow's names). */
export const ROUTE_SETTING_COLUMNS = [
  "track_opens",
  "track_clicks",
  "generate_plaintext_fallback",
  "suppress_auto_responders",
  "suppress_disposable_recipients",
  "tls",
  "redact_email_content",
  "disable_hosted_unsubscribe",
] as const;
export type RouteSettingColumns = Pick<RouteRow, (typeof ROUTE_SETTING_COLUMNS)[number]>;

/** What creating a route stores; the rest (custom inbound domain, tracking) starts empty or off. */
export type NewRouteRow = Pick<
  RouteRow,
  "id" | "team_id" | "project_id" | "slug" | "name" | "route_type" | "is_default" | "inbound_address" | "inbound_spam_threshold" | "created_at"
>;

/** The columns an update may change. */
export type RouteChanges = Pick<RouteRow, "name" | "inbound_domain" | "inbound_domain_verified_at" | "inbound_spam_threshold" | "attachment_delivery" | "updated_at"> &
  RouteSettingColumns;

/** Messages on a route counted by type and status. */
export type RouteMessageCountRow = { type: string; status: string; n: number };

/** Sort keys of a project's route list: API name → trusted SQL column. */
export const ROUTE_SORT = { created_at: "created_at", name: "name", slug: "slug" };

const ROUTE_COLUMNS =
  "id, team_id, project_id, slug, name, route_type, is_default, inbound_address, inbound_domain, inbound_domain_verified_at, inbound_spam_threshold, attachment_delivery, track_opens, track_clicks, generate_plaintext_fallback, suppress_auto_responders, suppress_disposable_recipients, tls, redact_email_content, disable_hosted_unsubscribe, created_at, updated_at";

const INSERT_ROUTE = `INSERT INTO routes (id, team_id, project_id, slug, name, route_type, is_default, inbound_address, inbound_spam_threshold, attachment_delivery, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'inline', ?, ?)`;

/** The insert of a new route with its values (also run by fixtures that cannot await). */
export const newRouteStatement = (r: NewRouteRow): [string, (string | number | null)[]] => [
  INSERT_ROUTE,
  [r.id, r.team_id, r.project_id, r.slug, r.name, r.route_type, r.is_default, r.inbound_address, r.inbound_spam_threshold, r.created_at, r.created_at],
];

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

/** What sending needs of a route: its type and settings. */
export type SendingRouteRow = Pick<RouteRow, "id" | "route_type"> & RouteSettingColumns;

const SENDING_ROUTE_COLUMNS = `id, route_type, ${ROUTE_SETTING_COLUMNS.join(", ")}`;

/** Routes (message streams of a project). */
export class RouteRepository {
  constructor(private readonly db: SqlExecutor) {}

  find(routeId: string): Promise<RouteRow | null> {
    return this.db.get<RouteRow>(`SELECT ${ROUTE_COLUMNS} FROM routes WHERE id = ?`, [routeId]);
  }

  /** The project's default transactional route, else its oldest transactional route, else null. */
  async defaultTransactionalOf(projectId: string): Promise<SendingRouteRow | null> {
    // A sort (ORDER BY) on every send only for a project with no default.
    return (
      (await this.db.get<SendingRouteRow>(`SELECT ${SENDING_ROUTE_COLUMNS} FROM routes WHERE project_id = ? AND route_type = 'transactional' AND is_default = 1 LIMIT 1`, [
        projectId,
      ])) ??
      (await this.db.get<SendingRouteRow>(`SELECT ${SENDING_ROUTE_COLUMNS} FROM routes WHERE project_id = ? AND route_type = 'transactional' ORDER BY created_at LIMIT 1`, [
        projectId,
      ]))
    );
  }

  /** The project's route with that slug, or with that id (pass "" when the value is no id). */
  ofProjectBySlugOrId(projectId: string, slug: string, id: string): Promise<SendingRouteRow | null> {
    return this.db.get<SendingRouteRow>(`SELECT ${SENDING_ROUTE_COLUMNS} FROM routes WHERE project_id = ? AND (slug = ? OR id = ?) LIMIT 1`, [projectId, slug, id]);
  }

  /** The route's id when it belongs to the team, else null. */
  async idOfTeam(routeId: string, teamId: string): Promise<string | null> {
    return (await this.db.get<{ id: string }>("SELECT id FROM routes WHERE id = ? AND team_id = ?", [routeId, teamId]))?.id ?? null;
  }

  findOfTeam(routeId: string, teamId: string): Promise<RouteRow | null> {
    return this.db.get<RouteRow>(`SELECT ${ROUTE_COLUMNS} FROM routes WHERE id = ? AND team_id = ?`, [routeId, teamId]);
  }

  /** Every route of the project, oldest first. */
  ofProject(projectId: string): Promise<RouteRow[]> {
    return this.db.all<RouteRow>(`SELECT ${ROUTE_COLUMNS} FROM routes WHERE project_id = ? ORDER BY created_at, id`, [projectId]);
  }

  /** One page of the team's project's routes; `page.sort` holds ROUTE_SORT columns. */
  listOfProject(projectId: string, teamId: string, page: Page): Promise<KeysetPage<RouteRow>> {
    const columns = page.sort.map((k) => k.column);
    return keysetPageOf<RouteRow>(this.db, {
      select: `SELECT ${ROUTE_COLUMNS} FROM routes`,
      where: ["project_id = ?", "team_id = ?"],
      params: [projectId, teamId],
      ...page,
      valuesOf: (row) => columns.map((c) => (row as unknown as Record<string, string | number>)[c]!),
    });
  }

  async slugTaken(projectId: string, slug: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS one FROM routes WHERE project_id = ? AND slug = ?", [projectId, slug])) !== null;
  }

  async insert(r: NewRouteRow): Promise<void> {
    await this.db.run(...newRouteStatement(r));
  }

  async update(routeId: string, c: RouteChanges): Promise<void> {
    await this.db.run(
      `UPDATE routes SET name = ?, inbound_domain = ?, inbound_domain_verified_at = ?, inbound_spam_threshold = ?, attachment_delivery = ?,
         track_opens = ?, track_clicks = ?, generate_plaintext_fallback = ?, suppress_auto_responders = ?, suppress_disposable_recipients = ?, tls = ?,
         redact_email_content = ?, disable_hosted_unsubscribe = ?, updated_at = ?
       WHERE id = ?`,
      [
        c.name,
        c.inbound_domain,
        c.inbound_domain_verified_at,
        c.inbound_spam_threshold,
        c.attachment_delivery,
        c.track_opens,
        c.track_clicks,
        c.generate_plaintext_fallback,
        c.suppress_auto_responders,
        c.suppress_disposable_recipients,
        c.tls,
        c.redact_email_content,
        c.disable_hosted_unsubscribe,
        c.updated_at,
        routeId,
      ],
    );
  }

  /** Deletes the route with its webhooks and route-scoped suppressions (cascade); its messages keep a null route_id. */
  async delete(routeId: string): Promise<void> {
    await this.db.run("DELETE FROM routes WHERE id = ?", [routeId]);
  }

  async webhooksCount(routeId: string): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT count(*) AS n FROM webhooks WHERE route_id = ?", [routeId]))!.n;
  }

  /** Addresses on the team's own (team-wide) suppression list. */
  async teamWideSuppressionsCount(teamId: string): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT count(*) AS n FROM suppressions WHERE team_id = ? AND scope_key = 'team'", [teamId]))!.n;
  }

  /** Distinct addresses suppressed for the route's project or the route itself that are not on the team-wide list. */
  async ownSuppressionsNotTeamWideCount(route: Pick<RouteRow, "id" | "team_id" | "project_id">): Promise<number> {
    const project = `project:${route.project_id}`;
    const own = `route:${route.id}`;
    const row = await this.db.get<{ n: number }>(
      // Two exact scope lookups rather than `scope_key IN (…)`, which the planner may answer by
      // scanning the whole team through suppressions_team_email.
      `SELECT count(*) AS n FROM (
         SELECT email FROM suppressions WHERE team_id = ? AND scope_key = ?
         UNION SELECT email FROM suppressions WHERE team_id = ? AND scope_key = ?) s
       WHERE NOT EXISTS (SELECT 1 FROM suppressions t WHERE t.team_id = ? AND t.scope_key = 'team' AND t.email = s.email)`,
      [route.team_id, project, route.team_id, own, route.team_id],
    );
    return row!.n;
  }

  /**
   * Messages on the route created at or after `since`, by type and status. On SQLite, one range of
   * messages_route_type_status_created per pair (a GROUP BY read the rows and sorted them, ~30 ms
   * a route per 100,000 messages); a status outside MESSAGE_STATUSES would go uncounted, so the
   * same statement counts them all too, and the GROUP BY answers when they differ. PostgreSQL
   * groups (in parallel): its index-only scans need pages marked all-visible, which the last
   * 28 days' messages, their statuses still changing, often are not (the ranges then read the
   * table: 3x slower than grouping over 1,000,000 messages).
   */
  async messageCounts(routeId: string, since: number): Promise<RouteMessageCountRow[]> {
    if (this.db.dialect === "sqlite") {
      const rows = await this.db.all<{ type: string | null; status: string; n: number }>(
        `WITH pairs (type, status) AS (${STATUS_PAIRS}) SELECT p.type, p.status, ${pairCount("?")} AS n FROM pairs p
         UNION ALL SELECT NULL, NULL, count(*) FROM messages WHERE route_id = ? AND created_at >= ?`,
        [routeId, since, routeId, since],
      );
      const counted = countedPairs(rows);
      if (counted) return counted;
    }
    return this.db.all<RouteMessageCountRow>("SELECT type, status, count(*) AS n FROM messages WHERE route_id = ? AND created_at >= ? GROUP BY type, status", [routeId, since]);
  }
}

/** The pairs with messages, if they add up to the total (the row whose type is null); else null. */
export function countedPairs<T extends { type: string | null; n: number }>(rows: T[]): (T & { type: string })[] | null {
  let total = 0;
  let sum = 0;
  const out: (T & { type: string })[] = [];
  for (const r of rows) {
    if (r.type === null) total += r.n;
    else {
      sum += r.n;
      // Filtered here: `WHERE n > 0` in SQL would count every pair twice.
      if (r.n > 0) out.push(r as T & { type: string });
    }
  }
  return sum === total ? out : null;
}
