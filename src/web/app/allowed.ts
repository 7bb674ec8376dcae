/**
 * Which actions the signed-in member may take (docs/dashboard.md, docs/access.md). Both halves come
 * from the server, none is written here: the permission each operation needs is its `x-permission`
 * in the OpenAPI document (GET /openapi/json, the same document api-types.ts is generated from),
 * and the member's permissions are their role's in GET /v1/team/roles. A view asks
 * `allowed("DELETE /v1/domains/{domainId}")` (an operation of api-types.ts, so a typo or a route
 * that is gone is a type error) and shows the action only when it is true. Until both are read, or
 * when they cannot be (a custom role without members:read), nothing is allowed: the dashboard
 * hides rather than shows an action the API would refuse. The API checks every request anyway.
 * A view that also lists the team's roles (to pick one for a new member or token) takes them from
 * the same read with `useAccess()`, so no view reads GET /v1/team/roles or a permission by itself.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type ApiItem, type Session } from "./api.ts";
import type { paths } from "./api-types.ts";

type Method = "get" | "post" | "put" | "patch" | "delete";
/** "METHOD /path" of every operation of the API, as the OpenAPI document writes it: "DELETE /v1/domains/{domainId}". */
export type Operation = {
  [P in keyof paths]: { [M in Method]: [NonNullable<paths[P][M]>] extends [never] ? never : `${Uppercase<M>} ${P & string}` }[Method];
}[keyof paths];

/** A role of the team, as GET /v1/team/roles lists it. */
export type TeamRole = ApiItem<"/v1/team/roles">;

interface Access {
  /** Operation → the permission it declares, or null when it declares none (the API checks no permission). */
  operations: ReadonlyMap<string, string | null>;
  /** The signed-in member's permissions. */
  mine: ReadonlySet<string>;
  /** The team's roles (empty when they cannot be read). */
  roles: readonly TeamRole[];
}

let role: string | null = null;
let loading: Promise<Access> | null = null;
/** Whether `loading` is still under way: a view that asks for a fresh read shares one under way (its siblings' of the same render). */
let underWay = false;
let operations: Promise<Map<string, string | null>> | null = null;

/** Told by the app whenever who is signed in changes (sign-in, sign-out, another team): what was read is forgotten. */
export function signedInAs(session: Session | null): void {
  role = session?.team.role ?? null;
  loading = null;
}

function access(fresh: boolean): Promise<Access> {
  if (!loading || (fresh && !underWay)) {
    underWay = true;
    const read = readAccess();
    loading = read;
    void read.finally(() => {
      if (loading === read) underWay = false;
    });
  }
  return loading;
}

async function readOperations(): Promise<Map<string, string | null>> {
  const res = await fetch("/openapi/json", { credentials: "same-origin", headers: { accept: "application/json" } });
  if (!res.ok) throw new Error(`GET /openapi/json answered ${res.status}`);
  const doc = (await res.json()) as { paths?: Record<string, Record<string, { "x-permission"?: string }>> };
  const map = new Map<string, string | null>();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      if (op && typeof op === "object") map.set(`${method.toUpperCase()} ${path}`, typeof op["x-permission"] === "string" ? op["x-permission"] : null);
    }
  }
  return map;
}

async function readAccess(): Promise<Access> {
  const ops = (operations ??= readOperations().catch((err) => ((operations = null), Promise.reject(err))));
  const [map, roles] = await Promise.all([
    ops.catch(() => {
      loading = null;
      return new Map<string, string | null>();
    }),
    api.get<{ data: TeamRole[] }>("/v1/team/roles").catch(() => {
      loading = null; // what failed is read again by the next view that asks
      return { data: [] as TeamRole[] };
    }),
  ]);
  return { operations: map, mine: new Set(roles.data.find((r) => r.id === role)?.permissions ?? []), roles: roles.data };
}

/**
 * `allowed(operation)`: whether the signed-in member holds the permission `operation` declares
 * (false while it is being read); `roles`: the team's roles, null while they are being read.
 * `fresh`: read again when the view mounts (a view that offers roles to pick shows one made since).
 */
export function useAccess(opts: { fresh?: boolean } = {}): { allowed: (operation: Operation) => boolean; roles: readonly TeamRole[] | null } {
  const [read, setRead] = useState<Access | null>(null);
  useEffect(() => {
    let live = true;
    void access(opts.fresh === true).then((a) => live && setRead(a));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return {
    allowed: (operation) => {
      if (!read) return false;
      const needed = read.operations.get(operation);
      return needed === null || (needed !== undefined && read.mine.has(needed));
    },
    roles: read?.roles ?? null,
  };
}

/** `allowed(operation)` of useAccess(), for a view that needs no roles. */
export function useAllowed(): (operation: Operation) => boolean {
  return useAccess().allowed;
}
