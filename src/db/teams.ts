import { keysetPageOf, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";

/** What creating a team stores: the team, its owner's user, and the owner's membership. */
export interface NewTeam {
  team: { id: string; name: string; token_hash: string; created_at: number };
  owner: { id: string; name: string; email: string; created_at: number };
  member: { id: string; team_id: string; user_id: string; role: string; created_at: number };
}

/** A team as the API shows it, with its counts. */
export type TeamSummaryRow = {
  id: string;
  name: string;
  plan: string;
  tier: number;
  verified_at: number | null;
  created_at: number;
  /** JSON array of strings. */
  features: string;
  /** JSON array of { type, expires_at }. */
  addons: string;
  domains_count: number;
  projects_count: number;
  members_count: number;
};

/** A team member with their user, as listed (TeamMemberData); `status` 'pending': invited, not yet accepted. */
export type MemberRow = {
  id: string;
  role: string;
  /** JSON array of the projects the member works on; null (or absent): all. */
  project_ids?: string | null;
  status: "active" | "pending";
  /** A pending member's invitation: 'password' when the user exists through it alone, 'accept' when they existed before. */
  invitation_kind?: "password" | "accept" | null;
  joined_at: number;
  created_at: number;
  user_id: string;
  user_name: string;
  user_email: string;
  user_avatar: string | null;
};

/** Sort keys of the member list: API name → trusted SQL column; the tiebreaker is MEMBER_SORT_ID. */
export const MEMBER_SORT = { created_at: "tm.created_at", joined_at: "tm.joined_at", role: "tm.role" };
export const MEMBER_SORT_ID = "tm.id";

const MEMBER_COLUMNS =
  "tm.id, tm.role, tm.project_ids, tm.status, tm.joined_at, tm.created_at, u.id AS user_id, u.name AS user_name, u.email AS user_email, u.avatar AS user_avatar, i.kind AS invitation_kind";

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

const INSERT_TEAM = `INSERT INTO teams (id, name, plan, tier, features, addons, token_hash, token_generated_at, verified_at, created_at, updated_at)
   VALUES (?, ?, 'free', 0, '[]', '[]', ?, ?, ?, ?, ?)`;
const INSERT_USER = "INSERT INTO users (id, name, email, avatar, created_at) VALUES (?, ?, ?, NULL, ?)";
const INSERT_MEMBER = "INSERT INTO team_members (id, team_id, user_id, role, joined_at, created_at) VALUES (?, ?, ?, ?, ?, ?)";
const TEAM_BY_TOKEN = "SELECT id, token_hash FROM teams WHERE token_hash = ?";

/** The three inserts of a new team, in order, with their values (also run by fixtures that cannot await). */
export function newTeamStatements(t: NewTeam): [string, (string | number)[]][] {
  return [
    [INSERT_TEAM, [t.team.id, t.team.name, t.team.token_hash, t.team.created_at, t.team.created_at, t.team.created_at, t.team.created_at]],
    [INSERT_USER, [t.owner.id, t.owner.name, t.owner.email, t.owner.created_at]],
    [INSERT_MEMBER, [t.member.id, t.member.team_id, t.member.user_id, t.member.role, t.member.created_at, t.member.created_at]],
  ];
}

/** A custom role of a team (team_roles); `permissions` is a JSON array of permission names. */
export type RoleRow = { id: string; team_id: string; name: string; permissions: string; created_at: number; updated_at: number };

/** A named team token (team_tokens), without its hash. */
export type TeamTokenRow = {
  id: string;
  team_id: string;
  name: string;
  role: string | null;
  permissions: string | null;
  project_ids: string | null;
  expires_at: number | null;
  created_at: number;
  rotated_at: number;
  last_used_at: number | null;
  last_used_ip: string | null;
};

/** A named team token as authentication reads it: with its hash and, for a custom role, the role's permissions. */
export type TeamTokenAuthRow = { id: string; team_id: string; token_hash: string; role: string | null; permissions: string | null; role_permissions: string | null; project_ids: string | null; expires_at: number | null };

const TOKEN_COLUMNS = "id, team_id, name, role, permissions, project_ids, expires_at, created_at, rotated_at, last_used_at, last_used_ip";

/** Teams, their members (with users), their custom roles, the team API token and the named team tokens. */
export class TeamRepository {
  constructor(private readonly db: SqlExecutor) {}

  async insert(t: NewTeam): Promise<void> {
    for (const [sql, params] of newTeamStatements(t)) await this.db.run(sql, params);
  }

  async count(): Promise<number> {
    return (await this.db.get<{ n: number }>("SELECT count(*) AS n FROM teams"))!.n;
  }

  summary(teamId: string): Promise<TeamSummaryRow | null> {
    return this.db.get<TeamSummaryRow>(
      `SELECT t.id, t.name, t.plan, t.tier, t.verified_at, t.created_at, t.features, t.addons,
         (SELECT count(*) FROM domains WHERE team_id = t.id) AS domains_count,
         (SELECT count(*) FROM projects WHERE team_id = t.id) AS projects_count,
         (SELECT count(*) FROM team_members WHERE team_id = t.id AND status = 'active') AS members_count
       FROM teams t WHERE t.id = ?`,
      [teamId],
    );
  }

  async rename(teamId: string, name: string, now: number): Promise<void> {
    await this.db.run("UPDATE teams SET name = ?, updated_at = ? WHERE id = ?", [name, now, teamId]);
  }

  /** One page of the team's members; `page.sort` holds MEMBER_SORT columns ending in MEMBER_SORT_ID. */
  members(teamId: string, page: Page): Promise<KeysetPage<MemberRow>> {
    const columns = page.sort.map((k) => k.column.replace("tm.", ""));
    return keysetPageOf<MemberRow>(this.db, {
      select: `SELECT ${MEMBER_COLUMNS} FROM team_members tm JOIN users u ON u.id = tm.user_id LEFT JOIN team_invitations i ON i.member_id = tm.id`,
      where: ["tm.team_id = ?"],
      params: [teamId],
      ...page,
      valuesOf: (row) => columns.map((c) => (row as unknown as Record<string, string | number>)[c]!),
    });
  }

  /**
   * One member of the team (active or pending) with their user, by the member's id or by their
   * user's id (Lettermint's SDK names the argument userId); null when it is no member of this team.
   */
  member(teamId: string, id: string): Promise<MemberRow | null> {
    return this.db.get<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM team_members tm JOIN users u ON u.id = tm.user_id LEFT JOIN team_invitations i ON i.member_id = tm.id
       WHERE tm.team_id = ? AND (tm.id = ? OR tm.user_id = ?)`,
      [teamId, id, id],
    );
  }

  /** The member's role when `memberId` (lower case) is an active member of the team (not one still invited), else null. */
  async roleOfMember(memberId: string, teamId: string): Promise<string | null> {
    return (await this.db.get<{ role: string }>("SELECT role FROM team_members WHERE id = ? AND team_id = ? AND status = 'active'", [memberId, teamId]))?.role ?? null;
  }

  byTokenHash(hash: string): Promise<{ id: string; token_hash: string } | null> {
    return this.db.get(TEAM_BY_TOKEN, [hash]);
  }

  async touchToken(teamId: string, now: number, ip: string | null): Promise<void> {
    await this.db.run("UPDATE teams SET token_last_used_at = ?, token_last_used_ip = ? WHERE id = ?", [now, ip, teamId]);
  }

  /** The team's custom roles, oldest first. */
  roles(teamId: string): Promise<RoleRow[]> {
    return this.db.all<RoleRow>("SELECT id, team_id, name, permissions, created_at, updated_at FROM team_roles WHERE team_id = ? ORDER BY created_at, id", [teamId]);
  }

  role(teamId: string, id: string): Promise<RoleRow | null> {
    return this.db.get<RoleRow>("SELECT id, team_id, name, permissions, created_at, updated_at FROM team_roles WHERE id = ? AND team_id = ?", [id, teamId]);
  }

  /** The id of the team's custom role of that name (names are unique in a team), or null. */
  async roleNamed(teamId: string, name: string): Promise<string | null> {
    return (await this.db.get<{ id: string }>("SELECT id FROM team_roles WHERE team_id = ? AND name = ?", [teamId, name]))?.id ?? null;
  }

  async insertRole(r: RoleRow): Promise<void> {
    await this.db.run("INSERT INTO team_roles (id, team_id, name, permissions, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", [
      r.id,
      r.team_id,
      r.name,
      r.permissions,
      r.created_at,
      r.updated_at,
    ]);
  }

  /** Changes a custom role; null when it is no role of the team. */
  updateRole(teamId: string, id: string, change: { name: string; permissions: string }, now: number): Promise<RoleRow | null> {
    return this.db.get<RoleRow>(
      "UPDATE team_roles SET name = ?, permissions = ?, updated_at = ? WHERE id = ? AND team_id = ? RETURNING id, team_id, name, permissions, created_at, updated_at",
      [change.name, change.permissions, now, id, teamId],
    );
  }

  async deleteRole(teamId: string, id: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM team_roles WHERE id = ? AND team_id = ?", [id, teamId])).changes > 0;
  }

  /** How many members (active or invited) hold the role. */
  async membersWithRole(teamId: string, role: string): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT count(*) AS n FROM team_members WHERE team_id = ? AND role = ?", [teamId, role]))!.n);
  }

  /** A member's role and projects (JSON array, null: all). */
  async assign(teamId: string, memberId: string, role: string, projectIds: string | null): Promise<void> {
    await this.db.run("UPDATE team_members SET role = ?, project_ids = ? WHERE id = ? AND team_id = ?", [role, projectIds, memberId, teamId]);
  }

  /** The id and name of each of the given projects that belongs to the team. */
  projectNames(teamId: string, ids: readonly string[]): Promise<{ id: string; name: string }[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.all(`SELECT id, name FROM projects WHERE team_id = ? AND id IN (${ids.map(() => "?").join(",")}) ORDER BY name, id`, [teamId, ...ids]);
  }

  /** How many named tokens hold the role. */
  /** The projects (JSON array; null: all) of every member and named token of the team that holds the role. */
  async roleHolderProjects(teamId: string, role: string): Promise<(string | null)[]> {
    const rows = await this.db.all<{ project_ids: string | null }>(
      "SELECT project_ids FROM team_members WHERE team_id = ? AND role = ? UNION ALL SELECT project_ids FROM team_tokens WHERE team_id = ? AND role = ?",
      [teamId, role, teamId, role],
    );
    return rows.map((r) => r.project_ids);
  }

  async tokensWithRole(teamId: string, role: string): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT count(*) AS n FROM team_tokens WHERE team_id = ? AND role = ?", [teamId, role]))!.n);
  }

  /** The named team token of a hash, with what authentication needs. */
  namedTokenByHash(hash: string): Promise<TeamTokenAuthRow | null> {
    return this.db.get<TeamTokenAuthRow>(
      `SELECT tt.id, tt.team_id, tt.token_hash, tt.role, tt.permissions, tr.permissions AS role_permissions, tt.project_ids, tt.expires_at
       FROM team_tokens tt LEFT JOIN team_roles tr ON tr.id = tt.role AND tr.team_id = tt.team_id WHERE tt.token_hash = ?`,
      [hash],
    );
  }

  /** The team's named tokens, oldest first. */
  namedTokens(teamId: string): Promise<TeamTokenRow[]> {
    return this.db.all<TeamTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM team_tokens WHERE team_id = ? ORDER BY created_at, id`, [teamId]);
  }

  namedToken(teamId: string, id: string): Promise<TeamTokenRow | null> {
    return this.db.get<TeamTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM team_tokens WHERE id = ? AND team_id = ?`, [id, teamId]);
  }

  async insertNamedToken(t: TeamTokenRow & { token_hash: string }): Promise<void> {
    await this.db.run(
      "INSERT INTO team_tokens (id, team_id, name, token_hash, role, permissions, project_ids, expires_at, created_at, rotated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [t.id, t.team_id, t.name, t.token_hash, t.role, t.permissions, t.project_ids, t.expires_at, t.created_at, t.rotated_at],
    );
  }

  /** A new secret for the token (the old one stops working); null when it is no token of the team. */
  rotateNamedToken(teamId: string, id: string, hash: string, now: number): Promise<TeamTokenRow | null> {
    return this.db.get<TeamTokenRow>(`UPDATE team_tokens SET token_hash = ?, rotated_at = ? WHERE id = ? AND team_id = ? RETURNING ${TOKEN_COLUMNS}`, [hash, now, id, teamId]);
  }

  async deleteNamedToken(teamId: string, id: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM team_tokens WHERE id = ? AND team_id = ?", [id, teamId])).changes > 0;
  }

  async touchNamedToken(id: string, now: number, ip: string | null): Promise<void> {
    await this.db.run("UPDATE team_tokens SET last_used_at = ?, last_used_ip = ? WHERE id = ?", [now, ip, id]);
  }
}
