import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { errorResponses } from "../../http/schemas.ts";
import { BLOCKED_EXTENSIONS, BLOCKED_MIME_TYPES } from "../../sending/blocked-file-types.ts";

const body = { extensions: [...BLOCKED_EXTENSIONS], mime_types: [...BLOCKED_MIME_TYPES] };

/** GET /v1/blocked-file-types: the attachment kinds a send refuses (Lettermint's endpoint). */
export const blockedFileTypesController = (deps: Deps) =>
  new Elysia({ tags: ["Sending"] }).use(authPlugin(deps)).get("/v1/blocked-file-types", () => body, {
    team: true,
    permission: "projects:read",
    detail: { summary: "Attachment file extensions and MIME types that sends refuse (422)", security: [{ teamToken: [] }] },
    response: { 200: t.Object({ extensions: t.Array(t.String()), mime_types: t.Array(t.String()) }), ...errorResponses(401) },
  });
