import { t, type Static } from "elysia";
import { MESSAGE_STATUSES } from "../../db/recipient-status.ts";
import { ProjectData } from "../projects/model.ts";
import { Nullable, nullableString } from "../../http/schemas.ts";
import { EngagementFields, RouteFields } from "./base.ts";

export const ROUTE_NAME_MAX = 255;
export const ROUTE_SLUG_MAX = 64;
export const SLUG_PATTERN = "^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$";
export const ROUTE_INCLUDES = ["project", "projectCount", "projectExists", "statistics"] as const;
export type RouteInclude = (typeof ROUTE_INCLUDES)[number];

export const RouteStatistics = t.Object(
  {
    period_days: t.Integer({ description: "Window of these figures, in days (28)" }),
    messages_total: t.Integer({ description: "Messages on this route in the window" }),
    messages_by_status: t.Object(Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, t.Integer()])) as Record<(typeof MESSAGE_STATUSES)[number], ReturnType<typeof t.Integer>>, {
      description: "Messages in the window by current status (every status, 0 when none)",
    }),
    deliverability: t.Number({ description: "Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none" }),
    ...EngagementFields,
  },
  { description: "Only with include=statistics" },
);
export type RouteStatistics = Static<typeof RouteStatistics>;

export const InboundDomainRecord = t.Object({
  purpose: t.Union([t.Literal("inbound_mx"), t.Literal("inbound_verification")]),
  type: t.Union([t.Literal("MX"), t.Literal("TXT")]),
  fqdn: t.String({ description: "Absolute name of the record" }),
  content: t.String({ description: "The value to publish (for MX: the target host, as the only or most preferred MX)" }),
});

export const RouteData = t.Object({
  ...RouteFields,
  inbound_domain_records: t.Optional(
    t.Array(InboundDomainRecord, {
      description: "Only when inbound_domain is set: the MX and the TXT verification record to publish before POST /v1/routes/{id}/verify-inbound-domain",
    }),
  ),
  project: t.Optional(Nullable(ProjectData)),
  project_count: t.Optional(t.Integer({ description: "Only with include=projectCount" })),
  project_exists: t.Optional(t.Boolean({ description: "Only with include=projectExists" })),
  statistics: t.Optional(RouteStatistics),
});
export type RouteData = Static<typeof RouteData>;

const nullableBool = (field: string) => t.Optional(t.Union([t.Boolean(), t.Null()], { error: `The ${field} field must be true, false or null.` }));

/**
 * The service's UpdateRouteSettingsData (and attachment_delivery for inbound routes): each field
 * absent or null leaves the setting as it is. A key not listed here is a 422 (index.ts).
 */
export const UpdateRouteSettings = t.Object({
  track_opens: nullableBool("settings.track_opens"),
  track_clicks: nullableBool("settings.track_clicks"),
  generate_plaintext_fallback: nullableBool("settings.generate_plaintext_fallback"),
  suppress_auto_responders: nullableBool("settings.suppress_auto_responders"),
  suppress_disposable_recipients: nullableBool("settings.suppress_disposable_recipients"),
  tls: t.Optional(t.Union([t.Literal("opportunistic"), t.Literal("enforced"), t.Null()], { error: "The settings.tls field must be opportunistic or enforced." })),
  disable_hosted_unsubscribe: nullableBool("settings.disable_hosted_unsubscribe"),
  redact_email_content: nullableBool("settings.redact_email_content"),
  attachment_delivery: t.Optional(t.Union([t.Literal("inline"), t.Literal("url"), t.Null()], { error: "The settings.attachment_delivery field must be inline or url." })),
});
export type UpdateRouteSettings = Static<typeof UpdateRouteSettings>;
export const UPDATE_ROUTE_SETTING_KEYS = Object.keys(UpdateRouteSettings.properties);

/** `settings` in a body: null is accepted too (nullsToAbsent), kept out of the schema so that a bad inner field is reported under its own path. */
const settingsField = t.Optional(
  t.Object(UpdateRouteSettings.properties, {
    error: "The settings field must be an object or null.",
    description: "The route's settings (absent or null fields are left as they are); docs/sending.md, Route settings",
  }),
);

export const CreateRouteBody = t.Object({
  name: t.String({ minLength: 1, maxLength: ROUTE_NAME_MAX, error: `The name field is required and must be a string of 1 to ${ROUTE_NAME_MAX} characters.` }),
  route_type: t.Union([t.Literal("transactional"), t.Literal("broadcast"), t.Literal("inbound")], {
    error: "The route_type field is required and must be one of: transactional, broadcast, inbound.",
  }),
  slug: t.Optional(
    t.String({
      minLength: 1,
      maxLength: ROUTE_SLUG_MAX,
      pattern: SLUG_PATTERN,
      error: `The slug field must be 1 to ${ROUTE_SLUG_MAX} lower-case letters, digits, hyphens or underscores, starting and ending with a letter or digit.`,
      description: "Unique in the project; derived from the name when absent",
    }),
  ),
  settings: settingsField,
});
export type CreateRouteBody = Static<typeof CreateRouteBody>;

export const INBOUND_DOMAIN_MAX = 253;
export const SPAM_THRESHOLD_MAX = 100;

export const InboundSettings = t.Object({
  inbound_domain: t.Optional(
    t.Union([t.String({ minLength: 1, maxLength: INBOUND_DOMAIN_MAX }), t.Null()], {
      error: `The inbound_settings.inbound_domain field must be a domain name of at most ${INBOUND_DOMAIN_MAX} characters, or null to remove it.`,
      description: "Custom inbound domain; changing it clears inbound_domain_verified_at; null removes it",
    }),
  ),
  inbound_spam_threshold: t.Optional(
    t.Union([t.Number({ minimum: 0, maximum: SPAM_THRESHOLD_MAX }), t.Null()], {
      error: `The inbound_settings.inbound_spam_threshold field must be a number from 0 to ${SPAM_THRESHOLD_MAX}.`,
    }),
  ),
  attachment_delivery: t.Optional(
    t.Union([t.Literal("inline"), t.Literal("url"), t.Null()], { error: "The inbound_settings.attachment_delivery field must be inline or url." }),
  ),
});

export const UpdateRouteBody = t.Object({
  name: t.Optional(nullableString("name", { maxLength: ROUTE_NAME_MAX, description: "null or absent leaves it unchanged" })),
  // null is accepted too (nullsToAbsent transform), kept out of the schema so that a bad inner
  // field is reported under its own path rather than as a failed union.
  inbound_settings: t.Optional(
    t.Object(InboundSettings.properties, { error: "The inbound_settings field must be an object or null.", description: "Inbound routes only; null or absent leaves them unchanged" }),
  ),
  track_opens: nullableBool("track_opens"),
  track_clicks: nullableBool("track_clicks"),
  settings: settingsField,
});
export type UpdateRouteBody = Static<typeof UpdateRouteBody>;

