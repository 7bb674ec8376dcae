import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { pageBody, Paginated } from "../../http/pagination.ts";
import { Envelope, errorResponses, IdParams, MessageBody } from "../../http/schemas.ts";
import {
  CreateWebhookBody,
  DeliveryData,
  DeliveryDetail,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  TestResultData,
  UpdateWebhookBody,
  WebhookData,
  WebhookWithSecret,
} from "./model.ts";
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  regenerateSecret,
  testWebhook,
  updateWebhook,
} from "./service.ts";

const security = [{ teamToken: [] }];
const params = IdParams("id", "Webhook");

/** Webhooks of the team's routes: CRUD, secret regeneration, a test send and the attempt log. */
export const webhooksController = (deps: Deps) =>
  new Elysia({ tags: ["Webhooks"] })
    .use(authPlugin(deps))
    .post(
      "/v1/webhooks",
      async ({ team, body, set }) => {
        const data = await createWebhook(deps, team.teamId, body);
        set.status = 201;
        return { data, message: "Webhook created successfully. Please save the secret as it will not be shown again." };
      },
      {
        team: true,
        permission: "webhooks:manage",
        body: CreateWebhookBody,
        detail: { summary: "Create a webhook (the response carries its secret, shown once)", security },
        response: { 201: Envelope(WebhookWithSecret), ...errorResponses(401, 422) },
      },
    )
    .get(
      "/v1/webhooks",
      async ({ team, query }) => {
        const { page, data, size } = await listWebhooks(deps, team.teamId, query);
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/webhooks", query, size });
      },
      {
        team: true,
        permission: "webhooks:read",
        query: ListWebhooksQuery,
        detail: { summary: "List webhooks (filter[route_id], filter[enabled])", security },
        response: { 200: Paginated(WebhookData), ...errorResponses(401, 422) },
      },
    )
    .get("/v1/webhooks/:id", ({ team, params }) => getWebhook(deps, team.teamId, params.id), {
      team: true,
      permission: "webhooks:read",
      params,
      detail: { summary: "Get a webhook (without its secret)", security },
      response: { 200: WebhookData, ...errorResponses(401, 404) },
    })
    .put(
      "/v1/webhooks/:id",
      async ({ team, params, body }) => ({
        data: await updateWebhook(deps, team.teamId, params.id, body),
        message: "Webhook updated successfully.",
      }),
      {
        team: true,
        permission: "webhooks:manage",
        params,
        body: UpdateWebhookBody,
        detail: { summary: "Update a webhook (the secret is kept; enabling clears disabled_reason)", security },
        response: { 200: Envelope(WebhookData), ...errorResponses(401, 404, 422) },
      },
    )
    .delete(
      "/v1/webhooks/:id",
      async ({ team, params }) => {
        await deleteWebhook(deps, team.teamId, params.id);
        return { message: "Webhook deleted successfully." };
      },
      {
        team: true,
        permission: "webhooks:delete",
        params,
        detail: { summary: "Delete a webhook (queued deliveries are dropped)", security },
        response: { 200: MessageBody, ...errorResponses(401, 404) },
      },
    )
    .post(
      "/v1/webhooks/:id/regenerate-secret",
      async ({ team, params }) => ({
        data: await regenerateSecret(deps, team.teamId, params.id),
        message: "Webhook secret regenerated successfully. Please update your integration.",
      }),
      {
        team: true,
        permission: "webhooks:rotate_secret",
        params,
        detail: { summary: "Regenerate the signing secret (the old one stops signing at once)", security },
        response: { 200: Envelope(WebhookWithSecret), ...errorResponses(401, 404) },
      },
    )
    .post(
      "/v1/webhooks/:id/test",
      async ({ team, params }) => {
        const data = await testWebhook(deps, team.teamId, params.id);
        // The attempt is made before answering; its outcome is in data. message and delivery_id
        // are what Lettermint's SDKs read (docs/compatibility.md).
        return {
          data,
          message: data.success ? "Test webhook dispatched successfully. Check the deliveries endpoint for results." : `Test event delivery failed: ${data.error ?? "unknown error"}`,
          delivery_id: data.delivery_id,
        };
      },
      {
        team: true,
        permission: "webhooks:manage",
        params,
        detail: { summary: "Send a signed webhook.test event now and report the attempt", security },
        response: {
          200: t.Object({ data: TestResultData, message: t.String(), delivery_id: t.Union([t.String(), t.Null()], { description: "= data.delivery_id" }) }),
          ...errorResponses(401, 404),
        },
      },
    )
    .post(
      "/v1/webhooks/:id/deliveries/:deliveryId/redeliver",
      async ({ team, params }) => {
        const data = await redeliver(deps, team.teamId, params.id, params.deliveryId);
        return {
          data,
          message: data.success ? "Event redelivered successfully." : `Event redelivery failed: ${data.error ?? "unknown error"}`,
        };
      },
      {
        team: true,
        permission: "webhooks:manage",
        params: t.Object({ ...params.properties, ...IdParams("deliveryId", "Delivery attempt").properties }),
        detail: {
          summary: "Send the event of a delivery attempt again now (same event id and body, signed afresh), recorded as a new attempt",
          security,
        },
        response: { 200: t.Object({ data: TestResultData, message: t.String() }), ...errorResponses(401, 404) },
      },
    )
    .get("/v1/webhooks/:id/deliveries/:deliveryId", ({ team, params }) => getDelivery(deps, team.teamId, params.id, params.deliveryId), {
      team: true,
      permission: "webhooks:read",
      params: t.Object({ ...params.properties, ...IdParams("deliveryId", "Delivery attempt").properties }),
      detail: { summary: "One delivery attempt, with the body that was sent and the start of the answer", security },
      response: { 200: DeliveryDetail, ...errorResponses(401, 404) },
    })
    .get(
      "/v1/webhooks/:id/deliveries",
      async ({ team, params, query }) => {
        const { page, data, size } = await listDeliveries(deps, team.teamId, params.id, query);
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: `/v1/webhooks/${params.id}/deliveries`, query, size });
      },
      {
        team: true,
        permission: "webhooks:read",
        params,
        query: ListDeliveriesQuery,
        detail: { summary: "List delivery attempts, newest first (filter[event], filter[outcome], filter[event_id])", security },
        response: { 200: Paginated(DeliveryData), ...errorResponses(401, 404, 422) },
      },
    );
