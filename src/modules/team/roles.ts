/**
 * Roles and assignments (docs/access.md): the built-in roles and the team's custom ones, which
 * role a member holds and which projects they work on. Who may call each operation is declared on
 * its route (src/http/auth.ts); this file keeps the rules between principals: nobody grants what
 * they lack, only an owner touches an owner or gives the owner role (`owner_protected`), the last
 * owner stays (`last_owner`), built-in roles never change (`built_in_role_immutable`), and a role
 * still held is not deleted (`stale_resource`).
 */
import {
  BUILT_IN_PERMISSIONS,
  BUILT_IN_ROLE_NAMES,
  BUILT_IN_ROLES,
  FULL_ACCESS,
  isBuiltInRole,
  isPermission,
  permissionsOf,
  projectsOf,
  type Access,
  type Permission,
} from "../../auth/permissions.ts";
import type { SessionPrincipal } from "../../auth/sessions.ts";
import type { TeamPrincipal } from "../../auth/tokens.ts";
import type { Deps } from "../../context.ts";
import type { MemberRow, RoleRow } from "../../db/teams.ts";
import type { Repositories } from "../../db/store.ts";
import { ConflictError, fieldErrors, ForbiddenError, NotFoundError, ValidationError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import { serializeTeamMember, type TeamMemberData, type TeamRoleData } from "./model.ts";

/** What a principal may do and on which projects (a principal without its own access: everything). */
export const accessOfPrincipal = (p: TeamPrincipal): Access => p.access ?? FULL_ACCESS;

/** Whether the principal acts as an owner: the team token, an owner's session, or a named token holding the owner role (not any token: an admin's is no owner). */
export const isOwner = (p: TeamPrincipal): boolean =>
  "session" in p ? (p as SessionPrincipal).session.role === "owner" : p.tokenId === undefined || p.role === "owner";

const ownerProtected = (message: string) => new ConflictError(message, "owner_protected");

const roleData = (principal: TeamPrincipal, role: { id: string; name: string; system_key: TeamRoleData["system_key"]; permissions: readonly string[] }): TeamRoleData => ({
  ...role,
  permissions: [...role.permissions],
  assignable: role.id !== "owner" || isOwner(principal),
});

const customRoleData = (principal: TeamPrincipal, r: RoleRow): TeamRoleData =>
  roleData(principal, { id: r.id, name: r.name, system_key: null, permissions: permissionsOf(r.permissions) });

/** The built-in roles, then the team's own, oldest first. */
export async function listRoles(deps: Pick<Deps, "store">, principal: TeamPrincipal): Promise<TeamRoleData[]> {
  const custom = await deps.store.read.teams.roles(principal.teamId);
  return [
    ...BUILT_IN_ROLES.map((key) => roleData(principal, { id: key, name: BUILT_IN_ROLE_NAMES[key], system_key: key, permissions: BUILT_IN_PERMISSIONS[key] })),
    ...custom.map((r) => customRoleData(principal, r)),
  ];
}

/** The permission names of a body, each known (else a 422 naming it), without repeats, in the catalogue's order. */
export function checkedPermissions(names: readonly string[]): Permission[] {
  const errors = fieldErrors();
  names.forEach((n, i) => {
    if (!isPermission(n)) errors[`permissions.${i}`] = [`Unknown permission "${n}". See GET /v1/team/roles or docs/access.md for the names.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return [...new Set(names as Permission[])];
}

/** Nobody gives a role more than they may do themselves (an admin cannot make a role with billing:manage). */
export function grantable(principal: TeamPrincipal, permissions: readonly Permission[]): void {
  const own = accessOfPrincipal(principal).permissions;
  const beyond = permissions.filter((p) => !own.has(p));
  if (beyond.length > 0) throw new ForbiddenError(`You cannot grant permissions you do not have: ${beyond.join(", ")}.`, "missing_permission");
}

/**
 * A caller limited to selected projects changes or deletes only a role whose every holder (member
 * or named token) works within the caller's projects: else the change would reach projects the
 * caller does not work on (403 project_access).
 */
async function heldWithinProjects(tx: Repositories, principal: TeamPrincipal, roleId: string): Promise<void> {
  const own = accessOfPrincipal(principal).projects;
  if (own === null) return;
  const holders = await tx.teams.roleHolderProjects(principal.teamId, roleId);
  if (holders.some((projects) => !withinProjects(own, projects))) {
    throw new ForbiddenError("Members or tokens that work on projects you do not hold this role: only someone who works on all of them may change it.", "project_access");
  }
}

const blankName = () => ValidationError.field("name", "The name field must not be blank.");

export async function createRole(deps: Pick<Deps, "store">, principal: TeamPrincipal, input: { name: string; permissions: string[] }): Promise<TeamRoleData> {
  const name = input.name.trim();
  if (!name) throw blankName();
  const permissions = checkedPermissions(input.permissions);
  grantable(principal, permissions);
  const now = Date.now();
  const row: RoleRow = { id: newId(), team_id: principal.teamId, name, permissions: JSON.stringify(permissions), created_at: now, updated_at: now };
  return deps.store.write(async (tx) => {
    if (await tx.teams.roleNamed(principal.teamId, name)) throw new ConflictError(`The team has a role named ${name} already.`);
    await tx.teams.insertRole(row);
    return customRoleData(principal, row);
  });
}

const builtInImmutable = () => new ConflictError("The built-in roles (owner, admin, member) cannot be changed or deleted; make a custom role instead.", "built_in_role_immutable");

export async function updateRole(
  deps: Pick<Deps, "store">,
  principal: TeamPrincipal,
  roleId: string,
  input: { name?: string; permissions?: string[] },
): Promise<TeamRoleData> {
  if (isBuiltInRole(roleId)) throw builtInImmutable();
  const name = input.name?.trim();
  if (name === "") throw blankName();
  const permissions = input.permissions === undefined ? undefined : checkedPermissions(input.permissions);
  if (permissions) grantable(principal, permissions);
  return deps.store.write(async (tx) => {
    const role = await tx.teams.role(principal.teamId, roleId.toLowerCase());
    if (!role) throw new NotFoundError("Role");
    // Taking permissions away from a role one cannot grant is as much a change of them.
    grantable(principal, permissionsOf(role.permissions));
    await heldWithinProjects(tx, principal, role.id);
    if (name !== undefined && name !== role.name) {
      const other = await tx.teams.roleNamed(principal.teamId, name);
      if (other && other !== role.id) throw new ConflictError(`The team has a role named ${name} already.`);
    }
    const updated = await tx.teams.updateRole(
      principal.teamId,
      role.id,
      { name: name ?? role.name, permissions: permissions ? JSON.stringify(permissions) : role.permissions },
      Date.now(),
    );
    if (!updated) throw new NotFoundError("Role");
    return customRoleData(principal, updated);
  });
}

export async function deleteRole(deps: Pick<Deps, "store">, principal: TeamPrincipal, roleId: string): Promise<void> {
  if (isBuiltInRole(roleId)) throw builtInImmutable();
  await deps.store.write(async (tx) => {
    const role = await tx.teams.role(principal.teamId, roleId.toLowerCase());
    if (!role) throw new NotFoundError("Role");
    grantable(principal, permissionsOf(role.permissions));
    await heldWithinProjects(tx, principal, role.id);
    const holders = await tx.teams.membersWithRole(principal.teamId, role.id);
    const tokens = await tx.teams.tokensWithRole(principal.teamId, role.id);
    if (holders + tokens > 0) {
      throw new ConflictError(
        `${holders} member(s) and ${tokens} token(s) still hold this role; give the members another role (PUT /v1/team/members/{id}/assignment) and revoke the tokens first.`,
        "stale_resource",
      );
    }
    await tx.teams.deleteRole(principal.teamId, role.id);
  });
}

/** Whether a member's or token's stored projects (null: all) are all among `own`. */
export const withinProjects = (own: readonly string[], projectIds: string | null | undefined): boolean => {
  const theirs = projectsOf(projectIds);
  return theirs !== null && theirs.every((p) => own.includes(p));
};

/** The permissions of a role id of the team (built-in or custom), or null when there is no such role. */
async function permissionsOfRole(tx: Repositories, teamId: string, roleId: string): Promise<{ id: string; permissions: Permission[] } | null> {
  if (isBuiltInRole(roleId)) return { id: roleId, permissions: [...BUILT_IN_PERMISSIONS[roleId]] };
  const role = await tx.teams.role(teamId, roleId.toLowerCase());
  return role ? { id: role.id, permissions: permissionsOf(role.permissions) } : null;
}

/**
 * The role a member may be given by `principal`: a role of the team (else 422 on `field`), no
 * wider than the principal's own permissions, the owner role only from an owner.
 */
export async function assignableRole(tx: Repositories, principal: TeamPrincipal, roleId: string, field: string): Promise<string> {
  const role = await permissionsOfRole(tx, principal.teamId, roleId);
  if (!role) throw ValidationError.field(field, `The ${field} field must be a role id of GET /v1/team/roles.`);
  if (role.id === "owner" && !isOwner(principal)) throw ownerProtected("Only an owner can make a member owner.");
  grantable(principal, role.permissions);
  return role.id;
}

/**
 * The TeamMemberData of rows, with the names of their selected projects (one query for all).
 * `within`: the projects of a caller limited to selected ones; a member's other projects are left
 * out of its project_access (their names and ids are none of the caller's business). null: all.
 */
export async function membersData(repos: Repositories, teamId: string, rows: MemberRow[], within: readonly string[] | null = null): Promise<TeamMemberData[]> {
  const ids = [...new Set(rows.flatMap((r) => projectsOf(r.project_ids) ?? []))].filter((id) => within === null || within.includes(id));
  const names = new Map((await repos.teams.projectNames(teamId, ids)).map((p) => [p.id, p]));
  return rows.map((r) => {
    const selected = projectsOf(r.project_ids);
    return serializeTeamMember(r, selected === null ? null : selected.flatMap((id) => names.get(id) ?? []));
  });
}

/**
 * PUT /v1/team/members/{id}/assignment: the member's role and projects. An owner works on every
 * project (scope selected with the owner role is a 422); the last active owner keeps the role.
 */
export async function updateAssignment(
  deps: Pick<Deps, "store">,
  principal: TeamPrincipal,
  memberId: string,
  input: { role_id: string; project_access: { scope: "all" | "selected"; project_ids?: string[] } },
): Promise<TeamMemberData> {
  const { scope } = input.project_access;
  const requested = [...new Set((input.project_access.project_ids ?? []).map((id) => id.toLowerCase()))];
  return deps.store.write(async (tx) => {
    // The member first: another team's member is a 404 whatever the body, as an unknown one is.
    const member = await tx.teams.member(principal.teamId, memberId.toLowerCase());
    if (!member) throw new NotFoundError("Team member");
    if (scope === "all" && requested.length > 0) {
      throw ValidationError.field("project_access.project_ids", "project_ids must be empty or absent when the scope is all.");
    }
    if (scope === "selected" && requested.length === 0) {
      throw ValidationError.field("project_access.project_ids", "project_ids must name at least one project when the scope is selected.");
    }
    if (member.role === "owner" && !isOwner(principal)) throw ownerProtected("Only an owner can change an owner's role or projects.");
    const own = accessOfPrincipal(principal).projects;
    if (own !== null) {
      // Limited to projects: a member of more projects is none of the caller's business, and nobody gets more than the caller's.
      if (!withinProjects(own, member.project_ids)) throw new NotFoundError("Team member");
      if (scope === "all") throw ValidationError.field("project_access.scope", "You work on selected projects only: give selected projects of yours.");
    }
    const role = await assignableRole(tx, principal, input.role_id, "role_id");
    if (role === "owner" && scope === "selected") {
      throw ValidationError.field("project_access.scope", "An owner works on every project: the scope must be all.");
    }
    if (member.role === "owner" && role !== "owner" && member.status === "active" && (await tx.accounts.countOwners(principal.teamId)) <= 1) {
      throw new ConflictError("The team's last owner keeps the owner role; make another member owner first.", "last_owner");
    }
    let projectIds: string | null = null;
    if (scope === "selected") {
      const found = new Set((await tx.teams.projectNames(principal.teamId, requested)).map((p) => p.id));
      const errors = fieldErrors();
      requested.forEach((id, i) => {
        if (!found.has(id) || (own !== null && !own.includes(id))) errors[`project_access.project_ids.${i}`] = [`No project ${id} in this team.`];
      });
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      projectIds = JSON.stringify(requested);
    }
    await tx.teams.assign(principal.teamId, member.id, role, projectIds);
    const row = await tx.teams.member(principal.teamId, member.id);
    return (await membersData(tx, principal.teamId, [row!], own))[0]!;
  });
}
