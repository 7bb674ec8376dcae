/**
 * Dashboard passwords: Argon2id through Bun.password (its defaults: 64 MiB, 2 passes; the PHC
 * string keeps the parameters, so raising them later still verifies old hashes).
 */
import { randomBytes } from "node:crypto";

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase or manager; bounded so that hashing stays cheap to ask for. */
export const PASSWORD_MAX_LENGTH = 200;

export const hashPassword = (password: string): Promise<string> => Bun.password.hash(password, { algorithm: "argon2id" });

/** Made once, so that an unknown address costs the same time as a wrong password. */
let decoy: Promise<string> | null = null;

/** True when `password` matches `hash`; a missing hash (unknown user, no password yet) is checked against a decoy and fails. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    await Bun.password.verify(password, await (decoy ??= hashPassword(randomBytes(16).toString("hex"))));
    return false;
  }
  try {
    return await Bun.password.verify(password, hash);
  } catch {
    return false; // a damaged hash is a failed sign-in, not a 500
  }
}

/** A random password for `posthorn init --email` and `posthorn user passwd`: 120 bits, 20 characters. */
export const generatePassword = (): string => randomBytes(15).toString("base64url");

/** Why a new password is refused, or null. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < PASSWORD_MIN_LENGTH) return `The password must be at least ${PASSWORD_MIN_LENGTH} characters long.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `The password may not be longer than ${PASSWORD_MAX_LENGTH} characters.`;
  return null;
}
