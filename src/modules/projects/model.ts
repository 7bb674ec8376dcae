import { t, type Static } from "elysia";
import { EngagementFields, RouteFields } from "../routes/base.ts";
import { UUID_PATTERN } from "../../ids.ts";
import { Nullable, nullableString } from "../../http/schemas.ts";
import { ProjectTeamMember } from "../team/model.ts";

export const PROJECT_NAME_MAX = 255;
/** Bound on one PUT …/members call. */
export const PROJECT_MEMBERS_MAX = 1000;

export const ProjectDomain = t.Object({
  id: t.String(),
  domain: t.String(),
  status_changed_at: Nullable(t.String({ format: "date-time" })),
  created_at: t.String({ format: "date-time" }),
});

export const Last28Days = t.Object({
  messages_transactional: t.Number({ description: "Outbound messages on transactional routes" }),
  messages_broadcast: t.Number({ description: "Outbound messages on broadcast routes" }),
  messages_inbound: t.Number({ description: "Inbound messages" }),
  deliverability: t.Number({ description: "Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none" }),
  ...EngagementFields,
});

export const ProjectData = t.Object({
  id: t.String(),
  name: t.String(),
  smtp_enabled: t.Boolean(),
  redact_email_content: t.Boolean({ description: "Always false: Posthorn keeps message content (retention decides how long); Lettermint's field" }),
  default_route_id: Nullable(t.String({ description: "The default transactional route, used when a send names no route" })),
  token_generated_at: t.String({ format: "date-time" }),
  token_last_used_at: Nullable(t.String({ format: "date-time" })),
  token_last_used_ip: Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  routes: t.Array(t.Object(RouteFields), { description: "The project's routes, without the nested project (the spec leaves it empty)" }),
  routes_count: t.Integer(),
  domains: t.Array(ProjectDomain),
  domains_count: t.Integer(),
  team_members: t.Array(ProjectTeamMember),
  team_members_count: t.Integer(),
  last_28_days: Last28Days,
});
export type ProjectData = Static<typeof ProjectData>;

const projectName = t.String({
  minLength: 1,
  maxLength: PROJECT_NAME_MAX,
  error: `The name field must be a string of 1 to ${PROJECT_NAME_MAX} characters.`,
});
const smtpEnabled = t.Boolean({ error: "The smtp_enabled field must be true or false.", description: "Allow SMTP submission with the project token" });

export const CreateProjectBody = t.Object({ name: projectName, smtp_enabled: t.Optional(smtpEnabled) });

export const UpdateProjectBody = t.Object({
  name: t.Optional(nullableString("name", { maxLength: PROJECT_NAME_MAX, description: "null or absent leaves it unchanged" })),
  smtp_enabled: t.Optional(t.Union([smtpEnabled, t.Null()], { error: "The smtp_enabled field must be true, false or null." })),
});

export const ProjectMembersBody = t.Object({
  team_member_ids: t.Array(t.String({ pattern: UUID_PATTERN, error: "Every team_member_ids item must be a valid UUID.", description: "A team member ID" }), {
    maxItems: PROJECT_MEMBERS_MAX,
    error: `The team_member_ids field must be an array of at most ${PROJECT_MEMBERS_MAX} team member UUIDs.`,
    description: "The complete new member list (replaces the current one)",
  }),
});

export const CreatedProject = t.Object({
  data: ProjectData,
  token: t.String({ description: "The project sending token (x-service-token); shown only here" }),
  api_token: t.String({ description: "= token, under the name Lettermint's SDKs read" }),
  message: t.String(),
});

export const RotatedToken = t.Object({
  data: ProjectData,
  new_token: t.String({ description: "The new project sending token; the old one stopped working" }),
  message: t.String(),
});
