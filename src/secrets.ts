import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Repositories, Store } from "./db/store.ts";

const SERVER_SECRET = "server_secret";
const newSecret = () => randomBytes(32).toString("hex");

/** Each store's secret once read: it never changes after it is first stored. */
const secrets = new WeakMap<Store, string>();

/**
 * The server's HMAC secret, created once and kept in the database (so backups carry it); read
 * from the database once per store, then kept (every tracking hit and link check needs it).
 */
export async function serverSecretOf(store: Store): Promise<string> {
  const known = secrets.get(store);
  if (known !== undefined) return known;
  const secret = (await store.read.settings.get(SERVER_SECRET)) ?? (await store.write((tx) => serverSecretIn(tx)));
  secrets.set(store, secret);
  return secret;
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
