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
};

/** A team the user belongs to. */
export type MembershipRow = { team_id: string; team_name: string; member_id: string; role: string };

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

const SESSION_BY_TOKEN = `SELECT s.id, s.csrf_token, s.user_id, s.team_id, s.created_at, s.last_seen_at, tm.role
  FROM sessions s JOIN team_members tm ON tm.team_id = s.team_id AND tm.user_id = s.user_id
  WHERE s.token_hash = ?`;

/**
 * Dashboard accounts: users' passwords, team memberships as sign-in sees them, sessions and one-time
 * password links.
 */
export class AccountRepository {
  constructor(private readonly db: SqlExecutor) {}

  userByEmail(email: string): Promise<UserRow | null> {
    return this.db.get<UserRow>("SELECT id, name, email, password_hash FROM users WHERE email = ?", [email]);
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

  /** The user's teams, oldest membership first. */
  memberships(userId: string): Promise<MembershipRow[]> {
    return this.db.all<MembershipRow>(
      `SELECT tm.team_id, t.name AS team_name, tm.id AS member_id, tm.role FROM team_members tm JOIN teams t ON t.id = tm.team_id
       WHERE tm.user_id = ? ORDER BY tm.created_at, tm.id`,
      [userId],
    );
  }

  async addMember(m: { id: string; team_id: string; user_id: string; role: string; created_at: number }): Promise<void> {
    await this.db.run("INSERT INTO team_members (id, team_id, user_id, role, joined_at, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
      m.id,
      m.team_id,
      m.user_id,
      m.role,
      m.created_at,
      m.created_at,
    ]);
  }

  /** The member of the team with its user, or null (unknown, or another team's). */
  member(memberId: string, teamId: string): Promise<{ id: string; user_id: string; role: string } | null> {
    return this.db.get("SELECT id, user_id, role FROM team_members WHERE id = ? AND team_id = ?", [memberId, teamId]);
  }

  async countOwners(teamId: string): Promise<number> {
    return Number((await this.db.get<{ n: number }>("SELECT count(*) AS n FROM team_members WHERE team_id = ? AND role = 'owner'", [teamId]))!.n);
  }

  /** Removes the membership and the sessions that stood on it; a user left in no team is removed too. */
  async removeMember(member: { id: string; user_id: string }, teamId: string): Promise<void> {
    await this.db.run("DELETE FROM sessions WHERE user_id = ? AND team_id = ?", [member.user_id, teamId]);
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

  /** Stores a one-time password link for the user, replacing any earlier one. */
  async replacePasswordToken(t: { token_hash: string; user_id: string; created_at: number; expires_at: number }): Promise<void> {
    await this.db.run("DELETE FROM password_tokens WHERE user_id = ?", [t.user_id]);
    await this.db.run("INSERT INTO password_tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)", [t.token_hash, t.user_id, t.created_at, t.expires_at]);
  }

  /** Takes the link (it works once): the user it names, or null when unknown or expired. */
  async takePasswordToken(hash: string, now: number): Promise<string | null> {
    const row = await this.db.get<{ user_id: string; expires_at: number }>("SELECT user_id, expires_at FROM password_tokens WHERE token_hash = ?", [hash]);
    if (!row) return null;
    await this.db.run("DELETE FROM password_tokens WHERE token_hash = ?", [hash]);
    return Number(row.expires_at) > now ? row.user_id : null;
  }
}
