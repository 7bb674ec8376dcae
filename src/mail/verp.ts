import type { Store } from "../db/store.ts";
import { signValue, verifySignedValue } from "../secrets.ts";

/**
 * VERP envelope senders: each outbound recipient gets its own return path,
 *   b.<recipient id, 32 hex>.<signature, 20 hex>@<return-path host>.<sending domain>
 * so a bounce or complaint that arrives on our SMTP listener names the recipient it is about,
 * and the signature stops anyone from forging bounces for recipients they did not receive mail as.
 *
 * The signature is 80 bits of HMAC-SHA256 (local part 55 octets, within RFC 5321's 64): the MX
 * answers RCPT with 250 or 550, so a short signature could be found by trying (the listener also
 * throttles clients whose RCPTs keep being refused, see smtp/rcpt-throttle.ts).
 *
 * Before, the signature was 10 hex (40 bits, purpose "verp"). Mail sent then can still bounce or
 * draw a complaint for days, so that form is still accepted, but only for recipients created
 * before this server first ran with 80-bit signatures and within the last LEGACY_VERP_MS (see
 * parseLegacyVerpLocalPart).
 */
export const VERP_SIGNATURE_HEX = 20;
/** A separate HMAC purpose, so that a 40-bit legacy signature is not a prefix of the new one. */
const PURPOSE = "verp2";
const LEGACY_PURPOSE = "verp";
const LOCAL = new RegExp(`^b\\.([0-9a-f]{32})\\.([0-9a-f]{${VERP_SIGNATURE_HEX}})$`);
const LEGACY_LOCAL = /^b\.([0-9a-f]{32})\.([0-9a-f]{10})$/;
/** How long after its creation a recipient's legacy (40-bit) return path is still accepted. */
export const LEGACY_VERP_MS = 7 * 24 * 3600 * 1000;
const CUTOVER_KEY = "verp_80bit_signatures_since";

const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

/** The local part `b.<id>.<signature>` of a recipient's return path. */
export function verpLocalPart(secret: string, recipientId: string): string {
  const hex = recipientId.replace(/-/g, "").toLowerCase();
  return `b.${hex}.${signValue(secret, PURPOSE, hex, VERP_SIGNATURE_HEX)}`;
}

export function verpAddress(secret: string, recipientId: string, bounceDomain: string): string {
  return `${verpLocalPart(secret, recipientId)}@${bounceDomain}`;
}

/** The recipient id a VERP local part stands for, or null when it is not one of ours. */
export function parseVerpLocalPart(secret: string, localPart: string): string | null {
  const m = LOCAL.exec(localPart.toLowerCase());
  if (!m || !verifySignedValue(secret, PURPOSE, m[1]!, m[2]!)) return null;
  return uuidOf(m[1]!);
}

/**
 * The recipient id of a legacy return path `b.<id>.<10 hex>`, or null. Accepted only when the
 * recipient was created (the time in its UUIDv7 id, which this server assigned) before `cutover`
 * (verpCutoverOf) and no longer than LEGACY_VERP_MS before `now`: nothing created since the upgrade
 * was ever sent with a 40-bit signature, so those can never be forged that way, and the window in
 * which a 40-bit signature is worth guessing closes a week after the upgrade. The caller still
 * checks that the recipient exists and the domain is its team's.
 */
export function parseLegacyVerpLocalPart(secret: string, localPart: string, cutover: number, now = Date.now()): string | null {
  const m = LEGACY_LOCAL.exec(localPart.toLowerCase());
  if (!m) return null;
  const hex = m[1]!;
  if (hex[12] !== "7") return null; // not a UUIDv7: no creation time to check
  const createdAt = parseInt(hex.slice(0, 12), 16);
  if (!(createdAt < cutover && createdAt >= now - LEGACY_VERP_MS && createdAt <= now)) return null;
  return verifySignedValue(secret, LEGACY_PURPOSE, hex, m[2]!) ? uuidOf(hex) : null;
}

/**
 * When this server began signing return paths with 80 bits: recorded in `settings` the first
 * time it is asked (at the start of the outbound queue or the MX listener), never changed after.
 */
export async function verpCutoverOf(store: Store, now = Date.now()): Promise<number> {
  const stored = await store.read.settings.get(CUTOVER_KEY);
  if (stored !== null) return Number(stored);
  return store.write(async (tx) => {
    // Whoever stores it first wins (another node may start at the same time); everyone reads that one.
    await tx.settings.addIfAbsent(CUTOVER_KEY, String(now), now);
    return Number(await tx.settings.get(CUTOVER_KEY));
  });
}

/** The bounce domain of a sending domain: <return_path_host>.<domain>. */
export const bounceDomainOf = (domain: { domain: string; returnPathHost: string }): string => `${domain.returnPathHost}.${domain.domain}`;
