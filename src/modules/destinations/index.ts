import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { projectsOf } from "../../http/project-scope.ts";
import { errorResponses } from "../../http/schemas.ts";
import { DestinationList } from "./model.ts";
import { DESTINATIONS_LISTED, listDestinations } from "./service.ts";

const security = [{ teamToken: [] }];

/** Per-destination shaping: each destination's state (GET /v1/queue/destinations). */
export const destinationsController = (deps: Deps) =>
  new Elysia({ tags: ["Queue"] }).use(authPlugin(deps)).get(
    "/v1/queue/destinations",
    async ({ team }) => {
      const data = await listDestinations(deps, team.teamId, Date.now(), projectsOf(team.access));
      const paused = data.filter((d) => d.paused).length;
      return { data, message: `${data.length} destination${data.length === 1 ? "" : "s"}, ${paused} paused.` };
    },
    {
      team: true,
      permission: "messages:read",
      detail: {
        summary: "Delivery destinations and their shaping",
        description: `Each destination (the MX host set of recipient domains, or the relay) with the limits in force, the pause a rate reply (421, 4.7.28, "too many", "try later") set, and the latest reply the destination gave to the team's own queued mail. Paused destinations first, at most ${DESTINATIONS_LISTED}. Only the destinations the team's queued mail is waiting for, with only its own recipient domains: destinations and their shaping are the server's (a pause holds every team's mail there), the domains mailed to and the replies about them are each team's.`,
        security,
      },
      response: { 200: DestinationList, ...errorResponses(401) },
    },
  );
