import { randomBytes } from "node:crypto";
import type { Deps } from "../../context.ts";
import { PROJECT_SORT, type NewProjectRow, type ProjectRow } from "../../db/projects.ts";
import type { NewRouteRow } from "../../db/routes.ts";
import type { Repositories } from "../../db/store.ts";
import { NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { WEBHOOK_QUEUE } from "../../events/publish.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import { deliverability, engagement, serializeRoutes, windowStart } from "../routes/base.ts";
import { serializeMember } from "../team/model.ts";
import type { ProjectData } from "./model.ts";

export type RouteType = "transactional" | "broadcast" | "inbound";

/** A fresh inbound address on the service's inbound domain. */
export const generateInboundAddress = (inboundDomain: string): string => `${randomBytes(16).toString("hex")}@${inboundDomain}`;

/** The row of a new route; inbound routes get a generated inbound address and the default spam threshold (5). */
export function newRoute(
  r: { teamId: string; projectId: string; name: string; slug: string; routeType: RouteType; isDefault: boolean; inboundDomain: string },
  now = Date.now(),
): NewRouteRow {
  return {
    id: newId(),
    team_id: r.teamId,
    project_id: r.projectId,
    slug: r.slug,
    name: r.name,
    route_type: r.routeType,
    is_default: r.isDefault ? 1 : 0,
    inbound_address: r.routeType === "inbound" ? generateInboundAddress(r.inboundDomain) : null,
    inbound_spam_threshold: r.routeType === "inbound" ? 5 : null,
    created_at: now,
  };
}

export const DEFAULT_ROUTES: { slug: string; name: string; routeType: RouteType }[] = [
  { slug: "transactional", name: "Transactional", routeType: "transactional" },
  { slug: "broadcast", name: "Broadcast", routeType: "broadcast" },
  { slug: "inbound", name: "Inbound", routeType: "inbound" },
];

/** A new project's rows (the project and one default route of each type) and its plaintext token. */
export interface NewProject {
  project: NewProjectRow;
  routes: NewRouteRow[];
  projectId: string;
  projectToken: string;
  routeIds: Record<RouteType, string>;
}

/** The rows of a project with its sending token and default routes; the token is shown once. */
export function newProject(input: { teamId: string; name: string; smtpEnabled?: boolean; inboundDomain: string }, now = Date.now()): NewProject {
  const projectId = newId();
  const projectToken = newToken(TOKEN_PREFIX.project);
  const routes = DEFAULT_ROUTES.map((r) => newRoute({ ...r, teamId: input.teamId, projectId, isDefault: true, inboundDomain: input.inboundDomain }, now));
  return {
    project: { id: projectId, team_id: input.teamId, name: input.name, smtp_enabled: input.smtpEnabled ? 1 : 0, token_hash: sha256Hex(projectToken), created_at: now },
    routes,
    projectId,
    projectToken,
    routeIds: Object.fromEntries(routes.map((r) => [r.route_type, r.id])) as Record<RouteType, string>,
  };
}

/** Stores a new project with its routes; inside a store.write. */
export async function insertProject(tx: Pick<Repositories, "projects" | "routes">, p: NewProject): Promise<void> {
  await tx.projects.insert(p.project);
  for (const r of p.routes) await tx.routes.insert(r);
}

/** Replaces the project's sending token; the old one stops working at once. Returns the new one. Inside a store.write. */
export async function rotateProjectToken(tx: Pick<Repositories, "projects">, projectId: string, now = Date.now()): Promise<string> {
  const token = newToken(TOKEN_PREFIX.project);
  await tx.projects.replaceToken(projectId, sha256Hex(token), now);
  return token;
}

/** The project's row if it belongs to `teamId`; otherwise a 404, whoever owns it. */
async function projectRow(repos: Pick<Repositories, "projects">, teamId: string, projectId: string): Promise<ProjectRow> {
  const row = await repos.projects.findOfTeam(projectId, teamId);
  if (!row) throw new NotFoundError("Project");
  return row;
}

/** Throws the 404 unless the project exists in this team. Pass `tx` inside a write that depends on it. */
export async function assertProject(repos: Pick<Repositories, "projects">, teamId: string, projectId: string): Promise<void> {
  await projectRow(repos, teamId, projectId);
}

/** Message counts of the last 28 days, by route type, and deliverability of the outbound ones. */
async function last28Days(repos: Pick<Repositories, "projects" | "tracking">, projectId: string, now = Date.now()) {
  const [rows, hits] = await Promise.all([repos.projects.messageCounts(projectId, windowStart(now)), repos.tracking.countsOfProject(projectId, windowStart(now))]);
  let transactional = 0;
  let broadcast = 0;
  let inbound = 0;
  const outbound: { status: string; n: number }[] = [];
  for (const r of rows) {
    if (r.type === "inbound") inbound += r.n;
    else {
      if (r.route_type === "broadcast") broadcast += r.n;
      else transactional += r.n;
      outbound.push(r);
    }
  }
  return {
    messages_transactional: transactional,
    messages_broadcast: broadcast,
    messages_inbound: inbound,
    deliverability: deliverability(outbound),
    ...engagement(hits),
  };
}

async function serializeProject(repos: Repositories, p: ProjectRow): Promise<ProjectData> {
  const routeRows = await repos.routes.ofProject(p.id);
  const routes = await serializeRoutes(repos, routeRows);
  const domains = (await repos.projects.domains(p.id)).map((d) => ({
    id: d.id,
    domain: d.domain,
    status_changed_at: iso(d.status_changed_at),
    created_at: iso(d.created_at)!,
  }));
  const members = (await repos.projects.members(p.id)).map(serializeMember);
  const defaultRoute = routeRows.find((r) => r.is_default === 1 && r.route_type === "transactional");
  return {
    id: p.id,
    name: p.name,
    smtp_enabled: p.smtp_enabled === 1,
    redact_email_content: false,
    default_route_id: defaultRoute?.id ?? null,
    token_generated_at: iso(p.token_generated_at)!,
    token_last_used_at: iso(p.token_last_used_at),
    token_last_used_ip: p.token_last_used_ip,
    created_at: iso(p.created_at)!,
    updated_at: iso(p.updated_at)!,
    routes,
    routes_count: routes.length,
    domains,
    domains_count: domains.length,
    team_members: members,
    team_members_count: members.length,
    last_28_days: await last28Days(repos, p.id),
  };
}

/** ProjectData of one project of the team (404 for any other). */
export async function getProjectData(deps: Pick<Deps, "store">, teamId: string, projectId: string): Promise<ProjectData> {
  return serializeProject(deps.store.read, await projectRow(deps.store.read, teamId, projectId));
}

export async function listProjects(deps: Pick<Deps, "store">, teamId: string, q: { sort?: string; query: Record<string, unknown> }) {
  const sort = parseSort(q.sort, PROJECT_SORT, "-created_at");
  const page = parsePage(q.query, sort.length);
  const result = await deps.store.read.projects.list(teamId, { sort, size: page.size, cursor: page.cursor });
  const data: ProjectData[] = [];
  for (const row of result.rows) data.push(await serializeProject(deps.store.read, row));
  return { page: result, data, size: page.size };
}

const cleanName = (name: string): string => {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationError.field("name", "The name field must not be blank.");
  return trimmed;
};

/** Creates a project with its three default routes; the token is returned once. */
export async function createTeamProject(
  deps: Pick<Deps, "store" | "config">,
  teamId: string,
  input: { name: string; smtp_enabled?: boolean },
): Promise<{ data: ProjectData; token: string }> {
  const created = newProject({ teamId, name: cleanName(input.name), smtpEnabled: input.smtp_enabled ?? false, inboundDomain: deps.config.inboundDomain });
  await deps.store.write((tx) => insertProject(tx, created));
  return { data: await getProjectData(deps, teamId, created.projectId), token: created.projectToken };
}

export async function updateProject(
  deps: Pick<Deps, "store">,
  teamId: string,
  projectId: string,
  input: { name?: string | null; smtp_enabled?: boolean | null },
): Promise<ProjectData> {
  const name = input.name === undefined || input.name === null ? null : cleanName(input.name);
  const smtp = input.smtp_enabled === undefined || input.smtp_enabled === null ? null : input.smtp_enabled ? 1 : 0;
  await deps.store.write(async (tx) => {
    await projectRow(tx, teamId, projectId);
    if (name !== null || smtp !== null) await tx.projects.update(projectId, { name, smtp_enabled: smtp }, Date.now());
  });
  return getProjectData(deps, teamId, projectId);
}

/**
 * Replaces the project's members with `teamMemberIds`. Every id must be a member of this team
 * (unknown ids and other teams' members are a 422 naming the item). Members who stay keep their
 * joined_at; new ones join with their team role.
 */
export async function setProjectMembers(deps: Pick<Deps, "store">, teamId: string, projectId: string, teamMemberIds: string[]): Promise<ProjectData> {
  const ids = [...new Set(teamMemberIds.map((id) => id.toLowerCase()))];
  await deps.store.write(async (tx) => {
    await projectRow(tx, teamId, projectId);
    const roles = new Map<string, string>();
    const errors: Record<string, string[]> = fieldErrors();
    for (const id of ids) {
      const role = await tx.teams.roleOfMember(id, teamId);
      if (role !== null) roles.set(id, role);
      else errors[`team_member_ids.${teamMemberIds.findIndex((x) => x.toLowerCase() === id)}`] = [`The team member ${id} is not a member of this team.`];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const now = Date.now();
    const keep = new Set(await tx.projects.memberIds(projectId));
    for (const id of keep) if (!roles.has(id)) await tx.projects.removeMember(projectId, id);
    for (const [id, role] of roles) if (!keep.has(id)) await tx.projects.addMember(projectId, id, role, now);
    await tx.projects.touch(projectId, now);
  });
  return getProjectData(deps, teamId, projectId);
}

/** Issues a new sending token for the team's project; the old one is refused from the commit on. */
export async function rotateTeamProjectToken(deps: Pick<Deps, "store">, teamId: string, projectId: string): Promise<{ data: ProjectData; token: string }> {
  const token = await deps.store.write(async (tx) => {
    await projectRow(tx, teamId, projectId);
    return rotateProjectToken(tx, projectId);
  });
  return { data: await getProjectData(deps, teamId, projectId), token };
}

/**
 * Deletes the project and everything that only exists for it: its routes, their webhooks (with
 * recorded and queued deliveries), project- and route-scoped suppressions, domain attachments
 * (the team's domains stay), member list and idempotency keys. Messages stay in the history with
 * project_id and route_id set to null; mail already accepted is still delivered.
 */
export async function deleteProject(deps: Pick<Deps, "store" | "queue">, teamId: string, projectId: string): Promise<void> {
  await deps.store.write(async (tx) => {
    await projectRow(tx, teamId, projectId);
    await tx.jobs.dropWebhookJobs(WEBHOOK_QUEUE, { projectId });
    await tx.projects.delete(projectId, teamId);
  });
}
