import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin, bearer, clientIp, trustedProxies, type IpServer } from "../../http/auth.ts";
import { ErrorBody, errorResponses } from "../../http/schemas.ts";
import { metricsAllowed, metricsText } from "./service.ts";

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
    .get("/metrics", async ({ set, request, server }) => {
      metricsAllowed(deps.config, request, clientIp(server as IpServer, request, trustedProxies(deps.config)), bearer(request.headers.get("authorization")));
      set.headers["content-type"] = "text/plain; version=0.0.4";
      return await metricsText(deps);
    }, {
      detail: {
        summary: "Prometheus metrics (loopback and private networks, or POSTHORN_METRICS_TOKEN)",
        description: "Every team's mail figures by route: answered to clients on loopback and private networks, or to any with `Authorization: Bearer` POSTHORN_METRICS_TOKEN when it is set (else 401); without the token, other clients get a 403.",
        security: [],
      },
      response: { 200: t.String(), ...errorResponses(401, 403) },
    })
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
