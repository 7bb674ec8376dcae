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
  "tm.id, tm.role, tm.status, tm.joined_at, tm.created_at, u.id AS user_id, u.name AS user_name, u.email AS user_email, u.avatar AS user_avatar, i.kind AS invitation_kind";

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

/** Teams, their members (with users) and the team API token. */
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
}
