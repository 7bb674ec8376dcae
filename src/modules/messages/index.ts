import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { numberedFilters } from "../../http/filters.ts";
import { PageQuery, pageBody } from "../../http/pagination.ts";
import { errorResponses, IdParams } from "../../http/schemas.ts";
import { MessageData, MessageEventData, MessageListData, MessageListQuery, MessagesPaginated, withMeta } from "./model.ts";
import { IdempotencyKeyParameter } from "../send/model.ts";
import { ProcessInboundMessageResponse } from "./model.ts";
import { releaseQuarantined } from "./quarantine.ts";
import { getMessage, getMessageHtml, getMessageSource, getMessageText, listMessageEvents, listMessageRecipients, listMessages } from "./service.ts";

const security = [{ teamToken: [] }];
const params = IdParams("messageId", "Message");
const errorJsonSchema = { type: "object" as const, required: ["message"], properties: { message: { type: "string" as const } } };

/**
 * Mail HTML is someone else's markup: served with a policy of its own that makes it a sandbox
 * (opaque origin, no scripts, forms or plugins) and lets it load nothing but inline styles and
 * data: images, and remote images only when asked (images=1), so that viewing a message runs
 * nothing and tells no tracker it was opened.
 */
const mailHtmlPolicy = (images: boolean) =>
  `sandbox; default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:${images ? " https: http:" : ""}; form-action 'none'; base-uri 'none'`;

/** Reading the team's messages: list with filters, detail, history and raw source. */
export const messagesController = (deps: Deps) =>
  new Elysia({ tags: ["Messages"] })
    .use(authPlugin(deps))
    .get(
      "/v1/messages",
      async ({ team, query: schemaQuery, request }) => {
        // filter[tags][1][name] and on: the schema names only the [0] pair.
        const query = { ...schemaQuery, ...numberedFilters(request, "tags") };
        const { page, data, size } = await listMessages(deps, team.teamId, query);
        return withMeta(pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/messages", query, size }));
      },
      {
        team: true,
        permission: "messages:read",
        query: MessageListQuery,
        detail: {
          summary: "List messages",
          description: "Cursor-paginated; unknown sort keys, unknown filters and invalid filter values are a 422.",
          security,
        },
        response: { 200: MessagesPaginated(MessageListData), ...errorResponses(401, 422) },
      },
    )
    .get("/v1/messages/:messageId", ({ team, params }) => getMessage(deps, team.teamId, params.messageId), {
      team: true,
      permission: "messages:read",
      params,
      detail: { summary: "Get a message", security },
      response: { 200: MessageData, ...errorResponses(401, 404) },
    })
    .post(
      "/v1/messages/:messageId/process",
      async ({ team, params, request, set }) => {
        const result = await releaseQuarantined(deps, team.teamId, params.messageId, request.headers.get("idempotency-key"));
        set.status = 202;
        return result;
      },
      {
        team: true,
        permission: "messages:send",
        params,
        detail: {
          summary: "Release a quarantined inbound message to its route's webhooks",
          description:
            "A message held as quarantined (at or above its route's inbound_spam_threshold) is analysed again and handed to the route's webhooks as message.inbound. 409 with error INBOUND_MESSAGE_NOT_QUARANTINED, INBOUND_WEBHOOK_NOT_CONFIGURED or MESSAGE_SOURCE_UNAVAILABLE; 422 for an outbound message.",
          security,
          parameters: [IdempotencyKeyParameter],
        },
        response: { 202: ProcessInboundMessageResponse, ...errorResponses(401, 404, 409, 422) },
      },
    )
    .get(
      "/v1/messages/:messageId/events",
      async ({ team, params, query }) => {
        const { page, data, size } = await listMessageEvents(deps, team.teamId, params.messageId, query);
        return withMeta(pageBody(page, data, { publicUrl: deps.config.publicUrl, path: `/v1/messages/${params.messageId}/events`, query, size }));
      },
      {
        team: true,
        permission: "messages:read",
        params,
        query: t.Object(PageQuery),
        detail: { summary: "A message's event history (status changes, opens, clicks…), oldest first", security },
        response: { 200: MessagesPaginated(MessageEventData), ...errorResponses(401, 404, 422) },
      },
    )
    .get(
      "/v1/messages/:messageId/recipients",
      async ({ team, params }) => ({ data: await listMessageRecipients(deps, team.teamId, params.messageId) }),
      {
        team: true,
        permission: "messages:read",
        params,
        detail: { summary: "Each recipient of a message with their own status", security },
        response: { 200: t.Object({ data: t.Array(t.Object({ email: t.String(), status: t.String() })) }), ...errorResponses(401, 404) },
      },
    )
    .get(
      "/v1/messages/:messageId/html",
      async ({ team, params, query }) =>
        new Response(await getMessageHtml(deps, team.teamId, params.messageId), {
          headers: {
            "content-type": "text/html; charset=utf-8",
            "content-security-policy": mailHtmlPolicy(query.images === "1"),
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
            "cache-control": "private, no-store",
          },
        }),
      {
        team: true,
        permission: "messages:read_content",
        params,
        query: t.Object({ images: t.Optional(t.Union([t.Literal("0"), t.Literal("1")], { error: "The images field must be 0 or 1.", description: "1 lets the HTML load remote images" })) }),
        detail: {
          summary: "The message's HTML part, as a sandboxed page (no scripts, no remote loads unless images=1)",
          security,
          responses: {
            200: { description: "The HTML, with a Content-Security-Policy that sandboxes it", content: { "text/html": { schema: { type: "string" } } } },
            401: { description: "Unauthenticated", content: { "application/json": { schema: errorJsonSchema } } },
            404: { description: "Unknown message, or one without HTML", content: { "application/json": { schema: errorJsonSchema } } },
            410: { description: "Content dropped (retention, redact_email_content) or kept from the team (a report forwarding code's mail)", content: { "application/json": { schema: errorJsonSchema } } },
            422: { description: "Invalid images value", content: { "application/json": { schema: errorJsonSchema } } },
          },
        },
      },
    )
    .get(
      "/v1/messages/:messageId/text",
      async ({ team, params }) =>
        new Response(await getMessageText(deps, team.teamId, params.messageId), {
          headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "private, no-store" },
        }),
      {
        team: true,
        permission: "messages:read_content",
        params,
        detail: {
          summary: "The message's plain-text part",
          security,
          responses: {
            200: { description: "The text part as accepted or received", content: { "text/plain": { schema: { type: "string" } } } },
            401: { description: "Unauthenticated", content: { "application/json": { schema: errorJsonSchema } } },
            404: { description: "Unknown message, or one without a text part", content: { "application/json": { schema: errorJsonSchema } } },
            410: { description: "Content dropped (retention, redact_email_content) or kept from the team (a report forwarding code's mail)", content: { "application/json": { schema: errorJsonSchema } } },
          },
        },
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
        permission: "messages:read_content",
        params,
        detail: {
          summary: "The raw MIME source of a message (message/rfc822); 404 until one is stored",
          security,
          // Documented by hand: the body is not JSON, so there is no response schema to validate.
          responses: {
            200: { description: "The message exactly as sent or received", content: { "message/rfc822": { schema: { type: "string", format: "binary" } } } },
            401: { description: "Unauthenticated", content: { "application/json": { schema: errorJsonSchema } } },
            404: { description: "Unknown message, or no source stored yet", content: { "application/json": { schema: errorJsonSchema } } },
            410: { description: "Content dropped (retention, redact_email_content) or kept from the team (a report forwarding code's mail)", content: { "application/json": { schema: errorJsonSchema } } },
          },
        },
      },
    );
