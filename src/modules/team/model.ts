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
  // Lettermint's TeamData beside the spec's fields.
  type: t.Literal("business", {
    description: "Lettermint's team type (personal or business): a Posthorn team is always business, a team of members an operator set up",
  }),
  included_volume: t.Integer({
    minimum: 0,
    description: "Lettermint's monthly volume included in the plan: Posthorn has no plans that include or cap a volume, always 0",
  }),
});
export type TeamData = Static<typeof TeamData>;

export const TeamUser = t.Object({ id: t.String(), name: t.String(), email: t.String(), avatar: Nullable(t.String()) });

/** A member as the spec shows it (ProjectTeamMember, TeamMemberData), and its status. */
export const ProjectTeamMember = t.Object({
  id: t.String({ description: "Team member ID (used in PUT /v1/projects/{projectId}/members)" }),
  role: t.String(),
  joined_at: Nullable(t.String({ format: "date-time", description: "When the member accepted the invitation; null while it is pending" })),
  created_at: t.String({ format: "date-time" }),
  user: TeamUser,
  status: t.Union([t.Literal("active"), t.Literal("pending")], {
    description: "pending: invited, not yet accepted (no access to the team, not counted in members_count); active: a member",
  }),
});
export type ProjectTeamMember = Static<typeof ProjectTeamMember>;

/** Which projects a member may work on (Lettermint's TeamMemberProjectAccessData). */
export const ProjectAccess = t.Object(
  {
    scope: t.Union([t.Literal("all"), t.Literal("selected")]),
    projects: t.Array(t.Object({ id: t.String(), name: t.String() }), { description: "The projects of a selected scope; empty for all" }),
  },
  {
    description:
      "all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment",
  },
);

/** Every member may work on every project of the team. */
export const allProjects = () => ({ scope: "all" as const, projects: [] as { id: string; name: string }[] });

/**
 * A team member: the spec's TeamMemberData, and beside it Lettermint's name, email and
 * project_access. role stays the spec's string (the SDK declares an object {id, name}: the spec wins).
 */
export const TeamMemberData = t.Object({
  ...ProjectTeamMember.properties,
  name: t.String({ description: "= user.name" }),
  email: t.String({ description: "= user.email" }),
  project_access: ProjectAccess,
});
export type TeamMemberData = Static<typeof TeamMemberData>;

export const TEAM_NAME_MAX = 255;
export const UpdateTeamBody = t.Object({
  name: t.Optional(nullableString("name", { maxLength: TEAM_NAME_MAX, description: "New team name; null or absent leaves it unchanged" })),
});

/**
 * Whether the team may see the user's profile (name, avatar): yes once they are a member, or when
 * they exist through this team's invitation alone. A user invited who already had an account keeps
 * it to themselves until they accept: the inviting team learns nothing another team, or the user,
 * gave it (docs/security.md, "Identities shared across teams").
 */
const profileShown = (r: Pick<MemberRow, "status" | "invitation_kind">) => r.status === "active" || r.invitation_kind === "password";

/** The user as a team sees them; until accepted, an existing user's name is their address's local part. */
export const memberUser = (r: { status: MemberRow["status"]; invitation_kind?: MemberRow["invitation_kind"]; user_id: string; user_name: string; user_email: string; user_avatar: string | null }) =>
  profileShown(r)
    ? { id: r.user_id, name: r.user_name, email: r.user_email, avatar: r.user_avatar }
    : { id: r.user_id, name: r.user_email.split("@")[0]!, email: r.user_email, avatar: null };

/** A member as a project lists it (the spec's ProjectTeamMember). */
export const serializeMember = (r: MemberRow): ProjectTeamMember => ({
  id: r.id,
  role: r.role,
  joined_at: r.status === "pending" ? null : iso(r.joined_at)!,
  created_at: iso(r.created_at)!,
  user: memberUser(r),
  status: r.status,
});

/**
 * A member as the team lists it: the spec's fields, and Lettermint's beside them. `projects`: the
 * names of the member's selected projects (null: all of the team's).
 */
export const serializeTeamMember = (r: MemberRow, projects: { id: string; name: string }[] | null = null): TeamMemberData => {
  const m = serializeMember(r);
  return { ...m, name: m.user.name, email: m.user.email, project_access: projects === null ? allProjects() : { scope: "selected", projects } };
};

export const InviteMemberBody = t.Object({
  // Any address with one @ (a team on a private server may well sign in as owner@localhost).
  email: t.String({ pattern: "^[^\\s@]+@[^\\s@]+$", minLength: 3, maxLength: 254, error: "The email field must be a valid email address of at most 254 characters." }),
  name: t.Optional(t.String({ minLength: 1, maxLength: 255, error: "The name field must be a string of 1 to 255 characters." })),
  role: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 64,
      error: "The role field must be a role id of GET /v1/team/roles.",
      description: "A role id of GET /v1/team/roles: owner, admin, member (built in) or a custom role's id. Default member. Only an owner may invite an owner (409 owner_protected)",
    }),
  ),
});

export const PermissionName = t.String({ minLength: 1, maxLength: 64, description: "One of the service's permission names (RbacPermission), e.g. domains:manage" });

/** Lettermint's TeamRoleData: a built-in role (system_key) or a custom one (system_key null). */
export const TeamRoleData = t.Object({
  id: t.String({ description: "owner, admin and member for the built-in roles; a custom role's id" }),
  name: t.String(),
  system_key: Nullable(t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")])),
  permissions: t.Array(t.String()),
  assignable: t.Boolean({ description: "Whether the caller may give this role to a member: the owner role only an owner may give" }),
});
export type TeamRoleData = Static<typeof TeamRoleData>;

export const RoleBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, error: "The name field must be a string of 1 to 100 characters." }),
  permissions: t.Array(PermissionName, { maxItems: 100, error: "The permissions field must be an array of permission names." }),
});

export const UpdateRoleBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 100, error: "The name field must be a string of 1 to 100 characters." })),
  permissions: t.Optional(t.Array(PermissionName, { maxItems: 100, error: "The permissions field must be an array of permission names." })),
});

/** Lettermint's UpdateTeamMemberAssignmentData. */
export const AssignmentBody = t.Object({
  role_id: t.String({ minLength: 1, maxLength: 64, error: "The role_id field must be a role id of GET /v1/team/roles." }),
  project_access: t.Object({
    scope: oneOf("project_access.scope", ["all", "selected"] as const),
    project_ids: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 1000, description: "The projects of scope selected (at least one); absent or empty for all" })),
  }),
});


export const InvitedMember = t.Object({
  data: TeamMemberData,
  password_url: Nullable(
    t.String({
      description:
        "For an address that has no account on this server: a one-time link (7 days) where the invited user sets a password, which accepts this invitation; shown once. null when the address has an account already (see invitation_url)",
    }),
  ),
  invitation_url: Nullable(
    t.String({
      description:
        "For an address that has an account already (a member of, or invited to, another team): a one-time link (7 days) the user opens signed in as themselves to accept; shown once. null when password_url is given",
    }),
  ),
  message: t.String(),
});

/** A named team token as listed: never its secret. */
export const TeamTokenData = t.Object({
  id: t.String(),
  name: t.String(),
  role_id: Nullable(t.String({ description: "The role whose permissions the token has (they follow the role's changes); null when it has its own permissions" })),
  permissions: t.Array(t.String(), { description: "What the token may do now: its role's permissions, or its own" }),
  project_access: ProjectAccess,
  expires_at: Nullable(t.String({ format: "date-time", description: "After this the token is refused (401); null: it does not expire" })),
  created_at: t.String({ format: "date-time" }),
  rotated_at: t.String({ format: "date-time", description: "When its current secret was made" }),
  last_used_at: Nullable(t.String({ format: "date-time" })),
  last_used_ip: Nullable(t.String()),
});
export type TeamTokenData = Static<typeof TeamTokenData>;

export const CreateTokenBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, error: "The name field must be a string of 1 to 100 characters." }),
  role_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "A role of GET /v1/team/roles; or give permissions instead" })),
  permissions: t.Optional(t.Array(PermissionName, { maxItems: 100, description: "The token's own permission names; or give role_id instead" })),
  project_ids: t.Optional(
    t.Array(t.String({ maxLength: 64 }), { maxItems: 1000, description: "Only these projects of the team (everything of another is a 404 to the token); absent or empty: all" }),
  ),
  expires_at: t.Optional(t.String({ format: "date-time", error: "The expires_at field must be an ISO 8601 date-time in the future.", description: "When the token stops working; absent: never" })),
});

/** A token's secret, shown once: on creation and on rotation. */
export const TokenSecret = t.Object({
  data: TeamTokenData,
  token: t.String({ description: "The token (ph_team_…), for Authorization: Bearer; shown here only, stored as its SHA-256" }),
  message: t.String(),
});
