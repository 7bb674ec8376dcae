import { hashPassword } from "../../auth/passwords.ts";
import { sessionExpiry, type SessionPrincipal } from "../../auth/sessions.ts";
import type { Deps } from "../../context.ts";
import type { MembershipRow } from "../../db/accounts.ts";
import type { Repositories } from "../../db/store.ts";
import { UnauthenticatedError, ValidationError } from "../../errors.ts";
import { iso, sha256Hex } from "../../ids.ts";
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

/** Sets a password through a one-time link (an invitation): the link works once and until it expires. */
export async function setPasswordWithToken(deps: Pick<Deps, "store">, input: { token: string; password: string }): Promise<void> {
  const hash = await hashPassword(input.password);
  const done = await deps.store.write(async (tx) => {
    const userId = await tx.accounts.takePasswordToken(sha256Hex(input.token), Date.now());
    if (userId) await setUserPassword(tx, userId, hash);
    return userId !== null;
  });
  if (!done) throw ValidationError.field("token", "This link is invalid, used or expired; ask a team owner for a new one.");
}
