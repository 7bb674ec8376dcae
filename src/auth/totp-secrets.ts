/**
 * TOTP secrets at rest (docs/security.md, "Two-factor sign-in"): encrypted with AES-256-GCM under a
 * key derived (HKDF-SHA256) from the server secret, so a copy of the users table alone mints no
 * codes. Stored as `enc1:` + base64url(iv ‖ tag ‖ ciphertext). A row written before this (the
 * plain base32 secret) is still read, and rewritten encrypted on its first use (useSecondFactor).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const PREFIX = "enc1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keys = new Map<string, Buffer>();
function keyOf(serverSecret: string): Buffer {
  let key = keys.get(serverSecret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", serverSecret, "posthorn", "totp-secret-v1", 32));
    keys.set(serverSecret, key);
  }
  return key;
}

/** Whether `stored` is the encrypted form (else a plain secret from before). */
export const isSealedTotp = (stored: string): boolean => stored.startsWith(PREFIX);

/** The stored form of a TOTP secret. */
export function sealTotp(serverSecret: string, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyOf(serverSecret), iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

/** The secret of a stored value (a plain one from before as it is); throws when it was not sealed with this server's secret. */
export function openTotp(serverSecret: string, stored: string): string {
  if (!isSealedTotp(stored)) return stored;
  const raw = Buffer.from(stored.slice(PREFIX.length), "base64url");
  const decipher = createDecipheriv("aes-256-gcm", keyOf(serverSecret), raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
}
