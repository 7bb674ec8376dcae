/** Downloads of inbound attachments through their signed links (src/auth/attachment-links.ts). */
import type { Deps } from "../../context.ts";
import { NotFoundError } from "../../errors.ts";
import { attachmentLinkValid, wellFormedAttachmentLink } from "../../auth/attachment-links.ts";
import { serverSecretOf } from "../../secrets.ts";
import { throwIfAttachmentPurged } from "../retention/service.ts";

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
  deps: Pick<Deps, "store">,
  attachmentId: string,
  expires: string | undefined,
  signature: string | undefined,
  now = Date.now(),
): Promise<AttachmentFile> {
  if (!wellFormedAttachmentLink(expires, signature)) throw new NotFoundError("Attachment");
  if (!attachmentLinkValid(await serverSecretOf(deps.store), attachmentId, expires!, signature!, now)) throw new NotFoundError("Attachment");
  const row = await deps.store.read.messages.attachmentFile(attachmentId);
  if (!row) throw new NotFoundError("Attachment");
  // Retention empties the content of a purged message's files and keeps their metadata.
  if (row.content.length === 0) await throwIfAttachmentPurged(deps, attachmentId);
  return { filename: row.filename, contentType: row.content_type, content: Buffer.from(row.content) };
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_") || "attachment";
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
