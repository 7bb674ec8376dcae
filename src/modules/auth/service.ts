import { randomBytes, timingSafeEqual } from "node:crypto";
import { oidcClient, SSO_REQUEST_TTL_MS, SsoError, type OidcClient } from "../../auth/oidc.ts";
import { hashPassword, verifyPassword } from "../../auth/passwords.ts";
import { SESSION_IDLE_MS, SESSION_MAX_MS, SESSION_TOKEN_PREFIX, SIGN_IN_FAILURES_PER_EMAIL, SIGN_IN_WINDOW_MS, sessionExpiry, type SessionPrincipal } from "../../auth/sessions.ts";
import { authThrottle, clientKey, type FailureRule } from "../../auth/throttle.ts";
import { TWO_FACTOR_INVALID, TWO_FACTOR_REQUIRED, useSecondFactor } from "../../auth/second-factor.ts";
import { twoFactorStatus } from "../../auth/two-factor.ts";
import type { Deps } from "../../context.ts";
import type { InvitationRow, MembershipRow } from "../../db/accounts.ts";
import type { Repositories } from "../../db/store.ts";
import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from "../../errors.ts";
import { iso, newId, newToken, sha256Hex } from "../../ids.ts";
import { serverSecretOf, signValue, verifySignedValue } from "../../secrets.ts";
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
export async function acceptInvitationWithPassword(
  deps: Pick<Deps, "store" | "log" | "config">,
  input: { token: string; password: string; code?: string },
  client: Client,
): Promise<Accepted> {
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
  // A password alone never opens a session of a user with two-factor sign-in: the code as at sign-in.
  const totpSecret = (await deps.store.read.accounts.twoFactor(user.id))?.totp_secret ?? null;
  if (totpSecret === null && input.code !== undefined) {
    await throttle.release(reservation);
    throw ValidationError.field("code", "Two-factor sign-in is not set up for this account: accept without a code.");
  }
  if (totpSecret !== null && input.code === undefined) {
    await throttle.release(reservation);
    throw new UnauthenticatedError("Enter the 6-digit code of your authenticator app, or one of your recovery codes.", TWO_FACTOR_REQUIRED);
  }
  const accepted = await deps.store.write(async (tx) => {
    const now = Date.now();
    const factor = totpSecret === null ? null : await useSecondFactor(tx, user.id, totpSecret, input.code!, now);
    if (totpSecret !== null && factor === null) return null;
    const taken = await takeInvitation(tx, input.token, user.id, now);
    const opened = await openSession(tx, user.id, taken, client, now, factor);
    await tx.rateLimits.clearFailures(`email:${user.email}`, now - SIGN_IN_WINDOW_MS);
    await throttle.releaseIn(tx, reservation);
    return { ...opened, team: { id: taken.team_id, name: taken.team_name } };
  });
  if (accepted === null) {
    throttle.failed(reservation);
    throw new UnauthenticatedError("The code is incorrect, expired or was used already.", TWO_FACTOR_INVALID);
  }
  return accepted;
}

/** Single sign-ons a client IP may start in a window (each stores a row until it is used or expires). */
const SSO_STARTS_PER_IP = 30;
const SSO_START_WINDOW_MS = 10 * 60_000;

/** The configured issuer's client, or 404 when single sign-on is not configured. */
function ssoClient(config: Deps["config"]): OidcClient {
  const client = oidcClient(config);
  if (!client) throw new NotFoundError("Single sign-on");
  return client;
}

/** Starts a single sign-on: the provider's URL for the browser, and the state it keeps in a cookie. */
export async function startSso(deps: Pick<Deps, "store" | "config" | "log">, ip: string | null): Promise<{ url: string; state: string }> {
  const oidc = ssoClient(deps.config);
  // Every start stores a row: a client IP (or /64) may start SSO_STARTS_PER_IP per window, counted like failures (never given back).
  if (ip !== null) await authThrottle(deps).reserve([{ key: `sso:${clientKey(ip)}`, limit: SSO_STARTS_PER_IP, windowMs: SSO_START_WINDOW_MS }]);
  const authorization = await oidc.authorization();
  const now = Date.now();
  await deps.store.write((tx) =>
    tx.accounts.insertSsoRequest({
      state_hash: sha256Hex(authorization.state),
      nonce: authorization.nonce,
      code_verifier: authorization.codeVerifier,
      created_at: now,
      expires_at: now + SSO_REQUEST_TTL_MS,
    }),
  );
  return { url: authorization.url, state: authorization.state };
}

export interface SsoCallback {
  state?: string;
  code?: string;
  error?: string;
  error_description?: string;
  iss?: string;
  /** The state the browser kept in its cookie when the sign-in started. */
  cookieState: string | null;
}

const sameValue = (a: string, b: string): boolean => {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
};

/**
 * Finishes a single sign-on: the state must be this browser's (its cookie) and a sign-in started
 * here, unused and unexpired (it is used up now, whatever follows); the code is redeemed with the
 * PKCE verifier and the ID token checked (src/auth/oidc.ts). The user is the one with the token's
 * address, which the provider must vouch for (email_verified), or a new one added to the
 * configured team (POSTHORN_OIDC_TEAM_ID, else the only team) with POSTHORN_OIDC_DEFAULT_ROLE.
 * Any refusal changes nothing but the used-up state: no user, no session.
 */
export async function finishSso(deps: Pick<Deps, "store" | "config">, input: SsoCallback, client: Client): Promise<Omit<Accepted, "team">> {
  const oidc = ssoClient(deps.config);
  if (!input.state) throw ValidationError.field("state", "The state parameter is missing.");
  if (input.cookieState === null || !sameValue(input.cookieState, input.state)) {
    throw ValidationError.field("state", "This sign-in was not started in this browser (the state does not match its cookie); start again.");
  }
  const request = await deps.store.write((tx) => tx.accounts.takeSsoRequest(sha256Hex(input.state!)));
  if (!request || Number(request.expires_at) <= Date.now()) throw ValidationError.field("state", "This sign-in is unknown, used or expired; start again.");
  if (input.iss !== undefined && input.iss !== deps.config.oidcIssuer) throw new SsoError(`the answer comes from issuer ${input.iss}, not ${deps.config.oidcIssuer}.`);
  if (input.error) throw new SsoError(`the identity provider answered ${input.error}${input.error_description ? ` (${input.error_description.slice(0, 200)})` : ""}.`);
  if (!input.code) throw ValidationError.field("code", "The code parameter is missing.");
  const claims = await oidc.redeem(input.code, request.code_verifier, request.nonce);
  if (claims.email === null || !claims.email_verified) throw new SsoError("the identity provider does not vouch for an email address (email_verified).");
  const email = claims.email.trim().toLowerCase();
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (deps.config.oidcAllowedDomains.length > 0 && !deps.config.oidcAllowedDomains.includes(domain)) {
    throw new ForbiddenError(`Single sign-on does not accept addresses at ${domain}.`, "sso_domain_not_allowed");
  }
  return deps.store.write(async (tx) => {
    const now = Date.now();
    const user = await tx.accounts.userByEmail(email);
    if (user) {
      const teams = await tx.accounts.memberships(user.id);
      const team = teams.find((m) => m.team_id === deps.config.oidcTeamId) ?? teams[0];
      if (!team) throw new ForbiddenError("This account is in no team yet: accept its invitation first.", "sso_no_team");
      return openSession(tx, user.id, team, client, now, "sso");
    }
    const teamId = deps.config.oidcTeamId ?? (await soleTeam(tx));
    if (teamId === null || !(await tx.accounts.teamExists(teamId))) {
      throw new ForbiddenError("No account has this address, and single sign-on has no team to add new users to (POSTHORN_OIDC_TEAM_ID).", "sso_no_team");
    }
    const userId = newId();
    const name = (claims.name ?? email.slice(0, email.indexOf("@"))).slice(0, 200);
    await tx.accounts.insertUser({ id: userId, name, email, password_hash: null, created_at: now });
    const role = deps.config.oidcDefaultRole;
    await tx.accounts.addMember({ id: newId(), team_id: teamId, user_id: userId, role, created_at: now });
    return openSession(tx, userId, { team_id: teamId, role }, client, now, "sso");
  });
}

const SSO_FAILURE_PURPOSE = "sso-failure";
const SSO_FAILURE_MAX_CHARS = 1000;

/**
 * The value of the cookie that carries a refused single sign-on's message from the callback to the
 * dashboard's sign-in page: the message (base64url) and Posthorn's signature of it, so that the
 * page shows only a message Posthorn wrote (not one a cookie set by anyone else says).
 */
export async function ssoFailureValue(deps: Pick<Deps, "store">, message: string): Promise<string> {
  const text = Buffer.from(message.slice(0, SSO_FAILURE_MAX_CHARS)).toString("base64url");
  return `${text}.${signValue(await serverSecretOf(deps.store), SSO_FAILURE_PURPOSE, text, 32)}`;
}

/** The message of a failure cookie ssoFailureValue made, else null. */
export async function ssoFailureOf(deps: Pick<Deps, "store">, value: string | null): Promise<string | null> {
  const dot = value?.lastIndexOf(".") ?? -1;
  if (!value || dot < 1) return null;
  const text = value.slice(0, dot);
  if (!verifySignedValue(await serverSecretOf(deps.store), SSO_FAILURE_PURPOSE, text, value.slice(dot + 1))) return null;
  return Buffer.from(text, "base64url").toString("utf8").slice(0, SSO_FAILURE_MAX_CHARS);
}

async function soleTeam(tx: Repositories): Promise<string | null> {
  const ids = await tx.accounts.someTeamIds();
  return ids.length === 1 ? ids[0]! : null;
}
