import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { Envelope, errorResponses } from "../../http/schemas.ts";
import { TeamData, TeamMemberData, UpdateTeamBody } from "./model.ts";
import { getTeamData, listTeamMembers, updateTeam } from "./service.ts";

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
    );
