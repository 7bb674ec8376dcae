import { isIP } from "node:net";
import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import type { Deps } from "../context.ts";
import { ForbiddenError, UnauthenticatedError } from "../errors.ts";
import { FULL_ACCESS, type Permission } from "../auth/permissions.ts";
import { rejectUnknownFilters } from "./filters.ts";
import { enforceProjectScope, narrowList } from "./project-scope.ts";
import { tokenAuthenticator, type TokenAuthenticator, type ProjectPrincipal, type TeamPrincipal } from "../auth/tokens.ts";
import { authenticateSession, type SessionPrincipal } from "../auth/sessions.ts";
import { changesState, CSRF_HEADER, sessionTokenOf } from "./session-cookie.ts";
import { inNetworks, parseCidr, type Cidr } from "../net/ip.ts";
import { rateLimitPlugin } from "./rate-limit.ts";

/** The token of an `Authorization: Bearer …` header, or null. */
export const bearer = (header: string | null | undefined): string | null => {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
};

export type IpServer = { requestIP?: (r: Request) => { address: string } | null } | null;

/**
 * The TCP peer of a request that reached the handler through another listener than the one
 * Elysia's `server` is (the HTTPS listener, src/tls/https-listener.ts): set by server.ts before
 * the request is handled, and taken before `server.requestIP`, which does not know the request.
 */
export const peerAddresses = new WeakMap<Request, string>();

const trusted = new WeakMap<Config, Cidr[]>();
/** POSTHORN_TRUSTED_PROXIES, parsed once per config. */
export function trustedProxies(config: Config): Cidr[] {
  let networks = trusted.get(config);
  if (!networks) trusted.set(config, (networks = config.trustedProxies.map(parseCidr)));
  return networks;
}

/**
 * The client's address: the TCP peer's. When the peer is a trusted proxy (`proxies`, from
 * POSTHORN_TRUSTED_PROXIES), the nearest address in X-Forwarded-For that is not one: each proxy
 * appends the address it saw, so what a client wrote itself (the left part) is never taken on
 * trust. Without trusted proxies, X-Forwarded-For is ignored.
 */
export function clientIp(server: IpServer, request: Request, proxies: readonly Cidr[] = []): string | null {
  const peer = peerAddresses.get(request) ?? server?.requestIP?.(request)?.address ?? null;
  if (peer === null || proxies.length === 0 || !inNetworks(peer, proxies)) return peer;
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    // A hop that is no address means a proxy that does not append: nothing in the header can be trusted.
    if (isIP(hop) === 0) return peer;
    if (!inNetworks(hop, proxies)) return hop;
  }
  return peer;
}

/**
 * Tokens are checked in `transform`, which runs before body validation, so a request without
 * valid credentials is a 401 whatever its body; `resolve` then hands the principal to the handler.
 */
const authenticated = new WeakMap<Request, TeamPrincipal | ProjectPrincipal>();
function principalOf<P extends TeamPrincipal | ProjectPrincipal | SessionPrincipal>(request: Request): P {
  const principal = authenticated.get(request);
  if (!principal) throw new UnauthenticatedError();
  return principal as P;
}

/**
 * Permissions (docs/access.md). A route declares the one permission it needs with
 * `permission: "domains:manage"` beside `team: true` (or `session: true`, `anyToken: true`); the
 * check is here, once authentication has found the principal and before the body is validated, so
 * a request its principal may not make is a 403 whatever it carries. Elysia runs the macros'
 * transforms in the order a route names them, so whichever comes second checks; a route whose
 * check did not run (a permission without an authenticating option) is refused before its handler.
 */
const required = new WeakMap<Request, Permission>();
const permitted = new WeakSet<Request>();

/** The check, once both the principal and the route's permission are known. Project tokens (anyToken routes) are bound to their project and need none. */
function checkPermission(request: Request): void {
  const permission = required.get(request);
  const principal = authenticated.get(request);
  if (permission === undefined || principal === undefined) return;
  const access = principal.kind === "team" ? (principal.access ?? FULL_ACCESS) : FULL_ACCESS;
  if (!access.permissions.has(permission)) {
    throw new ForbiddenError(`Your role does not have the ${permission} permission this request needs.`, "missing_permission");
  }
  permitted.add(request);
}

const plugins = new WeakMap<Deps, ReturnType<typeof buildAuthPlugin>>();
let instances = 0;

/**
 * The auth plugin, one instance per Deps, so every controller of an app shares it. Routes opt in with `{ team: true }` (Bearer team token, or a
 * dashboard session; resolves `team`), `{ session: true }` (a dashboard session only; resolves `session`), `{ project: true }`
 * (x-service-token or x-lettermint-token; resolves `project`) or `{ anyToken: true }`. Each also charges the request to its
 * principal's rate limit bucket (src/http/rate-limit.ts), right after authentication. `{ permission: "…" }` beside them
 * declares the one permission the route needs (see checkPermission); the OpenAPI document shows it as the operation's `x-permission`.
 */
export function authPlugin(deps: Deps) {
  let plugin = plugins.get(deps);
  if (!plugin) plugins.set(deps, (plugin = buildAuthPlugin(deps, tokenAuthenticator(deps), ++instances)));
  return plugin;
}

type Headers = Record<string, string | undefined>;

/**
 * The project token of a request: `x-service-token` (the spec's header) or `x-lettermint-token`
 * (the header Lettermint's SDKs send). Both present with different values is no token at all
 * (a 401 when the route needs one): the request never gets the weaker, or the other, of two.
 */
export const MIXED_PROJECT_TOKENS = Symbol("mixed project tokens");
export function projectTokenOf(headers: Headers): string | undefined | typeof MIXED_PROJECT_TOKENS {
  const spec = headers["x-service-token"];
  const sdk = headers["x-lettermint-token"];
  if (spec !== undefined && sdk !== undefined && spec !== sdk) return MIXED_PROJECT_TOKENS;
  return spec ?? sdk;
}

/** The dashboard session a request's cookie names (without an Authorization header, which always wins), or null when it has none. */
const sessionOf = (deps: Deps, headers: Headers, request: Request): Promise<SessionPrincipal> | null => {
  const token = headers.authorization === undefined ? sessionTokenOf(headers.cookie) : null;
  return token === null ? null : authenticateSession(deps, token, { changes: changesState(request.method), csrf: headers[CSRF_HEADER] });
};

const buildAuthPlugin = (deps: Deps, authenticator: TokenAuthenticator, seed: number, proxies = trustedProxies(deps.config)) =>
  new Elysia({ name: "auth", seed })
    .use(rateLimitPlugin(deps, principalOf, seed))
    .decorate("authenticator", authenticator)
    .macro({
      team: {
        async transform({ headers, request, server }) {
          const session = sessionOf(deps, headers, request);
          authenticated.set(request, await (session ?? authenticator.authenticateTeam(bearer(headers.authorization), () => clientIp(server as IpServer, request, proxies))));
          checkPermission(request);
        },
        rateLimited: true,
        resolve: async ({ request, route, params, query, body }) => {
          rejectUnknownFilters(request, route);
          const team = principalOf<TeamPrincipal>(request);
          await enforceProjectScope(deps, team.teamId, team.access, { request, route, params, query, body });
          return { team };
        },
        afterHandle: ({ request, route, responseValue }) => {
          const principal = authenticated.get(request);
          if (principal?.kind === "team") return narrowList(principal.access, request, route, responseValue);
        },
      },
      session: {
        async transform({ headers, request }) {
          const session = sessionOf(deps, headers, request);
          if (!session) throw new UnauthenticatedError();
          authenticated.set(request, await session);
          checkPermission(request);
        },
        rateLimited: true,
        resolve: ({ request }) => ({ session: principalOf<SessionPrincipal>(request) }),
      },
      project: {
        async transform({ headers, request, server }) {
          const token = projectTokenOf(headers);
          if (token === MIXED_PROJECT_TOKENS) throw new UnauthenticatedError();
          authenticated.set(request, await authenticator.authenticateProject(token, () => clientIp(server as IpServer, request, proxies)));
        },
        rateLimited: true,
        resolve: ({ request }) => ({ project: principalOf<ProjectPrincipal>(request) }),
      },
      permission: (permission: Permission) => ({
        transform({ request }: { request: Request }) {
          required.set(request, permission);
          checkPermission(request);
        },
        beforeHandle({ request }: { request: Request }) {
          if (!permitted.has(request)) throw new ForbiddenError(`This request needs the ${permission} permission.`, "missing_permission");
        },
        detail: { "x-permission": permission } as Record<string, unknown>,
      }),
      anyToken: {
        async transform({ headers, request, server }) {
          const ip = () => clientIp(server as IpServer, request, proxies);
          const teamToken = bearer(headers.authorization);
          const projectToken = projectTokenOf(headers);
          if (projectToken === MIXED_PROJECT_TOKENS) throw new UnauthenticatedError();
          const session = teamToken || projectToken ? null : sessionOf(deps, headers, request);
          if (teamToken) authenticated.set(request, await authenticator.authenticateTeam(teamToken, ip));
          else if (projectToken) authenticated.set(request, await authenticator.authenticateProject(projectToken, ip));
          else if (session) authenticated.set(request, await session);
          else throw new UnauthenticatedError();
          checkPermission(request);
        },
        rateLimited: true,
        resolve: async ({ request, route, params, query, body }) => {
          const principal = principalOf<TeamPrincipal | ProjectPrincipal>(request);
          if (principal.kind === "team") await enforceProjectScope(deps, principal.teamId, principal.access, { request, route, params, query, body });
          return { principal };
        },
      },
    });
