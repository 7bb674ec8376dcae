import { randomBytes } from "node:crypto";
import { hashPassword, verifyPassword } from "../../auth/passwords.ts";
import { SESSION_IDLE_MS, SESSION_MAX_MS, SESSION_TOKEN_PREFIX, SIGN_IN_FAILURES_PER_EMAIL, SIGN_IN_WINDOW_MS, sessionExpiry, type SessionPrincipal } from "../../auth/sessions.ts";
import { authThrottle, type FailureRule } from "../../auth/throttle.ts";
import { twoFactorStatus } from "../../auth/two-factor.ts";
import type { Deps } from "../../context.ts";
import type { InvitationRow, MembershipRow } from "../../db/accounts.ts";
import type { Repositories } from "../../db/store.ts";
import { ForbiddenError, UnauthenticatedError, ValidationError } from "../../errors.ts";
import { iso, newId, newToken, sha256Hex } from "../../ids.ts";
import type { SessionData } from "./model.ts";

/** What the dashboard knows about its session: who, which team, the CSRF token, when it ends. */
export async function sessionData(deps: Pick<Deps, "store">, principal: SessionPrincipal, teams?: MembershipRow[]): Promise<SessionData> {
  const { session } = principal;
  const user = await deps.store.read.accounts.user(session.userId);
  const memberships = teams ?? (await deps.store.read.accounts.memberships(session.userId));
  const team = memberships.find((m) => m.team_id === principal.teamId);
  if (!user || !team) throw new UnauthenticatedError(); // removed meanwhile
  const ref = (m: MembershipRow) => ({ id: m.team_id, name: m.team_name, role: m.role });
  return {
    user: { id: user.id, name: user.name, email: user.email },
    team: ref(team),
    teams: memberships.map(ref),
    two_factor: await twoFactorStatus(deps, principal),
    csrf_token: session.csrfToken,
    expires_at: iso(sessionExpiry(session))!,
  };
}

export async function signOut(deps: Pick<Deps, "store">, principal: SessionPrincipal): Promise<void> {
  await deps.store.write((tx) => tx.accounts.deleteSession(principal.session.id));
}

/** Ends every session of the user, on every device and team; the number ended. */
export function signOutEverywhere(deps: Pick<Deps, "store">, principal: SessionPrincipal): Promise<number> {
  return deps.store.write((tx) => tx.accounts.deleteSessionsOfUser(principal.session.userId));
}

/** Sets the user's password and ends their sessions (a password change signs out everywhere). */
export async function setUserPassword(tx: Repositories, userId: string, passwordHash: string, now = Date.now()): Promise<void> {
  await tx.accounts.setPassword(userId, passwordHash, now);
  await tx.accounts.deleteSessionsOfUser(userId);
}

const INVALID_LINK = "This link is invalid, used or expired; ask a team owner for a new one.";

/**
 * Sets a password through an invitation's password link, which accepts that invitation. The link is
 * bound to one user and one pending membership, works once and until it expires, and only sets a
 * first password: never for a user who has one already or who is an active member of another team
 * (docs/security.md, "Identities shared across teams"). Revoking the invitation (removing the
 * pending member) ends the link.
 */
export async function setPasswordWithToken(deps: Pick<Deps, "store">, input: { token: string; password: string }): Promise<void> {
  const hash = await hashPassword(input.password);
  const done = await deps.store.write(async (tx) => {
    const now = Date.now();
    const invitation = await tx.accounts.invitationByTokenHash(sha256Hex(input.token));
    if (!invitation || invitation.kind !== "password" || Number(invitation.expires_at) <= now) return false;
    const user = await tx.accounts.userById(invitation.user_id);
    if (!user || user.password_hash !== null || (await tx.accounts.inOtherTeam(user.id, invitation.team_id, true))) return false;
    await setUserPassword(tx, user.id, hash, now);
    await acceptTaken(tx, invitation, now);
    return true;
  });
  if (!done) throw ValidationError.field("token", INVALID_LINK);
}

async function acceptTaken(tx: Repositories, invitation: InvitationRow, now: number): Promise<void> {
  await tx.accounts.activateMember(invitation.member_id, now);
  await tx.accounts.deleteInvitation(invitation.member_id);
}

/** The invitation a token names, unexpired, for `userId` (else 422, or 403 for another user's), taken: the membership is active. */
async function takeInvitation(tx: Repositories, token: string, userId: string, now: number): Promise<InvitationRow> {
  const invitation = await tx.accounts.invitationByTokenHash(sha256Hex(token));
  if (!invitation || Number(invitation.expires_at) <= now) throw ValidationError.field("token", INVALID_LINK);
  if (invitation.user_id !== userId) throw new ForbiddenError("This invitation is for another account; sign in as the address it was sent to.");
  await acceptTaken(tx, invitation, now);
  return invitation;
}

export interface Client {
  ip: string | null;
  userAgent: string | null;
  /** The session cookie the client still sends: ended, as at sign-in. */
  previousToken: string | null;
}

export interface Accepted {
  /** The new session's cookie value, in the team just joined. */
  token: string;
  principal: SessionPrincipal;
  team: { id: string; name: string };
}

/** A new session of the user in the team (the previous one ended), as sign-in opens one. */
async function openSession(
  tx: Repositories,
  userId: string,
  team: { team_id: string; role: string },
  client: Client,
  now: number,
  secondFactor: string | null = null,
): Promise<Omit<Accepted, "team">> {
  const token = newToken(SESSION_TOKEN_PREFIX);
  const csrf = randomBytes(24).toString("base64url");
  const id = newId();
  if (client.previousToken) await tx.accounts.deleteSessionByTokenHash(sha256Hex(client.previousToken));
  await tx.accounts.deleteExpiredSessions(userId, now - SESSION_IDLE_MS, now - SESSION_MAX_MS);
  await tx.accounts.insertSession({
    id,
    token_hash: sha256Hex(token),
    csrf_token: csrf,
    user_id: userId,
    team_id: team.team_id,
    ip: client.ip,
    user_agent: client.userAgent?.slice(0, 500) ?? null,
    created_at: now,
    second_factor: secondFactor,
  });
  return { token, principal: { kind: "team", teamId: team.team_id, session: { id, userId, role: team.role, csrfToken: csrf, createdAt: now, lastSeenAt: now, secondFactor } } };
}

/**
 * Accepts an invitation as the signed-in user: the session must be the invited user's own and the
 * token the invitation's (an account another team controls cannot accept an invitation it was never
 * given). The session moves to the team just joined.
 */
export async function acceptInvitationAsSession(deps: Pick<Deps, "store">, principal: SessionPrincipal, token: string, client: Client): Promise<Accepted> {
  return deps.store.write(async (tx) => {
    const now = Date.now();
    const invitation = await takeInvitation(tx, token, principal.session.userId, now);
    // The new session proved what the one it replaces proved.
    const opened = await openSession(tx, invitation.user_id, invitation, { ...client, previousToken: null }, now, principal.session.secondFactor ?? null);
    await tx.accounts.deleteSession(principal.session.id);
    return { ...opened, team: { id: invitation.team_id, name: invitation.team_name } };
  });
}

/**
 * Accepts an invitation with the invited user's own password instead of a session (for a user who
 * is active in no team yet): throttled like a sign-in of that address, and it opens a session in
 * the team just joined.
 */
export async function acceptInvitationWithPassword(deps: Pick<Deps, "store" | "log" | "config">, input: { token: string; password: string }, client: Client): Promise<Accepted> {
  const invitation = await deps.store.read.accounts.invitationByTokenHash(sha256Hex(input.token));
  if (!invitation || Number(invitation.expires_at) <= Date.now()) throw ValidationError.field("token", INVALID_LINK);
  const user = (await deps.store.read.accounts.userById(invitation.user_id))!;
  // The counters and limits of a sign-in of that address (src/auth/sessions.ts, signIn).
  const throttle = authThrottle(deps);
  const rules: FailureRule[] = [{ key: `email:${user.email}`, limit: SIGN_IN_FAILURES_PER_EMAIL, windowMs: SIGN_IN_WINDOW_MS }, ...throttle.ipRules(client.ip)];
  const reservation = await throttle.reserve(rules);
  if (!(await verifyPassword(input.password, user.password_hash))) {
    throttle.failed(reservation);
    throw new UnauthenticatedError("The password is incorrect.");
  }
  if ((await deps.store.read.accounts.twoFactor(user.id))?.totp_secret) {
    // A password alone never opens a session of a user with two-factor sign-in.
    await throttle.release(reservation);
    throw new UnauthenticatedError("This account signs in with two factors: sign in first, then accept the invitation with your session.", "two_factor_required");
  }
  const accepted = await deps.store.write(async (tx) => {
    const now = Date.now();
    const taken = await takeInvitation(tx, input.token, user.id, now);
    const opened = await openSession(tx, user.id, taken, client, now);
    await tx.rateLimits.clearFailures(`email:${user.email}`, now - SIGN_IN_WINDOW_MS);
    await throttle.releaseIn(tx, reservation);
    return { ...opened, team: { id: taken.team_id, name: taken.team_name } };
  });
  return accepted;
}
