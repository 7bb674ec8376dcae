import { domainToASCII } from "node:url";
import type { Deps } from "../../context.ts";
import { ROUTE_SORT, type RouteChanges, type RouteRow, type RouteSettingColumns } from "../../db/routes.ts";
import type { Repositories } from "../../db/store.ts";
import { isPublicSuffix, publicSuffixMessage } from "../../dns/records.ts";
import { ConflictError, fieldErrors, NotFoundError, ValidationError } from "../../errors.ts";
import { MESSAGE_STATUSES } from "../../db/recipient-status.ts";
import { WEBHOOK_QUEUE } from "../../events/publish.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { serverSecretOf } from "../../secrets.ts";
import { findInboundDomainConflict, inboundDomainConflictMessage, routeInboundDomainRecords } from "../domains/service.ts";
import { assertProject, getProjectData, newRoute } from "../projects/service.ts";
import { deliverability, engagement, serializeRoutes, STATISTICS_WINDOW_DAYS, windowStart, type RouteType } from "./base.ts";
import { ROUTE_SLUG_MAX, type CreateRouteBody, type RouteData, type RouteInclude, type RouteStatistics, type UpdateRouteBody, type UpdateRouteSettings } from "./model.ts";

type SettingsState = RouteSettingColumns & Pick<RouteRow, "attachment_delivery">;
const OUTBOUND_BOOLEAN_SETTINGS = [
  "track_opens",
  "track_clicks",
  "generate_plaintext_fallback",
  "suppress_auto_responders",
  "suppress_disposable_recipients",
  "redact_email_content",
  "disable_hosted_unsubscribe",
] as const;

/**
 * Applies a body's `settings` to `state` (in place) and says whether anything changed: absent or
 * null fields stay as they are (the service's partial update). A setting that does not apply to the
 * route's type is a 422 under settings.<name>, all such fields at once: the outbound ones on an
 * inbound route, attachment_delivery on an outbound route, disable_hosted_unsubscribe: true on a
 * transactional route (false is what it has, and is accepted).
 */
export function applyRouteSettings(routeType: RouteType, state: SettingsState, input: UpdateRouteSettings | undefined): boolean {
  if (!input) return false;
  const errors = fieldErrors();
  let changed = false;
  const outboundOnly = (key: string) => (errors[`settings.${key}`] = [`The settings.${key} field applies to outbound (transactional or broadcast) routes only.`]);
  for (const key of OUTBOUND_BOOLEAN_SETTINGS) {
    const v = input[key];
    if (v === undefined || v === null) continue;
    if (routeType === "inbound") outboundOnly(key);
    else if (key === "disable_hosted_unsubscribe" && routeType === "transactional") {
      if (v) errors[`settings.${key}`] = ["The settings.disable_hosted_unsubscribe field applies to broadcast routes only: transactional mail carries no hosted unsubscribe link."];
    } else if (state[key] !== (v ? 1 : 0)) {
      state[key] = v ? 1 : 0;
      changed = true;
    }
  }
  if (input.tls !== undefined && input.tls !== null) {
    if (routeType === "inbound") outboundOnly("tls");
    else if (state.tls !== input.tls) {
      state.tls = input.tls;
      changed = true;
    }
  }
  if (input.attachment_delivery !== undefined && input.attachment_delivery !== null) {
    if (routeType !== "inbound") errors["settings.attachment_delivery"] = ["The settings.attachment_delivery field applies to inbound routes only."];
    else if (state.attachment_delivery !== input.attachment_delivery) {
      state.attachment_delivery = input.attachment_delivery;
      changed = true;
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return changed;
}

/** The route's row if it belongs to `teamId`; otherwise a 404, whoever owns it. */
async function routeRow(repos: Pick<Repositories, "routes">, teamId: string, routeId: string): Promise<RouteRow> {
  const row = await repos.routes.findOfTeam(routeId, teamId);
  if (!row) throw new NotFoundError("Route");
  return row;
}

/** Counts of the last 28 days on this route, by status (index messages_route_created). */
export async function routeStatistics(repos: Pick<Repositories, "routes" | "tracking">, routeId: string, now = Date.now()): Promise<RouteStatistics> {
  const [rows, hits] = await Promise.all([repos.routes.messageCounts(routeId, windowStart(now)), repos.tracking.countsOfRoute(routeId, windowStart(now))]);
  const byStatus = Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0])) as RouteStatistics["messages_by_status"];
  let total = 0;
  for (const r of rows) {
    total += r.n;
    if (r.status in byStatus) byStatus[r.status as keyof typeof byStatus] += r.n;
  }
  return {
    period_days: STATISTICS_WINDOW_DAYS,
    messages_total: total,
    messages_by_status: byStatus,
    deliverability: deliverability(rows.filter((r) => r.type === "outbound")),
    ...engagement(hits),
  };
}

type ReadDeps = Pick<Deps, "store" | "config">;

/** Adds the records to publish for each route's custom inbound domain (`data[i]` is `rows[i]`'s); the secret is read only if one has a domain. */
async function withInboundRecords(deps: ReadDeps, rows: readonly RouteRow[], data: RouteData[]): Promise<RouteData[]> {
  if (!rows.some((r) => r.inbound_domain)) return data;
  const secret = await serverSecretOf(deps.store);
  rows.forEach((row, i) => {
    if (row.inbound_domain) data[i]!.inbound_domain_records = routeInboundDomainRecords(secret, deps.config.hostname, row.id, row.inbound_domain);
  });
  return data;
}

async function routeData(deps: ReadDeps, row: RouteRow, include: ReadonlySet<RouteInclude>): Promise<RouteData> {
  const repos = deps.store.read;
  const data: RouteData = (await withInboundRecords(deps, [row], await serializeRoutes(repos, [row])))[0]!;
  if (include.has("project")) data.project = await getProjectData(deps, row.team_id, row.project_id);
  // A route always belongs to a project (the foreign key is NOT NULL and cascades).
  if (include.has("projectCount")) data.project_count = 1;
  if (include.has("projectExists")) data.project_exists = true;
  if (include.has("statistics")) data.statistics = await routeStatistics(repos, row.id);
  return data;
}

export async function getRouteData(deps: ReadDeps, teamId: string, routeId: string, include: ReadonlySet<RouteInclude> = new Set()): Promise<RouteData> {
  return routeData(deps, await routeRow(deps.store.read, teamId, routeId), include);
}

/** One page of a project's routes (404 when the project is not the team's). */
export async function listProjectRoutes(deps: ReadDeps, teamId: string, projectId: string, q: { sort?: string; query: Record<string, unknown> }) {
  const repos = deps.store.read;
  await assertProject(repos, teamId, projectId);
  const sort = parseSort(q.sort, ROUTE_SORT, "-created_at");
  const page = parsePage(q.query, sort.length);
  const result = await repos.routes.listOfProject(projectId, teamId, { sort, size: page.size, cursor: page.cursor });
  const data = await withInboundRecords(deps, result.rows, await serializeRoutes(repos, result.rows));
  return { page: result, data, size: page.size };
}

/** "Order Receipts!" → "order-receipts"; "" when nothing usable is left. */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, ROUTE_SLUG_MAX)
    .replace(/-+$/, "");
}

/**
 * Creates a route in the team's project. An explicit slug that is taken is a 409; a slug derived
 * from the name gets a numeric suffix instead. Inbound routes get a generated inbound address and
 * the default spam threshold (5).
 */
export async function createRoute(
  deps: Pick<Deps, "store" | "config">,
  teamId: string,
  projectId: string,
  input: CreateRouteBody,
): Promise<RouteData> {
  const name = input.name.trim();
  if (!name) throw ValidationError.field("name", "The name field must not be blank.");
  // Checked before anything is written (a 422 stores nothing).
  const settings: SettingsState = {
    track_opens: 0,
    track_clicks: 0,
    generate_plaintext_fallback: 0,
    suppress_auto_responders: 0,
    suppress_disposable_recipients: 0,
    tls: "opportunistic",
    redact_email_content: 0,
    disable_hosted_unsubscribe: 0,
    attachment_delivery: "inline",
  };
  const customized = applyRouteSettings(input.route_type, settings, input.settings);
  const id = await deps.store.write(async (tx) => {
    await assertProject(tx, teamId, projectId);
    let slug: string;
    if (input.slug !== undefined) {
      slug = input.slug;
      if (await tx.routes.slugTaken(projectId, slug)) throw new ConflictError(`A route with the slug "${slug}" already exists in this project.`);
    } else {
      const base = slugify(name) || input.route_type;
      slug = base;
      for (let n = 2; await tx.routes.slugTaken(projectId, slug); n++) slug = `${base.slice(0, ROUTE_SLUG_MAX - String(n).length - 1)}-${n}`;
    }
    const row = newRoute({ teamId, projectId, name, slug, routeType: input.route_type, isDefault: false, inboundDomain: deps.config.inboundDomain });
    await tx.routes.insert(row);
    if (customized) {
      // A new route has no custom inbound domain yet.
      await tx.routes.update(row.id, { name, inbound_domain: null, inbound_domain_verified_at: null, inbound_spam_threshold: row.inbound_spam_threshold, ...settings, updated_at: row.created_at });
    }
    return row.id;
  });
  return getRouteData(deps, teamId, id, new Set(["project"]));
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Lower-cases and checks a custom inbound domain, an IDN as punycode (how the MX listener and
 * the domains table compare names); 422 on inbound_settings.inbound_domain.
 */
function normalizeInboundDomain(raw: string, serviceDomain: string): string {
  const lower = raw.trim().toLowerCase().replace(/\.$/, "");
  // Only non-ASCII input goes through domainToASCII, which also reinterprets numeric names.
  const domain = /^[\x21-\x7e]*$/.test(lower) ? lower : domainToASCII(lower);
  const labels = domain.split(".");
  const field = "inbound_settings.inbound_domain";
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^[0-9]+$/.test(labels[labels.length - 1]!)) {
    throw ValidationError.field(field, `The ${field} field must be a domain name such as inbound.example.com.`);
  }
  if (domain === serviceDomain) {
    throw ValidationError.field(field, `The ${field} field cannot be the service's own inbound domain (${serviceDomain}); every route already has an address there.`);
  }
  if (isPublicSuffix(domain)) throw ValidationError.field(field, publicSuffixMessage("inbound domain", domain));
  return domain;
}

/**
 * Updates name, inbound settings (inbound routes only) and tracking (outbound routes only).
 * A new inbound_domain clears inbound_domain_verified_at. It is a 409 only when a claim backed by
 * DNS proof holds the name: another route verified it, or a sending domain another team verified
 * (its DKIM record) is the name or a parent of it (its ph-bounces return-path name included);
 * or it is the return-path name of one of the team's own domains. Unverified claims (another
 * route that merely set the name, a sending domain registered but not verified) block nothing:
 * README "Inbound domains", docs/security.md "Claims on shared names need proof".
 */
export async function updateRoute(
  deps: Pick<Deps, "store" | "config">,
  teamId: string,
  routeId: string,
  input: UpdateRouteBody,
): Promise<RouteData> {
  const name = input.name === undefined || input.name === null ? null : input.name.trim();
  if (name === "") throw ValidationError.field("name", "The name field must not be blank.");
  await deps.store.write(async (tx) => {
    const row = await routeRow(tx, teamId, routeId);
    const next: RouteChanges = {
      name: row.name,
      inbound_domain: row.inbound_domain,
      inbound_domain_verified_at: row.inbound_domain_verified_at,
      inbound_spam_threshold: row.inbound_spam_threshold,
      attachment_delivery: row.attachment_delivery,
      track_opens: row.track_opens,
      track_clicks: row.track_clicks,
      generate_plaintext_fallback: row.generate_plaintext_fallback,
      suppress_auto_responders: row.suppress_auto_responders,
      suppress_disposable_recipients: row.suppress_disposable_recipients,
      tls: row.tls,
      redact_email_content: row.redact_email_content,
      disable_hosted_unsubscribe: row.disable_hosted_unsubscribe,
      updated_at: row.updated_at,
    };
    let changed = applyRouteSettings(row.route_type, next, input.settings);
    if (name !== null) {
      next.name = name;
      changed = true;
    }
    const inbound = input.inbound_settings;
    if (inbound) {
      if (row.route_type !== "inbound") {
        throw ValidationError.field("inbound_settings", `The inbound_settings field applies to inbound routes only; this is a ${row.route_type} route.`);
      }
      if (inbound.inbound_domain !== undefined) {
        const domain = inbound.inbound_domain === null ? null : normalizeInboundDomain(inbound.inbound_domain, deps.config.inboundDomain);
        if (domain !== row.inbound_domain) {
          if (domain !== null) {
            const claim = await findInboundDomainConflict(tx, teamId, domain, null);
            if (claim) throw new ConflictError(`The inbound domain ${inboundDomainConflictMessage(domain, claim)}`);
            if (await tx.inboundDomains.verifiedElsewhere(domain, routeId, null)) {
              throw new ConflictError(`The inbound domain ${domain} is already verified as the inbound domain of another route.`);
            }
          }
          next.inbound_domain = domain;
          next.inbound_domain_verified_at = null;
          changed = true;
        }
      }
      if (inbound.inbound_spam_threshold !== undefined && inbound.inbound_spam_threshold !== null) {
        next.inbound_spam_threshold = inbound.inbound_spam_threshold;
        changed = true;
      }
      if (inbound.attachment_delivery !== undefined && inbound.attachment_delivery !== null) {
        next.attachment_delivery = inbound.attachment_delivery;
        changed = true;
      }
    }
    for (const key of ["track_opens", "track_clicks"] as const) {
      const v = input[key];
      if (v === undefined || v === null) continue;
      if (row.route_type === "inbound") throw ValidationError.field(key, `The ${key} field applies to outbound (transactional or broadcast) routes only.`);
      next[key] = v ? 1 : 0;
      changed = true;
    }
    if (!changed) return;
    next.updated_at = Date.now();
    await tx.routes.update(routeId, next);
  });
  return getRouteData(deps, teamId, routeId);
}

/**
 * Deletes a route with its webhooks (their recorded and queued deliveries too) and its
 * route-scoped suppressions. Its messages stay, with route_id set to null. A project's default
 * routes cannot be deleted (409): sends that name no route rely on them.
 */
export async function deleteRoute(deps: Pick<Deps, "store" | "queue">, teamId: string, routeId: string): Promise<void> {
  await deps.store.write(async (tx) => {
    const row = await routeRow(tx, teamId, routeId);
    if (row.is_default === 1) throw new ConflictError(`The default ${row.route_type} route of a project cannot be deleted.`);
    await tx.jobs.dropWebhookJobs(WEBHOOK_QUEUE, { routeId });
    await tx.routes.delete(routeId);
  });
}
