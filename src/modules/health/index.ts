import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { ErrorBody, errorResponses } from "../../http/schemas.ts";
import { metricsText } from "./service.ts";

/** Liveness, Prometheus metrics and the token check. */
export const healthController = (deps: Deps) =>
  new Elysia({ tags: ["Health"] })
    .use(authPlugin(deps))
    .get(
      "/healthz",
      async () => {
        // 503 (DatabaseUnavailableError) while the database cannot be reached: a load balancer stops sending here.
        await deps.store.ping();
        return { status: "ok" as const };
      },
      {
        detail: { summary: "Liveness check (no auth); 503 while the database cannot be reached", security: [] },
        response: { 200: t.Object({ status: t.Literal("ok") }), 503: ErrorBody },
      },
    )
    .get("/metrics", async ({ set }) => {
      set.headers["content-type"] = "text/plain; version=0.0.4";
      return await metricsText(deps);
    }, { detail: { summary: "Prometheus metrics (no auth)", security: [] }, response: t.String() })
    .get(
      "/v1/ping",
      ({ principal }) => ({
        message: "pong",
        token_type: principal.kind,
        team_id: principal.teamId,
        project_id: principal.kind === "project" ? principal.projectId : null,
      }),
      {
        anyToken: true,
        detail: { summary: "Check a team or project token", security: [{ teamToken: [] }, { projectToken: [] }] },
        response: {
          200: t.Object({
            message: t.String(),
            token_type: t.Union([t.Literal("team"), t.Literal("project")]),
            team_id: t.String(),
            project_id: t.Union([t.String(), t.Null()]),
          }),
          ...errorResponses(401),
        },
      },
    );
