/**
 * Tokens of the unsubscribe link of broadcast mail (`{POSTHORN_PUBLIC_URL}/v1/unsubscribe/{token}`),
 * in the List-Unsubscribe header of each recipient's copy.
 *
 *   r.<recipient id>.<signature>   names one recipient: each copy carries its own (docs/security.md).
 *   <message id>.<signature>       the message-wide form of mail sent before: it names every
 *                                  recipient of a message, so it no longer unsubscribes them all
 *                                  (see src/modules/send/unsubscribe.ts for what it still does).
 *
 * The signature is signValue's HMAC with the server secret, 80 bits (20 hex), under a purpose of
 * its own for each form, so one cannot stand for the other nor for any other signed value.
 */
import { signValue, verifySignedValue } from "../secrets.ts";

const RECIPIENT_PURPOSE = "unsubscribe-recipient";
const MESSAGE_PURPOSE = "unsubscribe";
const SIGNATURE_HEX = 20;

export type UnsubscribeTokenData = { kind: "recipient"; recipientId: string } | { kind: "message"; messageId: string };

/** The token of one recipient's unsubscribe link. */
export const recipientUnsubscribeToken = (secret: string, recipientId: string): string =>
  `r.${recipientId}.${signValue(secret, RECIPIENT_PURPOSE, recipientId, SIGNATURE_HEX)}`;

/** The message-wide token mail sent before carries (tests make one to check what it still does). */
export const messageUnsubscribeToken = (secret: string, messageId: string): string => `${messageId}.${signValue(secret, MESSAGE_PURPOSE, messageId, SIGNATURE_HEX)}`;

const RECIPIENT = /^r\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([0-9a-f]{20})$/;
const MESSAGE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([0-9a-f]{20})$/;

/** Whether `token` has the shape of either form (checked before the secret is read). */
export const looksLikeUnsubscribeToken = (token: string): boolean => RECIPIENT.test(token) || MESSAGE.test(token);

/** What a token we made names, or null for anything else. */
export function readUnsubscribeToken(secret: string, token: string): UnsubscribeTokenData | null {
  const r = RECIPIENT.exec(token);
  if (r) return verifySignedValue(secret, RECIPIENT_PURPOSE, r[1]!, r[2]!) ? { kind: "recipient", recipientId: r[1]! } : null;
  const m = MESSAGE.exec(token);
  if (m) return verifySignedValue(secret, MESSAGE_PURPOSE, m[1]!, m[2]!) ? { kind: "message", messageId: m[1]! } : null;
  return null;
}
