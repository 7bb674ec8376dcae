/**
 * Two-factor sign-in (docs/security.md, "Two-factor sign-in"): enrolment with a TOTP secret that a
 * code must confirm before it takes effect, single-use recovery codes, the second step of a
 * sign-in, turning it off, and a team's requirement. Every check of a code is throttled like a
 * password (src/auth/throttle.ts: a place in the user's and the client IP's counters first).
 */
import type { Deps } from "../context.ts";
import { ConflictError, UnauthenticatedError, ValidationError } from "../errors.ts";
import type { SessionPrincipal } from "./sessions.ts";
import { authThrottle, type FailureRule } from "./throttle.ts";
import { useSecondFactor } from "./second-factor.ts";
import { serverSecretOf } from "../secrets.ts";
import { openTotp, sealTotp } from "./totp-secrets.ts";
import { isTotpCode, matchTotp, newRecoveryCode, newTotpSecret, otpauthUri, RECOVERY_CODE_COUNT, recoveryCodeHash } from "./totp.ts";

/** Failed code checks allowed per user in a window (as failed passwords per address). */
const CODE_FAILURES_PER_USER = 5;
const CODE_WINDOW_MS = 15 * 60_000;

type TwoFactorDeps = Pick<Deps, "store" | "log" | "config">;

/**
 * Runs `check` (which uses up a code, in its own transaction) with a place in the user's and the
 * client IP's counters: a wrong code keeps them (a failure; a 422 on `code`), a right one gives them back.
 */
async function throttledCode<T>(deps: TwoFactorDeps, userId: string, ip: string | null, check: () => Promise<T | null>): Promise<T> {
  const throttle = authThrottle(deps);
  const rules: FailureRule[] = [{ key: `totp:${userId}`, limit: CODE_FAILURES_PER_USER, windowMs: CODE_WINDOW_MS }, ...throttle.ipRules(ip)];
  const reservation = await throttle.reserve(rules);
  const result = await check();
  if (result === null) {
    throttle.failed(reservation);
    // The session is fine, the code is not: a 422 on the field (a 401 would read as signed out).
    throw ValidationError.field("code", "The code is incorrect, expired or was used already.");
  }
  await throttle.release(reservation);
  return result;
}

export interface Enrolment {
  secret: string;
  otpauthUri: string;
}

/** Starts enrolment: a new secret, shown once, that takes effect when a code of it confirms it (409 when two-factor sign-in is on already). */
export async function startEnrolment(deps: Pick<Deps, "store">, principal: SessionPrincipal, issuer: string): Promise<Enrolment> {
  const user = await deps.store.read.accounts.user(principal.session.userId);
  if (!user) throw new UnauthenticatedError();
  const secret = newTotpSecret();
  // Stored encrypted (src/auth/totp-secrets.ts), as the secret it becomes.
  const sealed = sealTotp(await serverSecretOf(deps.store), secret);
  const set = await deps.store.write((tx) => tx.accounts.setPendingTotp(user.id, sealed));
  if (!set) throw new ConflictError("Two-factor sign-in is on already; turn it off first to enrol another authenticator.", "two_factor_enabled");
  return { secret, otpauthUri: otpauthUri(secret, user.email, issuer) };
}

const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);

/**
 * Confirms enrolment with a code of the pending secret: two-factor sign-in is on, the recovery
 * codes are made (returned once), this session counts as signed in with it and the user's other
 * sessions end.
 */
export async function confirmEnrolment(deps: TwoFactorDeps, principal: SessionPrincipal, code: string, ip: string | null): Promise<string[]> {
  const userId = principal.session.userId;
  const state = await deps.store.read.accounts.twoFactor(userId);
  if (state?.totp_secret) throw new ConflictError("Two-factor sign-in is on already.", "two_factor_enabled");
  const pending = state?.totp_pending_secret ?? null;
  if (pending === null) throw new ConflictError("Start enrolment first (POST /v1/auth/two-factor/enrol).", "two_factor_not_enrolling");
  const codes = newRecoveryCodes();
  const plain = openTotp(await serverSecretOf(deps.store), pending);
  return throttledCode(deps, userId, ip, () =>
    deps.store.write(async (tx) => {
      const now = Date.now();
      const step = isTotpCode(code) ? matchTotp(plain, code, now, null) : null;
      if (step === null || !(await tx.accounts.enableTotp(userId, pending, step, now))) return null;
      await tx.accounts.replaceRecoveryCodes(userId, codes.map(recoveryCodeHash), now);
      await tx.accounts.setSessionSecondFactor(principal.session.id, "totp");
      await tx.accounts.deleteOtherSessions(userId, principal.session.id);
      return codes;
    }),
  );
}

/** The secret of a user who has two-factor sign-in on, else 409. */
async function enabledSecret(deps: Pick<Deps, "store">, userId: string): Promise<string> {
  const state = await deps.store.read.accounts.twoFactor(userId);
  if (!state?.totp_secret) throw new ConflictError("Two-factor sign-in is not on.", "two_factor_not_enabled");
  return state.totp_secret;
}

/** Turns two-factor sign-in off with a code (TOTP or recovery); refused while the team requires it. */
export async function disableTwoFactor(deps: TwoFactorDeps, principal: SessionPrincipal, code: string, ip: string | null): Promise<void> {
  const userId = principal.session.userId;
  const secret = await enabledSecret(deps, userId);
  if (await deps.store.read.accounts.teamRequiresTwoFactor(principal.teamId)) {
    throw new ConflictError("Your team requires two-factor sign-in: it cannot be turned off.", "two_factor_required_by_team");
  }
  await throttledCode(deps, userId, ip, () =>
    deps.store.write(async (tx) => {
      if ((await useSecondFactor(tx, userId, secret, code, Date.now())) === null) return null;
      await tx.accounts.disableTotp(userId);
      return true;
    }),
  );
}

/** New recovery codes for a code (TOTP or recovery): the old ones stop working. */
export async function renewRecoveryCodes(deps: TwoFactorDeps, principal: SessionPrincipal, code: string, ip: string | null): Promise<string[]> {
  const userId = principal.session.userId;
  const secret = await enabledSecret(deps, userId);
  const codes = newRecoveryCodes();
  return throttledCode(deps, userId, ip, () =>
    deps.store.write(async (tx) => {
      const now = Date.now();
      if ((await useSecondFactor(tx, userId, secret, code, now)) === null) return null;
      await tx.accounts.replaceRecoveryCodes(userId, codes.map(recoveryCodeHash), now);
      return codes;
    }),
  );
}

/**
 * An owner (security:manage, declared beside the route) requires two-factor sign-in for the team, or no longer does. Requiring it needs the
 * owner's own to be on (else 409), so the owner is never the first one locked out; members without
 * it keep their sessions but can only enrol with them (authenticateSession).
 */
export async function setTeamRequirement(deps: Pick<Deps, "store">, principal: SessionPrincipal, required: boolean): Promise<void> {
  if (required) {
    const state = await deps.store.read.accounts.twoFactor(principal.session.userId);
    if (!state?.totp_secret) throw new ConflictError("Turn on your own two-factor sign-in before requiring it of the team.", "two_factor_not_enabled");
  }
  await deps.store.write((tx) => tx.accounts.setTeamRequiresTwoFactor(principal.teamId, required, Date.now()));
}

/** What the session data shows of two-factor sign-in. */
export async function twoFactorStatus(deps: Pick<Deps, "store">, principal: SessionPrincipal): Promise<{ enabled: boolean; required: boolean; must_enrol: boolean; recovery_codes_left: number }> {
  const state = await deps.store.read.accounts.twoFactor(principal.session.userId);
  const required = await deps.store.read.accounts.teamRequiresTwoFactor(principal.teamId);
  return {
    enabled: Boolean(state?.totp_secret),
    required,
    must_enrol: required && !principal.session.secondFactor,
    recovery_codes_left: Number(state?.recovery_codes ?? 0),
  };
}
