/**
 * RouteData without its optional `project` (kept apart from model.ts so that ProjectData, which
 * nests routes, and RouteData, which nests a project, do not import each other).
 */
import type { Database } from "bun:sqlite";
import { t, type Static } from "elysia";
import { iso } from "../../ids.ts";
import { Nullable } from "../../http/schemas.ts";

export const ROUTE_TYPES = ["transactional", "broadcast", "inbound"] as const;
export type RouteType = (typeof ROUTE_TYPES)[number];
export const ATTACHMENT_DELIVERY = ["inline", "url"] as const;

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
  webhooks_count: t.Integer(),
  suppressed_recipients_count: t.Integer({ description: "Distinct addresses suppressed for this route (team, project and route scopes)" }),
};

/** A route as nested in ProjectData: its `project` is left empty. */
export const ProjectRouteData = t.Object({ ...RouteFields, project: t.Null() });
export type RouteBase = Static<ReturnType<typeof t.Object<typeof RouteFields>>>;

export type RouteRow = {
  id: string;
  team_id: string;
  project_id: string;
  slug: string;
  name: string;
  route_type: RouteType;
  is_default: number;
  inbound_address: string | null;
  inbound_domain: string | null;
  inbound_domain_verified_at: number | null;
  inbound_spam_threshold: number | null;
  attachment_delivery: string;
  track_opens: number;
  track_clicks: number;
  created_at: number;
  updated_at: number;
};

export const ROUTE_COLUMNS =
  "id, team_id, project_id, slug, name, route_type, is_default, inbound_address, inbound_domain, inbound_domain_verified_at, inbound_spam_threshold, attachment_delivery, track_opens, track_clicks, created_at, updated_at";

/**
 * Serializes routes with their webhook and suppression counts. suppressed_recipients_count is the
 * number of distinct addresses blocked on the route: the team list (counted once per call; it can
 * hold many thousands of bounces) plus the project's and route's own entries not already on it.
 */
export function serializeRoutes(sqlite: Database, rows: RouteRow[]): RouteBase[] {
  const webhooks = sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM webhooks WHERE route_id = ?");
  const teamWide = sqlite.query<{ n: number }, [string]>("SELECT count(*) AS n FROM suppressions WHERE team_id = ? AND scope_key = 'team'");
  const ownNotTeamWide = sqlite.query<{ n: number }, [string, string, string]>(
    // Two exact scope lookups rather than `scope_key IN (…)`, which the planner may answer by
    // scanning the whole team through suppressions_team_email.
    `SELECT count(*) AS n FROM (
       SELECT email FROM suppressions WHERE team_id = ?1 AND scope_key = ?2
       UNION SELECT email FROM suppressions WHERE team_id = ?1 AND scope_key = ?3) s
     WHERE NOT EXISTS (SELECT 1 FROM suppressions t WHERE t.team_id = ?1 AND t.scope_key = 'team' AND t.email = s.email)`,
  );
  const teamCounts = new Map<string, number>();
  const suppressedFor = (r: RouteRow) => {
    let base = teamCounts.get(r.team_id);
    if (base === undefined) teamCounts.set(r.team_id, (base = teamWide.get(r.team_id)!.n));
    return base + ownNotTeamWide.get(r.team_id, `project:${r.project_id}`, `route:${r.id}`)!.n;
  };
  return rows.map((r) => ({
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
    webhooks_count: webhooks.get(r.id)!.n,
    suppressed_recipients_count: suppressedFor(r),
  }));
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

export const STATISTICS_WINDOW_DAYS = 28;
export const windowStart = (now = Date.now()) => now - STATISTICS_WINDOW_DAYS * 86_400_000;
