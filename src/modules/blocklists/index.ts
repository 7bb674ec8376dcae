import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { errorResponses } from "../../http/schemas.ts";
import { BlocklistStatusData } from "./model.ts";
import { blocklistStatus } from "./service.ts";

/** Blocklist status of the sending addresses and the team's domains (docs/deliverability.md, Blocklists). */
export const blocklistsController = (deps: Deps) =>
  new Elysia({ tags: ["Deliverability"] })
    .use(authPlugin(deps))
    .get("/v1/deliverability/blocklists", ({ team }) => blocklistStatus(deps, team.teamId), {
      team: true,
      permission: "domains:read",
      response: { 200: BlocklistStatusData, ...errorResponses(401) },
      detail: {
        summary: "Blocklist status: the server's sending addresses in the DNSBL zones and the team's verified domains in the domain zones, from the last check",
        security: [{ teamToken: [] }],
      },
    });
