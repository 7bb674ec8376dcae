import { t, type Static } from "elysia";
import { MESSAGE_STATUSES } from "../../db/recipient-status.ts";
import { LIMITS } from "../../sending/limits.ts";

const addressList = (field: string, minItems = 0) =>
  t.Array(t.String({ maxLength: 512 }), {
    minItems,
    maxItems: LIMITS.recipients,
    error: `The ${field} field must be an array of ${minItems ? "1 to " : "at most "}${LIMITS.recipients} email addresses.`,
  });

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T, error: string, description?: string) =>
  t.Optional(t.Union([schema, t.Null()], { error, description }));

export const SendAttachment = t.Object({
  filename: t.String({ minLength: 1, maxLength: 255, error: "The attachment filename must be a string of 1 to 255 characters." }),
  content: t.String({ description: "Base64-encoded file content", error: "The attachment content must be a base64 string." }),
  content_id: nullable(
    t.String({ minLength: 1, maxLength: 255 }),
    "The attachment content_id must be a string of 1 to 255 characters, or null.",
    "Makes the attachment an inline part that the HTML references as cid:<content_id> (inline images)",
  ),
  content_type: nullable(
    t.String({ minLength: 3, maxLength: 255 }),
    "The attachment content_type must be a MIME type such as image/png, or null.",
    "MIME type; guessed from the filename when absent",
  ),
});

export const SendEmail = t.Object(
  {
    from: t.String({
      minLength: 1,
      maxLength: 512,
      error: 'The from field is required and must be an email address, optionally with a name: "Name <user@example.com>".',
      description: 'Sender, "user@example.com" or "Name <user@example.com>", on a domain attached to the project',
    }),
    subject: t.String({ maxLength: LIMITS.subject, error: `The subject field is required and must be a string of at most ${LIMITS.subject} characters.` }),
    to: addressList("to", 1),
    route: nullable(t.String({ minLength: 1, maxLength: 255 }), "The route field must be a route slug or id.", "Route slug (or id); default: the project's transactional route"),
    tag: nullable(
      t.String({ maxLength: LIMITS.tag, pattern: "^[A-Za-z0-9_ -]*$" }),
      `The tag field may contain letters, digits, underscores, hyphens and spaces, at most ${LIMITS.tag} characters.`,
    ),
    html: nullable(t.String({ minLength: LIMITS.bodyMin }), `The html field must be at least ${LIMITS.bodyMin} characters, or null.`),
    text: nullable(t.String({ minLength: LIMITS.bodyMin }), `The text field must be at least ${LIMITS.bodyMin} characters, or null.`),
    cc: nullable(addressList("cc"), "The cc field must be an array of email addresses, or null."),
    bcc: nullable(addressList("bcc"), "The bcc field must be an array of email addresses, or null."),
    reply_to: nullable(addressList("reply_to"), "The reply_to field must be an array of email addresses, or null."),
    headers: nullable(t.Record(t.String(), t.String()), "The headers field must be an object of string values, or null.", "Custom headers added to the email"),
    metadata: nullable(
      t.Record(t.String(), t.String()),
      "The metadata field must be an object of string values, or null.",
      "Tracked with the email and returned in events; never added as a header",
    ),
    track_opens: nullable(t.Boolean(), "The track_opens field must be true, false or null.", "Track opens of this email (a pixel in the HTML part); default: the route's track_opens"),
    track_clicks: nullable(t.Boolean(), "The track_clicks field must be true, false or null.", "Track clicks of this email's http(s) links in the HTML part; default: the route's track_clicks"),
    // Lettermint's fields (its SDKs send them): settings.track_opens/track_clicks stand for the two
    // above; settings.tls is the delivery's TLS policy (src/sending/validation.ts checks it).
    settings: nullable(
      t.Object({
        track_opens: t.Optional(t.Boolean()),
        track_clicks: t.Optional(t.Boolean()),
        tls: t.Optional(t.Union([t.Literal("opportunistic"), t.Literal("enforced")])),
      }, { additionalProperties: t.Never() }),
      "The settings field must be null or an object {track_opens?, track_clicks?, tls?: opportunistic or enforced} (no other keys).",
      "Lettermint's per-email settings, overriding the route's for this email: track_opens and track_clicks as the fields of those names; tls enforced delivers only over TLS with a certificate valid for the MX host (a host that cannot is a soft bounce, never plaintext); opportunistic uses STARTTLS when offered; default: the route's tls",
    ),
    scheduled_at: nullable(
      t.String({ maxLength: 64 }),
      "The scheduled_at field must be a date-time string or null.",
      "Send at this time instead of now: ISO 8601 with an offset (Z or ±hh:mm), in the future, at most 30 days ahead; the message is `scheduled` until then (PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it)",
    ),
    tags: nullable(
      t.Array(t.Object({ name: t.String({ maxLength: 256 }), value: t.String({ maxLength: 256 }) }), { maxItems: LIMITS.tags }),
      `The tags field must be null or an array of at most ${LIMITS.tags} {name, value} objects.`,
      `Name-value tags, stored, shown and filterable (filter[tags][0][name], filter[tags][0][value]): at most ${LIMITS.tags}, ${LIMITS.tags - 1} beside a tag; names 1 to 32 and values 1 to 64 ASCII letters, digits, underscores or hyphens; names unique (case-sensitive) and not starting with __lettermint`,
    ),
    attachments: nullable(t.Array(SendAttachment, { maxItems: LIMITS.attachments }), `The attachments field must be null or an array of at most ${LIMITS.attachments} objects {filename (1-255 characters), content (base64), content_id?, content_type?}.`),
  },
  { description: "One email" },
);
export type SendEmail = Static<typeof SendEmail>;

export const SendBatch = t.Array(SendEmail, {
  minItems: 1,
  maxItems: LIMITS.batch,
  error: `The batch must be an array of 1 to ${LIMITS.batch} emails.`,
});

export const SendResult = t.Object({
  message_id: t.String(),
  status: t.Union(MESSAGE_STATUSES.map((s) => t.Literal(s)), {
    description: "pending on acceptance; scheduled with a scheduled_at; suppressed when every recipient is suppressed",
  }),
  scheduled_at: t.Optional(t.String({ format: "date-time", description: "When a scheduled message will be sent (UTC); only with status scheduled" })),
});
export type SendResult = Static<typeof SendResult>;

/**
 * The Idempotency-Key header, documented as a parameter: a `headers` schema would make Elysia
 * strip the other headers (x-service-token) before authentication reads them.
 */
export const IdempotencyKeyParameter = {
  in: "header" as const,
  name: "Idempotency-Key",
  required: false,
  description: "1 to 255 characters. The same key and body within 24 h return the first response and send nothing again; another body → 409.",
  schema: { type: "string" as const, minLength: 1, maxLength: 255 },
};
