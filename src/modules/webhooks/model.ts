import { t, type Static } from "elysia";
import { EVENT_KINDS } from "../../events/publish.ts";
import type { DeliveryRow, WebhookRow } from "../../db/webhooks.ts";
import { iso } from "../../ids.ts";
import { CursorAlias, PageQuery } from "../../http/pagination.ts";
import { Nullable } from "../../http/schemas.ts";

export const WEBHOOK_NAME_MAX = 255;
export const WEBHOOK_URL_MAX = 500;

const DateTime = t.String({ format: "date-time" });

/** A stored webhook URL as every answer shows it; the service checks a new URL against this same schema before storing it. */
export const WebhookUrl = t.String({ format: "uri", maxLength: WEBHOOK_URL_MAX });

const webhookFields = {
  id: t.String(),
  route_id: t.String(),
  name: t.String(),
  url: WebhookUrl,
  events: t.Array(t.String(), { description: "Subscribed event kinds" }),
  enabled: t.Boolean(),
  include_machine_events: t.Boolean({
    description: "Whether message.opened / message.clicked events of hits classified as machines (machine: true) are sent too; default false: people only",
  }),
  disabled_reason: Nullable(t.String({ description: "Why the service disabled the webhook (e.g. the receiver answered 410)" })),
  last_called_at: Nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
};

/** A webhook as read back: never with its secret. */
export const WebhookData = t.Object(webhookFields);
export type WebhookData = Static<typeof WebhookData>;

/** At creation and secret regeneration only. */
export const WebhookWithSecret = t.Object({
  ...webhookFields,
  secret: t.String({ description: "Signing secret (whsec_…), shown once: store it now" }),
});
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

const eventKind = t.Union(
  EVENT_KINDS.map((k) => t.Literal(k)),
  { error: `Each entry of the events field must be one of: ${EVENT_KINDS.join(", ")}.` },
);

const nameField = t.String({
  minLength: 1,
  maxLength: WEBHOOK_NAME_MAX,
  error: `The name field is required and must be a string of 1 to ${WEBHOOK_NAME_MAX} characters.`,
});
const urlField = t.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX,
  description: "https:// URL that receives the signed POSTs",
  error: `The url field is required and must be an https:// URL of at most ${WEBHOOK_URL_MAX} characters.`,
});
const eventsField = t.Array(eventKind, {
  minItems: 1,
  maxItems: EVENT_KINDS.length * 2,
  error: "The events field must be an array of at least one event kind.",
});

export const CreateWebhookBody = t.Object({
  route_id: t.String({ minLength: 1, maxLength: 100, error: "The route_id field is required and must be the ID of a route of this team." }),
  name: nameField,
  url: urlField,
  events: eventsField,
  enabled: t.Optional(Nullable(t.Boolean({ error: "The enabled field must be true, false or null." }))),
  include_machine_events: t.Optional(Nullable(t.Boolean({ error: "The include_machine_events field must be true, false or null." }))),
});
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = t.Object({
  name: t.Optional(nameField),
  url: t.Optional(urlField),
  events: t.Optional(eventsField),
  enabled: t.Optional(Nullable(t.Boolean({ error: "The enabled field must be true, false or null." }))),
  include_machine_events: t.Optional(Nullable(t.Boolean({ error: "The include_machine_events field must be true, false or null." }))),
});
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const ListWebhooksQuery = t.Object({
  ...PageQuery,
  ...CursorAlias,
  sort: t.Optional(t.String({ maxLength: 200, description: "created_at, updated_at, name; - for descending; default -created_at" })),
  "filter[route_id]": t.Optional(t.String({ maxLength: 100 })),
  "filter[enabled]": t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { error: "The filter[enabled] field must be true or false." })),
});

/** WebhookDeliveryStatus of Lettermint's SDK; Posthorn records no pending attempts (one under way is listed as failed). */
export const DELIVERY_STATUSES = ["pending", "success", "failed", "client_error", "server_error", "timeout"] as const;

export const DeliveryData = t.Object({
  id: t.String(),
  webhook_id: t.String(),
  event_id: t.String(),
  event: t.String(),
  attempt: t.Integer({ minimum: 1 }),
  outcome: t.Union([t.Literal("succeeded"), t.Literal("failed")]),
  status_code: Nullable(t.Integer()),
  duration_ms: t.Integer({ minimum: 0 }),
  error: Nullable(t.String()),
  response_excerpt: Nullable(t.String({ description: "Start of the receiver's answer (up to 2 KB)" })),
  next_attempt_at: Nullable(DateTime),
  created_at: DateTime,
  // The same attempt under the names Lettermint's SDKs read (docs/compatibility.md).
  event_type: t.String({ description: "= event" }),
  status: t.Union([t.Literal("pending"), t.Literal("success"), t.Literal("failed"), t.Literal("client_error"), t.Literal("server_error"), t.Literal("timeout")], {
    description: "success; client_error or server_error by the receiver's status; timeout; failed otherwise (network, TLS, refused target, an attempt under way)",
  }),
  attempt_number: t.Integer({ minimum: 1, description: "= attempt" }),
  http_status_code: Nullable(t.Integer({ description: "= status_code" })),
  delivered_at: Nullable(t.String({ format: "date-time", description: "When the receiver accepted it; null unless status is success" })),
});
export type DeliveryData = Static<typeof DeliveryData>;

/** One attempt with what was sent: `GET /v1/webhooks/{id}/deliveries/{delivery_id}`. */
export const DeliveryDetail = t.Object({
  ...DeliveryData.properties,
  payload: t.Array(t.String(), {
    description: "The exact JSON body that was signed and sent, as the only element (an array, as Lettermint's SDK types declare it); empty once retention purged the event",
  }),
  response_body: Nullable(t.String({ description: "= response_excerpt" })),
  response_headers: t.Null({ description: "Not recorded" }),
  error_message: Nullable(t.String({ description: "= error" })),
  timestamp: t.String({ format: "date-time", description: "= created_at" }),
});
export type DeliveryDetail = Static<typeof DeliveryDetail>;

export const ListDeliveriesQuery = t.Object({
  ...PageQuery,
  ...CursorAlias,
  "filter[event]": t.Optional(t.String({ maxLength: 100, description: "Event kind, e.g. message.delivered" })),
  "filter[outcome]": t.Optional(t.Union([t.Literal("succeeded"), t.Literal("failed")], { error: "The filter[outcome] field must be succeeded or failed." })),
  "filter[event_id]": t.Optional(t.String({ maxLength: 100 })),
});

export const TestResultData = t.Object({
  success: t.Boolean(),
  status_code: Nullable(t.Integer()),
  duration_ms: t.Integer({ minimum: 0 }),
  error: Nullable(t.String()),
  response_excerpt: Nullable(t.String()),
  event_id: t.String(),
  delivery_id: Nullable(t.String()),
});
export type TestResultData = Static<typeof TestResultData>;

/** Rows stored before URLs were normalised at write (an IDN host as typed) are shown normalised too. */
const shownUrl = (stored: string): string => {
  try {
    return new URL(stored).href;
  } catch {
    return stored;
  }
};

export const serializeWebhook = (r: WebhookRow): WebhookData => ({
  id: r.id,
  route_id: r.route_id,
  name: r.name,
  url: shownUrl(r.url),
  events: JSON.parse(r.events) as string[],
  enabled: r.enabled === 1,
  include_machine_events: r.include_machine_events === 1,
  disabled_reason: r.disabled_reason,
  last_called_at: iso(r.last_called_at),
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

export const serializeWebhookWithSecret = (r: WebhookRow): WebhookWithSecret => ({ ...serializeWebhook(r), secret: r.secret });

function deliveryStatus(r: DeliveryRow): (typeof DELIVERY_STATUSES)[number] {
  if (r.outcome === "succeeded") return "success";
  if (r.status_code !== null && r.status_code >= 400 && r.status_code < 500) return "client_error";
  if (r.status_code !== null && r.status_code >= 500) return "server_error";
  if (r.error?.startsWith("timed out")) return "timeout";
  return "failed";
}

export const serializeDeliveryDetail = (r: DeliveryRow, body: string | null): DeliveryDetail => ({
  ...serializeDelivery(r),
  payload: body === null ? [] : [body],
  response_body: r.response_excerpt,
  response_headers: null,
  error_message: r.error,
  timestamp: iso(r.created_at)!,
});

export const serializeDelivery = (r: DeliveryRow): DeliveryData => ({
  id: r.id,
  webhook_id: r.webhook_id,
  event_id: r.event_id,
  event: r.event,
  attempt: r.attempt,
  outcome: r.outcome === "succeeded" ? "succeeded" : "failed",
  status_code: r.status_code,
  duration_ms: r.duration_ms,
  error: r.error,
  response_excerpt: r.response_excerpt,
  next_attempt_at: iso(r.next_attempt_at),
  created_at: iso(r.created_at)!,
  event_type: r.event,
  status: deliveryStatus(r),
  attempt_number: r.attempt,
  http_status_code: r.status_code,
  delivered_at: r.outcome === "succeeded" ? iso(r.created_at) : null,
});
