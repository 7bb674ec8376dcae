/**
 * `posthorn tokens list|create|rotate|revoke`: the team's named API tokens (docs/access.md), through
 * the running server's API like `posthorn domains` (POSTHORN_URL, POSTHORN_TEAM_TOKEN), so the
 * same rules apply: nobody makes a token that may do more than they may.
 */
import type { TeamTokenData } from "../modules/team/model.ts";
import { apiClient, CommandFailed } from "./domains.ts";

export const TOKENS_USAGE =
  "usage: posthorn tokens list [--json] | posthorn tokens create NAME (--role ROLE | --permission P...) [--project ID]... [--expires ISO-TIME] [--json] | posthorn tokens rotate ID [--json] | posthorn tokens revoke ID";

type Api = ReturnType<typeof apiClient>;

const line = (t: TeamTokenData) =>
  [
    t.id,
    t.name,
    t.role_id ? `role ${t.role_id}` : `${t.permissions.length} permission(s)`,
    t.project_access.scope === "all" ? "all projects" : `projects ${t.project_access.projects.map((p) => p.name).join(", ")}`,
    t.expires_at ? `expires ${t.expires_at}` : "no expiry",
    t.last_used_at ? `last used ${t.last_used_at}${t.last_used_ip ? ` from ${t.last_used_ip}` : ""}` : "never used",
  ].join("  ");

export async function listTokens(api: Api, json: boolean): Promise<string> {
  const { data } = await api.call<{ data: TeamTokenData[] }>("GET", "/v1/team/tokens");
  if (json) return JSON.stringify(data);
  return data.length ? data.map(line).join("\n") : "the team has no named tokens";
}

export interface CreateOptions {
  role?: string;
  permissions: string[];
  projects: string[];
  expires?: string;
  json: boolean;
}

/** The token is printed once, on a line of its own after the description (or in --json as "token"). */
export async function createToken(api: Api, name: string, o: CreateOptions): Promise<string> {
  if ((o.role === undefined) === (o.permissions.length === 0)) throw new CommandFailed("give either --role ROLE or --permission P (one or more)");
  const body: Record<string, unknown> = { name };
  if (o.role !== undefined) body.role_id = o.role;
  else body.permissions = o.permissions;
  if (o.projects.length) body.project_ids = o.projects;
  if (o.expires !== undefined) body.expires_at = o.expires;
  const res = await api.call<{ data: TeamTokenData; token: string }>("POST", "/v1/team/tokens", body);
  return o.json ? JSON.stringify(res) : `${line(res.data)}\ntoken (shown once): ${res.token}`;
}

export async function rotateToken(api: Api, id: string, json: boolean): Promise<string> {
  const res = await api.call<{ data: TeamTokenData; token: string }>("POST", `/v1/team/tokens/${encodeURIComponent(id)}/rotate`);
  return json ? JSON.stringify(res) : `${line(res.data)}\nnew token (shown once; the old one no longer works): ${res.token}`;
}

export async function revokeToken(api: Api, id: string): Promise<string> {
  return (await api.call<{ message: string }>("DELETE", `/v1/team/tokens/${encodeURIComponent(id)}`)).message;
}
