import { keysetPageOf, whereEquals, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";

/** A suppression as the API shows it. */
export type SuppressionRow = {
  id: string;
  email: string;
  scope: string;
  reason: string;
  project_id: string | null;
  route_id: string | null;
  created_at: number;
};

/** A suppression to add. `scope_key` is "team", "project:<id>" or "route:<id>"; `email` lower-cased. */
export type NewSuppression = SuppressionRow & { team_id: string; scope_key: string };

export interface SuppressionListFilter {
  email?: string;
  scope?: string;
  reason?: string;
  projectId?: string;
  routeId?: string;
}

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

const COLUMNS = "id, email, scope, reason, project_id, route_id, created_at";

/** Addresses that must not receive a team's, project's or route's mail. */
export class SuppressionRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** Adds the suppression unless that scope already suppresses that address: the new row, or null. */
  add(s: NewSuppression): Promise<SuppressionRow | null> {
    return this.db.get<SuppressionRow>(
      `INSERT INTO suppressions (id, team_id, scope, project_id, route_id, scope_key, email, reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team_id, scope_key, email, type) DO NOTHING RETURNING ${COLUMNS}`,
      [s.id, s.team_id, s.scope, s.project_id, s.route_id, s.scope_key, s.email, s.reason, s.created_at],
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

  /** The addresses among `emails` (lower-cased) suppressed under any of `scopeKeys` of the team. */
  async suppressedAmong(teamId: string, scopeKeys: readonly string[], emails: readonly string[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const rows = await this.db.all<{ email: string }>(
      `SELECT email FROM suppressions WHERE team_id = ? AND scope_key IN (${scopeKeys.map(() => "?").join(",")}) AND email IN (${emails.map(() => "?").join(",")})`,
      [teamId, ...scopeKeys, ...emails],
      { dynamic: true },
    );
    return new Set(rows.map((r) => r.email));
  }

  /** The row deleted, or null when there was none. */
  delete(id: string, teamId: string): Promise<SuppressionRow | null> {
    return this.db.get<SuppressionRow>(`DELETE FROM suppressions WHERE id = ? AND team_id = ? RETURNING ${COLUMNS}`, [id, teamId]);
  }

  /** One keyset page of the team's suppressions; `page.sort` columns are SuppressionRow columns and end in id. */
  list(teamId: string, filter: SuppressionListFilter, page: Page): Promise<KeysetPage<SuppressionRow>> {
    const where = ["team_id = ?"];
    const params: string[] = [teamId];
    whereEquals(where, params, { email: filter.email, scope: filter.scope, reason: filter.reason, project_id: filter.projectId, route_id: filter.routeId });
    const columns = page.sort.map((k) => k.column as keyof SuppressionRow);
    return keysetPageOf<SuppressionRow>(this.db, {
      select: `SELECT ${COLUMNS} FROM suppressions`,
      where,
      params,
      ...page,
      valuesOf: (row) => columns.map((c) => row[c] as string | number),
    });
  }
}
