import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { projectsOf } from "../../http/project-scope.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { Envelope, errorResponses, IdParams, MessageBody } from "../../http/schemas.ts";
import { CreateTokenBody, TeamTokenData, TokenSecret } from "./model.ts";
import { createToken, listTokens, revokeToken, rotateToken } from "./tokens.ts";
import { AssignmentBody, InvitedMember, InviteMemberBody, RoleBody, TeamData, TeamMemberData, TeamRoleData, UpdateRoleBody, UpdateTeamBody } from "./model.ts";
import { createRole, deleteRole, listRoles, updateAssignment, updateRole } from "./roles.ts";
import { getTeamData, getTeamMember, inviteMember, listTeamMembers, removeMember, updateTeam } from "./service.ts";

const security = [{ teamToken: [] }];

/** The caller's team: read, rename, list members, read one, invite and remove; roles and each member's role and projects. */
export const teamController = (deps: Deps) =>
  new Elysia({ tags: ["Team"] })
    .use(authPlugin(deps))
    .get("/v1/team", ({ team }) => getTeamData(deps, team.teamId), {
      team: true,
      permission: "members:read",
      detail: { summary: "Get the team", security },
      response: { 200: TeamData, ...errorResponses(401) },
    })
    .put(
      "/v1/team",
      async ({ team, body }) => ({ data: await updateTeam(deps, team.teamId, body), message: "Team settings updated successfully." }),
      {
        team: true,
        permission: "team:manage",
        body: UpdateTeamBody,
        detail: { summary: "Update team settings (name only)", security },
        response: { 200: Envelope(TeamData), ...errorResponses(401, 422) },
      },
    )
    .get(
      "/v1/team/members",
      async ({ team, query }) => {
        const { page, data, size } = await listTeamMembers(deps, team.teamId, { sort: query.sort, query }, projectsOf(team.access));
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/team/members", query, size });
      },
      {
        team: true,
        permission: "members:read",
        query: t.Object({ ...PageQuery, sort: t.Optional(t.String({ maxLength: 200, description: "created_at, joined_at, role; - for descending; default -created_at" })) }),
        detail: { summary: "List team members", security },
        response: { 200: Paginated(TeamMemberData), ...errorResponses(401, 422) },
      },
    )
    .get("/v1/team/members/:memberId", ({ team, params }) => getTeamMember(deps, team.teamId, params.memberId, projectsOf(team.access)), {
      team: true,
      permission: "members:read",
      params: IdParams("memberId", "Team member (or their user's)"),
      detail: {
        summary: "Get a team member",
        description:
          "TeamMemberData directly (as Lettermint's team.member reads it), active or pending. The path takes the member's id (the list's id) or their user's id (user.id); a member of another team is a 404 like an unknown id.",
        security,
      },
      response: { 200: TeamMemberData, ...errorResponses(401, 404, 422) },
    })
    .post(
      "/v1/team/members",
      async ({ team, body, set }) => {
        const { data, passwordUrl, invitationUrl } = await inviteMember(deps, team, body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return {
          data,
          password_url: passwordUrl,
          invitation_url: invitationUrl,
          message: passwordUrl
            ? "Member invited. Give them the password link; it is shown once, and setting the password accepts the invitation."
            : "Member invited. Give them the invitation link; it is shown once, and they accept it signed in with their own password.",
        };
      },
      {
        team: true,
        permission: "members:manage",
        body: InviteMemberBody,
        detail: {
          summary: "Invite a team member",
          description:
            "Adds the address as a pending member (status pending, joined_at null), who has no access to the team until the invitation is accepted. An address with no account on this server gets password_url, a one-time link (7 days) to set a password in the dashboard, which accepts the invitation. An address that has an account already (a member of, or invited to, another team) gets invitation_url instead: a one-time link (7 days) the user opens signed in with their own password to accept (POST /v1/auth/invitations/accept); no team can set or learn the password of an account another team shares. Both links are shown here only. Inviting a pending member again replaces the invitation (the earlier link stops working); an active member is a 409.",
          security,
        },
        response: { 201: InvitedMember, ...errorResponses(401, 403, 409, 422) },
      },
    )
    .delete(
      "/v1/team/members/:memberId",
      async ({ team, params }) => {
        const removed = await removeMember(deps, team, params.memberId);
        return { message: removed === "pending" ? "Invitation revoked." : "Team member removed." };
      },
      {
        team: true,
        permission: "members:manage",
        params: IdParams("memberId", "Team member"),
        detail: {
          summary:
            "Remove a team member; their sessions in this team end. A pending member's invitation is revoked (its link stops working). Only an owner removes an owner (409 owner_protected); the last owner stays (409 last_owner)",
          security,
        },
        response: { 200: MessageBody, ...errorResponses(401, 403, 404, 409) },
      },
    )
    .get("/v1/team/roles", async ({ team }) => ({ data: await listRoles(deps, team) }), {
      team: true,
      permission: "members:read",
      detail: {
        summary: "List the team's roles",
        description:
          "Lettermint's TeamRoleData: the built-in roles owner, admin and member (system_key; ids equal to it, never changed) and the team's custom roles (system_key null), each with its permissions. docs/access.md lists what the built-in roles may do.",
        security,
      },
      response: { 200: t.Object({ data: t.Array(TeamRoleData) }), ...errorResponses(401, 403) },
    })
    .post(
      "/v1/team/roles",
      async ({ team, body, set }) => {
        const data = await createRole(deps, team, body);
        set.status = 201;
        return { data, message: "Role created." };
      },
      {
        team: true,
        permission: "roles:manage",
        body: RoleBody,
        detail: {
          summary: "Create a custom role",
          description:
            "A name unique in the team and the service's permission names (an unknown name is a 422 naming it). Nobody grants a permission they do not have themselves (403 missing_permission).",
          security,
        },
        response: { 201: Envelope(TeamRoleData), ...errorResponses(401, 403, 409, 422) },
      },
    )
    .put(
      "/v1/team/roles/:roleId",
      async ({ team, params, body }) => ({ data: await updateRole(deps, team, params.roleId, body), message: "Role updated." }),
      {
        team: true,
        permission: "roles:manage",
        params: IdParams("roleId", "Role"),
        body: UpdateRoleBody,
        detail: {
          summary: "Rename a custom role or replace its permissions",
          description:
            "Members holding the role have its new permissions on their next request. A built-in role is a 409 built_in_role_immutable; another team's role a 404.",
          security,
        },
        response: { 200: Envelope(TeamRoleData), ...errorResponses(401, 403, 404, 409, 422) },
      },
    )
    .delete(
      "/v1/team/roles/:roleId",
      async ({ team, params }) => {
        await deleteRole(deps, team, params.roleId);
        return { message: "Role deleted." };
      },
      {
        team: true,
        permission: "roles:manage",
        params: IdParams("roleId", "Role"),
        detail: {
          summary: "Delete a custom role",
          description: "409 built_in_role_immutable for a built-in role; 409 stale_resource while members still hold it (give them another role first).",
          security,
        },
        response: { 200: MessageBody, ...errorResponses(401, 403, 404, 409) },
      },
    )
    .put(
      "/v1/team/members/:memberId/assignment",
      ({ team, params, body }) => updateAssignment(deps, team, params.memberId, body),
      {
        team: true,
        permission: "members:manage",
        params: IdParams("memberId", "Team member (or their user's)"),
        body: AssignmentBody,
        detail: {
          summary: "Set a member's role and project access",
          description:
            "Lettermint's TeamMembersAssignmentUpdateRequest; answers TeamMemberData directly. role_id: a role of GET /v1/team/roles (else 422). project_access: scope all, or selected with the project_ids the member works on (each a project of the team, else 422); an owner always works on every project. 409 owner_protected when someone who is no owner changes an owner or gives the owner role; 409 last_owner when the team's last owner would lose the role. The member's sessions have the new role and projects on their next request.",
          security,
        },
        response: { 200: TeamMemberData, ...errorResponses(401, 403, 404, 409, 422) },
      },
    )
    .get("/v1/team/tokens", async ({ team }) => ({ data: await listTokens(deps, team) }), {
      team: true,
      permission: "team_tokens:read",
      detail: {
        summary: "List the team's named API tokens (never their secrets)",
        description: "Each with its role or permissions, its projects, its expiry and its last use (time and IP). The team's own token (ph_team_ of team creation) is not listed: it is an owner's token.",
        security,
      },
      response: { 200: t.Object({ data: t.Array(TeamTokenData) }), ...errorResponses(401, 403) },
    })
    .post(
      "/v1/team/tokens",
      async ({ team, body, set }) => {
        const { data, token } = await createToken(deps, team, body);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { data, token, message: "Token created. It is shown here only; keep it now." };
      },
      {
        team: true,
        permission: "team_tokens:manage",
        body: CreateTokenBody,
        detail: {
          summary: "Create a named API token",
          description:
            "A name, and either role_id (the token has the role's permissions, following its changes) or permissions (its own); project_ids limits it to those projects (everything of another is a 404 to it), expires_at to a time (then 401). The token is answered once and stored as its SHA-256. Nobody makes a token that may do more than they may (403 missing_permission; a member with selected projects names some of theirs).",
          security,
        },
        response: { 201: TokenSecret, ...errorResponses(401, 403, 409, 422) },
      },
    )
    .post(
      "/v1/team/tokens/:tokenId/rotate",
      async ({ team, params, authenticator, set }) => {
        const { data, token } = await rotateToken(deps, team, params.tokenId);
        authenticator.forget(data.id);
        set.headers["cache-control"] = "no-store";
        return { data, token, message: "Token rotated. The old secret no longer works; the new one is shown here only." };
      },
      {
        team: true,
        permission: "team_tokens:rotate",
        params: IdParams("tokenId", "Token"),
        detail: { summary: "Rotate a named token: a new secret, the old one refused at once", security },
        response: { 200: TokenSecret, ...errorResponses(401, 403, 404) },
      },
    )
    .delete(
      "/v1/team/tokens/:tokenId",
      async ({ team, params, authenticator }) => {
        authenticator.forget(await revokeToken(deps, team, params.tokenId));
        return { message: "Token revoked." };
      },
      {
        team: true,
        permission: "team_tokens:revoke",
        params: IdParams("tokenId", "Token"),
        detail: { summary: "Revoke a named token: refused at once (401)", security },
        response: { 200: MessageBody, ...errorResponses(401, 403, 404) },
      },
    );
