import { Elysia } from "elysia";
import type { Deps } from "../context.ts";
import { UnauthenticatedError } from "../errors.ts";
import { TokenAuthenticator, type ProjectPrincipal, type TeamPrincipal } from "../modules/auth/service.ts";

const bearer = (header: string | undefined): string | null => {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
};

type IpServer = { requestIP?: (r: Request) => { address: string } | null } | null;
const clientIp = (server: IpServer, request: Request): string | null => server?.requestIP?.(request)?.address ?? null;

const plugins = new WeakMap<Deps, ReturnType<typeof buildAuthPlugin>>();
let instances = 0;

/**
 * The auth plugin, one instance per Deps, so every controller of an app shares it. Routes opt in with `{ team: true }` (Bearer team token; resolves `team`),
 * `{ project: true }` (x-service-token; resolves `project`) or `{ anyToken: true }`.
 */
export function authPlugin(deps: Deps) {
  let plugin = plugins.get(deps);
  if (!plugin) plugins.set(deps, (plugin = buildAuthPlugin(new TokenAuthenticator(deps), ++instances)));
  return plugin;
}

const buildAuthPlugin = (authenticator: TokenAuthenticator, seed: number) =>
  new Elysia({ name: "auth", seed })
    .decorate("authenticator", authenticator)
    .macro({
      team: {
        resolve({ headers, request, server }): { team: TeamPrincipal } {
          return { team: authenticator.team(bearer(headers.authorization), clientIp(server as IpServer, request)) };
        },
      },
      project: {
        resolve({ headers, request, server }): { project: ProjectPrincipal } {
          return { project: authenticator.project(headers["x-service-token"], clientIp(server as IpServer, request)) };
        },
      },
      anyToken: {
        resolve({ headers, request, server }): { principal: TeamPrincipal | ProjectPrincipal } {
          const ip = clientIp(server as IpServer, request);
          const teamToken = bearer(headers.authorization);
          if (teamToken) return { principal: authenticator.team(teamToken, ip) };
          const projectToken = headers["x-service-token"];
          if (projectToken) return { principal: authenticator.project(projectToken, ip) };
          throw new UnauthenticatedError();
        },
      },
    });
