import { t, type Static } from "elysia";
import type { SuppressionRow } from "../../db/suppressions.ts";
import { UUID_PATTERN } from "../../ids.ts";
import { suppressionData } from "../../events/suppression-events.ts";
import { PageQuery } from "../../http/pagination.ts";
import { Nullable } from "../../http/schemas.ts";

export const SUPPRESSION_REASONS = ["spam_complaint", "hard_bounce", "unsubscribe", "manual"] as const;
export const SUPPRESSION_SCOPES = ["team", "project", "route"] as const;
export const SUPPRESSION_EMAIL_MAX = 255;
export const SUPPRESSION_EMAILS_MAX = 1000;

const reason = t.Union([t.Literal("spam_complaint"), t.Literal("hard_bounce"), t.Literal("unsubscribe"), t.Literal("manual")], {
  error: `The reason field is required and must be one of: ${SUPPRESSION_REASONS.join(", ")}.`,
});
const scope = t.Union([t.Literal("team"), t.Literal("project"), t.Literal("route")], {
  error: `The scope field is required and must be one of: ${SUPPRESSION_SCOPES.join(", ")}.`,
});
const email = (error: string) => t.String({ format: "email", minLength: 3, maxLength: SUPPRESSION_EMAIL_MAX, error });
const uuid = (field: string, description: string) => t.String({ pattern: UUID_PATTERN, error: `The ${field} field must be a valid UUID.`, description });

/** null is accepted for email, emails, route_id and project_id (nullsToAbsent transform). */
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
});
export type CreateSuppressionsBody = Static<typeof CreateSuppressionsBody>;

export const SuppressionData = t.Object({
  id: t.String(),
  email: t.String(),
  scope: t.String({ description: "team, project or route" }),
  reason: t.String({ description: SUPPRESSION_REASONS.join(", ") }),
  project_id: Nullable(t.String()),
  route_id: Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
  // Lettermint's SuppressedRecipientData beside the spec's fields (docs/compatibility.md).
  type: t.Literal("email", { description: "What is suppressed: Posthorn suppresses addresses only" }),
  value: t.String({ description: "= email" }),
  source_message: t.Null({ description: "The message that caused it: not recorded" }),
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

export const SuppressionListQuery = t.Object({
  ...PageQuery,
  sort: t.Optional(t.String({ maxLength: 100, description: "created_at, email; - for descending; default -created_at" })),
  "filter[email]": t.Optional(t.String({ minLength: 1, maxLength: SUPPRESSION_EMAIL_MAX, error: "The filter[email] field must be 1 to 255 characters.", description: "Exact address (case-insensitive)" })),
  "filter[scope]": t.Optional(t.Union([t.Literal("team"), t.Literal("project"), t.Literal("route")], { error: `The filter[scope] field must be one of: ${SUPPRESSION_SCOPES.join(", ")}.` })),
  "filter[reason]": t.Optional(
    t.Union([t.Literal("spam_complaint"), t.Literal("hard_bounce"), t.Literal("unsubscribe"), t.Literal("manual")], {
      error: `The filter[reason] field must be one of: ${SUPPRESSION_REASONS.join(", ")}.`,
    }),
  ),
  "filter[project_id]": t.Optional(uuid("filter[project_id]", "Project-scoped suppressions of this project")),
  "filter[route_id]": t.Optional(uuid("filter[route_id]", "Route-scoped suppressions of this route")),
});
export type SuppressionListQuery = Static<typeof SuppressionListQuery>;

export const serializeSuppression = (r: SuppressionRow): SuppressionData => suppressionData(r);
