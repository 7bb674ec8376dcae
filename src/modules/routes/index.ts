import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { PageQuery, Paginated, pageBody } from "../../http/pagination.ts";
import { ValidationError } from "../../errors.ts";
import { Envelope, errorResponses, IdParams, MessageBody, nullsToAbsent, parseInclude, requireObjects } from "../../http/schemas.ts";
import { CreateRouteBody, ROUTE_INCLUDES, RouteData, UPDATE_ROUTE_SETTING_KEYS, UpdateRouteBody } from "./model.ts";
import { createRoute, deleteRoute, getRouteData, listProjectRoutes, updateRoute } from "./service.ts";

const security = [{ teamToken: [] }];
const routeParams = IdParams("routeId", "Route");
const projectParams = IdParams("projectId", "Project");
const inboundSettingsIsObject = requireObjects("inbound_settings");
const settingsIsObject = requireObjects("settings");

/**
 * A key of `settings` that is no route setting is a 422 (settings.<key>), not dropped: a client
 * that sends a setting gets it or hears why not. Seen in `transform`, before the schema cleans the
 * object; raised in `beforeHandle`, after authentication.
 */
function knownSettingsOnly() {
  const wrong = new WeakMap<Request, ValidationError>();
  return {
    transform({ body, request }: { body: unknown; request: Request }): void {
      const settings = body && typeof body === "object" ? (body as Record<string, unknown>).settings : undefined;
      if (!settings || typeof settings !== "object" || Array.isArray(settings)) return;
      const unknown = Object.keys(settings).filter((k) => !UPDATE_ROUTE_SETTING_KEYS.includes(k));
      if (unknown.length === 0) return;
      const errors = Object.fromEntries(unknown.map((k) => [`settings.${k}`, [`The settings.${k} field is not a route setting (known: ${UPDATE_ROUTE_SETTING_KEYS.join(", ")}).`]]));
      wrong.set(request, new ValidationError(errors));
    },
    beforeHandle({ request }: { request: Request }): void {
      const error = wrong.get(request);
      if (error) throw error;
    },
  };
}
const settingsKnown = knownSettingsOnly();

/**
 * Routes: create and list under a project, read/update/delete by id.
 * (POST /v1/routes/{routeId}/verify-inbound-domain lives with the DNS checks in modules/domains.)
 */
export const routesController = (deps: Deps) =>
  new Elysia({ tags: ["Routes"] })
    .use(authPlugin(deps))
    .post(
      "/v1/projects/:projectId/routes",
      async ({ team, params, body, set }) => {
        const data = await createRoute(deps, team.teamId, params.projectId, body);
        set.status = 201;
        return { data, message: "Route created successfully." };
      },
      {
        team: true,
        permission: "routes:manage",
        params: projectParams,
        transform: [settingsIsObject.transform, settingsKnown.transform, nullsToAbsent("settings")],
        beforeHandle: [settingsIsObject.beforeHandle, settingsKnown.beforeHandle],
        body: CreateRouteBody,
        detail: { summary: "Create a route in a project (response nests the project)", security },
        response: { 201: Envelope(RouteData), ...errorResponses(401, 404, 409, 422) },
      },
    )
    .get(
      "/v1/projects/:projectId/routes",
      async ({ team, params, query }) => {
        const { page, data, size } = await listProjectRoutes(deps, team.teamId, params.projectId, { sort: query.sort, query });
        return pageBody(page, data, { publicUrl: deps.config.publicUrl, path: `/v1/projects/${params.projectId}/routes`, query, size });
      },
      {
        team: true,
        permission: "routes:read",
        params: projectParams,
        query: t.Object({ ...PageQuery, sort: t.Optional(t.String({ maxLength: 200, description: "created_at, name, slug; - for descending; default -created_at" })) }),
        detail: { summary: "List a project's routes", security },
        response: { 200: Paginated(RouteData), ...errorResponses(401, 404, 422) },
      },
    )
    .get(
      "/v1/routes/:routeId",
      ({ team, params, query }) => getRouteData(deps, team.teamId, params.routeId, parseInclude(query.include, ROUTE_INCLUDES)),
      {
        team: true,
        permission: "routes:read",
        params: routeParams,
        query: t.Object({
          include: t.Optional(t.String({ maxLength: 200, description: `Comma-separated: ${ROUTE_INCLUDES.join(", ")}` })),
        }),
        detail: { summary: "Get a route", security },
        response: { 200: RouteData, ...errorResponses(401, 404, 422) },
      },
    )
    .put(
      "/v1/routes/:routeId",
      async ({ team, params, body }) => ({ data: await updateRoute(deps, team.teamId, params.routeId, body), message: "Route updated successfully." }),
      {
        team: true,
        permission: "routes:manage",
        params: routeParams,
        transform: [inboundSettingsIsObject.transform, settingsIsObject.transform, settingsKnown.transform, nullsToAbsent("inbound_settings", "settings")],
        beforeHandle: [inboundSettingsIsObject.beforeHandle, settingsIsObject.beforeHandle, settingsKnown.beforeHandle],
        body: UpdateRouteBody,
        detail: { summary: "Update a route (name, settings, inbound settings)", security },
        response: { 200: Envelope(RouteData), ...errorResponses(401, 404, 409, 422) },
      },
    )
    .delete(
      "/v1/routes/:routeId",
      async ({ team, params }) => {
        await deleteRoute(deps, team.teamId, params.routeId);
        return { message: "Route deleted successfully." };
      },
      {
        team: true,
        permission: "routes:delete",
        params: routeParams,
        detail: {
          summary: "Delete a route",
          description:
            "Deletes its webhooks (with their deliveries) and route-scoped suppressions; its messages stay with route_id set to null. Default routes cannot be deleted (409).",
          security,
        },
        response: { 200: MessageBody, ...errorResponses(401, 404, 409) },
      },
    );
