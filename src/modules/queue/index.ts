import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { pageBody, Paginated } from "../../http/pagination.ts";
import { errorResponses, IdParams, Nullable } from "../../http/schemas.ts";
import { BulkResultData, QueueActionQuery, QueuedMessageData, QueueListQuery } from "./model.ts";
import { cancelMessage, cancelQueue, listQueue, retryMessage, retryQueue } from "./service.ts";

const security = [{ teamToken: [] }];
const params = IdParams("messageId", "Message");
const filtersNote =
  "Filters as for GET /v1/queue, in the query (filter[domain], filter[route_id], filter[status]); none means the team's whole queue. An unknown filter is a 422, never a wider action. Scheduled messages are left to their time (PATCH /v1/messages/{id} moves one, POST /v1/messages/{id}/cancel cancels it).";

/**
 * Queue control: the team's outbound messages not yet final, and attempting or cancelling one
 * message or every message a filter matches. A message already final (or inbound) is a 409.
 */
export const queueController = (deps: Deps) =>
  new Elysia({ tags: ["Queue"] })
    .use(authPlugin(deps))
    .get(
      "/v1/queue",
      async ({ team, query }) => {
        const { page, data, size } = await listQueue(deps, team.teamId, query);
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/queue", query, size });
      },
      {
        team: true,
        permission: "messages:read",
        query: QueueListQuery,
        detail: {
          summary: "List outbound messages not yet final, oldest first, with their queued recipients, next attempt and last reply; scheduled messages with their scheduled_at",
          security,
        },
        response: { 200: Paginated(QueuedMessageData), ...errorResponses(401, 422) },
      },
    )
    .post(
      "/v1/queue/retry",
      async ({ team, query }) => {
        const data = await retryQueue(deps, team.teamId, query);
        return { data, message: `${data.messages} message(s) will be attempted now.` };
      },
      {
        team: true,
        permission: "messages:send",
        query: QueueActionQuery,
        detail: {
          summary: "Attempt every queued message matching the filters now (attempt counts and queue lifetime unchanged)",
          description: `${filtersNote} Messages with an attempt under way (or due within seconds) are not counted.`,
          security,
        },
        response: { 200: t.Object({ data: BulkResultData, message: t.String() }), ...errorResponses(401, 422) },
      },
    )
    .post(
      "/v1/queue/cancel",
      async ({ team, query }) => {
        const data = await cancelQueue(deps, team.teamId, query);
        return { data, message: `${data.recipients} recipient(s) of ${data.messages} message(s) cancelled.` };
      },
      {
        team: true,
        permission: "messages:send",
        query: QueueActionQuery,
        detail: {
          summary: "Cancel every queued message matching the filters: their remaining recipients become failed, reason cancelled",
          description: `${filtersNote} With filter[domain], only the recipients at that domain are cancelled.`,
          security,
        },
        response: { 200: t.Object({ data: BulkResultData, message: t.String() }), ...errorResponses(401, 422) },
      },
    )
    .post(
      "/v1/messages/:messageId/retry",
      async ({ team, params }) => {
        const { started, data } = await retryMessage(deps, team.teamId, params.messageId);
        return { data, message: started ? "The message will be attempted now." : "An attempt of the message is already under way." };
      },
      {
        team: true,
        permission: "messages:send",
        params,
        detail: { summary: "Attempt a queued message now (409 when it is final, inbound or scheduled: PATCH /v1/messages/{id} moves a scheduled one)", security },
        response: { 200: t.Object({ data: Nullable(QueuedMessageData), message: t.String() }), ...errorResponses(401, 404, 409) },
      },
    )
    .post(
      // Not /cancel: that is the service's cancel of a scheduled message (src/modules/schedule/).
      "/v1/messages/:messageId/cancel-delivery",
      async ({ team, params }) => {
        const { cancelled, data } = await cancelMessage(deps, team.teamId, params.messageId);
        return { data: { cancelled, queued: data }, message: `${cancelled} recipient(s) cancelled.` };
      },
      {
        team: true,
        permission: "messages:send",
        params,
        detail: {
          summary:
            "Cancel a queued message: its remaining recipients become failed, reason cancelled (409 when it is final, inbound or scheduled: POST /v1/messages/{id}/cancel cancels a scheduled one)",
          description: "A recipient the receiving server accepted during an attempt under way stays with that attempt and ends delivered.",
          security,
        },
        response: {
          200: t.Object({
            data: t.Object({ cancelled: t.Integer({ minimum: 0 }), queued: Nullable(QueuedMessageData) }),
            message: t.String(),
          }),
          ...errorResponses(401, 404, 409),
        },
      },
    );
