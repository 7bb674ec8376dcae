/** Answers to ACME HTTP-01 validation requests (RFC 8555 §8.3), from the orders' published challenges. */
import type { Deps } from "../context.ts";

/** ACME tokens are base64url (RFC 8555 §8.1); anything else is not ours, and never reaches the database. */
const TOKEN = /^[A-Za-z0-9_-]{16,256}$/;

/** The key authorization to answer for `token`, or null (404) when no order of ours is waiting for it. */
export async function http01Answer(deps: Pick<Deps, "store">, token: string): Promise<string | null> {
  if (!TOKEN.test(token)) return null;
  return deps.store.read.tlsCertificates.challenge(token, Date.now());
}
