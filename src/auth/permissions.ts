/**
 * Roles and permissions (docs/access.md). The permission names are the service's (`RbacPermission`
 * of the `lettermint` package's types, with `analytics:read` of its newer generated types); the
 * built-in roles are its `BuiltInTeamRole`s. Each management route declares the one permission
 * it needs (`permission:` beside `team: true`, src/http/auth.ts); this file knows no route.
 */

export const PERMISSIONS = [
  "team:manage",
  "billing:manage",
  "security:manage",
  "audit:read",
  "support:manage",
  "members:read",
  "members:manage",
  "roles:manage",
  "team_tokens:read",
  "team_tokens:manage",
  "team_tokens:rotate",
  "team_tokens:revoke",
  "projects:create",
  "team_suppressions:read",
  "team_suppressions:add",
  "team_suppressions:remove",
  "projects:read",
  "projects:manage",
  "projects:delete",
  "routes:read",
  "routes:manage",
  "routes:delete",
  "domains:read",
  "domains:manage",
  "domains:delete",
  "project_tokens:read",
  "project_tokens:manage",
  "project_tokens:rotate",
  "project_tokens:revoke",
  "webhooks:read",
  "webhooks:manage",
  "webhooks:delete",
  "webhooks:rotate_secret",
  "stats:read",
  "analytics:read",
  "messages:read",
  "messages:read_content",
  "messages:send",
  "suppressions:read",
  "suppressions:add",
  "suppressions:remove",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const KNOWN: ReadonlySet<string> = new Set(PERMISSIONS);
export const isPermission = (name: string): name is Permission => KNOWN.has(name);

export const BUILT_IN_ROLES = ["owner", "admin", "member"] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];
export const isBuiltInRole = (role: string): role is BuiltInRole => (BUILT_IN_ROLES as readonly string[]).includes(role);

/**
 * What the built-in roles may do. The service does not publish its table; these follow its names:
 * - owner: everything.
 * - admin: everything but billing and the team's security settings (two-factor, single sign-on);
 *   may manage members and roles, but never an owner (`owner_protected`).
 * - member: the daily work on the projects: read everything of them, send, change routes and
 *   webhooks, manage suppressions; no deletions, no domains, no tokens, no team administration.
 */
export const BUILT_IN_PERMISSIONS: Record<BuiltInRole, readonly Permission[]> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS.filter((p) => p !== "billing:manage" && p !== "security:manage"),
  member: [
    "members:read",
    "team_suppressions:read",
    "projects:read",
    "routes:read",
    "routes:manage",
    "domains:read",
    "project_tokens:read",
    "webhooks:read",
    "webhooks:manage",
    "stats:read",
    "analytics:read",
    "messages:read",
    "messages:read_content",
    "messages:send",
    "suppressions:read",
    "suppressions:add",
    "suppressions:remove",
  ],
};

export const BUILT_IN_ROLE_NAMES: Record<BuiltInRole, string> = { owner: "Owner", admin: "Admin", member: "Member" };

/**
 * What a principal may do: its permissions, and the projects it works on (null: all of the team's;
 * a list: only those, everything of another project is a 404 as for another team).
 */
export interface Access {
  permissions: ReadonlySet<Permission>;
  projects: readonly string[] | null;
}

/** The team token's, and an owner's: everything, every project. */
export const FULL_ACCESS: Access = Object.freeze({ permissions: new Set<Permission>(PERMISSIONS), projects: null });

/** The permissions of a stored list (a custom role's JSON), names this server no longer knows dropped. */
export function permissionsOf(json: string | null | undefined): Permission[] {
  if (!json) return [];
  try {
    const names = JSON.parse(json) as unknown;
    return Array.isArray(names) ? names.filter((n): n is Permission => typeof n === "string" && isPermission(n)) : [];
  } catch {
    return [];
  }
}

/** A stored project list (team_members.project_ids): null for all. */
export function projectsOf(json: string | null | undefined): string[] | null {
  if (json === null || json === undefined) return null;
  try {
    const ids = JSON.parse(json) as unknown;
    return Array.isArray(ids) ? ids.filter((i): i is string => typeof i === "string") : [];
  } catch {
    return [];
  }
}

/** The access of a member with `role` (a built-in key, else a custom role whose permissions are `customPermissions`). */
export function accessOf(role: string, customPermissions: string | null | undefined, projectIds: string | null | undefined): Access {
  const permissions = isBuiltInRole(role) ? BUILT_IN_PERMISSIONS[role] : permissionsOf(customPermissions);
  // An owner works on every project, whatever was stored.
  return { permissions: new Set(permissions), projects: role === "owner" ? null : projectsOf(projectIds) };
}
