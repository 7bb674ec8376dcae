/**
 * Tokens of the open pixel (`/t/o/{token}`) and of tracked links (`/t/c/{token}`), docs/tracking.md, Tokens.
 *
 * A token is base64url (no padding) of
 *
 *   header   1 byte   version (high nibble, 1) and kind (low nibble: 0 open, 1 click)
 *   message 16 bytes  the message's UUID
 *   recipient 16 bytes the recipient's UUID
 *   link     2 bytes  big-endian link index 0..65535 (clicks only)
 *   mac     10 bytes  HMAC-SHA256 of everything before it, truncated to 80 bits
 *
 * so an open token is 58 characters and a click token 60. The MAC is signValue's (purpose
 * "tracking", over the base64url of the bytes before it), so it is keyed by the server secret like
 * every other signature we hand out and cannot be replayed as one of them. The original URL is
 * never in the token: the caller looks it up by (message, link index), so an altered token can at
 * worst name another of our own links, and only with a valid MAC.
 *
 * readTrackingToken decodes strictly: one exact length per kind, the base64url alphabet only,
 * the canonical encoding only (no stray trailing bits), the known header byte only, and the MAC
 * compared in constant time. Anything else is null, never an exception.
 */
import { timingSafeEqual } from "node:crypto";
import { signValue } from "../secrets.ts";

export interface TrackingIds {
  messageId: string;
  recipientId: string;
}
export type TrackingTokenData = ({ kind: "open" } & TrackingIds) | ({ kind: "click"; link: number } & TrackingIds);

const PURPOSE = "tracking";
const VERSION = 1;
const HEADER = { open: (VERSION << 4) | 0, click: (VERSION << 4) | 1 } as const;
const MAC_BYTES = 10;
const BODY_BYTES = { open: 1 + 16 + 16, click: 1 + 16 + 16 + 2 } as const;
/** Characters of unpadded base64url for n bytes. */
const b64Length = (n: number) => Math.ceil((n * 4) / 3);
export const TRACKING_TOKEN_LENGTH = {
  open: b64Length(BODY_BYTES.open + MAC_BYTES),
  click: b64Length(BODY_BYTES.click + MAC_BYTES),
} as const;
export const MAX_LINK_INDEX = 0xffff;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function uuidBytes(id: string, what: string): Buffer {
  if (typeof id !== "string" || !UUID.test(id)) throw new TypeError(`tracking token: ${what} is not a UUID`);
  return Buffer.from(id.replace(/-/g, ""), "hex");
}

function uuidString(bytes: Uint8Array): string {
  const h = Buffer.from(bytes).toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The 10-byte MAC of a token's body: signValue's HMAC (purpose "tracking") of its base64url. */
const macOf = (secret: string, body: Buffer): Buffer => Buffer.from(signValue(secret, PURPOSE, body.toString("base64url"), MAC_BYTES * 2), "hex");

/**
 * The token of a message's open pixel or of one of its links for one recipient. Throws (a
 * programming error) when an id is not a UUID or the link index is not an integer 0..65535.
 */
export function trackingToken(secret: string, t: TrackingTokenData): string {
  const body = Buffer.alloc(BODY_BYTES[t.kind]);
  body[0] = HEADER[t.kind];
  uuidBytes(t.messageId, "messageId").copy(body, 1);
  uuidBytes(t.recipientId, "recipientId").copy(body, 17);
  if (t.kind === "click") {
    if (!Number.isInteger(t.link) || t.link < 0 || t.link > MAX_LINK_INDEX) throw new RangeError("tracking token: link index must be an integer 0..65535");
    body.writeUInt16BE(t.link, 33);
  }
  return Buffer.concat([body, macOf(secret, body)]).toString("base64url");
}

/** What a token we made names, or null for anything else (forged, altered, truncated, extended, garbage). */
export function readTrackingToken(secret: string, token: string): TrackingTokenData | null {
  if (typeof token !== "string") return null;
  const kind = token.length === TRACKING_TOKEN_LENGTH.open ? "open" : token.length === TRACKING_TOKEN_LENGTH.click ? "click" : null;
  if (kind === null || !BASE64URL.test(token)) return null;
  const bytes = Buffer.from(token, "base64url");
  // Only the canonical encoding: the last character may not carry bits beyond the bytes.
  if (bytes.length !== BODY_BYTES[kind] + MAC_BYTES || bytes.toString("base64url") !== token) return null;
  const body = bytes.subarray(0, BODY_BYTES[kind]);
  if (body[0] !== HEADER[kind]) return null;
  if (!timingSafeEqual(bytes.subarray(BODY_BYTES[kind]), macOf(secret, body))) return null;
  const ids = { messageId: uuidString(body.subarray(1, 17)), recipientId: uuidString(body.subarray(17, 33)) };
  return kind === "open" ? { kind, ...ids } : { kind, ...ids, link: body.readUInt16BE(33) };
}
