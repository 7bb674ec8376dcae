import { t, type Static } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { Nullable, uuidString } from "../../http/schemas.ts";
import { QUEUED_STATUSES } from "../../db/queue.ts";

const RemoteReplyData = t.Object({
  code: Nullable(t.Integer({ description: "SMTP reply code" })),
  enhanced_code: Nullable(t.String({ description: "RFC 3463 enhanced status code, e.g. 4.7.28" })),
  message: t.String(),
});

export const QueuedRecipientData = t.Object({
  email: t.String(),
  status: t.String({
    description: "scheduled (waiting for the message's scheduled_at), pending, queued, processed (an attempt is under way) or soft_bounced (waiting for the next attempt)",
  }),
  attempts: t.Integer({ minimum: 0, description: "Delivery attempts so far" }),
  last_response: Nullable(RemoteReplyData),
  status_changed_at: t.String({ format: "date-time" }),
});

export const QueuedMessageData = t.Object({
  id: t.String(),
  route_id: Nullable(t.String({ description: "null once the route was deleted" })),
  status: t.String(),
  from_email: t.String(),
  subject: t.String(),
  created_at: t.String({ format: "date-time" }),
  scheduled_at: Nullable(
    t.String({
      format: "date-time",
      description:
        "When a scheduled message goes out (status scheduled until then; PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it); the time it went for one sent since; null: sent on acceptance.",
    }),
  ),
  next_attempt_at: Nullable(
    t.String({ format: "date-time", description: "When the next attempt is due; while one is under way, when its lease ends. null when no attempt is scheduled." }),
  ),
  attempts: t.Integer({ minimum: 0, description: "The most attempts any of its recipients has had" }),
  last_response: Nullable(RemoteReplyData),
  held_reason: Nullable(
    t.String({
      description:
        "Why the message waits although nothing failed: its sending domain's warm-up reached the day's cap (docs/deliverability.md, Warm-up); it stays queued and goes at next_attempt_at. null otherwise.",
    }),
  ),
  recipients: t.Array(QueuedRecipientData, { description: "The recipients not final yet" }),
});
export type QueuedMessageData = Static<typeof QueuedMessageData>;

/** The statuses an outbound message has while in the queue (quarantined is inbound mail's). */
const OUTBOUND_QUEUED = QUEUED_STATUSES.filter((s) => s !== "quarantined");

/** The queue's filters, the same for the list and the bulk actions. */
export const QueueFilters = {
  "filter[domain]": t.Optional(
    t.String({
      minLength: 1,
      maxLength: 253,
      pattern: "^[^@\\s]+$",
      error: "The filter[domain] field must be a domain name (1 to 253 characters, no @ or spaces).",
      description: "Recipient domain, exact (case-insensitive): messages with a recipient at it still queued",
    }),
  ),
  "filter[route_id]": t.Optional(uuidString("filter[route_id]", "Route ID")),
  "filter[status]": t.Optional(
    t.Union(
      OUTBOUND_QUEUED.map((s) => t.Literal(s)),
      {
        error: `The filter[status] field must be one of: ${OUTBOUND_QUEUED.join(", ")}.`,
        description: "The message's status, exact: scheduled for the messages waiting for their time, or one of the delivery queue's",
      },
    ),
  ),
};

export const QueueListQuery = t.Object({ ...PageQuery, ...QueueFilters });
export type QueueListQuery = Static<typeof QueueListQuery>;
export const QueueActionQuery = t.Object(QueueFilters);
export type QueueActionQuery = Static<typeof QueueActionQuery>;

export const BulkResultData = t.Object({
  messages: t.Integer({ minimum: 0, description: "Messages affected" }),
  recipients: t.Integer({ minimum: 0, description: "Recipients affected (cancel: those now failed with reason cancelled; retry: those of the messages made due)" }),
});
export type BulkResultData = Static<typeof BulkResultData>;
