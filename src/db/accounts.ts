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
  /** How the sign-in proved more than a password ('totp', 'recovery', 'sso'), or null. */
  second_factor: string | null;
  /** The team requires two-factor sign-in (0 or 1). */
  require_two_factor: number;
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
  /** 'totp', 'recovery' or 'sso' when the sign-in proved more than a password. */
  second_factor?: string | null;
}

/** A user's two-factor sign-in as sign-in and enrolment see it. */
export type TwoFactorRow = {
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled_at: number | null;
  totp_last_step: number | null;
  recovery_codes: number;
};

/** An OpenID Connect sign-in under way (sso_requests). */
export type SsoRequestRow = { state_hash: string; nonce: string; code_verifier: string; created_at: number; expires_at: number };

const SESSION_BY_TOKEN = `SELECT s.id, s.csrf_token, s.user_id, s.team_id, s.created_at, s.last_seen_at, tm.role, tm.project_ids, tr.permissions AS role_permissions,
    s.second_factor, t.require_two_factor
  FROM sessions s JOIN team_members tm ON tm.team_id = s.team_id AND tm.user_id = s.user_id AND tm.status = 'active'
  JOIN teams t ON t.id = s.team_id
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

  /**
   * Active owners only: a pending owner cannot act for the team yet. For the last-owner checks, so
   * on PostgreSQL the team's row is locked first: two owners removed or demoted at once take
   * turns, and the second counts after the first committed (both counted two and went through,
   * leaving none). NO KEY UPDATE does not hold back rows that refer to the team. SQLite writes
   * one transaction at a time already.
   */
  async countOwners(teamId: string): Promise<number> {
    if (this.db.dialect === "postgres") await this.db.get("SELECT id FROM teams WHERE id = ? FOR NO KEY UPDATE", [teamId]);
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
      "INSERT INTO sessions (id, token_hash, csrf_token, user_id, team_id, ip, user_agent, second_factor, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [s.id, s.token_hash, s.csrf_token, s.user_id, s.team_id, s.ip, s.user_agent, s.second_factor ?? null, s.created_at, s.created_at],
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

  // Two-factor sign-in (src/auth/totp.ts, docs/access.md).

  twoFactor(userId: string): Promise<TwoFactorRow | null> {
    return this.db.get<TwoFactorRow>(
      `SELECT totp_secret, totp_pending_secret, totp_enabled_at, totp_last_step,
         (SELECT count(*) FROM user_recovery_codes r WHERE r.user_id = users.id) AS recovery_codes
       FROM users WHERE id = ?`,
      [userId],
    );
  }

  /** The secret shown at enrolment, replacing one shown before; nothing when TOTP is on already. */
  async setPendingTotp(userId: string, secret: string): Promise<boolean> {
    return (await this.db.run("UPDATE users SET totp_pending_secret = ? WHERE id = ? AND totp_secret IS NULL", [secret, userId])).changes > 0;
  }

  /** The pending secret becomes the user's, with `step` used; false when there was none (or TOTP is on already). */
  async enableTotp(userId: string, secret: string, step: number, now: number): Promise<boolean> {
    return (
      (
        await this.db.run(
          "UPDATE users SET totp_secret = totp_pending_secret, totp_pending_secret = NULL, totp_enabled_at = ?, totp_last_step = ? WHERE id = ? AND totp_secret IS NULL AND totp_pending_secret = ?",
          [now, step, userId, secret],
        )
      ).changes > 0
    );
  }

  /** Takes `step` as the last one used: false when it or a later one was used already (a replay), so of two uses of one code only one succeeds. */
  async useTotpStep(userId: string, step: number): Promise<boolean> {
    return (await this.db.run("UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_secret IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < ?)", [step, userId, step])).changes > 0;
  }

  /** A plain TOTP secret from before replaced by its encrypted form (src/auth/totp-secrets.ts); nothing when it changed meanwhile. */
  async resealTotp(userId: string, plain: string, sealed: string): Promise<void> {
    await this.db.run("UPDATE users SET totp_secret = ? WHERE id = ? AND totp_secret = ?", [sealed, userId, plain]);
  }

  /** Two-factor sign-in off: the secret and the recovery codes are gone. */
  async disableTotp(userId: string): Promise<void> {
    await this.db.run("UPDATE users SET totp_secret = NULL, totp_pending_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = ?", [userId]);
    await this.db.run("DELETE FROM user_recovery_codes WHERE user_id = ?", [userId]);
  }

  /** The user's recovery codes are these (SHA-256 hex) and no others. */
  async replaceRecoveryCodes(userId: string, hashes: string[], now: number): Promise<void> {
    await this.db.run("DELETE FROM user_recovery_codes WHERE user_id = ?", [userId]);
    for (const hash of hashes) await this.db.run("INSERT INTO user_recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)", [userId, hash, now]);
  }

  /** Uses up a recovery code: true when it was one of the user's (it is gone now). */
  async useRecoveryCode(userId: string, hash: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM user_recovery_codes WHERE user_id = ? AND code_hash = ?", [userId, hash])).changes > 0;
  }

  /** Records how the session proved a second factor (at enrolment, the code that confirmed it). */
  async setSessionSecondFactor(sessionId: string, factor: string): Promise<void> {
    await this.db.run("UPDATE sessions SET second_factor = ? WHERE id = ?", [factor, sessionId]);
  }

  /** Every other session of the user (enabling two-factor sign-in ends them). */
  async deleteOtherSessions(userId: string, keepId: string): Promise<number> {
    return (await this.db.run("DELETE FROM sessions WHERE user_id = ? AND id <> ?", [userId, keepId])).changes;
  }

  async teamRequiresTwoFactor(teamId: string): Promise<boolean> {
    const row = await this.db.get<{ r: number }>("SELECT require_two_factor AS r FROM teams WHERE id = ?", [teamId]);
    return Number(row?.r ?? 0) === 1;
  }

  async setTeamRequiresTwoFactor(teamId: string, required: boolean, now: number): Promise<void> {
    await this.db.run("UPDATE teams SET require_two_factor = ?, updated_at = ? WHERE id = ?", [required ? 1 : 0, now, teamId]);
  }

  // OpenID Connect sign-in (src/auth/oidc.ts).

  async insertSsoRequest(r: SsoRequestRow): Promise<void> {
    await this.db.run("DELETE FROM sso_requests WHERE expires_at <= ?", [r.created_at]);
    await this.db.run("INSERT INTO sso_requests (state_hash, nonce, code_verifier, created_at, expires_at) VALUES (?, ?, ?, ?, ?)", [
      r.state_hash,
      r.nonce,
      r.code_verifier,
      r.created_at,
      r.expires_at,
    ]);
  }

  /** The sign-in a state names, used up (whatever comes of it), or null when unknown or taken already. */
  async takeSsoRequest(stateHash: string): Promise<SsoRequestRow | null> {
    const row = await this.db.get<SsoRequestRow>("SELECT state_hash, nonce, code_verifier, created_at, expires_at FROM sso_requests WHERE state_hash = ?", [stateHash]);
    if (!row) return null;
    return (await this.db.run("DELETE FROM sso_requests WHERE state_hash = ?", [stateHash])).changes > 0 ? row : null;
  }

  /** The first two teams' ids (single sign-on adds new users to the only team, when there is only one). */
  async someTeamIds(): Promise<string[]> {
    return (await this.db.all<{ id: string }>("SELECT id FROM teams ORDER BY created_at, id LIMIT 2")).map((r) => r.id);
  }

  async teamExists(teamId: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS x FROM teams WHERE id = ?", [teamId])) !== null;
  }
}
