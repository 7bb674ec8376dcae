import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { Envelope, errorResponses, IdParams, MessageBody } from "../../http/schemas.ts";
import { CreatedProject, CreateProjectBody, ProjectData, ProjectMembersBody, RotatedToken, UpdateProjectBody } from "./model.ts";
import {
  createTeamProject,
  deleteProject,
  getProjectData,
  listProjects,
  rotateTeamProjectToken,
  setProjectMembers,
  updateProject,
} from "./service.ts";

const security = [{ teamToken: [] }];
const params = IdParams("projectId", "Project");

/** Projects of the caller's team. Their routes are under the routes controller. */
export const projectsController = (deps: Deps) =>
  new Elysia({ tags: ["Projects"] })
    .use(authPlugin(deps))
    .get(
      "/v1/projects",
      async ({ team, query }) => {
        const { page, data, size } = await listProjects(deps, team.teamId, { sort: query.sort, query });
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/projects", query, size });
      },
      {
        team: true,
        permission: "projects:read",
        query: t.Object({ ...PageQuery, sort: t.Optional(t.String({ maxLength: 200, description: "created_at, name; - for descending; default -created_at" })) }),
        detail: { summary: "List projects", security },
        response: { 200: Paginated(ProjectData), ...errorResponses(401, 422) },
      },
    )
    .post(
      "/v1/projects",
      async ({ team, body, set }) => {
        const { data, token } = await createTeamProject(deps, team.teamId, body);
        set.status = 201;
        return { data, token, api_token: token, message: "Project created successfully." };
      },
      {
        team: true,
        permission: "projects:create",
        body: CreateProjectBody,
        detail: { summary: "Create a project (with one default route of each type); returns its sending token once", security },
        response: { 201: CreatedProject, ...errorResponses(401, 422) },
      },
    )
    .get("/v1/projects/:projectId", ({ team, params }) => getProjectData(deps, team.teamId, params.projectId), {
      team: true,
      permission: "projects:read",
      params,
      detail: { summary: "Get a project", security },
      response: { 200: ProjectData, ...errorResponses(401, 404) },
    })
    .put(
      "/v1/projects/:projectId",
      async ({ team, params, body, authenticator }) => {
        const data = await updateProject(deps, team.teamId, params.projectId, body);
        // smtp_enabled is part of what the token's principal carries.
        authenticator.forget(params.projectId);
        return { data, message: "Project updated successfully." };
      },
      {
        team: true,
        permission: "projects:manage",
        params,
        body: UpdateProjectBody,
        detail: { summary: "Update a project (name, smtp_enabled)", security },
        response: { 200: Envelope(ProjectData), ...errorResponses(401, 404, 422) },
      },
    )
    .put(
      "/v1/projects/:projectId/members",
      async ({ team, params, body }) => ({
        data: await setProjectMembers(deps, team.teamId, params.projectId, body.team_member_ids),
        message: "Project members updated successfully.",
      }),
      {
        team: true,
        permission: "members:manage",
        params,
        body: ProjectMembersBody,
        detail: { summary: "Replace the project's members with the given team members", security },
        response: { 200: Envelope(ProjectData), ...errorResponses(401, 404, 422) },
      },
    )
    .post(
      "/v1/projects/:projectId/rotate-token",
      async ({ team, params, authenticator }) => {
        const { data, token } = await rotateTeamProjectToken(deps, team.teamId, params.projectId);
        // The old token stops working at once, and the new one's first use is stamped.
        authenticator.forget(params.projectId);
        return {
          data,
          new_token: token,
          message: "API token rotated successfully. Please update your integrations.",
        };
      },
      {
        team: true,
        permission: "project_tokens:rotate",
        params,
        detail: { summary: "Rotate the project sending token (the old one stops working at once)", security },
        response: { 200: RotatedToken, ...errorResponses(401, 404) },
      },
    )
    .delete(
      "/v1/projects/:projectId",
      async ({ team, params, authenticator }) => {
        await deleteProject(deps, team.teamId, params.projectId);
        authenticator.forget(params.projectId);
        return { message: "Project deleted successfully." };
      },
      {
        team: true,
        permission: "projects:delete",
        params,
        detail: {
          summary: "Delete a project",
          description:
            "Deletes its routes, their webhooks and deliveries, project- and route-scoped suppressions, domain attachments, members and idempotency keys. Messages stay, with project_id and route_id set to null; mail already accepted is still delivered.",
          security,
        },
        response: { 200: MessageBody, ...errorResponses(401, 404) },
      },
    );
