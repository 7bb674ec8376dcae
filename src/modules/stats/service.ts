/**
 * Statistics (docs/statistics.md): GET /v1/stats, GET /v1/team/usage and POST /v1/analytics, all
 * read from the rollups (src/db/stats.ts), never from the messages table.
 */
import type { Deps } from "../../context.ts";
import { DAY_MS, HOUR_DIMENSIONS, HOUR_MS, statsRetentionDays, TAG_DIMENSIONS, type StatDimension, type StatFilter, type StatRow } from "../../db/stats.ts";
import { TAG_NAME } from "../../sending/validation.ts";
import { ACCEPT_COUNTERS, LATENCY_COLUMNS, latencyBucketValue } from "../../db/stat-columns.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import type { AnalyticsQuery, AnalyticsResponse, StatsData, StatsFigures, StatsQuery, TeamUsagePeriod } from "./model.ts";

type Ctx = Pick<Deps, "store" | "config">;

/** The longest window of GET /v1/stats, and of POST /v1/analytics (Lettermint's maximum). */
export const STATS_MAX_DAYS = 366;
export const ANALYTICS_MAX_DAYS = 90;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const iso = (ms: number) => new Date(ms).toISOString();
const dateOf = (ms: number) => iso(ms).slice(0, 10);

/** A calendar date's UTC midnight (ms), or null when it is not one. */
function parseDate(s: string): number | null {
  const m = DATE.exec(s);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dateOf(ms) === s ? ms : null;
}

async function checkProject(deps: Ctx, teamId: string, projectId: string): Promise<void> {
  if (!(await deps.store.read.stats.projectOfTeam(projectId.toLowerCase(), teamId))) throw new NotFoundError("Project");
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/**
 * The projects a member or token limited to selected projects is counted over (docs/access.md):
 * null for the whole team. An empty list (its projects were deleted) matches no project.
 */
export type ProjectLimit = readonly string[] | null;
const NO_PROJECT = "~none~";
const limitFilter = (projects: ProjectLimit): StatFilter[] =>
  projects === null ? [] : [{ column: "project_id", operator: "in", values: projects.length > 0 ? [...projects] : [NO_PROJECT] }];

// ---------------------------------------------------------------------------------------------
// GET /v1/stats

const STATS_COLUMNS = [
  "sent",
  "delivered",
  "hard_bounced",
  "complained",
  "open_tracked_delivered",
  "click_tracked_delivered",
  "opens_human_unique",
  "opens_privacy_unique",
  "opens_machine_unique",
  "clicks_human_unique",
  "clicks_privacy_unique",
  "clicks_machine_unique",
  "inbound_received",
];

type Sums = Record<string, number>;

/** Daily rows (every day of the window, zeros included) and totals, from the daily rollups. */
export async function getStats(deps: Ctx, teamId: string, q: StatsQuery, projects: ProjectLimit = null): Promise<StatsData> {
  const from = parseDate(q.from);
  const to = parseDate(q.to);
  const errors: Record<string, string[]> = {};
  if (from === null) errors.from = ["The from field must be a date (YYYY-MM-DD)."];
  if (to === null) errors.to = ["The to field must be a date (YYYY-MM-DD)."];
  if (from !== null && to !== null) {
    if (to < from) errors.to = ["The to field must be a date after or equal to from."];
    else if ((to - from) / DAY_MS + 1 > STATS_MAX_DAYS) errors.to = [`The window from from to to must be at most ${STATS_MAX_DAYS} days.`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (q.project_id) await checkProject(deps, teamId, q.project_id);
  const includeMachine = q.include_machine === "true" || q.include_machine === "1";
  // A project named is one of the member's (checked by src/http/project-scope.ts); else the figures of all of theirs.
  const filters: StatFilter[] = q.project_id ? [{ column: "project_id", operator: "eq", values: [q.project_id.toLowerCase()] }] : limitFilter(projects);
  const rows = await deps.store.read.stats.query({
    teamId,
    from: from!,
    to: to! + DAY_MS,
    // Whole days by message type: the day rows by provider (stat_provider_days), a third of stat_hours' rows.
    grain: "day",
    bucketMs: DAY_MS,
    groupBy: ["message_type"],
    filters,
    columns: STATS_COLUMNS,
  });
  const byDay = new Map<number, Map<string, Sums>>();
  for (const r of rows) {
    const day = num(r.bucket);
    let types = byDay.get(day);
    if (!types) byDay.set(day, (types = new Map()));
    const sums: Sums = {};
    for (const c of STATS_COLUMNS) sums[c] = num(r[c]);
    types.set(String(r.message_type ?? ""), sums);
  }
  const all = [...byDay.values()].flatMap((m) => [...m.values()]);
  const tracked = {
    opens: all.some((s) => s.open_tracked_delivered! + s.opens_human_unique! + s.opens_privacy_unique! + s.opens_machine_unique! > 0),
    clicks: all.some((s) => s.click_tracked_delivered! + s.clicks_human_unique! + s.clicks_privacy_unique! + s.clicks_machine_unique! > 0),
  };
  const opts = { includeMachine, byType: q.project_id !== undefined, tracked };
  const daily: StatsData["daily"] = [];
  const total = new Map<string, Sums>();
  for (let d = from!; d <= to!; d += DAY_MS) {
    const types = byDay.get(d) ?? new Map<string, Sums>();
    for (const [type, s] of types) total.set(type, add(total.get(type), s));
    daily.push({ date: dateOf(d), ...figures(types, opts) });
  }
  return { from: q.from, to: q.to, totals: figures(total, opts), daily };
}

function add(a: Sums | undefined, b: Sums): Sums {
  const out: Sums = { ...(a ?? {}) };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

function figures(types: Map<string, Sums>, o: { includeMachine: boolean; byType: boolean; tracked: { opens: boolean; clicks: boolean } }): StatsFigures {
  let s: Sums = {};
  for (const v of types.values()) s = add(s, v);
  const g = (k: string) => s[k] ?? 0;
  const type = (name: string) => {
    const t = types.get(name);
    return { sent: t?.sent ?? 0, hard_bounced: t?.hard_bounced ?? 0, spam_complaints: t?.complained ?? 0 };
  };
  const human = g("opens_human_unique");
  const privacy = g("opens_privacy_unique");
  const machine = g("opens_machine_unique");
  const clicksMachine = g("clicks_machine_unique") + g("clicks_privacy_unique");
  return {
    sent: g("sent"),
    delivered: g("delivered"),
    hard_bounced: g("hard_bounced"),
    spam_complaints: g("complained"),
    opened: o.tracked.opens ? human + (o.includeMachine ? privacy + machine : 0) : null,
    clicked: o.tracked.clicks ? g("clicks_human_unique") + (o.includeMachine ? clicksMachine : 0) : null,
    inbound: { received: g("inbound_received") },
    transactional: o.byType ? type("transactional") : null,
    broadcast: o.byType ? type("broadcast") : null,
    observed_opened: human + privacy,
    human_opened: human,
    privacy_opened: privacy,
    effective_opened: human,
    machine_opened: machine,
    machine_clicked: clicksMachine,
  };
}

// ---------------------------------------------------------------------------------------------
// GET /v1/team/usage

/**
 * Outbound messages accepted per calendar month (UTC): this month, and the 12 before, newest first.
 * With `projects`, those projects' messages only (a member limited to selected projects).
 */
export async function getTeamUsage(
  deps: Ctx,
  teamId: string,
  now = Date.now(),
  projects: ProjectLimit = null,
): Promise<{ current_period: TeamUsagePeriod; historical_usage: TeamUsagePeriod[] }> {
  const d = new Date(now);
  const monthStart = (back: number) => Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1);
  const oldest = monthStart(12);
  const rows = await deps.store.read.stats.query({ table: "accepts", teamId, from: oldest, to: monthStart(-1), grain: "day", bucketMs: DAY_MS, groupBy: [], filters: limitFilter(projects), columns: ["accepted"] });
  const periods: TeamUsagePeriod[] = [];
  for (let back = 0; back <= 12; back++) {
    const start = monthStart(back);
    const end = monthStart(back - 1);
    const usage = rows.filter((r) => num(r.bucket) >= start && num(r.bucket) < end).reduce((n, r) => n + num(r.accepted), 0);
    const last = usage > 0 ? await deps.store.read.stats.lastOutboundAt(teamId, start, end, projects) : null;
    periods.push({ usage, last_incremented_at: last === null ? null : iso(Number(last)), period_start: iso(start), period_end: iso(end - 1000) });
  }
  return { current_period: periods[0]!, historical_usage: periods.slice(1) };
}

// ---------------------------------------------------------------------------------------------
// POST /v1/analytics

/** Metrics that are sums of counters. */
const SUMS: Record<string, readonly string[]> = {
  messages: ["accepted"],
  accepted: ["recipients"],
  processed: ["sent"],
  sent: ["sent"],
  delivered: ["delivered"],
  soft_bounced: ["soft_bounced"],
  deferred_events: ["soft_bounced"],
  bounced: ["hard_bounced"],
  hard_bounced: ["hard_bounced"],
  failed: ["failed"],
  suppressed: ["suppressed"],
  complained: ["complained"],
  unsubscribed: ["unsubscribed"],
  delivery_attempts: ["sent", "retried"],
  transport_outcome_recipients: ["delivered", "hard_bounced", "failed"],
  open_tracked_delivered: ["open_tracked_delivered"],
  click_tracked_delivered: ["click_tracked_delivered"],
  inbound_received: ["inbound_received"],
  inbound_quarantined: ["inbound_rejected"],
  policy_rejected: ["inbound_rejected"],
  delivery_latency_samples: LATENCY_COLUMNS,
};
for (const kind of ["opens", "clicks"]) {
  for (const cls of ["human", "privacy", "machine"]) {
    SUMS[`${cls}_${kind}`] = [`${kind}_${cls}_unique`];
    SUMS[`${cls}_${kind}_events`] = [`${kind}_${cls}`];
  }
  SUMS[`observed_${kind}`] = [`${kind}_human_unique`, `${kind}_privacy_unique`];
  SUMS[`observed_${kind}_events`] = [`${kind}_human`, `${kind}_privacy`];
}

/** Rates: numerator / denominator, both sums (null when the denominator is 0). */
const RATES: Record<string, [string, string]> = {
  delivery_rate: ["delivered", "transport_outcome_recipients"],
  bounce_rate: ["bounced", "transport_outcome_recipients"],
  deferral_rate: ["deferred_events", "delivery_attempts"],
  complaint_rate: ["complained", "delivered"],
  human_open_rate: ["human_opens", "open_tracked_delivered"],
  human_click_rate: ["human_clicks", "click_tracked_delivered"],
};

/** Delivery latency percentiles (acceptance to the 250), read from the histogram. */
const LATENCY: Record<string, number> = {
  delivery_latency_p50_ms: 0.5,
  delivery_latency_p90_ms: 0.9,
  delivery_latency_p95_ms: 0.95,
  delivery_latency_p99_ms: 0.99,
};

export const ANALYTICS_METRICS = [...Object.keys(SUMS), ...Object.keys(RATES), ...Object.keys(LATENCY)];

/** API dimension → rollup column. */
const DIMENSIONS: Record<string, StatDimension> = {
  project_id: "project_id",
  route_id: "route_id",
  message_type: "message_type",
  sending_domain: "sending_domain",
  provider_family: "provider",
  tag: "tag",
  bounce_classification: "bounce_class",
  enhanced_status_code: "enhanced_code",
};
export const ANALYTICS_DIMENSIONS = [...Object.keys(DIMENSIONS), "day", "hour"];
/** A name-value tag as a dimension: `tag:<name>`, its values (stat_tag_days). */
const TAG_PREFIX = "tag:";
const isTagDimension = (d: string) => d.startsWith(TAG_PREFIX);
/** The dimensions a `tag:<name>` dimension combines with (those stat_tag_days has). */
const TAG_COMBINES = Object.keys(DIMENSIONS).filter((d) => (TAG_DIMENSIONS as readonly string[]).includes(DIMENSIONS[d]!));
/** How the known dimensions read in a 422. */
const KNOWN_DIMENSIONS = `${ANALYTICS_DIMENSIONS.join(", ")}, tag:<name>`;
const OPERATORS = ["eq", "in", "not_in", "is_null", "is_not_null"];
const SECTIONS = ["summary", "time_series", "breakdown"];

/** The counter columns a set of metrics reads. */
function columnsOf(metrics: readonly string[]): string[] {
  const cols = new Set<string>();
  const need = (m: string) => {
    if (SUMS[m]) for (const c of SUMS[m]!) cols.add(c);
    else if (RATES[m]) RATES[m]!.forEach(need);
    else if (LATENCY[m] !== undefined) for (const c of LATENCY_COLUMNS) cols.add(c);
  };
  metrics.forEach(need);
  return [...cols];
}

type Values = Record<string, number | null>;
type Bases = Record<string, { numerator: number | null; denominator: number | null }>;

function sumOf(row: StatRow | undefined, metric: string): number {
  return (SUMS[metric] ?? []).reduce((n, c) => n + num(row?.[c]), 0);
}

function percentile(row: StatRow | undefined, p: number): number | null {
  const counts = LATENCY_COLUMNS.map((c) => num(row?.[c]));
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(p * total));
  let seen = 0;
  for (let k = 0; k < counts.length; k++) {
    seen += counts[k]!;
    if (seen >= rank) return latencyBucketValue(k);
  }
  return null;
}

function valuesOf(row: StatRow | undefined, metrics: readonly string[]): { metrics: Values; rate_bases: Bases } {
  const values: Values = {};
  const bases: Bases = {};
  for (const m of metrics) {
    if (SUMS[m]) values[m] = sumOf(row, m);
    else if (RATES[m]) {
      const [n, d] = RATES[m]!;
      const numerator = sumOf(row, n);
      const denominator = sumOf(row, d);
      values[m] = denominator === 0 ? null : numerator / denominator;
      bases[m] = { numerator, denominator };
    } else values[m] = percentile(row, LATENCY[m]!);
  }
  return { metrics: values, rate_bases: bases };
}

function changeOf(cur: Values, prev: Values): Record<string, { absolute: number | null; relative: number | null; percentage_points?: number | null }> {
  const out: Record<string, { absolute: number | null; relative: number | null; percentage_points?: number | null }> = {};
  for (const [m, v] of Object.entries(cur)) {
    const p = prev[m] ?? null;
    const absolute = v === null || p === null ? null : v - p;
    out[m] = { absolute, relative: absolute === null || !p ? null : absolute / p };
    if (RATES[m]) out[m]!.percentage_points = absolute === null ? null : absolute * 100;
  }
  return out;
}

/** A window bound: a calendar date (from: its start; to: inclusive, so its end) or an RFC 3339 instant (to: exclusive). */
function parseBound(s: string, end: boolean): number | null {
  const day = parseDate(s);
  if (day !== null) return end ? day + DAY_MS : day;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s)) return null;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : null;
}

/** Answers an analytics query (Lettermint's AnalyticsQuery) from the rollups. */
export async function queryAnalytics(deps: Ctx, teamId: string, q: AnalyticsQuery, now = Date.now(), projects: ProjectLimit = null): Promise<AnalyticsResponse> {
  const errors: Record<string, string[]> = {};
  const err = (field: string, message: string) => (errors[field] ??= []).push(message);

  const unknownMetrics = q.metrics.filter((m) => !ANALYTICS_METRICS.includes(m));
  if (unknownMetrics.length > 0) err("metrics", `Unknown metrics: ${unknownMetrics.join(", ")}. Known: ${ANALYTICS_METRICS.join(", ")}.`);
  const groupBy = q.group_by ?? [];
  const unknownDims = groupBy.filter((d) => !ANALYTICS_DIMENSIONS.includes(d) && !isTagDimension(d));
  if (unknownDims.length > 0) err("group_by", `Unknown dimensions: ${unknownDims.join(", ")}. Known: ${KNOWN_DIMENSIONS}.`);
  // Name-value tags: `tag:<name>`, one name per query (group_by and filters), by day, beside project, route and type only.
  const tagNames = new Set<string>();
  const tagDimension = (field: string, d: string): StatDimension | undefined => {
    const name = d.slice(TAG_PREFIX.length);
    if (!TAG_NAME.test(name)) {
      err(field, `Unknown dimension: ${d}. A tag dimension is tag:<name>, the name 1 to 32 ASCII letters, digits, underscores or hyphens.`);
      return undefined;
    }
    tagNames.add(name);
    return "tag_value";
  };
  for (const d of groupBy) if (isTagDimension(d)) tagDimension("group_by", d);
  if (new Set(groupBy).size !== groupBy.length) err("group_by", "A dimension is listed twice.");
  if (groupBy.includes("day") && groupBy.includes("hour")) err("group_by", "Group by day or by hour, not both.");
  const include = q.include ?? ["summary"];
  const badSections = include.filter((s) => !SECTIONS.includes(s));
  if (badSections.length > 0) err("include", `Unknown sections: ${badSections.join(", ")}. Known: ${SECTIONS.join(", ")}.`);
  if (include.includes("breakdown") !== groupBy.length > 0) err("group_by", "breakdown in include requires group_by, and group_by requires breakdown.");
  if (q.include_trend && !include.includes("breakdown")) err("include_trend", "include_trend requires breakdown and group_by.");
  const interval = q.interval ?? "day";
  if (interval !== "day" && interval !== "hour") err("interval", "The interval field must be day or hour.");
  if (q.timezone !== undefined && q.timezone !== "UTC") err("timezone", "Only UTC is supported: the rollups are kept by UTC hour and day.");
  if (q.compare !== undefined && q.compare !== "previous_period") err("compare", "The compare field must be previous_period.");
  if (q.cursor !== undefined) err("cursor", "No cursor was issued: every group up to limit is returned at once.");
  if (q.sort) {
    if (!q.metrics.includes(q.sort.metric)) err("sort.metric", "The sort metric must be one of the selected metrics.");
    if (q.sort.direction !== "asc" && q.sort.direction !== "desc") err("sort.direction", "The sort direction must be asc or desc.");
  }
  const filters: StatFilter[] = [];
  for (const [i, f] of (q.filters ?? []).entries()) {
    const column = isTagDimension(f.dimension) ? tagDimension(`filters.${i}.dimension`, f.dimension) : DIMENSIONS[f.dimension];
    if (!column && !isTagDimension(f.dimension)) err(`filters.${i}.dimension`, `Unknown dimension: ${f.dimension}. Known: ${Object.keys(DIMENSIONS).join(", ")}, tag:<name>.`);
    if (!OPERATORS.includes(f.operator)) err(`filters.${i}.operator`, `The operator must be one of: ${OPERATORS.join(", ")}.`);
    const values = f.values ?? [];
    if (f.operator === "eq" && values.length !== 1) err(`filters.${i}.values`, "eq takes exactly one value.");
    if ((f.operator === "in" || f.operator === "not_in") && values.length === 0) err(`filters.${i}.values`, `${f.operator} takes one or more values.`);
    if ((f.operator === "is_null" || f.operator === "is_not_null") && values.length > 0) err(`filters.${i}.values`, `${f.operator} takes no values.`);
    if (values.some((v) => v === "")) err(`filters.${i}.values`, "A value must not be empty.");
    if (isTagDimension(f.dimension) && f.operator === "is_null") err(`filters.${i}.operator`, "A tag dimension counts the messages that carry the tag; is_null would match none of them.");
    if (column) filters.push({ column, operator: f.operator as StatFilter["operator"], values: column === "project_id" || column === "route_id" ? values.map((v) => v.toLowerCase()) : values });
  }

  const tagName = tagNames.size > 0 ? [...tagNames][0]! : undefined;
  const columnOf = (d: string): StatDimension => (isTagDimension(d) ? "tag_value" : DIMENSIONS[d]!);
  // The window: both ends required, from before to, at most ANALYTICS_MAX_DAYS once aligned.
  const dims = [...groupBy.filter((d) => d !== "day" && d !== "hour").map(columnOf), ...filters.map((f) => f.column)].filter(Boolean);
  const columns = columnsOf(q.metrics);
  const acceptCols = columns.filter((c) => (ACCEPT_COUNTERS as readonly string[]).includes(c));
  const mainCols = columns.filter((c) => !acceptCols.includes(c));
  if (tagNames.size > 1) err("group_by", `One tag name per query: ${[...tagNames].map((n) => TAG_PREFIX + n).join(", ")}.`);
  if (tagName !== undefined) {
    const apart = [...groupBy.filter((d) => d !== "day" && d !== "hour" && !isTagDimension(d) && !TAG_COMBINES.includes(d)), ...(q.filters ?? []).map((f) => f.dimension).filter((d) => !isTagDimension(d) && DIMENSIONS[d] && !TAG_COMBINES.includes(d))];
    if (apart.length > 0) err("group_by", `A tag dimension combines with ${TAG_COMBINES.join(", ")} and day only, not with ${[...new Set(apart)].join(", ")}.`);
    if (acceptCols.length > 0) err("metrics", "messages and accepted are not counted by name-value tag (their counters are kept by the single tag).");
  }
  const daily = dims.filter((d) => !(HOUR_DIMENSIONS as readonly string[]).includes(d));
  const grain: "hour" | "day" = daily.length === 0 && acceptCols.length === 0 ? "hour" : "day";
  if (grain === "day" && (interval === "hour" || groupBy.includes("hour"))) {
    const why = [...(daily.length > 0 ? [`${[...new Set(daily)].map((c) => (c === "tag_value" ? `${TAG_PREFIX}${tagName}` : c)).join(", ")} is kept by day`] : []), ...(acceptCols.length > 0 ? ["messages and accepted are counted by day"] : [])];
    err("interval", `Hourly figures are kept by project, route and message type only: ${why.join("; ")}.`);
  }
  if (q.from === undefined) err("from", "The from field is required: a date (YYYY-MM-DD) or an RFC 3339 instant.");
  if (q.to === undefined) err("to", "The to field is required: a date (YYYY-MM-DD, inclusive) or an RFC 3339 instant (exclusive).");
  const rawFrom = q.from === undefined ? null : parseBound(q.from, false);
  const rawTo = q.to === undefined ? null : parseBound(q.to, true);
  if (q.from !== undefined && rawFrom === null) err("from", "The from field must be a date (YYYY-MM-DD) or an RFC 3339 instant.");
  if (q.to !== undefined && rawTo === null) err("to", "The to field must be a date (YYYY-MM-DD) or an RFC 3339 instant.");
  const unit = grain === "hour" ? HOUR_MS : DAY_MS;
  const from = rawFrom === null ? 0 : rawFrom - (((rawFrom % unit) + unit) % unit);
  const to = rawTo === null ? 0 : Math.ceil(rawTo / unit) * unit;
  if (rawFrom !== null && rawTo !== null) {
    if (rawTo <= rawFrom) err("to", "The to field must be after from.");
    else if (to - from > ANALYTICS_MAX_DAYS * DAY_MS) err("to", `The window must be at most ${ANALYTICS_MAX_DAYS} days.`);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  for (const f of filters) {
    if (f.column === "project_id" && (f.operator === "eq" || f.operator === "in")) {
      for (const v of f.values) {
        // Another project than the member's: a 404, as another team's.
        if (projects !== null && !projects.includes(v)) throw new NotFoundError("Project");
        await checkProject(deps, teamId, v);
      }
    }
  }
  filters.push(...limitFilter(projects));

  const read = deps.store.read.stats;
  const bucketMs = interval === "hour" ? HOUR_MS : DAY_MS;
  const timeGroup = groupBy.includes("hour") ? HOUR_MS : groupBy.includes("day") ? DAY_MS : null;
  const groupCols = groupBy.filter((d) => d !== "day" && d !== "hour").map(columnOf);
  /** The sums of both tables a query reads (the counters', and stat_accepts' for messages and accepted), rows merged by bucket and group. */
  const sums = async (p: { from: number; to: number; bucketMs: number | null; groupBy: StatDimension[] }): Promise<StatRow[]> => {
    const main = mainCols.length > 0 ? await read.query({ teamId, grain, filters, columns: mainCols, tagName, ...p }) : [];
    if (acceptCols.length === 0) return main;
    const accepts = await read.query({ table: "accepts", teamId, grain: "day", filters, columns: acceptCols, ...p });
    const keyOf = (r: StatRow) => JSON.stringify([p.bucketMs === null ? null : num(r.bucket), ...p.groupBy.map((c) => r[c] ?? "")]);
    const merged = new Map(main.map((r) => [keyOf(r), r]));
    for (const r of accepts) {
      const into = merged.get(keyOf(r));
      if (into) for (const c of acceptCols) into[c] = r[c] ?? null;
      else merged.set(keyOf(r), r);
    }
    return [...merged.values()];
  };
  const compare = q.compare === "previous_period";
  const prevFrom = from - (to - from);

  const data: AnalyticsResponse["data"] = {};
  if (include.includes("summary")) {
    const [cur] = await sums({ from, to, bucketMs: null, groupBy: [] });
    const summary: NonNullable<AnalyticsResponse["data"]["summary"]> = valuesOf(cur, q.metrics);
    if (compare) {
      const [prev] = await sums({ from: prevFrom, to: from, bucketMs: null, groupBy: [] });
      summary.previous = valuesOf(prev, q.metrics);
      summary.change = changeOf(summary.metrics, summary.previous.metrics);
    }
    data.summary = summary;
  }
  const points = (rows: StatRow[]) => {
    const at = new Map(rows.map((r) => [num(r.bucket), r]));
    const out: NonNullable<AnalyticsResponse["data"]["time_series"]> = [];
    for (let b = from; b < to; b += bucketMs) out.push({ ...valuesOf(at.get(b), q.metrics), from: iso(b), to: iso(b + bucketMs), available: true, partial: b + bucketMs > now });
    return out;
  };
  if (include.includes("time_series")) data.time_series = points(await sums({ from, to, bucketMs, groupBy: [] }));

  let total = 0;
  let truncated = false;
  const limit = q.limit ?? 50;
  if (include.includes("breakdown")) {
    const keyOf = (r: StatRow) => JSON.stringify([timeGroup === null ? null : num(r.bucket), ...groupCols.map((c) => r[c] ?? "")]);
    const rows = await sums({ from, to, bucketMs: timeGroup, groupBy: groupCols });
    const prevRows = compare ? await sums({ from: prevFrom, to: from, bucketMs: timeGroup, groupBy: groupCols }) : [];
    const prevBy = new Map(prevRows.map((r) => [keyOf(r), r]));
    let breakdown = rows.map((r) => {
      const dimensions: Record<string, string | null> = {};
      for (const d of groupBy) {
        if (d === "day" || d === "hour") dimensions[d] = d === "day" ? dateOf(num(r.bucket)) : iso(num(r.bucket));
        else {
          const v = r[columnOf(d)];
          dimensions[d] = v === "" || v === null || v === undefined ? null : String(v);
        }
      }
      const row: NonNullable<AnalyticsResponse["data"]["breakdown"]>[number] = { ...valuesOf(r, q.metrics), dimensions };
      if (compare) {
        row.previous = valuesOf(prevBy.get(keyOf(r)), q.metrics);
        row.change = changeOf(row.metrics, row.previous.metrics);
      }
      return { row, key: groupCols.map((c) => r[c] ?? ""), bucket: num(r.bucket) };
    });
    const sortMetric = q.sort?.metric ?? (q.metrics.find((m) => SUMS[m]) ?? q.metrics[0]!);
    const dir = q.sort?.direction === "asc" ? 1 : -1;
    breakdown.sort((a, b) => (timeGroup !== null && a.bucket !== b.bucket && !q.sort ? a.bucket - b.bucket : dir * ((a.row.metrics[sortMetric] ?? -1) - (b.row.metrics[sortMetric] ?? -1))));
    total = breakdown.length;
    truncated = total > limit;
    breakdown = breakdown.slice(0, limit);
    if (q.include_trend) {
      const trendRows = await sums({ from, to, bucketMs, groupBy: groupCols });
      for (const b of breakdown) {
        const mine = trendRows.filter((r) => groupCols.every((c, i) => (r[c] ?? "") === b.key[i]));
        b.row.trend = points(mine);
      }
    }
    data.breakdown = breakdown.map((b) => b.row);
  }

  const retention = statsRetentionDays(deps.config.retentionDays);
  return {
    data,
    meta: {
      time_basis: "event",
      timezone: "UTC",
      interval,
      from: iso(from),
      to: iso(to),
      effective_to: iso(Math.min(to, now)),
      alignment: grain,
      generated_at: iso(now),
      available_since: iso(now - retention * DAY_MS - (now % DAY_MS)),
      partial: to > now,
      ongoing: to > now && from <= now,
      collection_completeness: "complete",
      last_ingested_at: null,
      metric_definition_version: "posthorn-1",
      ranked_group_limit: limit,
      ...(compare ? { comparison: { from: iso(prevFrom), to: iso(from), partial: false } } : {}),
    },
    pagination: { total_groups: total, returned_groups: Math.min(total, limit), next_cursor: null, truncated },
  };
}
