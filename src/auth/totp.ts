/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1, 30-second steps,
 * 6 digits, as every authenticator app reads an otpauth:// URI by default. A code is accepted for
 * the step before and after the current one (clock drift), and never for a step at or before the
 * last one accepted for the user (a code seen once cannot be replayed). Recovery codes are
 * random, shown once and kept only as SHA-256.
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../ids.ts";

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the current one whose codes are accepted. */
export const TOTP_WINDOW = 1;
/** 160 bits, the size of an HMAC-SHA1 key (RFC 4226 §4 recommends it). */
const SECRET_BYTES = 20;
export const RECOVERY_CODE_COUNT = 10;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 without padding (what otpauth:// URIs carry). */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Base32 to bytes; spaces, padding and case are ignored. Throws on another character. */
export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, "").toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of clean) {
    const index = BASE32.indexOf(ch);
    if (index < 0) throw new Error(`"${ch}" is not a base32 character`);
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export type TotpAlgorithm = "sha1" | "sha256" | "sha512";

/** RFC 4226 HOTP: the `digits`-digit code of `counter` under `key`. */
export function hotp(key: Uint8Array, counter: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = "sha1"): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The time step of `timeMs`. */
export const totpStep = (timeMs: number): number => Math.floor(timeMs / 1000 / TOTP_STEP_SECONDS);

/** The code of `timeMs` (RFC 6238 with T0 = 0). */
export const totpCode = (key: Uint8Array, timeMs: number, digits = TOTP_DIGITS, algorithm: TotpAlgorithm = "sha1"): string =>
  hotp(key, totpStep(timeMs), digits, algorithm);

/** A new random secret, base32. */
export const newTotpSecret = (): string => base32Encode(randomBytes(SECRET_BYTES));

/** Only the digits of what a user typed ("123 456" and "123-456" are "123456"). */
const digitsOf = (code: string): string => code.replace(/[\s-]/g, "");

/** True when `code` looks like a TOTP code (six digits, spaces allowed) rather than a recovery code. */
export const isTotpCode = (code: string): boolean => /^\d{6}$/.test(digitsOf(code));

/**
 * The step whose code `code` is, within TOTP_WINDOW of `nowMs` and after `lastStep` (the last
 * step accepted for this user; null: none yet), or null: wrong, out of the window, or replayed.
 */
export function matchTotp(secret: string, code: string, nowMs: number, lastStep: number | null): number | null {
  const given = Buffer.from(digitsOf(code));
  if (given.length !== TOTP_DIGITS) return null;
  const key = base32Decode(secret);
  const current = totpStep(nowMs);
  let matched: number | null = null;
  // Every step of the window is computed, whatever matches: the time taken says nothing.
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(key, step)), given);
    if (equal && (lastStep === null || step > lastStep) && matched === null) matched = step;
  }
  return matched;
}

/** The otpauth:// URI an authenticator app reads (Key URI Format), for `account` at `issuer`. */
export function otpauthUri(secret: string, account: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: "SHA1", digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${params.toString()}`;
}

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no 0/o, 1/l/i

/** A recovery code: 10 characters from 31 (about 50 bits), shown as xxxxx-xxxxx. */
export function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** What is stored of a recovery code: SHA-256 of it without dash, spaces or case. */
export const recoveryCodeHash = (code: string): string => sha256Hex(code.replace(/[\s-]/g, "").toLowerCase());
