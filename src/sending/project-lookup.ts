import type { DomainRow } from "../db/domains.ts";
import type { SendingRouteRow } from "../db/routes.ts";
import type { Repositories } from "../db/store.ts";
import { isUuid } from "../ids.ts";

/** Whom a send is for: the project of the token, and its team. */
export interface SendPrincipal {
  teamId: string;
  projectId: string;
}

type SendingDomain = Pick<DomainRow, "id" | "status">;

/**
 * What the database says about a project's routes and sending domains, cached for one request
 * (a batch names the same route and From domain over and over).
 */
export class ProjectLookup {
  // The lookups' promises are kept, so a repeat (a batch names one route over and over) costs no further step.
  private readonly routes = new Map<string, Promise<SendingRouteRow | null>>();
  private readonly domains = new Map<string, Promise<SendingDomain | null>>();

  constructor(
    private readonly repos: Pick<Repositories, "routes" | "domains">,
    private readonly principal: SendPrincipal,
  ) {}

  /** The route a slug or id names, or for null the project's default transactional route. */
  route(slugOrId: string | null): Promise<SendingRouteRow | null> {
    const key = slugOrId ?? "";
    let row = this.routes.get(key);
    if (!row) {
      const { projectId } = this.principal;
      row =
        slugOrId === null
          ? this.repos.routes.defaultTransactionalOf(projectId)
          : this.repos.routes.ofProjectBySlugOrId(projectId, slugOrId, isUuid(slugOrId) ? slugOrId.toLowerCase() : "");
      this.routes.set(key, row);
    }
    return row;
  }

  /** The team's domain of that name if it is attached to the project, else null. */
  domain(name: string): Promise<SendingDomain | null> {
    let row = this.domains.get(name);
    if (!row) this.domains.set(name, (row = this.repos.domains.sendingDomainOf(this.principal.teamId, this.principal.projectId, name)));
    return row;
  }
}
