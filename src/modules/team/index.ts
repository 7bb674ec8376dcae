import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { Envelope, errorResponses, IdParams, MessageBody } from "../../http/schemas.ts";
import { InvitedMember, InviteMemberBody, TeamData, TeamMemberData, UpdateTeamBody } from "./model.ts";
import { getTeamData, inviteMember, listTeamMembers, removeMember, updateTeam } from "./service.ts";

const security = [{ teamToken: [] }];

/** The caller's team: read, rename, list members. */
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
    .post(
      "/v1/team/members",
      async ({ team, body, set }) => {
        const { data, passwordUrl } = await inviteMember(deps, team, body);
        set.status = 201;
        return { data, password_url: passwordUrl, message: passwordUrl ? "Member invited. Give them the password link; it is shown once." : "Member added; they sign in with their password." };
      },
      {
        team: true,
        body: InviteMemberBody,
        detail: {
          summary: "Invite a team member (owners only)",
          description: "Adds the address to the team. A new user gets password_url, a one-time link (7 days) to set a password in the dashboard, shown here only; a user who has a password already (another team's member) signs in with it.",
          security,
        },
        response: { 201: InvitedMember, ...errorResponses(401, 403, 409, 422) },
      },
    )
    .delete(
      "/v1/team/members/:memberId",
      async ({ team, params }) => {
        await removeMember(deps, team, params.memberId);
        return { message: "Team member removed." };
      },
      {
        team: true,
        params: IdParams("memberId", "Team member"),
        detail: { summary: "Remove a team member (owners only); their sessions in this team end", security },
        response: { 200: MessageBody, ...errorResponses(401, 403, 404, 409) },
      },
    );
