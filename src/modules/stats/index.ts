import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { projectsOf } from "../../http/project-scope.ts";
import { ValidationError } from "../../errors.ts";
import { errorResponses } from "../../http/schemas.ts";
import { AnalyticsQuery, AnalyticsResponse, StatsData, StatsQuery, TeamUsageDetail } from "./model.ts";
import { ANALYTICS_MAX_DAYS, getStats, getTeamUsage, queryAnalytics, STATS_MAX_DAYS } from "./service.ts";

const security = [{ teamToken: [] }];

/** Fields the schema would drop silently: refused instead, by name (a field sent is honoured or refused). */
function knownFieldsOnly() {
  const wrong = new WeakMap<Request, ValidationError>();
  const extra = (v: unknown, known: readonly string[], at: string) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).filter((k) => !known.includes(k)).map((k) => `${at}${k}`) : [];
  return {
    transform({ body, request }: { body: unknown; request: Request }): void {
      const b = body as Record<string, unknown> | null;
      const unknown = [
        ...extra(b, Object.keys(AnalyticsQuery.properties), ""),
        ...extra(b?.sort, ["metric", "direction"], "sort."),
        ...(Array.isArray(b?.filters) ? b.filters.flatMap((f, i) => extra(f, ["dimension", "operator", "values"], `filters.${i}.`)) : []),
      ];
      if (unknown.length > 0) wrong.set(request, new ValidationError(Object.fromEntries(unknown.map((k) => [k, [`The ${k} field is not part of an analytics query.`]]))));
    },
    beforeHandle({ request }: { request: Request }): void {
      const error = wrong.get(request);
      if (error) throw error;
    },
  };
}
const analyticsKnown = knownFieldsOnly();

/** Statistics, usage and analytics, read from the rollups (docs/statistics.md). */
export const statsController = (deps: Deps) =>
  new Elysia({ tags: ["Statistics"] })
    .use(authPlugin(deps))
    .get("/v1/stats", ({ team, query }) => getStats(deps, team.teamId, query, projectsOf(team.access)), {
      team: true,
      permission: "stats:read",
      query: StatsQuery,
      detail: {
        summary: "Message statistics per day",
        description: `Daily rows and totals for from..to (dates, inclusive, at most ${STATS_MAX_DAYS} days): sent, delivered, hard bounces, complaints, opens and clicks by verdict (people, privacy proxies, machines), inbound received; transactional and broadcast apart when project_id is given.`,
        security,
      },
      response: { 200: StatsData, ...errorResponses(401, 404, 422) },
    })
    .get("/v1/team/usage", ({ team }) => getTeamUsage(deps, team.teamId, Date.now(), projectsOf(team.access)), {
      team: true,
      permission: "stats:read",
      detail: { summary: "Messages accepted per calendar month", description: "This month (UTC) and the 12 before, newest first.", security },
      response: { 200: TeamUsageDetail, ...errorResponses(401) },
    })
    .post("/v1/analytics", ({ team, body }) => queryAnalytics(deps, team.teamId, body, Date.now(), projectsOf(team.access)), {
      team: true,
      permission: "analytics:read",
      ...analyticsKnown,
      body: AnalyticsQuery,
      detail: {
        summary: "Query analytics",
        description: `Metrics over a window of at most ${ANALYTICS_MAX_DAYS} days, as a summary, a time series and a breakdown by up to three dimensions, optionally compared with the period before. Unknown metrics and dimensions are refused with a 422 naming them.`,
        security,
      },
      response: { 200: AnalyticsResponse, ...errorResponses(401, 404, 422) },
    });
