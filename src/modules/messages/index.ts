import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { errorResponses, IdParams } from "../../http/schemas.ts";
import { MessageData, MessageEventData, MessageListData, MessageListQuery } from "./model.ts";
import { getMessage, getMessageSource, listMessageEvents, listMessages } from "./service.ts";

const security = [{ teamToken: [] }];
const params = IdParams("messageId", "Message");
const errorJsonSchema = { type: "object" as const, required: ["message"], properties: { message: { type: "string" as const } } };

/** Reading the team's messages: list with filters, detail, history and raw source. */
export const messagesController = (deps: Deps) =>
  new Elysia({ tags: ["Messages"] })
    .use(authPlugin(deps))
    .get(
      "/v1/messages",
      async ({ team, query }) => {
        const { page, data, size } = await listMessages(deps, team.teamId, query);
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/messages", query, size });
      },
      {
        team: true,
        query: MessageListQuery,
        detail: {
          summary: "List messages",
          description: "Cursor-paginated; unknown sort keys, unknown filters and invalid filter values are a 422.",
          security,
        },
        response: { 200: Paginated(MessageListData), ...errorResponses(401, 422) },
      },
    )
    .get("/v1/messages/:messageId", ({ team, params }) => getMessage(deps, team.teamId, params.messageId), {
      team: true,
      params,
      detail: { summary: "Get a message", security },
      response: { 200: MessageData, ...errorResponses(401, 404) },
    })
    .get(
      "/v1/messages/:messageId/events",
      async ({ team, params, query }) => {
        const { page, data, size } = await listMessageEvents(deps, team.teamId, params.messageId, query);
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: `/v1/messages/${params.messageId}/events`, query, size });
      },
      {
        team: true,
        params,
        query: t.Object(PageQuery),
        detail: { summary: "A message's event history (status changes, opens, clicks…), oldest first", security },
        response: { 200: Paginated(MessageEventData), ...errorResponses(401, 404, 422) },
      },
    )
    .get(
      "/v1/messages/:messageId/source",
      async ({ team, params }) =>
        new Response(await getMessageSource(deps, team.teamId, params.messageId), {
          headers: { "content-type": "message/rfc822", "content-disposition": `inline; filename="${params.messageId.replace(/[^0-9a-zA-Z-]/g, "")}.eml"` },
        }),
      {
        team: true,
        params,
        detail: {
          summary: "The raw MIME source of a message (message/rfc822); 404 until one is stored",
          security,
          // Documented by hand: the body is not JSON, so there is no response schema to validate.
          responses: {
            200: { description: "The message exactly as sent or received", content: { "message/rfc822": { schema: { type: "string", format: "binary" } } } },
            401: { description: "Unauthenticated", content: { "application/json": { schema: errorJsonSchema } } },
            404: { description: "Unknown message, or no source stored yet", content: { "application/json": { schema: errorJsonSchema } } },
          },
        },
      },
    );
