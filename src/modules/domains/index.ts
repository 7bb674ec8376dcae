import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { projectsOf } from "../../http/project-scope.ts";
import { errorResponses } from "../../http/schemas.ts";
import { Paginated, PageQuery } from "../../http/pagination.ts";
import {
  CreateDomainBody,
  DomainProjectsBody,
  DomainSchema,
  Envelope,
  DomainParams,
  InboundVerifyResponse,
  MessageOnly,
  RecordParams,
  RecordVerifyResponse,
  RouteParams,
  VerifyResponse,
} from "./model.ts";
import { createDomain, deleteDomain, getDomain, listDomains, rotateDkim, setDomainProjects, verifyDnsRecord, verifyDomain, verifyInboundDomain } from "./service.ts";

const security = [{ teamToken: [] }];

/** Sending domains: registration, DNS records to publish, verification, project attachment. */
export const domainsController = (deps: Deps) =>
  new Elysia({ tags: ["Domains"] })
    .use(authPlugin(deps))
    .post(
      "/v1/domains",
      async ({ team, body, set }) => {
        const domain = await createDomain(deps, team.teamId, body);
        set.status = 201;
        return domain;
      },
      {
        team: true,
        permission: "domains:manage",
        body: CreateDomainBody,
        response: { 201: DomainSchema, ...errorResponses(401, 409, 422) },
        detail: { summary: "Add a sending domain; answers the DNS records to publish", security },
      },
    )
    .get("/v1/domains", ({ team, query }) => listDomains(deps, team.teamId, query, projectsOf(team.access)), {
      team: true,
      permission: "domains:read",
      query: t.Object({ ...PageQuery, sort: t.Optional(t.String({ maxLength: 200 })), "filter[status]": t.Optional(t.String({ maxLength: 20 })) }),
      response: { 200: Paginated(DomainSchema), ...errorResponses(401, 422) },
      detail: { summary: "List the team's domains (sort: created_at, domain, status, status_changed_at)", security },
    })
    .get("/v1/domains/:domainId", ({ team, params }) => getDomain(deps, team.teamId, params.domainId, projectsOf(team.access)), {
      team: true,
      permission: "domains:read",
      params: DomainParams,
      response: { 200: DomainSchema, ...errorResponses(401, 404) },
      detail: { summary: "A domain with its DNS records and projects", security },
    })
    .delete(
      "/v1/domains/:domainId",
      async ({ team, params }) => {
        await deleteDomain(deps, team.teamId, params.domainId);
        return { message: "Domain deleted successfully." };
      },
      { team: true, permission: "domains:delete", params: DomainParams, response: { 200: MessageOnly, ...errorResponses(401, 404, 409) }, detail: { summary: "Delete a domain and its DKIM key", security } },
    )
    .put(
      "/v1/domains/:domainId/projects",
      async ({ team, params, body }) => ({
        data: await setDomainProjects(deps, team.teamId, params.domainId, body.project_ids, projectsOf(team.access)),
        message: "Domain projects updated successfully.",
      }),
      {
        team: true,
        permission: "domains:manage",
        params: DomainParams,
        body: DomainProjectsBody,
        response: { 200: Envelope(DomainSchema), ...errorResponses(401, 404, 409, 422) },
        detail: { summary: "Replace the projects that may send from the domain", security },
      },
    )
    .post("/v1/domains/:domainId/dns-records/verify", ({ team, params }) => verifyDomain(deps, team.teamId, params.domainId), {
      team: true,
      permission: "domains:manage",
      params: DomainParams,
      response: { 200: VerifyResponse, ...errorResponses(401, 404, 409) },
      detail: { summary: "Check every DNS record now; answers which failed and why", security },
    })
    .post(
      "/v1/domains/:domainId/dns-records/:recordId/verify",
      async ({ team, params }) => ({
        message: "DNS record verified successfully.",
        data: await verifyDnsRecord(deps, team.teamId, params.domainId, params.recordId),
      }),
      {
        team: true,
        permission: "domains:manage",
        params: RecordParams,
        response: { 200: RecordVerifyResponse, ...errorResponses(401, 404, 422) },
        detail: { summary: "Check one DNS record of the domain now; 422 with why when it does not pass (its new status is recorded)", security },
      },
    )
    .post(
      "/v1/domains/:domainId/dkim/rotate",
      async ({ team, params }) => ({
        data: await rotateDkim(deps, team.teamId, params.domainId),
        message: "New DKIM keys created. Publish their records (key_state next); signing switches to them once both verify, and the old records stay listed for 7 days after.",
      }),
      {
        team: true,
        permission: "domains:manage",
        params: DomainParams,
        response: { 200: Envelope(DomainSchema), ...errorResponses(401, 404) },
        detail: {
          summary: "Rotate the domain's DKIM keys: new RSA and Ed25519 keys under new selectors, pending until their records verify (a pending rotation is replaced)",
          security,
        },
      },
    );

/** The route inbound-domain check lives with the DNS code; the routes module owns the rest of /v1/routes. */
export const inboundDomainController = (deps: Deps) =>
  new Elysia({ tags: ["Routes"] })
    .use(authPlugin(deps))
    .post(
      "/v1/routes/:routeId/verify-inbound-domain",
      async ({ team, params }) => ({ data: await verifyInboundDomain(deps, team.teamId, params.routeId) }),
      {
        team: true,
        permission: "routes:manage",
        params: RouteParams,
        response: { 200: InboundVerifyResponse, ...errorResponses(401, 404, 409) },
        detail: {
          summary: "Check the route's inbound_domain: its MX points to this server and its _posthorn-verification TXT record holds the route's token",
          security,
        },
      },
    );
