import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { errorResponses, IdParams } from "../../http/schemas.ts";
import { WarmupData, WarmupRequest } from "./model.ts";
import { putWarmup, warmupOf } from "./service.ts";

const security = [{ teamToken: [] }];
const params = IdParams("domainId", "Domain");

/** A sending domain's warm-up: daily caps that grow on a schedule (docs/deliverability.md, Warm-up). */
export const warmupController = (deps: Deps) =>
  new Elysia({ tags: ["Deliverability"] })
    .use(authPlugin(deps))
    .get("/v1/domains/:domainId/warmup", ({ team, params }) => warmupOf(deps, team.teamId, params.domainId), {
      team: true,
      permission: "domains:read",
      params,
      response: { 200: WarmupData, ...errorResponses(401, 404) },
      detail: { summary: "A domain's warm-up: schedule, today's cap and count, held mail, each day so far", security },
    })
    .put("/v1/domains/:domainId/warmup", ({ team, params, body }) => putWarmup(deps, team.teamId, params.domainId, body), {
      team: true,
      permission: "domains:manage",
      params,
      body: WarmupRequest,
      response: { 200: WarmupData, ...errorResponses(401, 404, 422) },
      detail: {
        summary: "Turn a domain's warm-up on or off",
        description:
          "While on, the recipients the domain's mail is first attempted for per UTC day are capped by the schedule; mail beyond the cap stays queued and goes the next day (broadcast routes may use 90 % of a day's cap). Past the schedule's last day the domain is uncapped.",
        security,
      },
    });
