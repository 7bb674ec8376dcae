import { t, type Static } from "elysia";
import type { MemberRow } from "../../db/teams.ts";
import { iso } from "../../ids.ts";
import { Nullable, nullableString, oneOf } from "../../http/schemas.ts";

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

export const MEMBER_ROLES = ["owner", "member"] as const;

export const InviteMemberBody = t.Object({
  // Any address with one @ (a team on a private server may well sign in as owner@localhost).
  email: t.String({ pattern: "^[^\\s@]+@[^\\s@]+$", minLength: 3, maxLength: 254, error: "The email field must be a valid email address of at most 254 characters." }),
  name: t.Optional(t.String({ minLength: 1, maxLength: 255, error: "The name field must be a string of 1 to 255 characters." })),
  role: t.Optional(oneOf("role", MEMBER_ROLES, "owner: may invite and remove members; member: everything else. Default member")),
});

export const InvitedMember = t.Object({
  data: TeamMemberData,
  password_url: Nullable(
    t.String({ description: "A one-time link (7 days) where the new member sets a password; shown once. null when the user already has a password (a member of another team)" }),
  ),
  message: t.String(),
});
