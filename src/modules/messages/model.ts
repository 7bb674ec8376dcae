import { t, type Static } from "elysia";
import type { MessageRow } from "../../db/messages.ts";
import type { Address } from "../../db/schema.ts";
import { MESSAGE_STATUSES } from "../../db/recipient-status.ts";
import { PageQuery, Paginated } from "../../http/pagination.ts";
import { iso, UUID_PATTERN } from "../../ids.ts";
import { Nullable } from "../../http/schemas.ts";

const AddressData = t.Object({ email: t.String(), name: t.String() });
const StatusSchema = t.String({ description: `Message status: ${MESSAGE_STATUSES.join(", ")}` });
const MessageType = t.Union([t.Literal("inbound"), t.Literal("outbound")]);
const MessageTag = t.Object({ name: t.String(), value: t.String() });

export const MessageListData = t.Object({
  id: t.String(),
  type: MessageType,
  status: StatusSchema,
  from_email: t.String(),
  from_name: t.String(),
  subject: t.String(),
  to: t.Array(AddressData),
  cc: t.Array(AddressData),
  bcc: t.Array(AddressData),
  reply_to: t.Array(t.String()),
  tag: Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
  // Lettermint's MessageListData beside the spec's fields.
  status_changed_at: t.String({ format: "date-time" }),
  scheduled_at: Nullable(t.String({ format: "date-time", description: "When a message sent with scheduled_at is (or was) to be sent (UTC); null for mail sent on acceptance and inbound mail" })),
  tags: t.Array(MessageTag, { description: "Name-value tags as sent, in order" }),
});
export type MessageListData = Static<typeof MessageListData>;

export const SpamSymbol = t.Object({ name: t.String(), score: t.Number(), options: t.Array(t.String()), description: t.String() });

export const MessageData = t.Object({
  id: t.String(),
  type: MessageType,
  status: StatusSchema,
  status_changed_at: t.String({ format: "date-time" }),
  scheduled_at: Nullable(t.String({ format: "date-time", description: "When a message sent with scheduled_at is (or was) to be sent (UTC); null for mail sent on acceptance and inbound mail" })),
  tag: Nullable(t.String()),
  tags: t.Array(MessageTag, { description: "Name-value tags as sent, in order" }),
  from_email: t.String(),
  from_name: t.String(),
  reply_to: t.Array(t.String()),
  subject: t.String(),
  to: t.Array(AddressData),
  cc: t.Array(AddressData),
  bcc: t.Array(AddressData),
  attachments: t.Array(t.Object({ size: t.Integer(), filename: t.String(), content_id: Nullable(t.String()), content_type: t.String() })),
  metadata: t.Record(t.String(), t.String()),
  route_id: Nullable(t.String({ description: "null once the route was deleted" })),
  created_at: t.String({ format: "date-time" }),
  spam_score: Nullable(t.Number({ description: "Inbound messages; null for outbound" })),
  spam_symbols: t.Array(SpamSymbol),
});
export type MessageData = Static<typeof MessageData>;

export const MessageEventData = t.Object({
  id: t.String(),
  event: t.String({
    description:
      "The service's event type (Lettermint's MessageEventType): scheduled (message.created of a message sent with scheduled_at), rescheduled, canceled, queued (message.created, message.queued), processed (message.sent, message.report_received), delivered, soft_bounced, hard_bounced, failed, suppressed, blocked, opened, clicked, spam_complaint, unsubscribed, policy_rejected, auto_replied, inbound_received (message.inbound), inbound_spam_blocked (held as quarantined), inbound_released (POST /v1/messages/{id}/process)",
  }),
  kind: t.String({ description: "Posthorn's event kind, e.g. message.delivered (as webhooks name it)" }),
  status: Nullable(t.String()),
  recipient: Nullable(t.String({ description: "The recipient this event is about, when it concerns one" })),
  data: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
  message_id: t.String(),
  tag: Nullable(t.String({ description: "The message's tag" })),
  tags: t.Array(MessageTag, { description: "The message's name-value tags" }),
  metadata: t.Record(t.String(), t.String(), { description: "The message's metadata" }),
  timestamp: t.String({ format: "date-time", description: "= created_at" }),
});

/**
 * The spec's flat paginator, and beside it `links` and `meta` as Lettermint's SDK types declare
 * them for messages and their events (links is an array there: empty; the URLs are in meta).
 */
export const MessagesPaginated = <T extends import("@sinclair/typebox").TSchema>(item: T) =>
  t.Object({
    ...Paginated(item).properties,
    links: t.Array(t.String(), { description: "Always empty: the page URLs are in meta and next_page_url/prev_page_url" }),
    meta: t.Object({
      path: Nullable(t.String()),
      per_page: t.Integer({ minimum: 0 }),
      next_cursor: Nullable(t.String()),
      next_cursor_url: Nullable(t.String()),
      prev_cursor: Nullable(t.String()),
      prev_cursor_url: Nullable(t.String()),
    }),
  });

/** Adds links and meta to a body made by pageBody. */
export const withMeta = <B extends { path: string | null; per_page: number; next_cursor: string | null; next_page_url: string | null; prev_cursor: string | null; prev_page_url: string | null }>(b: B) => ({
  ...b,
  links: [] as string[],
  meta: {
    path: b.path,
    per_page: b.per_page,
    next_cursor: b.next_cursor,
    next_cursor_url: b.next_page_url,
    prev_cursor: b.prev_cursor,
    prev_cursor_url: b.prev_page_url,
  },
});

export const MESSAGE_SORT_KEYS = ["type", "status", "from_email", "subject", "created_at", "status_changed_at", "scheduled_at"] as const;

const uuidFilter = (name: string, what: string) =>
  t.Optional(t.String({ pattern: UUID_PATTERN, error: `The filter[${name}] field must be a valid UUID.`, description: what }));
const searchFilter = (name: string, what: string) =>
  t.Optional(
    t.String({ minLength: 1, maxLength: 255, error: `The filter[${name}] field must be 1 to 255 characters.`, description: `Partial, case-insensitive match on ${what}` }),
  );
const dateFilter = (name: string, what: string) =>
  t.Optional(
    t.String({ maxLength: 40, description: `${what}: ISO 8601 date (2024-05-01) or date-time with zone`, error: `The filter[${name}] field must be an ISO 8601 date or date-time.` }),
  );

export const MessageListQuery = t.Object({
  ...PageQuery,
  sort: t.Optional(t.String({ maxLength: 200, description: `Comma list of ${MESSAGE_SORT_KEYS.join(", ")}; - for descending; default -created_at` })),
  "filter[type]": t.Optional(t.Union([t.Literal("inbound"), t.Literal("outbound")], { error: "The filter[type] field must be inbound or outbound." })),
  "filter[status]": t.Optional(
    t.Union(
      MESSAGE_STATUSES.map((s) => t.Literal(s)),
      { error: `The filter[status] field must be one of: ${MESSAGE_STATUSES.join(", ")}.` },
    ),
  ),
  "filter[route_id]": uuidFilter("route_id", "Route ID"),
  "filter[domain_id]": uuidFilter("domain_id", "Sending domain ID"),
  "filter[tag]": t.Optional(t.String({ minLength: 1, maxLength: 33, error: "The filter[tag] field must be 1 to 33 characters.", description: "Exact tag" })),
  "filter[tags][0][name]": t.Optional(
    t.String({
      description:
        "Exact name-value tag name (case-sensitive). More pairs, filter[tags][1][name] and so on up to [19], must all match; a pair without a value matches any value of that name",
    }),
  ),
  "filter[tags][0][value]": t.Optional(t.String({ description: "Exact tag value of the pair's name" })),
  "filter[from_email]": searchFilter("from_email", "the sender email"),
  "filter[subject]": searchFilter("subject", "the subject"),
  "filter[from_date]": dateFilter("from_date", "Created at or after"),
  "filter[to_date]": dateFilter("to_date", "Created at or before (a bare date includes that whole day)"),
});
export type MessageListQuery = Static<typeof MessageListQuery>;

export const serializeListItem = (r: MessageRow): MessageListData => ({
  id: r.id,
  type: r.type,
  status: r.status,
  from_email: r.from_email,
  from_name: r.from_name,
  subject: r.subject,
  to: JSON.parse(r.to) as Address[],
  cc: JSON.parse(r.cc) as Address[],
  bcc: JSON.parse(r.bcc) as Address[],
  reply_to: JSON.parse(r.reply_to) as string[],
  tag: r.tag,
  created_at: iso(r.created_at)!,
  status_changed_at: iso(r.status_changed_at)!,
  scheduled_at: iso(r.scheduled_at === null ? null : Number(r.scheduled_at)),
  tags: JSON.parse(r.tags) as { name: string; value: string }[],
});

/** The service's ProcessInboundMessageResponse: a quarantined inbound message queued for its route's webhooks. */
export const ProcessInboundMessageResponse = t.Object({
  data: t.Object({
    message_id: t.String(),
    status: t.Literal("queued", { description: "Queued for the inbound job, which hands it to the route's webhooks as message.inbound" }),
    webhook_target_count: t.Integer({ minimum: 1, description: "Enabled webhooks of the route that receive message.inbound" }),
  }),
});
