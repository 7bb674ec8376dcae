import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Repositories, Store } from "./db/store.ts";

const SERVER_SECRET = "server_secret";
const newSecret = () => randomBytes(32).toString("hex");

/** The server's HMAC secret, created once and kept in the database (so backups carry it). */
export async function serverSecretOf(store: Store): Promise<string> {
  return (await store.read.settings.get(SERVER_SECRET)) ?? store.write((tx) => serverSecretIn(tx));
}

/** serverSecretOf inside a store.write (which must not start another write). */
export async function serverSecretIn(tx: Pick<Repositories, "settings">): Promise<string> {
  const stored = await tx.settings.get(SERVER_SECRET);
  if (stored !== null) return stored;
  // Whoever stores it first wins; everyone then reads that one.
  await tx.settings.addIfAbsent(SERVER_SECRET, newSecret(), Date.now());
  return (await tx.settings.get(SERVER_SECRET))!;
}

/** A short keyed signature of `value` for links and addresses (hex, `length` chars). */
export const signValue = (secret: string, purpose: string, value: string, length = 16): string =>
  createHmac("sha256", secret).update(`${purpose}:${value}`).digest("hex").slice(0, length);

export function verifySignedValue(secret: string, purpose: string, value: string, signature: string): boolean {
  const expected = signValue(secret, purpose, value, signature.length);
  return signature.length >= 10 && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
}
