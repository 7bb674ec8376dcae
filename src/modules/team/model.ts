import { t, type Static } from "elysia";
import type { MemberRow } from "../../db/teams.ts";
import { iso } from "../../ids.ts";
import { Nullable, nullableString } from "../../http/schemas.ts";

export const TeamData = t.Object({
  id: t.String(),
  name: t.String(),
  plan: t.String({ examples: ["free"] }),
  tier: t.Number(),
  verified_at: Nullable(t.String({ format: "date-time" })),
  created_at: t.String({ format: "date-time" }),
  features: t.Array(t.String()),
  addons: t.Array(t.Object({ type: t.String(), expires_at: t.String() })),
  domains_count: t.Integer(),
  projects_count: t.Integer(),
  members_count: t.Integer(),
});
export type TeamData = Static<typeof TeamData>;

export const TeamUser = t.Object({ id: t.String(), name: t.String(), email: t.String(), avatar: Nullable(t.String()) });

export const TeamMemberData = t.Object({
  id: t.String({ description: "Team member ID (used in PUT /v1/projects/{projectId}/members)" }),
  role: t.String(),
  joined_at: t.String({ format: "date-time" }),
  created_at: t.String({ format: "date-time" }),
  user: TeamUser,
});
export type TeamMemberData = Static<typeof TeamMemberData>;

export const TEAM_NAME_MAX = 255;
export const UpdateTeamBody = t.Object({
  name: t.Optional(nullableString("name", { maxLength: TEAM_NAME_MAX, description: "New team name; null or absent leaves it unchanged" })),
});

export const serializeMember = (r: MemberRow): TeamMemberData => ({
  id: r.id,
  role: r.role,
  joined_at: iso(r.joined_at)!,
  created_at: iso(r.created_at)!,
  user: { id: r.user_id, name: r.user_name, email: r.user_email, avatar: r.user_avatar },
});
