import { signValue, verifySignedValue } from "../secrets.ts";

/**
 * VERP envelope senders: each outbound recipient gets its own return path,
 *   b.<recipient id, 32 hex>.<signature, 10 hex>@<return-path host>.<sending domain>
 * so a bounce or complaint that arrives on our SMTP listener names the recipient it is about,
 * and the signature stops anyone from forging bounces for recipients they did not receive mail as.
 */
const LOCAL = /^b\.([0-9a-f]{32})\.([0-9a-f]{10})$/;

export function verpAddress(secret: string, recipientId: string, bounceDomain: string): string {
  const hex = recipientId.replace(/-/g, "").toLowerCase();
  return `b.${hex}.${signValue(secret, "verp", hex, 10)}@${bounceDomain}`;
}

/** The recipient id a VERP local part stands for, or null when it is not one of ours. */
export function parseVerpLocalPart(secret: string, localPart: string): string | null {
  const m = LOCAL.exec(localPart.toLowerCase());
  if (!m || !verifySignedValue(secret, "verp", m[1]!, m[2]!)) return null;
  const h = m[1]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The bounce domain of a sending domain: <return_path_host>.<domain>. */
export const bounceDomainOf = (domain: { domain: string; returnPathHost: string }): string => `${domain.returnPathHost}.${domain.domain}`;
