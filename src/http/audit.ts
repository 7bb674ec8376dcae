import { Elysia } from "elysia";
import type { Deps } from "../context.ts";
import type { AuditActorKind } from "../db/audit-log.ts";
import { auditRow } from "../auth/audit.ts";
import type { ProjectPrincipal, TeamPrincipal } from "../auth/tokens.ts";
import type { SessionPrincipal } from "../auth/sessions.ts";
import { clientIp, trustedProxies, type IpServer } from "./auth.ts";

const CHANGES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Operations that use POST to read (a query too large for a URL): no change, no row. */
export const READS_BY_POST: ReadonlySet<string> = new Set(["POST /v1/analytics"]);

/** "/v1/domains/:id" as the OpenAPI document writes it: "/v1/domains/{id}". */
export const openapiPath = (route: string): string => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function statusOf(response: unknown, set: { status?: number | string }): number {
  if (response instanceof Response) return response.status;
  return typeof set.status === "number" ? set.status : Number(set.status ?? 200) || 200;
}

type Principal = TeamPrincipal | SessionPrincipal | ProjectPrincipal;

const principals = new WeakMap<Request, SessionPrincipal>();
/**
 * Names the session of a route that authenticates outside the auth plugin (src/modules/auth's own
 * session and second-factor routes), so that its changes are logged like the others. Returns it.
 */
export function auditAs(request: Request, principal: SessionPrincipal): SessionPrincipal {
  principals.set(request, principal);
  return principal;
}

/** Who the principal is, for the log: a signed-in user, a named token, or the team's own token. */
async function actorOf(deps: Deps, p: TeamPrincipal | SessionPrincipal): Promise<{ kind: AuditActorKind; id: string | null; name: string | null }> {
  if ("session" in p && p.session) return { kind: "user", id: p.session.userId, name: null };
  if (p.tokenId) return { kind: "named_token", id: p.tokenId, name: (await deps.store.read.teams.namedToken(p.teamId, p.tokenId))?.name ?? null };
  return { kind: "team_token", id: p.teamId, name: null };
}

/**
 * The audit log's one writer for the HTTP API (docs/access.md): after the handler of every
 * POST/PUT/PATCH/DELETE that a team principal made (team token, named token or dashboard session)
 * and that succeeded (2xx), one audit_log row, written in the request's unit of work, so it commits
 * with the change or not at all (a response that fails its schema afterwards rolls both back).
 * Refusals (4xx) change nothing and are not logged; project-token calls (sending) are not team
 * changes and are not logged either. Registered before the controllers, as a global hook.
 */
export const auditTrail = (deps: Deps) => {
  const proxies = trustedProxies(deps.config);
  return new Elysia({ name: "audit-trail" }).onAfterHandle({ as: "global" }, async (ctx) => {
    const { request, route, set, params, body, server } = ctx as typeof ctx & { route: string; server: IpServer };
    if (!CHANGES.has(request.method)) return;
    const c = ctx as unknown as { team?: Principal; session?: Principal; principal?: Principal; response?: unknown };
    const principal = c.team ?? c.session ?? c.principal ?? principals.get(request);
    if (!principal || principal.kind !== "team") return;
    const operation = `${request.method} ${openapiPath(route)}`;
    if (READS_BY_POST.has(operation)) return;
    const status = statusOf(c.response, set);
    if (status < 200 || status >= 300) return;
    const row = auditRow({
      teamId: principal.teamId,
      actor: await actorOf(deps, principal),
      operation,
      params: params as Record<string, string | undefined>,
      body,
      status,
      ip: clientIp(server, request, proxies),
      userAgent: request.headers.get("user-agent"),
    });
    await deps.store.write((tx) => tx.auditLog.append(row));
  });
};
