import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { errorResponses } from "../../http/schemas.ts";
import { DeliverabilityParams, DmarcOverviewSchema, PeriodQuery, TlsOverviewSchema } from "./model.ts";
import { dmarcOverview, tlsOverview } from "./service.ts";

const security = [{ teamToken: [] }];

/** What receivers report about a sending domain's mail: DMARC aggregate and TLS reports (docs/deliverability.md). */
export const deliverabilityController = (deps: Deps) =>
  new Elysia({ tags: ["Deliverability"] })
    .use(authPlugin(deps))
    .get("/v1/domains/:domainId/deliverability/dmarc", ({ team, params, query }) => dmarcOverview(deps, team.teamId, params.domainId, query), {
      team: true,
      permission: "domains:read",
      params: DeliverabilityParams,
      query: PeriodQuery,
      response: { 200: DmarcOverviewSchema, ...errorResponses(401, 404, 422) },
      detail: {
        summary: "DMARC pass rates of a domain per day and reporter, Posthorn's addresses apart from other sources, with advice (from and to: UTC days, default the last 30)",
        security,
      },
    })
    .get("/v1/domains/:domainId/deliverability/tls", ({ team, params, query }) => tlsOverview(deps, team.teamId, params.domainId, query), {
      team: true,
      permission: "domains:read",
      params: DeliverabilityParams,
      query: PeriodQuery,
      response: { 200: TlsOverviewSchema, ...errorResponses(401, 404, 422) },
      detail: { summary: "TLS reports (RFC 8460) of a domain per day and reporter, and failed sessions per receiving MX with their result types", security },
    });
