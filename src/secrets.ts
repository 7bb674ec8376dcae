import type { Database } from "bun:sqlite";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** The server's HMAC secret, created once and kept in the database (so backups carry it). */
export function serverSecret(sqlite: Database): string {
  const row = sqlite.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'server_secret'").get();
  if (row) return row.value;
  const value = randomBytes(32).toString("hex");
  sqlite.query("INSERT OR IGNORE INTO settings (key, value, created_at) VALUES ('server_secret', ?, ?)").run(value, Date.now());
  return sqlite.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'server_secret'").get()!.value;
}

/** A short keyed signature of `value` for links and addresses (hex, `length` chars). */
export const signValue = (secret: string, purpose: string, value: string, length = 16): string =>
  createHmac("sha256", secret).update(`${purpose}:${value}`).digest("hex").slice(0, length);

export function verifySignedValue(secret: string, purpose: string, value: string, signature: string): boolean {
  const expected = signValue(secret, purpose, value, signature.length);
  return signature.length >= 10 && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
}
