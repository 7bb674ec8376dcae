import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { Paginated, pageBody } from "../../http/pagination.ts";
import { errorResponses, IdParams, nullsToAbsent } from "../../http/schemas.ts";
import { CreateSuppressionsBody, DeleteSuppressionResult, CreateSuppressionsResult, SuppressionData, SuppressionListQuery } from "./model.ts";
import { createSuppressions, deleteSuppression, listSuppressions } from "./service.ts";

const security = [{ teamToken: [] }];

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Suppression lists: add (one address or up to 1000), list, lift. */
export const suppressionsController = (deps: Deps) =>
  new Elysia({ tags: ["Suppressions"] })
    .use(authPlugin(deps))
    .post(
      "/v1/suppressions",
      async ({ team, body, set }) => {
        const data = await createSuppressions(deps, team.teamId, body);
        set.status = 201;
        return { message: `${plural(data.created.length, "suppression")} created, ${data.skipped.length} skipped.`, data };
      },
      {
        team: true,
        permission: "suppressions:add",
        transform: nullsToAbsent("email", "emails", "route_id", "project_id", "type", "value", "values"),
        body: CreateSuppressionsBody,
        detail: {
          summary: "Suppress addresses for the team, a project or a route",
          description:
            "Give email, emails (1–1000) or both. Addresses already suppressed in that scope, or listed twice, are returned in data.skipped with the reason; the rest in data.created.",
          security,
        },
        response: { 201: CreateSuppressionsResult, ...errorResponses(401, 422) },
      },
    )
    .get(
      "/v1/suppressions",
      async ({ team, query }) => {
        const { page, data, size } = await listSuppressions(deps, team.teamId, query);
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: "/v1/suppressions", query, size });
      },
      {
        team: true,
        permission: "suppressions:read",
        query: SuppressionListQuery,
        detail: { summary: "List suppressions", security },
        response: { 200: Paginated(SuppressionData), ...errorResponses(401, 422) },
      },
    )
    .delete(
      "/v1/suppressions/:suppressionId",
      async ({ team, params }) => {
        await deleteSuppression(deps, team.teamId, params.suppressionId);
        return { message: "Suppression deleted successfully.", success: true as const, status: "removed" as const };
      },
      {
        team: true,
        permission: "suppressions:remove",
        params: IdParams("suppressionId", "Suppression"),
        detail: { summary: "Delete (lift) a suppression", security },
        response: { 200: DeleteSuppressionResult, ...errorResponses(401, 404) },
      },
    );
