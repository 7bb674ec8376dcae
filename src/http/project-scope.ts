/**
 * Project access (docs/access.md): a member whose access is `selected` projects sees and touches
 * only those projects' routes, messages, webhooks, suppressions and statistics; everything else is
 * a 404, as another team's object is. Checked here, once per request, from the auth plugin's
 * resolve (src/http/auth.ts), after validation, so handlers and services stay as they are:
 *
 * - every id in the path that names a project's object (projectId, routeId, messageId,
 *   suppressionId, a webhook's id) and every project or route named in the query or the body
 *   (project_id, route_id, project_ids, route_ids, filter[project_id], filter[route_id]) must be
 *   of one of the member's projects: else 404 (an object of no project, such as a team-wide
 *   suppression, counts as another project's);
 * - the list of projects (NARROWED) shows only theirs;
 * - a list or figure that spans the team (SCOPED) must be narrowed to one of the member's
 *   projects by one of its parameters, else a 422 naming them;
 * - figures over the team's projects (FIGURES) are counted by their handler over the member's
 *   projects only (the handler reads `access.projects`, see projectsOf);
 * - operations on the team itself (TEAM_WIDE) do not depend on projects;
 * - anything else is refused (403 project_access): a route added later is closed to restricted
 *   members until it is classified here.
 * Members with access to all projects, and the team token, pay nothing.
 */
import type { Access } from "../auth/permissions.ts";
import type { Deps } from "../context.ts";
import type { ScopedKind } from "../db/projects.ts";
import { ForbiddenError, NotFoundError, ValidationError } from "../errors.ts";
import { routeKey } from "./filters.ts";

/** Path parameters that name a project's object, and its kind; `:id` is a webhook's (the only route that names it so). */
const PATH_KINDS: Record<string, ScopedKind> = {
  projectId: "project",
  routeId: "route",
  messageId: "message",
  suppressionId: "suppression",
  id: "webhook",
};

const RESOURCE: Record<ScopedKind, string> = { project: "Project", route: "Route", message: "Message", webhook: "Webhook", suppression: "Suppression" };

/** Query and body fields that name a project or a route (one id, or an array of them). */
const REFERENCES: Record<string, ScopedKind> = {
  project_id: "project",
  project_ids: "project",
  route_id: "route",
  route_ids: "route",
  "filter[project_id]": "project",
  "filter[route_id]": "route",
};

/** Operations over the team's projects: a restricted member must narrow them by one of these (in the query or the body). */
const SCOPED: Record<string, string[]> = {
  "GET /v1/messages": ["filter[route_id]"],
  "GET /v1/queue": ["filter[route_id]"],
  "POST /v1/queue/retry": ["filter[route_id]"],
  "POST /v1/queue/cancel": ["filter[route_id]"],
  "GET /v1/suppressions": ["filter[project_id]", "filter[route_id]"],
  "POST /v1/suppressions": ["project_id", "route_id"],
  "GET /v1/webhooks": ["filter[route_id]"],
  "POST /v1/webhooks": ["route_id"],
};

/**
 * Figures over the team's projects, answered for the member's projects only by their handlers
 * (which pass projectsOf(access) to their service): statistics, analytics, the monthly usage and
 * the destinations the queued mail waits for.
 */
const FIGURES = new Set(["GET /v1/stats", "POST /v1/analytics", "GET /v1/team/usage", "GET /v1/queue/destinations"]);

/** The projects a principal's figures are counted over: null for all of the team's. */
export const projectsOf = (access: Access | undefined): readonly string[] | null => access?.projects ?? null;

/** Lists of the projects themselves: answered with the member's projects only (narrowList). A page may then hold fewer items than page[size]. */
const NARROWED = new Set(["GET /v1/projects"]);

/** Operations that do not depend on projects (the team, its members and roles, its domains, server-wide lists), and those whose every project is named in the path. */
const TEAM_WIDE = new Set([
  "GET /v1/team",
  "PUT /v1/team",
  "GET /v1/team/members",
  "POST /v1/team/members",
  "GET /v1/team/members/:memberId",
  "DELETE /v1/team/members/:memberId",
  "PUT /v1/team/members/:memberId/assignment",
  "GET /v1/team/roles",
  "POST /v1/team/roles",
  "PUT /v1/team/roles/:roleId",
  "DELETE /v1/team/roles/:roleId",
  "GET /v1/team/tokens",
  "POST /v1/team/tokens",
  "POST /v1/team/tokens/:tokenId/rotate",
  "DELETE /v1/team/tokens/:tokenId",
  "GET /v1/domains",
  "POST /v1/domains",
  "GET /v1/domains/:domainId",
  "DELETE /v1/domains/:domainId",
  "PUT /v1/domains/:domainId/projects",
  "POST /v1/domains/:domainId/dns-records/verify",
  "POST /v1/domains/:domainId/dns-records/:recordId/verify",
  "POST /v1/domains/:domainId/dkim/rotate",
  "GET /v1/domains/:domainId/deliverability/dmarc",
  "GET /v1/domains/:domainId/deliverability/tls",
  "GET /v1/domains/:domainId/warmup",
  "PUT /v1/domains/:domainId/warmup",
  "GET /v1/deliverability/blocklists",
  "GET /v1/blocked-file-types",
  "POST /v1/projects",
  "GET /v1/ping",
]);

const idsOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === "string" && v.length > 0 && v.length <= 100).map((v) => v.toLowerCase());

interface ScopeRequest {
  request: Request;
  route: string;
  params: Record<string, string | undefined>;
  query: Record<string, unknown>;
  body: unknown;
}

/** Throws unless the request stays within `access.projects` (see the file's comment); nothing for access to all projects. */
export async function enforceProjectScope(deps: Pick<Deps, "store">, teamId: string, access: Access | undefined, r: ScopeRequest): Promise<void> {
  const projects = access?.projects;
  if (projects === null || projects === undefined) return;
  const allowed = new Set(projects);
  const key = routeKey(r.request.method, r.route);
  const named: [ScopedKind, string][] = [];
  let pathNamesProject = false;
  for (const [name, value] of Object.entries(r.params ?? {})) {
    const kind = PATH_KINDS[name];
    if (!kind || value === undefined || (name === "id" && !r.route.startsWith("/v1/webhooks/"))) continue;
    named.push([kind, value.toLowerCase()]);
    pathNamesProject = true;
  }
  const fields: Record<string, unknown> = { ...(r.query ?? {}), ...(r.body !== null && typeof r.body === "object" && !Array.isArray(r.body) ? (r.body as Record<string, unknown>) : {}) };
  for (const [field, kind] of Object.entries(REFERENCES)) for (const id of idsOf(fields[field])) named.push([kind, id]);

  const scoping = SCOPED[key];
  if (scoping) {
    if (!scoping.some((p) => idsOf(fields[p]).length > 0)) {
      const message = `You work on selected projects only: name one of them with ${scoping.join(" or ")}.`;
      throw new ValidationError(Object.fromEntries(scoping.map((p) => [p, [message]])));
    }
  } else if (!pathNamesProject && !TEAM_WIDE.has(key) && !NARROWED.has(key) && !FIGURES.has(key)) {
    throw new ForbiddenError("You work on selected projects only, and this request spans the team's projects.", "project_access");
  }

  for (const [kind, id] of named) {
    if (kind === "project") {
      if (!allowed.has(id)) throw new NotFoundError(RESOURCE[kind]);
      continue;
    }
    const owner = await deps.store.read.projects.projectOf(kind, id, teamId);
    // Unknown here: the handler answers its own 404 (or 422 for a body's reference), as for anyone.
    if (owner && (owner.project_id === null || !allowed.has(owner.project_id))) throw new NotFoundError(RESOURCE[kind]);
  }
}

/** The answer of a NARROWED list without the projects the principal does not work on; any other answer as it is. */
export function narrowList(access: Access | undefined, request: Request, route: string, response: unknown): unknown {
  const projects = access?.projects;
  if (projects === null || projects === undefined || !NARROWED.has(routeKey(request.method, route))) return undefined;
  if (response === null || typeof response !== "object" || !Array.isArray((response as { data?: unknown }).data)) return undefined;
  const allowed = new Set(projects);
  const body = response as { data: { id?: unknown }[] };
  return { ...body, data: body.data.filter((item) => typeof item.id === "string" && allowed.has(item.id)) };
}
