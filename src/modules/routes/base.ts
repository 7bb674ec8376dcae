/**
 * RouteData without its optional `project` (kept apart from model.ts so that ProjectData, which
 * nests routes, and RouteData, which nests a project, do not import each other).
 */
import { t, type Static } from "elysia";
import type { RouteRow } from "../../db/routes.ts";
import type { HitCountRow } from "../../db/tracking.ts";
import type { Repositories } from "../../db/store.ts";
import { iso } from "../../ids.ts";
import { Nullable } from "../../http/schemas.ts";

export const ROUTE_TYPES = ["transactional", "broadcast", "inbound"] as const;
export type RouteType = (typeof ROUTE_TYPES)[number];
export const ATTACHMENT_DELIVERY = ["inline", "url"] as const;
export const TLS_POLICIES = ["opportunistic", "enforced"] as const;

/**
 * The route's `settings` (the service's RouteData.settings): those that apply to its type. An
 * outbound route has every outbound one (disable_hosted_unsubscribe on broadcast routes only); an
 * inbound route has none here: its attachment_delivery is the route's top-level string (the
 * service's settings.attachment_delivery is an object of its own). docs/sending.md, Route settings.
 */
export const RouteSettings = t.Object(
  {
    disable_hosted_unsubscribe: t.Optional(t.Boolean({ description: "Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false)" })),
    track_opens: t.Optional(t.Boolean({ description: "Open tracking of the route's mail unless a send says otherwise (default false)" })),
    track_clicks: t.Optional(t.Boolean({ description: "Click tracking of the route's mail unless a send says otherwise (default false)" })),
    generate_plaintext_fallback: t.Optional(t.Boolean({ description: "A send with only HTML gets a text part made from it (default false)" })),
    suppress_auto_responders: t.Optional(
      t.Boolean({ description: "X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false)" }),
    ),
    suppress_disposable_recipients: t.Optional(
      t.Boolean({ description: "Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false)" }),
    ),
    tls: t.Optional(t.Union([t.Literal("opportunistic"), t.Literal("enforced")], { description: "TLS policy of its deliveries (default opportunistic)" })),
    redact_email_content: t.Optional(
      t.Boolean({ description: "Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false)" }),
    ),
  },
  { description: "The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name)" },
);
export type RouteSettings = Static<typeof RouteSettings>;

/** The settings of a route row, as its type has them. */
export function routeSettings(r: RouteRow): RouteSettings {
  if (r.route_type === "inbound") return {};
  return {
    ...(r.route_type === "broadcast" ? { disable_hosted_unsubscribe: r.disable_hosted_unsubscribe === 1 } : {}),
    track_opens: r.track_opens === 1,
    track_clicks: r.track_clicks === 1,
    generate_plaintext_fallback: r.generate_plaintext_fallback === 1,
    suppress_auto_responders: r.suppress_auto_responders === 1,
    suppress_disposable_recipients: r.suppress_disposable_recipients === 1,
    tls: r.tls,
    redact_email_content: r.redact_email_content === 1,
  };
}

export const RouteFields = {
  id: t.String(),
  project_id: t.String(),
  slug: t.String(),
  name: t.String(),
  route_type: t.Union([t.Literal("transactional"), t.Literal("broadcast"), t.Literal("inbound")]),
  is_default: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  inbound_address: Nullable(t.String({ description: "Generated address on the service's inbound domain (inbound routes)" })),
  inbound_domain: Nullable(t.String({ description: "Custom inbound domain (inbound routes)" })),
  inbound_domain_verified_at: Nullable(t.String({ format: "date-time" })),
  inbound_spam_threshold: Nullable(t.Number({ description: "Spam score at or above which inbound mail is rejected" })),
  attachment_delivery: t.String({ description: "inline (base64 in the webhook) or url (signed, expiring links)" }),
  track_opens: t.Boolean(),
  track_clicks: t.Boolean(),
  settings: RouteSettings,
  webhooks_count: t.Integer(),
  suppressed_recipients_count: t.Integer({ description: "Distinct addresses suppressed for this route (team, project and route scopes)" }),
};

/** A route as nested in ProjectData: its `project` is left empty. */
export const ProjectRouteData = t.Object({ ...RouteFields, project: t.Null() });
export type RouteBase = Static<ReturnType<typeof t.Object<typeof RouteFields>>>;

/**
 * Serializes routes with their webhook and suppression counts. suppressed_recipients_count is the
 * number of distinct addresses blocked on the route: the team list (counted once per call; it can
 * hold many thousands of bounces) plus the project's and route's own entries not already on it.
 */
export async function serializeRoutes(repos: Pick<Repositories, "routes">, rows: RouteRow[]): Promise<RouteBase[]> {
  const teamCounts = new Map<string, number>();
  const data: RouteBase[] = [];
  for (const r of rows) {
    let teamWide = teamCounts.get(r.team_id);
    if (teamWide === undefined) teamCounts.set(r.team_id, (teamWide = await repos.routes.teamWideSuppressionsCount(r.team_id)));
    data.push({
      id: r.id,
      project_id: r.project_id,
      slug: r.slug,
      name: r.name,
      route_type: r.route_type,
      is_default: r.is_default === 1,
      created_at: iso(r.created_at)!,
      updated_at: iso(r.updated_at)!,
      inbound_address: r.inbound_address,
      inbound_domain: r.inbound_domain,
      inbound_domain_verified_at: iso(r.inbound_domain_verified_at),
      inbound_spam_threshold: r.inbound_spam_threshold,
      attachment_delivery: r.attachment_delivery,
      track_opens: r.track_opens === 1,
      track_clicks: r.track_clicks === 1,
      settings: routeSettings(r),
      webhooks_count: await repos.routes.webhooksCount(r.id),
      suppressed_recipients_count: teamWide + (await repos.routes.ownSuppressionsNotTeamWideCount(r)),
    });
  }
  return data;
}

/** Outbound statuses that mean the mail reached the recipient's server. */
const DELIVERED = new Set(["delivered", "opened", "clicked", "spam_complaint", "unsubscribed"]);
/** Outbound statuses that mean it never will. */
const UNDELIVERABLE = new Set(["hard_bounced", "failed", "blocked"]);

/**
 * Percentage (0–100, one decimal) of outbound messages with a final outcome that were delivered;
 * 0 when none has an outcome yet. Suppressed and still-pending mail does not count either way.
 */
export function deliverability(counts: { status: string; n: number }[]): number {
  let ok = 0;
  let bad = 0;
  for (const c of counts) {
    if (DELIVERED.has(c.status)) ok += c.n;
    else if (UNDELIVERABLE.has(c.status)) bad += c.n;
  }
  return ok + bad === 0 ? 0 : Math.round((ok / (ok + bad)) * 1000) / 10;
}

/** Opens and clicks of the window's messages, people and machines apart (docs/tracking.md). */
export const EngagementFields = {
  opens_human: t.Integer({ description: "Opens (pixel loads) by people on the window's messages" }),
  opens_machine: t.Integer({ description: "Opens classified as machines (privacy proxies, scanners, prefetch)" }),
  clicks_human: t.Integer({ description: "Clicks of tracked links by people" }),
  clicks_machine: t.Integer({ description: "Clicks classified as machines (link scanners, bursts, non-browser clients)" }),
};

/** Opens and clicks by people and by machines (tracking hits, each counted), for route statistics and last_28_days. */
export function engagement(counts: readonly HitCountRow[]): { opens_human: number; opens_machine: number; clicks_human: number; clicks_machine: number } {
  const out = { opens_human: 0, opens_machine: 0, clicks_human: 0, clicks_machine: 0 };
  for (const c of counts) out[`${c.kind === "open" ? "opens" : "clicks"}_${c.machine ? "machine" : "human"}`] += c.n;
  return out;
}

export const STATISTICS_WINDOW_DAYS = 28;
export const windowStart = (now = Date.now()) => now - STATISTICS_WINDOW_DAYS * 86_400_000;
