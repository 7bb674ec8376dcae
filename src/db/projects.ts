import { keysetPageOf, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import { countedPairs, pairCount, STATUS_PAIRS } from "./routes.ts";
import type { SqlExecutor } from "./sql.ts";
import type { MemberRow } from "./teams.ts";

/** A project as services see it (its token is stored only as a digest and never read back). */
export type ProjectRow = {
  id: string;
  team_id: string;
  name: string;
  smtp_enabled: number;
  token_generated_at: number;
  token_last_used_at: number | null;
  token_last_used_ip: string | null;
  created_at: number;
  updated_at: number;
};

export type NewProjectRow = Pick<ProjectRow, "id" | "team_id" | "name" | "smtp_enabled" | "created_at"> & { token_hash: string };

/** A sending domain attached to the project. */
export type ProjectDomainRow = { id: string; domain: string; status_changed_at: number | null; created_at: number };

/** Messages on the project's routes, counted by route type, message type and status. */
export type ProjectMessageCountRow = { route_type: string; type: string; status: string; n: number };

/** The project a sending token belongs to. */
export type ProjectTokenRow = { id: string; team_id: string; token_hash: string; smtp_enabled: number };

/** Sort keys of the project list: API name → trusted SQL column. */
export const PROJECT_SORT = { created_at: "created_at", name: "name" };

const PROJECT_COLUMNS = "id, team_id, name, smtp_enabled, token_generated_at, token_last_used_at, token_last_used_ip, created_at, updated_at";

const INSERT_PROJECT =
  "INSERT INTO projects (id, team_id, name, smtp_enabled, token_hash, token_generated_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
const PROJECT_BY_TOKEN = "SELECT id, team_id, token_hash, smtp_enabled FROM projects WHERE token_hash = ?";

/** The insert of a new project with its values (also run by fixtures that cannot await). */
export const newProjectStatement = (p: NewProjectRow): [string, (string | number)[]] => [
  INSERT_PROJECT,
  [p.id, p.team_id, p.name, p.smtp_enabled, p.token_hash, p.created_at, p.created_at, p.created_at],
];

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

/** Projects, their sending token, members and what the project view shows of them. */
export class ProjectRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The project alone; its routes go in through RouteRepository.insert. */
  async insert(p: NewProjectRow): Promise<void> {
    await this.db.run(...newProjectStatement(p));
  }

  findOfTeam(id: string, teamId: string): Promise<ProjectRow | null> {
    return this.db.get<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ? AND team_id = ?`, [id, teamId]);
  }

  list(teamId: string, page: Page): Promise<KeysetPage<ProjectRow>> {
    const columns = page.sort.map((k) => k.column);
    return keysetPageOf<ProjectRow>(this.db, {
      select: `SELECT ${PROJECT_COLUMNS} FROM projects`,
      where: ["team_id = ?"],
      params: [teamId],
      ...page,
      valuesOf: (row) => columns.map((c) => (row as unknown as Record<string, string | number>)[c]!),
    });
  }

  /** Sets what is not null and stamps updated_at. */
  async update(id: string, u: { name: string | null; smtp_enabled: number | null }, now: number): Promise<void> {
    await this.db.run("UPDATE projects SET name = coalesce(?, name), smtp_enabled = coalesce(?, smtp_enabled), updated_at = ? WHERE id = ?", [
      u.name,
      u.smtp_enabled,
      now,
      id,
    ]);
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db.run("UPDATE projects SET updated_at = ? WHERE id = ?", [now, id]);
  }

  /** A new token digest; the last-use stamp starts over. */
  async replaceToken(id: string, tokenHash: string, now: number): Promise<void> {
    await this.db.run(
      "UPDATE projects SET token_hash = ?, token_generated_at = ?, token_last_used_at = NULL, token_last_used_ip = NULL, updated_at = ? WHERE id = ?",
      [tokenHash, now, now, id],
    );
  }

  /** Deletes the project and, by cascade, everything that exists only for it. True when it existed. */
  async delete(id: string, teamId: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM projects WHERE id = ? AND team_id = ?", [id, teamId])).changes > 0;
  }

  /** The project's members with their users, in joining order. */
  members(projectId: string): Promise<MemberRow[]> {
    return this.db.all<MemberRow>(
      // The role and dates are the project membership's; the id is the team member's.
      `SELECT tm.id, pm.role, tm.status, pm.joined_at, pm.created_at, u.id AS user_id, u.name AS user_name, u.email AS user_email, u.avatar AS user_avatar
       FROM project_members pm JOIN team_members tm ON tm.id = pm.team_member_id JOIN users u ON u.id = tm.user_id
       WHERE pm.project_id = ? ORDER BY pm.joined_at, tm.id`,
      [projectId],
    );
  }

  async memberIds(projectId: string): Promise<string[]> {
    return (await this.db.all<{ team_member_id: string }>("SELECT team_member_id FROM project_members WHERE project_id = ?", [projectId])).map(
      (r) => r.team_member_id,
    );
  }

  async addMember(projectId: string, teamMemberId: string, role: string, now: number): Promise<void> {
    await this.db.run("INSERT INTO project_members (project_id, team_member_id, role, joined_at, created_at) VALUES (?, ?, ?, ?, ?)", [
      projectId,
      teamMemberId,
      role,
      now,
      now,
    ]);
  }

  async removeMember(projectId: string, teamMemberId: string): Promise<void> {
    await this.db.run("DELETE FROM project_members WHERE project_id = ? AND team_member_id = ?", [projectId, teamMemberId]);
  }

  /** Sending domains attached to the project, by name. */
  domains(projectId: string): Promise<ProjectDomainRow[]> {
    return this.db.all<ProjectDomainRow>(
      `SELECT d.id, d.domain, d.status_changed_at, d.created_at FROM project_domains pd JOIN domains d ON d.id = pd.domain_id
       WHERE pd.project_id = ? ORDER BY d.domain`,
      [projectId],
    );
  }

  /**
   * Messages on the project's routes created at or after `since`, by route type, type and status
   * (on SQLite a row per route and pair, counted and checked as RouteRepository.messageCounts
   * does; PostgreSQL groups, for the reason given there).
   */
  async messageCounts(projectId: string, since: number): Promise<ProjectMessageCountRow[]> {
    if (this.db.dialect === "sqlite") {
      const rows = await this.db.all<Omit<ProjectMessageCountRow, "type"> & { type: string | null }>(
        `WITH pairs (type, status) AS (${STATUS_PAIRS})
         SELECT r.route_type, p.type, p.status, ${pairCount("r.id")} AS n FROM routes r CROSS JOIN pairs p WHERE r.project_id = ?
         UNION ALL SELECT NULL, NULL, NULL, count(*) FROM routes r JOIN messages m ON m.route_id = r.id AND m.created_at >= ? WHERE r.project_id = ?`,
        [since, projectId, since, projectId],
      );
      const counted = countedPairs(rows);
      if (counted) return counted;
    }
    return this.db.all<ProjectMessageCountRow>(
      `SELECT r.route_type, m.type, m.status, count(*) AS n
       FROM routes r JOIN messages m ON m.route_id = r.id AND m.created_at >= ?
       WHERE r.project_id = ? GROUP BY r.route_type, m.type, m.status`,
      [since, projectId],
    );
  }

  /** Whether the project takes SMTP submission; false when it is gone. */
  async smtpEnabled(id: string): Promise<boolean> {
    return (await this.db.get<{ smtp_enabled: number }>("SELECT smtp_enabled FROM projects WHERE id = ?", [id]))?.smtp_enabled === 1;
  }

  byTokenHash(hash: string): Promise<ProjectTokenRow | null> {
    return this.db.get<ProjectTokenRow>(PROJECT_BY_TOKEN, [hash]);
  }

  async touchToken(id: string, now: number, ip: string | null): Promise<void> {
    await this.db.run("UPDATE projects SET token_last_used_at = ?, token_last_used_ip = ? WHERE id = ?", [now, ip, id]);
  }

  /**
   * The project a team's object belongs to, for project access (src/http/project-scope.ts):
   * `{ project_id }` (null: the object belongs to no project, e.g. a team-wide suppression), or
   * null when the team has no such object.
   */
  projectOf(kind: ScopedKind, id: string, teamId: string): Promise<{ project_id: string | null } | null> {
    return this.db.get<{ project_id: string | null }>(PROJECT_OF[kind], [id, teamId]);
  }
}

/** The kinds of objects that belong to a project. */
export type ScopedKind = "project" | "route" | "message" | "webhook" | "suppression";

const PROJECT_OF: Record<ScopedKind, string> = {
  project: "SELECT id AS project_id FROM projects WHERE id = ? AND team_id = ?",
  route: "SELECT project_id FROM routes WHERE id = ? AND team_id = ?",
  message: "SELECT COALESCE(m.project_id, r.project_id) AS project_id FROM messages m LEFT JOIN routes r ON r.id = m.route_id WHERE m.id = ? AND m.team_id = ?",
  webhook: "SELECT r.project_id FROM webhooks w LEFT JOIN routes r ON r.id = w.route_id WHERE w.id = ? AND w.team_id = ?",
  suppression: "SELECT COALESCE(s.project_id, r.project_id) AS project_id FROM suppressions s LEFT JOIN routes r ON r.id = s.route_id WHERE s.id = ? AND s.team_id = ?",
};
