/**
 * Dashboard sessions: sign-in with a team member's email and password, the session a cookie names,
 * its CSRF token, and the throttle on failed sign-ins. A session is a team principal, like the team
 * token (src/auth/tokens.ts), so every management endpoint accepts it and a session of another
 * team sees 404s exactly as a token would.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Deps } from "../context.ts";
import type { MembershipRow, SessionRow } from "../db/accounts.ts";
import { ForbiddenError, UnauthenticatedError, ValidationError } from "../errors.ts";
import { newId, newToken, sha256Hex } from "../ids.ts";
import { verifyPassword } from "./passwords.ts";
import { accessOf } from "./permissions.ts";
import { authThrottle, type FailureRule } from "./throttle.ts";
import { TWO_FACTOR_INVALID, TWO_FACTOR_REQUIRED, useSecondFactor, type SecondFactor } from "./second-factor.ts";
import type { TeamPrincipal } from "./tokens.ts";

export const SESSION_TOKEN_PREFIX = "ph_sess_";
/** A session unused this long ends (its next request is a 401). */
export const SESSION_IDLE_MS = 12 * 3600_000;
/** And every session ends this long after sign-in, used or not. */
export const SESSION_MAX_MS = 30 * 24 * 3600_000;
/** The last-seen time is written at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;

/** Failed sign-ins allowed per address in a window; per client IP, the limit of every failed authentication (src/auth/throttle.ts). */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_FAILURES_PER_EMAIL = 5;

export interface SessionInfo {
  id: string;
  userId: string;
  role: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  /** How the sign-in proved more than a password ('totp', 'recovery', 'sso'), or null. */
  secondFactor?: string | null;
  /**
   * The team requires two-factor sign-in and this session proved none: it may only set it up,
   * read itself and sign out (authenticateSession refuses every other request with a 403).
   */
  mustEnrol?: boolean;
}

/** A team principal that came from a session: who signed in, with what role. */
export type SessionPrincipal = TeamPrincipal & { session: SessionInfo };

/** When the session ends if it stays idle from `lastSeenAt`. */
export const sessionExpiry = (s: { createdAt: number; lastSeenAt: number }): number => Math.min(s.lastSeenAt + SESSION_IDLE_MS, s.createdAt + SESSION_MAX_MS);

const sameText = (a: string, b: string): boolean => {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
};

/**
 * The session `token` names, for a request whose method `changes` state or not. A state-changing
 * request must carry the session's CSRF token (`csrf`), else 403; an unknown, expired or orphaned
 * session (the member was removed) is a 401.
 */
export async function authenticateSession(
  deps: Pick<Deps, "store" | "log">,
  token: string,
  request: { changes: boolean; csrf: string | undefined; /** The request is one a session that must enrol may make (two-factor set-up, itself, sign-out). */ enrolment?: boolean },
): Promise<SessionPrincipal> {
  if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 200) throw new UnauthenticatedError();
  const row = await deps.store.read.accounts.sessionByTokenHash(sha256Hex(token));
  const now = Date.now();
  if (!row || sessionExpiry(sessionTimes(row)) <= now) throw new UnauthenticatedError();
  if (request.changes && !(request.csrf && sameText(request.csrf, row.csrf_token))) {
    throw new ForbiddenError("This request needs the session's CSRF token in the X-CSRF-Token header.");
  }
  if (now - Number(row.last_seen_at) >= TOUCH_INTERVAL_MS) touch(deps, row.id, now);
  if (mustEnrol(row) && !request.enrolment) {
    throw new ForbiddenError(
      "Your team requires two-factor sign-in: set it up first (POST /v1/auth/two-factor/enrol, then /confirm); until then this session can do nothing else.",
      "two_factor_enrolment_required",
    );
  }
  return { kind: "team", teamId: row.team_id, session: sessionInfo(row), access: accessOf(row.role, row.role_permissions, row.project_ids) };
}

const sessionTimes = (row: Pick<SessionRow, "created_at" | "last_seen_at">) => ({ createdAt: Number(row.created_at), lastSeenAt: Number(row.last_seen_at) });

/** A session of a team that requires two-factor sign-in, opened without a second factor. */
const mustEnrol = (row: SessionRow): boolean => Number(row.require_two_factor) === 1 && row.second_factor === null;

const sessionInfo = (row: SessionRow): SessionInfo => ({
  id: row.id,
  userId: row.user_id,
  role: row.role,
  csrfToken: row.csrf_token,
  ...sessionTimes(row),
  secondFactor: row.second_factor,
  mustEnrol: mustEnrol(row),
});

/** Outside the request's unit of work: being seen is true whatever the answer. */
function touch(deps: Pick<Deps, "store" | "log">, id: string, now: number): void {
  deps.store
    .detached(() => deps.store.write((tx) => tx.accounts.touchSession(id, now)))
    .catch((err: unknown) => deps.log.warn("session last-seen update failed", { error: String(err) }));
}

export interface SignIn {
  email: string;
  password: string;
  /** The team to sign in to; default the user's first. */
  teamId?: string;
  /** A TOTP code or a recovery code: needed when the user has two-factor sign-in on. */
  code?: string;
}

export interface SignedIn {
  /** The cookie's value, given to the client once. */
  token: string;
  principal: SessionPrincipal;
  teams: MembershipRow[];
}

const normalEmail = (email: string) => email.trim().toLowerCase();

/**
 * Checks the password and opens a new session. `previousToken` (the cookie the client still sends)
 * is ended, so a session id is never carried across a sign-in. Every attempt first takes a place
 * in the counters per address and per client IP in the database (src/auth/throttle.ts, reserve:
 * one statement per counter, so the limits hold across nodes and for attempts that run at once;
 * the IP's counter is the one API tokens and SMTP AUTH count on too); beyond the limits every
 * attempt is a 429 until the window ends, whatever the password, and costs no password hash. A
 * refused sign-in keeps its places; one that works gives them back and clears its address's.
 */
export async function signIn(
  deps: Pick<Deps, "store" | "log" | "config">,
  input: SignIn,
  client: { ip: string | null; userAgent: string | null; previousToken: string | null },
): Promise<SignedIn> {
  const email = normalEmail(input.email);
  const now = Date.now();
  const throttle = authThrottle(deps);
  const rules: FailureRule[] = [{ key: `email:${email}`, limit: SIGN_IN_FAILURES_PER_EMAIL, windowMs: SIGN_IN_WINDOW_MS }, ...throttle.ipRules(client.ip)];
  // A place in both counters before the password is hashed: an attempt beyond the limits is a 429 that costs no Argon2, however many run at once.
  const reservation = await throttle.reserve(rules);

  const user = await deps.store.read.accounts.userByEmail(email);
  const matches = await verifyPassword(input.password, user?.password_hash ?? null);
  const teams = user && matches ? await deps.store.read.accounts.memberships(user.id) : [];
  const team = input.teamId ? teams.find((m) => m.team_id === input.teamId) : teams[0];
  if (!user || !team) {
    throttle.failed(reservation);
    throw new UnauthenticatedError("The email address or password is incorrect.");
  }
  // The second factor, once the password is right (src/auth/two-factor.ts).
  const twoFactor = await deps.store.read.accounts.twoFactor(user.id);
  const totpSecret = twoFactor?.totp_secret ?? null;
  if (totpSecret === null && input.code !== undefined) {
    await throttle.release(reservation);
    throw ValidationError.field("code", "Two-factor sign-in is not set up for this account: sign in without a code.");
  }
  if (totpSecret !== null && input.code === undefined) {
    // A right password is no failure, but it opens nothing yet.
    await throttle.release(reservation);
    throw new UnauthenticatedError("Enter the 6-digit code of your authenticator app, or one of your recovery codes.", TWO_FACTOR_REQUIRED);
  }

  const token = newToken(SESSION_TOKEN_PREFIX);
  const session = {
    id: newId(),
    token_hash: sha256Hex(token),
    csrf_token: randomBytes(24).toString("base64url"),
    user_id: user.id,
    team_id: team.team_id,
    ip: client.ip,
    user_agent: client.userAgent?.slice(0, 500) ?? null,
    created_at: now,
    second_factor: null as SecondFactor | null,
  };
  const opened = await deps.store.write(async (tx) => {
    if (totpSecret !== null) {
      // The code is used up in the transaction that opens the session: of two sign-ins with one code, one opens a session.
      session.second_factor = await useSecondFactor(tx, user.id, totpSecret, input.code!, now);
      if (session.second_factor === null) return false;
    }
    if (client.previousToken) await tx.accounts.deleteSessionByTokenHash(sha256Hex(client.previousToken));
    await tx.accounts.deleteExpiredSessions(user.id, now - SESSION_IDLE_MS, now - SESSION_MAX_MS);
    await tx.accounts.insertSession(session);
    await tx.rateLimits.clearFailures(`email:${email}`, now - SIGN_IN_WINDOW_MS);
    // A sign-in that worked is no failure: its place in the IP's counter is given back (the address's was cleared above).
    await throttle.releaseIn(tx, reservation);
    return true;
  });
  if (!opened) {
    throttle.failed(reservation);
    throw new UnauthenticatedError("The code is incorrect, expired or was used already.", TWO_FACTOR_INVALID);
  }
  return {
    token,
    teams,
    principal: {
      kind: "team",
      teamId: team.team_id,
      session: {
        id: session.id,
        userId: user.id,
        role: team.role,
        csrfToken: session.csrf_token,
        createdAt: now,
        lastSeenAt: now,
        secondFactor: session.second_factor,
        mustEnrol: session.second_factor === null && (await deps.store.read.accounts.teamRequiresTwoFactor(team.team_id)),
      },
    },
  };
}
