import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { Envelope, errorResponses, IdParams, MessageBody } from "../../http/schemas.ts";
import { InvitedMember, InviteMemberBody, TeamData, TeamMemberData, UpdateTeamBody } from "./model.ts";
import { getTeamData, getTeamMember, inviteMember, listTeamMembers, removeMember, updateTeam } from "./service.ts";

const security = [{ teamToken: [] }];

/** The caller's team: read, rename, list members, read one, invite and remove. */
export const teamController = (deps: Deps) =>
  new Elysia({ tags: ["Team"] })
    .use(authPlugin(deps))
    .get("/v1/team", ({ team }) => getTeamData(deps, team.teamId), {
      team: true,
      detail: { summary: "Get the team", security },
      response: { 200: TeamData, ...errorResponses(401) },
    })
    .put(
      "/v1/team",
      async ({ team, body }) => ({ data: await updateTeam(deps, team.teamId, body), message: "Team settings updated successfully." }),
      {
        team: true,
        body: UpdateTeamBody,
        detail: { summary: "Update team settings (name only)", security },
        response: { 200: Envelope(TeamData), ...errorResponses(401, 422) },
      },
    )
    .get(
      "/v1/team/members",
      async ({ team, query }) => {
        const { page, data, size } = await listTeamMembers(deps, team.teamId, { sort: query.sort, query });
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/team/members", query, size });
      },
      {
        team: true,
        query: t.Object({ ...PageQuery, sort: t.Optional(t.String({ maxLength: 200, description: "created_at, joined_at, role; - for descending; default -created_at" })) }),
        detail: { summary: "List team members", security },
        response: { 200: Paginated(TeamMemberData), ...errorResponses(401, 422) },
      },
    )
    .get("/v1/team/members/:memberId", ({ team, params }) => getTeamMember(deps, team.teamId, params.memberId), {
      team: true,
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
        body: InviteMemberBody,
        detail: {
          summary: "Invite a team member (owners only)",
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
        params: IdParams("memberId", "Team member"),
        detail: { summary: "Remove a team member (owners only); their sessions in this team end. A pending member's invitation is revoked (its link stops working)", security },
        response: { 200: MessageBody, ...errorResponses(401, 403, 404, 409) },
      },
    );
