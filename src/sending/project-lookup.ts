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
  private readonly routes = new Map<string, SendingRouteRow | null>();
  private readonly domains = new Map<string, SendingDomain | null>();

  constructor(
    private readonly repos: Pick<Repositories, "routes" | "domains">,
    private readonly principal: SendPrincipal,
  ) {}

  /** The route a slug or id names, or for null the project's default transactional route. */
  async route(slugOrId: string | null): Promise<SendingRouteRow | null> {
    const key = slugOrId ?? "";
    if (this.routes.has(key)) return this.routes.get(key)!;
    const { projectId } = this.principal;
    const row =
      slugOrId === null
        ? await this.repos.routes.defaultTransactionalOf(projectId)
        : await this.repos.routes.ofProjectBySlugOrId(projectId, slugOrId, isUuid(slugOrId) ? slugOrId.toLowerCase() : "");
    this.routes.set(key, row);
    return row;
  }

  /** The team's domain of that name if it is attached to the project, else null. */
  async domain(name: string): Promise<SendingDomain | null> {
    if (this.domains.has(name)) return this.domains.get(name)!;
    const row = await this.repos.domains.sendingDomainOf(this.principal.teamId, this.principal.projectId, name);
    this.domains.set(name, row);
    return row;
  }
}
