/**
 * Signed, expiring download links for inbound attachments (routes with attachment_delivery
 * "url"). The link carries the attachment id, an expiry and an HMAC of both under the server
 * secret; no token is needed, and nothing else can be fetched with it.
 */
import type { Deps } from "../../context.ts";
import { NotFoundError } from "../../errors.ts";
import { serverSecret, signValue, verifySignedValue } from "../../secrets.ts";

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

export interface AttachmentFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

/**
 * The attachment a link points to. A wrong or missing signature, an expired link and an unknown
 * id all answer the same 404, so links cannot be probed.
 */
export async function openSignedAttachment(
  deps: Pick<Deps, "sqlite" | "store">,
  attachmentId: string,
  expires: string | undefined,
  signature: string | undefined,
  now = Date.now(),
): Promise<AttachmentFile> {
  const exp = Number(expires);
  if (!expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[0-9a-f]{32}$/.test(signature)) throw new NotFoundError("Attachment");
  if (!verifySignedValue(serverSecret(deps.sqlite), PURPOSE, `${attachmentId}:${exp}`, signature) || exp * 1000 < now) throw new NotFoundError("Attachment");
  const row = await deps.store.read.messages.attachmentFile(attachmentId);
  if (!row) throw new NotFoundError("Attachment");
  return { filename: row.filename, contentType: row.content_type, content: Buffer.from(row.content) };
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_") || "attachment";
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
