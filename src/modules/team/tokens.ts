/**
 * Named team tokens (docs/access.md): any number per team, each with a role or its own
 * permissions, optionally limited to projects and to a time. The secret is shown once (creation,
 * rotation) and stored as its SHA-256; authentication is src/auth/tokens.ts. Nobody makes a token
 * that may do more than they may: its permissions and projects stay within the caller's.
 */
import { permissionsOf, projectsOf, BUILT_IN_PERMISSIONS, isBuiltInRole, type Permission } from "../../auth/permissions.ts";
import type { TeamPrincipal } from "../../auth/tokens.ts";
import type { Deps } from "../../context.ts";
import type { TeamTokenRow } from "../../db/teams.ts";
import type { Repositories } from "../../db/store.ts";
import { fieldErrors, NotFoundError, ValidationError } from "../../errors.ts";
import { iso, newId, newToken, sha256Hex, TOKEN_PREFIX } from "../../ids.ts";
import type { TeamTokenData } from "./model.ts";
import { accessOfPrincipal, assignableRole, checkedPermissions, grantable } from "./roles.ts";

async function tokenData(repos: Repositories, r: TeamTokenRow): Promise<TeamTokenData> {
  let permissions: Permission[];
  if (r.role === null) permissions = permissionsOf(r.permissions);
  else if (isBuiltInRole(r.role)) permissions = [...BUILT_IN_PERMISSIONS[r.role]];
  else permissions = permissionsOf((await repos.teams.role(r.team_id, r.role))?.permissions);
  const selected = projectsOf(r.project_ids);
  return {
    id: r.id,
    name: r.name,
    role_id: r.role,
    permissions,
    project_access: selected === null ? { scope: "all", projects: [] } : { scope: "selected", projects: await repos.teams.projectNames(r.team_id, selected) },
    expires_at: iso(r.expires_at),
    created_at: iso(r.created_at)!,
    rotated_at: iso(r.rotated_at)!,
    last_used_at: iso(r.last_used_at),
    last_used_ip: r.last_used_ip,
  };
}

export async function listTokens(deps: Pick<Deps, "store">, principal: TeamPrincipal): Promise<TeamTokenData[]> {
  const rows = await deps.store.read.teams.namedTokens(principal.teamId);
  const own = accessOfPrincipal(principal).projects;
  const out: TeamTokenData[] = [];
  for (const r of rows) {
    // A member limited to projects sees the tokens limited to some of theirs only.
    const projects = projectsOf(r.project_ids);
    if (own !== null && (projects === null || projects.some((p) => !own.includes(p)))) continue;
    out.push(await tokenData(deps.store.read, r));
  }
  return out;
}

export interface CreateToken {
  name: string;
  role_id?: string;
  permissions?: string[];
  project_ids?: string[];
  expires_at?: string;
}

export async function createToken(deps: Pick<Deps, "store">, principal: TeamPrincipal, input: CreateToken): Promise<{ data: TeamTokenData; token: string }> {
  const name = input.name.trim();
  if (!name) throw ValidationError.field("name", "The name field must not be blank.");
  if ((input.role_id === undefined) === (input.permissions === undefined)) {
    const message = "Give either role_id or permissions.";
    throw new ValidationError({ role_id: [message], permissions: [message] });
  }
  const now = Date.now();
  let expiresAt: number | null = null;
  if (input.expires_at !== undefined) {
    expiresAt = Date.parse(input.expires_at);
    if (!Number.isFinite(expiresAt) || expiresAt <= now) throw ValidationError.field("expires_at", "The expires_at field must be an ISO 8601 date-time in the future.");
  }
  const own = accessOfPrincipal(principal);
  const requested = [...new Set((input.project_ids ?? []).map((id) => id.toLowerCase()))];
  // A member limited to projects makes tokens limited to (some of) theirs.
  if (own.projects !== null && requested.length === 0) {
    throw ValidationError.field("project_ids", "You work on selected projects only: name the projects of the token.");
  }
  const permissions = input.permissions === undefined ? null : checkedPermissions(input.permissions);
  if (permissions) grantable(principal, permissions);
  const token = newToken(TOKEN_PREFIX.team);
  return deps.store.write(async (tx) => {
    const role = input.role_id === undefined ? null : await assignableRole(tx, principal, input.role_id, "role_id");
    if (role === "owner" && requested.length > 0) throw ValidationError.field("project_ids", "An owner token works on every project: give no project_ids.");
    if (requested.length > 0) {
      const found = new Set((await tx.teams.projectNames(principal.teamId, requested)).map((p) => p.id));
      const errors = fieldErrors();
      requested.forEach((id, i) => {
        if (!found.has(id) || (own.projects !== null && !own.projects.includes(id))) errors[`project_ids.${i}`] = [`No project ${id} in this team.`];
      });
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    }
    const row: TeamTokenRow = {
      id: newId(),
      team_id: principal.teamId,
      name,
      role,
      permissions: permissions ? JSON.stringify(permissions) : null,
      project_ids: requested.length > 0 ? JSON.stringify(requested) : null,
      expires_at: expiresAt,
      created_at: now,
      rotated_at: now,
      last_used_at: null,
      last_used_ip: null,
    };
    await tx.teams.insertNamedToken({ ...row, token_hash: sha256Hex(token) });
    return { data: await tokenData(tx, row), token };
  });
}

/** The token of the team that the caller may manage: one that may do no more than they may (else a 404, as for another team's). */
async function manageable(tx: Repositories, principal: TeamPrincipal, id: string): Promise<TeamTokenRow> {
  const row = await tx.teams.namedToken(principal.teamId, id.toLowerCase());
  if (!row) throw new NotFoundError("Token");
  const data = await tokenData(tx, row);
  grantable(principal, data.permissions as Permission[]);
  const own = accessOfPrincipal(principal).projects;
  const projects = projectsOf(row.project_ids);
  if (own !== null && (projects === null || projects.some((p) => !own.includes(p)))) throw new NotFoundError("Token");
  return row;
}

export async function rotateToken(deps: Pick<Deps, "store">, principal: TeamPrincipal, id: string): Promise<{ data: TeamTokenData; token: string }> {
  const token = newToken(TOKEN_PREFIX.team);
  return deps.store.write(async (tx) => {
    const row = await manageable(tx, principal, id);
    const rotated = await tx.teams.rotateNamedToken(principal.teamId, row.id, sha256Hex(token), Date.now());
    if (!rotated) throw new NotFoundError("Token");
    return { data: await tokenData(tx, rotated), token };
  });
}

export async function revokeToken(deps: Pick<Deps, "store">, principal: TeamPrincipal, id: string): Promise<string> {
  return deps.store.write(async (tx) => {
    const row = await manageable(tx, principal, id);
    await tx.teams.deleteNamedToken(principal.teamId, row.id);
    return row.id;
  });
}
