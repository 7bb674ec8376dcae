import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { ErrorBody } from "../../http/schemas.ts";
import { contentDisposition, openSignedAttachment } from "./service.ts";

/** Downloads of inbound attachments through the signed links sent in message.inbound webhooks. */
export const attachmentsController = (deps: Deps) =>
  new Elysia({ tags: ["Inbound"] }).get(
    "/v1/attachments/:attachmentId/download",
    async ({ params, query }) => {
      const file = await openSignedAttachment(deps, params.attachmentId, query.expires, query.signature);
      // Served as a download in a sandbox: an HTML attachment must not run on the API's origin.
      return new Response(file.content, {
        headers: {
          "content-type": /^[\w.+-]+\/[\w.+-]+$/.test(file.contentType) ? file.contentType : "application/octet-stream",
          "content-disposition": contentDisposition(file.filename),
          "content-length": String(file.content.length),
          "x-content-type-options": "nosniff",
          "content-security-policy": "sandbox; default-src 'none'",
          "cache-control": "private, no-store",
        },
      });
    },
    {
      params: t.Object({ attachmentId: t.String({ maxLength: 100, description: "Attachment ID" }) }),
      query: t.Object({
        expires: t.Optional(t.String({ maxLength: 20, description: "Unix time after which the link stops working" })),
        signature: t.Optional(t.String({ maxLength: 100, description: "HMAC of the attachment id and expiry" })),
      }),
      detail: { summary: "Download an inbound attachment through a signed link (no token; the link expires)", security: [] },
      response: { 200: t.Unknown({ description: "The attachment's bytes, as a download" }), 404: ErrorBody },
    },
  );
