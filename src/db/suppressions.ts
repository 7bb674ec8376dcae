import { keysetPageOf, whereEquals, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";

/** What a suppression holds: an address, a whole domain, or a domain extension (docs/sending.md). */
export type SuppressionType = "email" | "domain" | "extension";

/** A suppression as stored. `email` is the suppressed value (an address, a domain or an extension), lower-cased. */
export type SuppressionRow = {
  id: string;
  type: SuppressionType;
  email: string;
  scope: string;
  reason: string;
  project_id: string | null;
  route_id: string | null;
  source_message_id: string | null;
  created_at: number;
};

/** The message an automatic suppression came from, as far as it is still stored. */
export type SourceMessageRow = { id: string; subject: string | null; created_at: number };

/** A suppression to add. `scope_key` is "team", "project:<id>" or "route:<id>"; `email` (the value) lower-cased. */
export type NewSuppression = SuppressionRow & { team_id: string; scope_key: string };

/** A suppression that matched one of the values asked about: the team's (team, project, route) or the operator's (global). */
export type SuppressionHit = { type: SuppressionType; value: string; scope: string; reason: string };

/** An entry of the operator's Posthorn-wide list. */
export type GlobalSuppressionRow = { id: string; type: SuppressionType; value: string; reason: string; created_at: number };

export interface SuppressionListFilter {
  email?: string;
  type?: string;
  /** Part of the value (already lower-cased). */
  valueContains?: string;
  scope?: string;
  reason?: string;
  projectId?: string;
  routeId?: string;
  /** created_at bounds, inclusive (ms). */
  from?: number;
  to?: number;
}

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

const COLUMNS = "id, type, email, scope, reason, project_id, route_id, source_message_id, created_at";

/** `%`, `_` and the escape character itself taken literally in a LIKE pattern (ESCAPE '\'). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Addresses, domains and extensions that must not receive a team's, project's or route's mail, and the operator's global list. */
export class SuppressionRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** Adds the suppression unless that scope already suppresses that value of that type: the new row, or null. */
  add(s: NewSuppression): Promise<SuppressionRow | null> {
    return this.db.get<SuppressionRow>(
      `INSERT INTO suppressions (id, team_id, scope, project_id, route_id, scope_key, type, email, reason, source_message_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team_id, scope_key, email, type) DO NOTHING RETURNING ${COLUMNS}`,
      [s.id, s.team_id, s.scope, s.project_id, s.route_id, s.scope_key, s.type, s.email, s.reason, s.source_message_id, s.created_at],
    );
  }

  /**
   * Whether the project or route a project- or route-scoped suppression names belongs to the team.
   * (Belongs with projects and routes once those have repositories of their own.)
   */
  async scopeTargetOfTeam(scope: "project" | "route", id: string, teamId: string): Promise<boolean> {
    const sql = scope === "project" ? "SELECT 1 AS one FROM projects WHERE id = ? AND team_id = ?" : "SELECT 1 AS one FROM routes WHERE id = ? AND team_id = ?";
    return (await this.db.get(sql, [id, teamId])) !== null;
  }

  /**
   * The suppressions whose value is one of `values` (lower-cased: addresses, their domains and
   * the domains' extensions), of the team under any of `scopeKeys`, and of the global list. One
   * statement, index probes only: (team_id, scope_key, email, type) and (value, type).
   */
  hitsAmong(teamId: string, scopeKeys: readonly string[], values: readonly string[]): Promise<SuppressionHit[]> {
    if (values.length === 0) return Promise.resolve([]);
    const marks = values.map(() => "?").join(",");
    return this.db.all<SuppressionHit>(
      `SELECT type, email AS value, scope, reason FROM suppressions WHERE team_id = ? AND scope_key IN (${scopeKeys.map(() => "?").join(",")}) AND email IN (${marks})
       UNION ALL SELECT type, value, 'global' AS scope, reason FROM global_suppressions WHERE value IN (${marks})`,
      [teamId, ...scopeKeys, ...values, ...values],
      { dynamic: true },
    );
  }

  /** The row deleted, or null when there was none. */
  delete(id: string, teamId: string): Promise<SuppressionRow | null> {
    return this.db.get<SuppressionRow>(`DELETE FROM suppressions WHERE id = ? AND team_id = ? RETURNING ${COLUMNS}`, [id, teamId]);
  }

  /** The still-stored messages among `ids` of the team (the source_message of automatic suppressions). */
  async sourceMessages(teamId: string, ids: readonly string[]): Promise<Map<string, SourceMessageRow>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.db.all<SourceMessageRow>(
      `SELECT id, subject, created_at FROM messages WHERE team_id = ? AND id IN (${unique.map(() => "?").join(",")})`,
      [teamId, ...unique],
      { dynamic: true },
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** One keyset page of the team's suppressions; `page.sort` columns are SuppressionRow columns and end in id. */
  list(teamId: string, filter: SuppressionListFilter, page: Page): Promise<KeysetPage<SuppressionRow>> {
    const where = ["team_id = ?"];
    const params: (string | number)[] = [teamId];
    whereEquals(where, params, { email: filter.email, type: filter.type, scope: filter.scope, reason: filter.reason, project_id: filter.projectId, route_id: filter.routeId });
    if (filter.valueContains !== undefined) {
      where.push("email LIKE ? ESCAPE '\\'");
      params.push(`%${likeLiteral(filter.valueContains)}%`);
    }
    if (filter.from !== undefined) {
      where.push("created_at >= ?");
      params.push(filter.from);
    }
    if (filter.to !== undefined) {
      where.push("created_at <= ?");
      params.push(filter.to);
    }
    const columns = page.sort.map((k) => k.column as keyof SuppressionRow);
    return keysetPageOf<SuppressionRow>(this.db, {
      select: `SELECT ${COLUMNS} FROM suppressions`,
      where,
      params,
      ...page,
      valuesOf: (row) => columns.map((c) => row[c] as string | number),
    });
  }

  /** Adds to the global list unless it holds that value of that type: the new row, or null. */
  addGlobal(s: GlobalSuppressionRow): Promise<GlobalSuppressionRow | null> {
    return this.db.get<GlobalSuppressionRow>(
      "INSERT INTO global_suppressions (id, type, value, reason, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (value, type) DO NOTHING RETURNING id, type, value, reason, created_at",
      [s.id, s.type, s.value, s.reason, s.created_at],
    );
  }

  /** The global list, oldest first. */
  listGlobal(): Promise<GlobalSuppressionRow[]> {
    return this.db.all<GlobalSuppressionRow>("SELECT id, type, value, reason, created_at FROM global_suppressions ORDER BY created_at, id", []);
  }

  /** Lifts a global entry by id, or by value (of any type): the rows deleted. */
  removeGlobal(idOrValue: string): Promise<GlobalSuppressionRow[]> {
    return this.db.all<GlobalSuppressionRow>("DELETE FROM global_suppressions WHERE id = ? OR value = ? RETURNING id, type, value, reason, created_at", [idOrValue, idOrValue]);
  }
}
