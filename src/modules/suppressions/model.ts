import { t, type Static } from "elysia";
import type { SourceMessageRow, SuppressionRow } from "../../db/suppressions.ts";
import { UUID_PATTERN } from "../../ids.ts";
import { suppressionData } from "../../events/suppression-events.ts";
import { PageQuery } from "../../http/pagination.ts";
import { Nullable } from "../../http/schemas.ts";

export const SUPPRESSION_REASONS = ["spam_complaint", "hard_bounce", "unsubscribe", "manual"] as const;
export const SUPPRESSION_SCOPES = ["team", "project", "route"] as const;
export { SUPPRESSION_TYPES } from "../../events/suppression-rules.ts";
import { SUPPRESSION_TYPES } from "../../events/suppression-rules.ts";
const GLOBAL_NOTE = "the global list is the operator's: posthorn suppressions global";
export const SUPPRESSION_EMAIL_MAX = 255;
export const SUPPRESSION_EMAILS_MAX = 1000;

const reason = t.Union([t.Literal("spam_complaint"), t.Literal("hard_bounce"), t.Literal("unsubscribe"), t.Literal("manual")], {
  error: `The reason field is required and must be one of: ${SUPPRESSION_REASONS.join(", ")}.`,
});
const scope = t.Union([t.Literal("team"), t.Literal("project"), t.Literal("route")], {
  error: `The scope field is required and must be one of: ${SUPPRESSION_SCOPES.join(", ")} (${GLOBAL_NOTE}).`,
});
const type = (field: string) =>
  t.Union([t.Literal("email"), t.Literal("domain"), t.Literal("extension")], { error: `The ${field} field must be one of: ${SUPPRESSION_TYPES.join(", ")}.` });
/** Checked per type by the service (normaliseSuppressionValue): an address, a domain or an extension. */
const value = (error: string) => t.String({ minLength: 1, maxLength: SUPPRESSION_EMAIL_MAX, error });
const email = (error: string) => t.String({ format: "email", minLength: 3, maxLength: SUPPRESSION_EMAIL_MAX, error });
const uuid = (field: string, description: string) => t.String({ pattern: UUID_PATTERN, error: `The ${field} field must be a valid UUID.`, description });

/** null is accepted for email, emails, route_id, project_id, type, value and values (nullsToAbsent transform). */
export const CreateSuppressionsBody = t.Object({
  reason,
  scope,
  email: t.Optional(email(`The email field must be a valid email address of at most ${SUPPRESSION_EMAIL_MAX} characters.`)),
  emails: t.Optional(
    t.Array(email(`Every emails item must be a valid email address of at most ${SUPPRESSION_EMAIL_MAX} characters.`), {
      minItems: 1,
      maxItems: SUPPRESSION_EMAILS_MAX,
      error: `The emails field must be an array of 1 to ${SUPPRESSION_EMAILS_MAX} email addresses.`,
    }),
  ),
  route_id: t.Optional(uuid("route_id", "Required when scope is route; a route of this team")),
  project_id: t.Optional(uuid("project_id", "Required when scope is project; a project of this team")),
  // Beside the spec's fields: what is suppressed (Lettermint's SuppressionType). Default email.
  type: t.Optional({ ...type("type"), description: "email (default), domain (every address at exactly that domain) or extension (every domain ending in .<value>, e.g. ru or co.uk)" }),
  value: t.Optional(value(`The value field must be 1 to ${SUPPRESSION_EMAIL_MAX} characters.`)),
  values: t.Optional(
    t.Array(value(`Every values item must be 1 to ${SUPPRESSION_EMAIL_MAX} characters.`), {
      minItems: 1,
      maxItems: SUPPRESSION_EMAILS_MAX,
      error: `The values field must be an array of 1 to ${SUPPRESSION_EMAILS_MAX} values.`,
    }),
  ),
});
export type CreateSuppressionsBody = Static<typeof CreateSuppressionsBody>;

export const SuppressionData = t.Object({
  id: t.String(),
  email: Nullable(t.String({ description: "The address for type email; null for a domain or extension" })),
  scope: t.String({ description: "team, project or route" }),
  reason: t.String({ description: SUPPRESSION_REASONS.join(", ") }),
  project_id: Nullable(t.String()),
  route_id: Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
  // Lettermint's SuppressedRecipientData beside the spec's fields (docs/compatibility.md).
  type: t.Union([t.Literal("email"), t.Literal("domain"), t.Literal("extension")], { description: "What is suppressed: an address, a domain, or a domain extension" }),
  value: t.String({ description: "The address, domain or extension (lower-cased)" }),
  source_message: t.Union([
    t.Object({
      id: t.String(),
      available: t.Boolean({ description: "false once the message is no longer stored" }),
      subject: Nullable(t.String()),
      created_at: Nullable(t.String({ format: "date-time" })),
    }),
    t.Null(),
  ], { description: "The message whose hard bounce, complaint or unsubscribe added it; null for one added by hand" },
  ),
  updated_at: t.String({ format: "date-time", description: "= created_at (a suppression is never changed)" }),
});
export type SuppressionData = Static<typeof SuppressionData>;

export const CreateSuppressionsResult = t.Object({
  message: t.String(),
  data: t.Object({
    created: t.Array(t.String(), { description: "The addresses suppressed now (lower-cased)" }),
    skipped: t.Array(t.String(), { description: "The addresses left out: already suppressed in that scope, or listed twice in this request" }),
  }),
});

export const DeleteSuppressionResult = t.Object({
  message: t.String(),
  success: t.Literal(true),
  status: t.Literal("removed"),
});

const date = (field: string) =>
  t.String({ maxLength: 40, pattern: "^\\d{4}-\\d{2}-\\d{2}([Tt ].+)?$", error: `The ${field} field must be an ISO 8601 date or date-time.`, description: "ISO 8601 date or date-time" });

export const SuppressionListQuery = t.Object({
  ...PageQuery,
  sort: t.Optional(t.String({ maxLength: 100, description: "created_at, value, reason (email = value); - for descending; default -created_at" })),
  "filter[email]": t.Optional(t.String({ minLength: 1, maxLength: SUPPRESSION_EMAIL_MAX, error: "The filter[email] field must be 1 to 255 characters.", description: "Exact value (case-insensitive)" })),
  "filter[value]": t.Optional(t.String({ minLength: 1, maxLength: SUPPRESSION_EMAIL_MAX, error: "The filter[value] field must be 1 to 255 characters.", description: "Part of the address, domain or extension (case-insensitive)" })),
  "filter[type]": t.Optional(type("filter[type]")),
  "filter[scope]": t.Optional(t.Union([t.Literal("team"), t.Literal("project"), t.Literal("route")], { error: `The filter[scope] field must be one of: ${SUPPRESSION_SCOPES.join(", ")} (${GLOBAL_NOTE}).` })),
  "filter[reason]": t.Optional(
    t.Union([t.Literal("spam_complaint"), t.Literal("hard_bounce"), t.Literal("unsubscribe"), t.Literal("manual")], {
      error: `The filter[reason] field must be one of: ${SUPPRESSION_REASONS.join(", ")}.`,
    }),
  ),
  "filter[project_id]": t.Optional(uuid("filter[project_id]", "Project-scoped suppressions of this project")),
  "filter[route_id]": t.Optional(uuid("filter[route_id]", "Route-scoped suppressions of this route")),
  "filter[startDate]": t.Optional(date("filter[startDate]")),
  "filter[endDate]": t.Optional(date("filter[endDate]")),
});
export type SuppressionListQuery = Static<typeof SuppressionListQuery>;

export const serializeSuppression = (r: SuppressionRow, source: SourceMessageRow | null = null): SuppressionData => suppressionData(r, source);
