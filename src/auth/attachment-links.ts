/**
 * Signed, expiring download links for inbound attachments (routes with attachment_delivery
 * "url"): the inbound job puts them in message.inbound webhooks, the attachments endpoint
 * checks them. The link carries the attachment id, an expiry and an HMAC of both under the
 * server secret; no token is needed, and nothing else can be fetched with it.
 */
import { signValue, verifySignedValue } from "../secrets.ts";

/** Longer than the whole webhook retry schedule (about 2.5 days), so a late delivery still works. */
export const ATTACHMENT_LINK_TTL_MS = 7 * 24 * 3600 * 1000;
const PURPOSE = "attachment-download";

const signatureOf = (secret: string, attachmentId: string, expires: number) => signValue(secret, PURPOSE, `${attachmentId}:${expires}`, 32);

/** The download URL of an attachment under POSTHORN_PUBLIC_URL, and when it stops working. */
export function attachmentDownloadUrl(
  secret: string,
  publicUrl: string,
  attachmentId: string,
  now = Date.now(),
  ttlMs = ATTACHMENT_LINK_TTL_MS,
): { url: string; expiresAt: number } {
  const expires = Math.floor((now + ttlMs) / 1000);
  const url = `${publicUrl}/v1/attachments/${attachmentId}/download?expires=${expires}&signature=${signatureOf(secret, attachmentId, expires)}`;
  return { url, expiresAt: expires * 1000 };
}

/** Whether a link's query (`expires`, `signature`) has the shape of one we make, before the secret is read. */
export const wellFormedAttachmentLink = (expires: string | undefined, signature: string | undefined): boolean =>
  !!expires && /^\d{1,12}$/.test(expires) && !!signature && /^[0-9a-f]{32}$/.test(signature);

/** Whether a well-formed link was signed with `secret` for this attachment and has not expired at `now`. */
export function attachmentLinkValid(secret: string, attachmentId: string, expires: string, signature: string, now: number): boolean {
  const exp = Number(expires);
  return verifySignedValue(secret, PURPOSE, `${attachmentId}:${exp}`, signature) && exp * 1000 >= now;
}
