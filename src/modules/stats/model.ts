import { t, type Static } from "elysia";
import { UUID_PATTERN } from "../../ids.ts";
import { Nullable } from "../../http/schemas.ts";

const DATE_DESCRIPTION = "A calendar date, YYYY-MM-DD (UTC), inclusive";

export const StatsQuery = t.Object({
  from: t.String({ description: DATE_DESCRIPTION, error: "The from field is required and must be a date (YYYY-MM-DD)." }),
  to: t.String({ description: DATE_DESCRIPTION, error: "The to field is required and must be a date (YYYY-MM-DD)." }),
  project_id: t.Optional(t.String({ pattern: UUID_PATTERN, error: "The project_id field must be a valid UUID.", description: "Only this project's mail; also gives transactional and broadcast apart" })),
  include_machine: t.Optional(
    t.Union([t.Literal("true"), t.Literal("false"), t.Literal("1"), t.Literal("0")], {
      error: "The include_machine field must be true or false.",
      description: "Count machine and privacy-proxy opens and clicks in opened and clicked too",
    }),
  ),
});
export type StatsQuery = Static<typeof StatsQuery>;

const StatsInbound = t.Object({ received: t.Integer() });
const StatsType = t.Object({ sent: t.Integer(), hard_bounced: t.Integer(), spam_complaints: t.Integer() });

const statsFigures = {
  sent: t.Integer({ description: "Recipients handed to delivery (first attempts)" }),
  delivered: t.Integer(),
  hard_bounced: t.Integer(),
  spam_complaints: t.Integer(),
  opened: Nullable(t.Integer({ description: "Recipients who opened (people's first opens; with include_machine, machines' and privacy proxies' too); null without open tracking" })),
  clicked: Nullable(t.Integer({ description: "Recipients who clicked, likewise; null without click tracking" })),
  inbound: StatsInbound,
  transactional: Nullable(StatsType),
  broadcast: Nullable(StatsType),
  observed_opened: Nullable(t.Integer({ description: "human_opened + privacy_opened" })),
  human_opened: Nullable(t.Integer()),
  privacy_opened: Nullable(t.Integer({ description: "First opens by a mail provider's image proxy (Apple Mail Privacy Protection, Google's proxy)" })),
  effective_opened: Nullable(t.Integer({ description: "= human_opened" })),
  machine_opened: Nullable(t.Integer({ description: "First opens by other machines (scanners, link checkers)" })),
  machine_clicked: Nullable(t.Integer({ description: "First clicks by machines, privacy proxies included" })),
};

export const StatsDaily = t.Object({ date: t.String({ description: "YYYY-MM-DD (UTC)" }), ...statsFigures });
export const StatsTotals = t.Object(statsFigures);
export const StatsData = t.Object({ from: t.String(), to: t.String(), totals: StatsTotals, daily: t.Array(StatsDaily) });
export type StatsData = Static<typeof StatsData>;
export type StatsFigures = Static<typeof StatsTotals>;

export const TeamUsagePeriod = t.Object({
  usage: t.Integer({ description: "Outbound messages accepted in the period" }),
  last_incremented_at: Nullable(t.String({ format: "date-time" })),
  period_start: t.String({ format: "date-time" }),
  period_end: t.String({ format: "date-time" }),
});
export const TeamUsageDetail = t.Object({ current_period: TeamUsagePeriod, historical_usage: t.Array(TeamUsagePeriod, { description: "The 12 calendar months before, newest first" }) });
export type TeamUsagePeriod = Static<typeof TeamUsagePeriod>;

const AnalyticsFilter = t.Object(
  {
    dimension: t.String({ maxLength: 100 }),
    operator: t.String({ maxLength: 20 }),
    values: t.Optional(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);

/** Checked field by field in the service (unknown metrics and dimensions are named in the 422). */
export const AnalyticsQuery = t.Object(
  {
    metrics: t.Array(t.String({ maxLength: 100 }), { minItems: 1, maxItems: 50, error: "The metrics field is required: an array of 1 to 50 metric names." }),
    from: t.Optional(t.String({ maxLength: 40 })),
    to: t.Optional(t.String({ maxLength: 40 })),
    timezone: t.Optional(t.String({ maxLength: 64 })),
    include: t.Optional(t.Array(t.String({ maxLength: 20 }), { maxItems: 3 })),
    group_by: t.Optional(t.Array(t.String({ maxLength: 100 }), { maxItems: 3, error: "The group_by field takes up to three dimensions." })),
    filters: t.Optional(t.Array(AnalyticsFilter, { maxItems: 20 })),
    interval: t.Optional(t.String({ maxLength: 10 })),
    compare: t.Optional(t.String({ maxLength: 30 })),
    include_trend: t.Optional(t.Boolean()),
    sort: t.Optional(t.Object({ metric: t.String({ maxLength: 100 }), direction: t.String({ maxLength: 4 }) }, { additionalProperties: false })),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, error: "The limit field must be an integer from 1 to 200." })),
    cursor: t.Optional(t.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type AnalyticsQuery = Static<typeof AnalyticsQuery>;

const Values = t.Record(t.String(), Nullable(t.Number()));
const RateBases = t.Record(t.String(), t.Object({ numerator: Nullable(t.Number()), denominator: Nullable(t.Number()) }));
const Change = t.Record(t.String(), t.Object({ absolute: t.Optional(Nullable(t.Number())), relative: t.Optional(Nullable(t.Number())), percentage_points: t.Optional(Nullable(t.Number())) }));
const Previous = t.Object({ metrics: Values, rate_bases: RateBases });
const Point = t.Object({
  metrics: Values,
  rate_bases: RateBases,
  from: t.String(),
  to: t.String(),
  available: t.Boolean(),
  partial: t.Boolean(),
});
export const AnalyticsResponse = t.Object({
  data: t.Object({
    summary: t.Optional(t.Object({ metrics: Values, rate_bases: RateBases, previous: t.Optional(Previous), change: t.Optional(Change) })),
    time_series: t.Optional(t.Array(Point)),
    breakdown: t.Optional(
      t.Array(
        t.Object({
          metrics: Values,
          rate_bases: RateBases,
          dimensions: t.Record(t.String(), Nullable(t.String())),
          previous: t.Optional(Previous),
          change: t.Optional(Change),
          trend: t.Optional(t.Array(Point)),
        }),
      ),
    ),
  }),
  meta: t.Object({
    time_basis: t.String(),
    timezone: t.String(),
    interval: t.String(),
    from: t.String(),
    to: t.String(),
    effective_to: t.String(),
    alignment: t.String(),
    generated_at: t.String(),
    available_since: t.String(),
    partial: t.Boolean(),
    ongoing: t.Boolean(),
    collection_completeness: t.String(),
    last_ingested_at: Nullable(t.String()),
    metric_definition_version: t.String(),
    ranked_group_limit: t.Integer(),
    comparison: t.Optional(t.Object({ from: t.String(), to: t.String(), partial: t.Boolean() })),
  }),
  pagination: t.Object({ total_groups: t.Integer(), returned_groups: t.Integer(), next_cursor: t.Null(), truncated: t.Boolean() }),
});
export type AnalyticsResponse = Static<typeof AnalyticsResponse>;
