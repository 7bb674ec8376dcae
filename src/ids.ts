import { randomBytes, timingSafeEqual } from "node:crypto";

/** Time-ordered identifiers (UUIDv7), so primary keys also sort by creation. */
export const newId = (): string => Bun.randomUUIDv7();

/** Orders ids as they were made (UUIDv7: their text sorts by creation), for Array.prototype.sort. */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Bun's one-shot SHA-256: a fifth of node:crypto's createHash per call (0.35 against 1.7 µs for a token). */
export const sha256Hex = (value: string | Uint8Array): string => Bun.SHA256.hash(value, "hex");

/** A random secret with a readable prefix: 32 bytes of entropy, base64url. */
export const newToken = (prefix: string): string => prefix + randomBytes(32).toString("base64url");

export const TOKEN_PREFIX = { team: "ph_team_", project: "ph_", webhookSecret: "whsec_" } as const;

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "hex");
  const bb = Buffer.from(b, "hex");
  return ab.length === bb.length && ab.length > 0 && timingSafeEqual(ab, bb);
}

export const UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
const UUID = new RegExp(UUID_PATTERN);
export const isUuid = (v: string): boolean => UUID.test(v);

export const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();
