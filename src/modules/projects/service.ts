import type { Database } from "bun:sqlite";
import { randomBytes } from "node:crypto";
import type { Deps } from "../../context.ts";
import { keysetPage } from "../../db/keyset.ts";
import { NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import { deliverability, ROUTE_COLUMNS, serializeRoutes, windowStart, type RouteRow } from "../routes/base.ts";
import { serializeMember, type MemberRow } from "../team/model.ts";
import type { ProjectData } from "./model.ts";
import { WEBHOOK_QUEUE } from "../../events/publish.ts";

export type RouteType = "transactional" | "broadcast" | "inbound";

/** A fresh inbound address on the service's inbound domain. */
export const generateInboundAddress = (inboundDomain: string): string => `${randomBytes(16).toString("hex")}@${inboundDomain}`;

/** Inserts a route; inbound routes get a generated inbound address. Synchronous. */
export function insertRoute(
  sqlite: Database,
  r: { teamId: string; projectId: string; name: string; slug: string; routeType: RouteType; isDefault: boolean; inboundDomain: string },
  now = Date.now(),
): string {
  const id = newId();
  sqlite
    .query(
      `INSERT INTO routes (id, team_id, project_id, slug, name, route_type, is_default, inbound_address, inbound_spam_threshold, attachment_delivery, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'inline', ?, ?)`,
    )
    .run(
      id,
      r.teamId,
      r.projectId,
      r.slug,
      r.name,
      r.routeType,
      r.isDefault ? 1 : 0,
      r.routeType === "inbound" ? generateInboundAddress(r.inboundDomain) : null,
      r.routeType === "inbound" ? 5 : null,
      now,
      now,
    );
  return id;
}

export const DEFAULT_ROUTES: { slug: string; name: string; routeType: RouteType }[] = [
  { slug: "transactional", name: "Transactional", routeType: "transactional" },
  { slug: "broadcast", name: "Broadcast", routeType: "broadcast" },
  { slug: "inbound", name: "Inbound", routeType: "inbound" },
];

/**
 * Creates a project with its sending token and one default route of each type.
 * Returns the plaintext token, which is shown once. Synchronous: run inside a Writer transaction.
 */
export function createProject(
  sqlite: Database,
  input: { teamId: string; name: string; smtpEnabled?: boolean; inboundDomain: string },
  now = Date.now(),
): { projectId: string; projectToken: string; routeIds: Record<RouteType, string> } {
  const projectId = newId();
  const projectToken = newToken(TOKEN_PREFIX.project);
  sqlite
    .query(
      `INSERT INTO projects (id, team_id, name, smtp_enabled, token_hash, token_generated_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(projectId, input.teamId, input.name, input.smtpEnabled ? 1 : 0, sha256Hex(projectToken), now, now, now);
  const routeIds = {} as Record<RouteType, string>;
  for (const r of DEFAULT_ROUTES) {
    routeIds[r.routeType] = insertRoute(sqlite, { ...r, teamId: input.teamId, projectId, isDefault: true, inboundDomain: input.inboundDomain }, now);
  }
  return { projectId, projectToken, routeIds };
}

/** Replaces the project's sending token; the old one stops working at once. Returns the new one. */
export function rotateProjectToken(sqlite: Database, projectId: string, now = Date.now()): string {
  const token = newToken(TOKEN_PREFIX.project);
  sqlite
    .query("UPDATE projects SET token_hash = ?, token_generated_at = ?, token_last_used_at = NULL, token_last_used_ip = NULL, updated_at = ? WHERE id = ?")
    .run(sha256Hex(token), now, now, projectId);
  return token;
}

type ProjectRow = {
  id: string;
  team_id: string;
  name: string;
  smtp_enabled: number;
  token_generated_at: number;
  token_last_used_at: number | null;
  token_last_used_ip: string | null;
  created_at: number;
  updated_at: number;
};

const PROJECT_COLUMNS = "id, team_id, name, smtp_enabled, token_generated_at, token_last_used_at, token_last_used_ip, created_at, updated_at";

/** The project's row if it belongs to `teamId`; otherwise a 404, whoever owns it. */
function projectRow(sqlite: Database, teamId: string, projectId: string): ProjectRow {
  const row = sqlite.query<ProjectRow, [string, string]>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ? AND team_id = ?`).get(projectId, teamId);
  if (!row) throw new NotFoundError("Project");
  return row;
}

/** Throws the 404 unless the project exists in this team. */
export function assertProject(sqlite: Database, teamId: string, projectId: string): void {
  projectRow(sqlite, teamId, projectId);
}

/** Message counts of the last 28 days, by route type, and deliverability of the outbound ones. */
function last28Days(sqlite: Database, projectId: string, now = Date.now()) {
  const rows = sqlite
    .query<{ route_type: string; type: string; status: string; n: number }, [string, number]>(
      `SELECT r.route_type, m.type, m.status, count(*) AS n
       FROM routes r JOIN messages m ON m.route_id = r.id AND m.created_at >= ?2
       WHERE r.project_id = ?1 GROUP BY r.route_type, m.type, m.status`,
    )
    .all(projectId, windowStart(now));
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
  return { messages_transactional: transactional, messages_broadcast: broadcast, messages_inbound: inbound, deliverability: deliverability(outbound) };
}

function serializeProject(sqlite: Database, p: ProjectRow): ProjectData {
  const routeRows = sqlite
    .query<RouteRow, [string]>(`SELECT ${ROUTE_COLUMNS} FROM routes WHERE project_id = ? ORDER BY created_at, id`)
    .all(p.id);
  const routes = serializeRoutes(sqlite, routeRows).map((r) => ({ ...r, project: null }));
  const domains = sqlite
    .query<{ id: string; domain: string; status_changed_at: number | null; created_at: number }, [string]>(
      `SELECT d.id, d.domain, d.status_changed_at, d.created_at FROM project_domains pd JOIN domains d ON d.id = pd.domain_id
       WHERE pd.project_id = ? ORDER BY d.domain`,
    )
    .all(p.id)
    .map((d) => ({ id: d.id, domain: d.domain, status_changed_at: iso(d.status_changed_at), created_at: iso(d.created_at)! }));
  const members = sqlite
    .query<MemberRow, [string]>(
      `SELECT tm.id, pm.role, pm.joined_at, pm.created_at, u.id AS user_id, u.name AS user_name, u.email AS user_email, u.avatar AS user_avatar
       FROM project_members pm JOIN team_members tm ON tm.id = pm.team_member_id JOIN users u ON u.id = tm.user_id
       WHERE pm.project_id = ? ORDER BY pm.joined_at, tm.id`,
    )
    .all(p.id)
    .map(serializeMember);
  const defaultRoute = routeRows.find((r) => r.is_default === 1 && r.route_type === "transactional");
  return {
    id: p.id,
    name: p.name,
    smtp_enabled: p.smtp_enabled === 1,
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
    last_28_days: last28Days(sqlite, p.id),
  };
}

/** ProjectData of one project of the team (404 for any other). */
export function getProjectData(sqlite: Database, teamId: string, projectId: string): ProjectData {
  return serializeProject(sqlite, projectRow(sqlite, teamId, projectId));
}

const PROJECT_SORT = { created_at: "created_at", name: "name" };

export function listProjects(sqlite: Database, teamId: string, q: { sort?: string; query: Record<string, unknown> }) {
  const sort = parseSort(q.sort, PROJECT_SORT, "-created_at");
  const page = parsePage(q.query, sort.length);
  const result = keysetPage<ProjectRow>(sqlite, {
    select: `SELECT ${PROJECT_COLUMNS} FROM projects`,
    where: ["team_id = ?"],
    params: [teamId],
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => sort.map((k) => row[k.column as keyof ProjectRow] as string | number),
  });
  return { page: result, data: result.rows.map((r) => serializeProject(sqlite, r)), size: page.size };
}

const cleanName = (name: string): string => {
  const trimmed = name.trim();
  if (!trimmed) throw ValidationError.field("name", "The name field must not be blank.");
  return trimmed;
};

/** Creates a project with its three default routes; the token is returned once. */
export async function createTeamProject(
  deps: Pick<Deps, "sqlite" | "writer" | "config">,
  teamId: string,
  input: { name: string; smtp_enabled?: boolean },
): Promise<{ data: ProjectData; token: string }> {
  const name = cleanName(input.name);
  const created = await deps.writer.write(() =>
    createProject(deps.sqlite, { teamId, name, smtpEnabled: input.smtp_enabled ?? false, inboundDomain: deps.config.inboundDomain }),
  );
  return { data: getProjectData(deps.sqlite, teamId, created.projectId), token: created.projectToken };
}

export async function updateProject(
  deps: Pick<Deps, "sqlite" | "writer">,
  teamId: string,
  projectId: string,
  input: { name?: string | null; smtp_enabled?: boolean | null },
): Promise<ProjectData> {
  const name = input.name === undefined || input.name === null ? null : cleanName(input.name);
  const smtp = input.smtp_enabled === undefined || input.smtp_enabled === null ? null : input.smtp_enabled ? 1 : 0;
  await deps.writer.write(() => {
    projectRow(deps.sqlite, teamId, projectId);
    if (name !== null || smtp !== null) {
      deps.sqlite
        .query("UPDATE projects SET name = coalesce(?, name), smtp_enabled = coalesce(?, smtp_enabled), updated_at = ? WHERE id = ?")
        .run(name, smtp, Date.now(), projectId);
    }
  });
  return getProjectData(deps.sqlite, teamId, projectId);
}

/**
 * Replaces the project's members with `teamMemberIds`. Every id must be a member of this team
 * (unknown ids and other teams' members are a 422 naming the item). Members who stay keep their
 * joined_at; new ones join with their team role.
 */
export async function setProjectMembers(
  deps: Pick<Deps, "sqlite" | "writer">,
  teamId: string,
  projectId: string,
  teamMemberIds: string[],
): Promise<ProjectData> {
  const ids = [...new Set(teamMemberIds.map((id) => id.toLowerCase()))];
  await deps.writer.write(() => {
    projectRow(deps.sqlite, teamId, projectId);
    const roles = new Map<string, string>();
    const lookup = deps.sqlite.query<{ id: string; role: string }, [string, string]>("SELECT id, role FROM team_members WHERE id = ? AND team_id = ?");
    const errors: Record<string, string[]> = fieldErrors();
    for (const id of ids) {
      const m = lookup.get(id, teamId);
      if (m) roles.set(id, m.role);
      else errors[`team_member_ids.${teamMemberIds.findIndex((x) => x.toLowerCase() === id)}`] = [`The team member ${id} is not a member of this team.`];
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const now = Date.now();
    const keep = new Set(
      deps.sqlite.query<{ team_member_id: string }, [string]>("SELECT team_member_id FROM project_members WHERE project_id = ?").all(projectId).map((r) => r.team_member_id),
    );
    const remove = deps.sqlite.query("DELETE FROM project_members WHERE project_id = ? AND team_member_id = ?");
    for (const id of keep) if (!roles.has(id)) remove.run(projectId, id);
    const insert = deps.sqlite.query("INSERT INTO project_members (project_id, team_member_id, role, joined_at, created_at) VALUES (?, ?, ?, ?, ?)");
    for (const [id, role] of roles) if (!keep.has(id)) insert.run(projectId, id, role, now, now);
    deps.sqlite.query("UPDATE projects SET updated_at = ? WHERE id = ?").run(now, projectId);
  });
  return getProjectData(deps.sqlite, teamId, projectId);
}

/** Issues a new sending token for the team's project; the old one is refused from the commit on. */
export async function rotateTeamProjectToken(
  deps: Pick<Deps, "sqlite" | "writer">,
  teamId: string,
  projectId: string,
): Promise<{ data: ProjectData; token: string }> {
  const token = await deps.writer.write(() => {
    projectRow(deps.sqlite, teamId, projectId);
    return rotateProjectToken(deps.sqlite, projectId);
  });
  return { data: getProjectData(deps.sqlite, teamId, projectId), token };
}

/**
 * Deletes the project and everything that only exists for it: its routes, their webhooks (with
 * recorded and queued deliveries), project- and route-scoped suppressions, domain attachments
 * (the team's domains stay), member list and idempotency keys. Messages stay in the history with
 * project_id and route_id set to null; mail already accepted is still delivered.
 */
export async function deleteProject(deps: Pick<Deps, "sqlite" | "writer" | "queue">, teamId: string, projectId: string): Promise<void> {
  await deps.writer.write(() => {
    projectRow(deps.sqlite, teamId, projectId);
    deps.queue.dropWebhookJobs(WEBHOOK_QUEUE, { projectId });
    deps.sqlite.query("DELETE FROM projects WHERE id = ? AND team_id = ?").run(projectId, teamId);
  });
}
