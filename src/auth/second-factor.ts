/**
 * The second step of a sign-in (src/auth/sessions.ts) and of two-factor changes
 * (src/auth/two-factor.ts): a TOTP code or a recovery code, used up.
 */
import type { Repositories } from "../db/store.ts";
import { serverSecretIn } from "../secrets.ts";
import { isSealedTotp, openTotp, sealTotp } from "./totp-secrets.ts";
import { isTotpCode, matchTotp, recoveryCodeHash } from "./totp.ts";

/** The body's `error` of a sign-in whose password was right but that needs the second factor. */
export const TWO_FACTOR_REQUIRED = "two_factor_required";
/** ... and of a wrong, expired or replayed code. */
export const TWO_FACTOR_INVALID = "two_factor_invalid";

export type SecondFactor = "totp" | "recovery" | "sso";

/**
 * Uses up `code` for the user whose TOTP secret is stored as `stored` (src/auth/totp-secrets.ts):
 * a TOTP code of the window whose step is later than the last one used (that step becomes the
 * last), or one of the recovery codes (deleted). Which it was, or null: wrong, expired, replayed
 * or used. A secret still stored plain (from before encryption) is rewritten encrypted here.
 */
export async function useSecondFactor(tx: Repositories, userId: string, stored: string, code: string, now: number): Promise<SecondFactor | null> {
  const serverSecret = await serverSecretIn(tx);
  const secret = openTotp(serverSecret, stored);
  if (!isSealedTotp(stored)) await tx.accounts.resealTotp(userId, stored, sealTotp(serverSecret, secret));
  if (isTotpCode(code)) {
    const state = await tx.accounts.twoFactor(userId);
    const lastStep = state?.totp_last_step == null ? null : Number(state.totp_last_step);
    const step = matchTotp(secret, code, now, lastStep);
    // The update only takes a step later than the last one used: of two uses at once, one wins.
    return step !== null && (await tx.accounts.useTotpStep(userId, step)) ? "totp" : null;
  }
  return (await tx.accounts.useRecoveryCode(userId, recoveryCodeHash(code))) ? "recovery" : null;
}
