import type { SqlExecutor } from "./sql.ts";

/** A user as sign-in sees them. */
export type UserRow = { id: string; name: string; email: string; password_hash: string | null };

/** A session found by its token, with the membership it stands on (none: the member was removed). */
export type SessionRow = {
  id: string;
  csrf_token: string;
  user_id: string;
  team_id: string;
  created_at: number;
  last_seen_at: number;
  role: string;
  /** The member's projects (JSON array; null: all) and, for a custom role, its permissions (JSON array). */
  project_ids: string | null;
  role_permissions: string | null;
};

/** A team the user belongs to. */
export type MembershipRow = { team_id: string; team_name: string; member_id: string; role: string };

/** A team member as inviting, accepting and removing see them. */
export type MemberStatusRow = { id: string; user_id: string; role: string; status: "active" | "pending" };

/** An invitation found by its token, with what accepting it needs. */
export type InvitationRow = {
  member_id: string;
  team_id: string;
  team_name: string;
  user_id: string;
  role: string;
  kind: "password" | "accept";
  expires_at: number;
};

export interface NewInvitation {
  member_id: string;
  team_id: string;
  user_id: string;
  token_hash: string;
  kind: "password" | "accept";
  created_at: number;
  expires_at: number;
}

export interface NewSession {
  id: string;
  token_hash: string;
  csrf_token: string;
  user_id: string;
  team_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: number;
}

const SESSION_BY_TOKEN = `SELECT s.id, s.csrf_token, s.user_id, s.team_id, s.created_at, s.last_seen_at, tm.role, tm.project_ids, tr.permissions AS role_permissions
  FROM sessions s JOIN team_members tm ON tm.team_id = s.team_id AND tm.user_id = s.user_id AND tm.status = 'active'
  LEFT JOIN team_roles tr ON tr.id = tm.role AND tr.team_id = tm.team_id
  WHERE s.token_hash = ?`;

/**
 * Dashboard accounts: users' passwords, team memberships as sign-in sees them (active ones; a
 * pending member, invited but not yet accepted, has no access), sessions and invitations.
 */
export class AccountRepository {
  constructor(private readonly db: SqlExecutor) {}

  userByEmail(email: string): Promise<UserRow | null> {
    return this.db.get<UserRow>("SELECT id, name, email, password_hash FROM users WHERE email = ?", [email]);
  }

  /** The user with their password hash (null: none set yet). */
  userById(id: string): Promise<UserRow | null> {
    return this.db.get<UserRow>("SELECT id, name, email, password_hash FROM users WHERE id = ?", [id]);
  }

  user(id: string): Promise<{ id: string; name: string; email: string } | null> {
    return this.db.get("SELECT id, name, email FROM users WHERE id = ?", [id]);
  }

  async insertUser(u: { id: string; name: string; email: string; password_hash: string | null; created_at: number }): Promise<void> {
    await this.db.run("INSERT INTO users (id, name, email, avatar, password_hash, password_changed_at, created_at) VALUES (?, ?, ?, NULL, ?, ?, ?)", [
      u.id,
      u.name,
      u.email,
      u.password_hash,
      u.password_hash === null ? null : u.created_at,
      u.created_at,
    ]);
  }

  async setPassword(userId: string, hash: string, now: number): Promise<void> {
    await this.db.run("UPDATE users SET password_hash = ?, password_changed_at = ? WHERE id = ?", [hash, now, userId]);
  }

  /** The teams the user is an active member of, oldest membership first (pending invitations are not among them). */
  memberships(userId: string): Promise<MembershipRow[]> {
    return this.db.all<MembershipRow>(
      `SELECT tm.team_id, t.name AS team_name, tm.id AS member_id, tm.role FROM team_members tm JOIN teams t ON t.id = tm.team_id
       WHERE tm.user_id = ? AND tm.status = 'active' ORDER BY tm.created_at, tm.id`,
      [userId],
    );
  }

  /** True when the user is a member of a team other than `teamId`; only active memberships when `activeOnly`. */
  async inOtherTeam(userId: string, teamId: string, activeOnly: boolean): Promise<boolean> {
    const status = activeOnly ? " AND status = 'active'" : "";
    return (await this.db.get(`SELECT 1 AS x FROM team_members WHERE user_id = ? AND team_id <> ?${status} LIMIT 1`, [userId, teamId])) !== null;
  }

  /** Adds a membership: 'active' at once (a new team's owner) or 'pending' until its invitation is accepted. */
  async addMember(m: { id: string; team_id: string; user_id: string; role: string; created_at: number; status?: "active" | "pending" }): Promise<void> {
    await this.db.run("INSERT INTO team_members (id, team_id, user_id, role, status, joined_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
      m.id,
      m.team_id,
      m.user_id,
      m.role,
      m.status ?? "active",
      m.created_at,
      m.created_at,
    ]);
  }

  /** The member of the team with its user, or null (unknown, or another team's). */
  member(memberId: string, teamId: string): Promise<MemberStatusRow | null> {
    return this.db.get("SELECT id, user_id, role, status FROM team_members WHERE id = ? AND team_id = ?", [memberId, teamId]);
  }

  /** The user's membership of the team, active or pending, or null. */
  memberOfTeam(userId: string, teamId: string): Promise<MemberStatusRow | null> {
    return this.db.get("SELECT id, user_id, role, status FROM team_members WHERE user_id = ? AND team_id = ?", [userId, teamId]);
  }

  /** A pending member invited again: the role the new invitation gives, and its time. */
  async renewPendingMember(memberId: string, role: string, now: number): Promise<void> {
    await this.db.run("UPDATE team_members SET role = ?, joined_at = ? WHERE id = ? AND status = 'pending'", [role, now, memberId]);
  }

  /** The pending member becomes active (its invitation was accepted); false when it was not pending. */
  async activateMember(memberId: string, now: number): Promise<boolean> {
    return (await this.db.run("UPDATE team_members SET status = 'active', joined_at = ? WHERE id = ? AND status = 'pending'", [now, memberId])).changes > 0;
  }

  /** Active owners only: a pending owner cannot act for the team yet. */
  async countOwners(teamId: string): Promise<number> {
    return Number(
      (await this.db.get<{ n: number }>("SELECT count(*) AS n FROM team_members WHERE team_id = ? AND role = 'owner' AND status = 'active'", [teamId]))!.n,
    );
  }

  /** Removes the membership (and its invitation, if pending) and the sessions that stood on it; a user left in no team is removed too. */
  async removeMember(member: { id: string; user_id: string }, teamId: string): Promise<void> {
    await this.db.run("DELETE FROM sessions WHERE user_id = ? AND team_id = ?", [member.user_id, teamId]);
    await this.db.run("DELETE FROM team_invitations WHERE member_id = ?", [member.id]);
    await this.db.run("DELETE FROM team_members WHERE id = ? AND team_id = ?", [member.id, teamId]);
    await this.db.run("DELETE FROM users WHERE id = ? AND NOT EXISTS (SELECT 1 FROM team_members WHERE user_id = ?)", [member.user_id, member.user_id]);
  }

  async insertSession(s: NewSession): Promise<void> {
    await this.db.run(
      "INSERT INTO sessions (id, token_hash, csrf_token, user_id, team_id, ip, user_agent, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [s.id, s.token_hash, s.csrf_token, s.user_id, s.team_id, s.ip, s.user_agent, s.created_at, s.created_at],
    );
  }

  sessionByTokenHash(hash: string): Promise<SessionRow | null> {
    return this.db.get<SessionRow>(SESSION_BY_TOKEN, [hash]);
  }

  async touchSession(id: string, now: number): Promise<void> {
    await this.db.run("UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?", [now, id, now]);
  }

  async deleteSession(id: string): Promise<void> {
    await this.db.run("DELETE FROM sessions WHERE id = ?", [id]);
  }

  async deleteSessionByTokenHash(hash: string): Promise<void> {
    await this.db.run("DELETE FROM sessions WHERE token_hash = ?", [hash]);
  }

  /** Every session of the user, on every device and team. */
  async deleteSessionsOfUser(userId: string): Promise<number> {
    return (await this.db.run("DELETE FROM sessions WHERE user_id = ?", [userId])).changes;
  }

  /** Sessions idle since `idleBefore` or started before `startedBefore`. */
  async deleteExpiredSessions(userId: string, idleBefore: number, startedBefore: number): Promise<void> {
    await this.db.run("DELETE FROM sessions WHERE user_id = ? AND (last_seen_at < ? OR created_at < ?)", [userId, idleBefore, startedBefore]);
  }

  /** Stores the pending member's invitation, replacing an earlier one (the old link stops working). */
  async putInvitation(i: NewInvitation): Promise<void> {
    await this.db.run("DELETE FROM team_invitations WHERE member_id = ?", [i.member_id]);
    await this.db.run(
      "INSERT INTO team_invitations (member_id, team_id, user_id, token_hash, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [i.member_id, i.team_id, i.user_id, i.token_hash, i.kind, i.created_at, i.expires_at],
    );
  }

  /** The invitation a link's token names (expired or not), with its team and pending membership, or null. */
  invitationByTokenHash(hash: string): Promise<InvitationRow | null> {
    return this.db.get<InvitationRow>(
      `SELECT i.member_id, i.team_id, t.name AS team_name, i.user_id, tm.role, i.kind, i.expires_at
       FROM team_invitations i JOIN team_members tm ON tm.id = i.member_id AND tm.status = 'pending' JOIN teams t ON t.id = i.team_id
       WHERE i.token_hash = ?`,
      [hash],
    );
  }

  async deleteInvitation(memberId: string): Promise<void> {
    await this.db.run("DELETE FROM team_invitations WHERE member_id = ?", [memberId]);
  }
}
