/**
 * `posthorn domains add NAME` and `posthorn domains verify NAME`: the first-send steps without curl;
 * `posthorn domains rotate-dkim NAME`: a DKIM key rotation.
 * A client of the running server's own API (POSTHORN_URL, POSTHORN_TEAM_TOKEN), so it works the
 * same against a remote node or a cluster and adds no second way to change data.
 */
import type { DnsRecordData, DomainData } from "../modules/domains/model.ts";

/** A command that could not do its work, for a reason the operator can act on: one line, exit 1. */
export class CommandFailed extends Error {}

interface ApiClient {
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export function apiClient(env: Record<string, string | undefined>): ApiClient {
  const base = (env.POSTHORN_URL ?? "http://localhost:8080").replace(/\/+$/, "");
  const token = env.POSTHORN_TEAM_TOKEN;
  if (!token) throw new CommandFailed("set POSTHORN_TEAM_TOKEN to the team token (printed at first start, or by posthorn init)");
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        throw new CommandFailed(`cannot reach the API at ${base} (POSTHORN_URL): ${(err as Error).message}`);
      }
      const text = await res.text();
      const json = (text ? JSON.parse(text) : {}) as T & { message?: string; errors?: Record<string, string[]> };
      if (!res.ok) {
        const message = res.status === 401 ? "POSTHORN_TEAM_TOKEN is not a valid team token." : (json.message ?? res.statusText);
        const details = Object.values(json.errors ?? {}).flat().filter((d) => d !== message);
        throw new CommandFailed(`${method} ${path}: ${res.status} ${[message, ...details].join(" ")}`);
      }
      return json;
    },
  };
}

/** One record as a zone-file line; TXT values in quoted strings of at most 255 characters (RFC 1035). */
export function zoneLine(r: Pick<DnsRecordData, "type" | "fqdn" | "content">): string {
  if (r.type === "MX") return `${r.fqdn}.\t3600\tIN\tMX\t10 ${r.content}.`;
  const parts = r.content.match(/.{1,255}/g) ?? [""];
  return `${r.fqdn}.\t3600\tIN\tTXT\t${parts.map((p) => `"${p.replace(/["\\]/g, "\\$&")}"`).join(" ")}`;
}

export function zoneSnippet(domain: DomainData): string {
  return [`; Posthorn sending domain ${domain.domain}: publish these records in its DNS zone`, ...domain.dns_records.map(zoneLine)].join("\n");
}

async function findDomain(api: ApiClient, name: string): Promise<DomainData> {
  const wanted = name.toLowerCase().replace(/\.$/, "");
  let path: string | null = "/v1/domains?page[size]=100";
  while (path) {
    const page: { data: DomainData[]; next_cursor: string | null } = await api.call("GET", path);
    const hit = page.data.find((d) => d.domain === wanted);
    if (hit) return hit;
    path = page.next_cursor ? `/v1/domains?page[size]=100&page[cursor]=${encodeURIComponent(page.next_cursor)}` : null;
  }
  throw new CommandFailed(`no domain ${wanted} in this team (posthorn domains add ${wanted})`);
}

/**
 * Registers the domain, attaches it to the given projects (or, when none is named, to the team's
 * only project — the usual case, and the step new users miss), and prints the records to publish
 * as a zone-file snippet, then the API's answer. `--json` prints only the answer.
 */
export async function addDomain(api: ApiClient, name: string, opts: { projects: string[]; json: boolean }, out = console.log): Promise<void> {
  // The spec answers this one with the Domain itself, no envelope.
  let domain = await api.call<DomainData>("POST", "/v1/domains", { domain: name });
  let projectIds = opts.projects;
  if (projectIds.length === 0) {
    const projects = await api.call<{ data: { id: string }[] }>("GET", "/v1/projects?page[size]=2");
    if (projects.data.length === 1) projectIds = [projects.data[0]!.id];
  }
  if (projectIds.length) {
    try {
      domain = (await api.call<{ data: DomainData }>("PUT", `/v1/domains/${domain.id}/projects`, { project_ids: projectIds })).data;
    } catch (err) {
      throw new CommandFailed(`${domain.domain} is registered (${domain.id}) but not attached: ${(err as Error).message}`);
    }
  }
  if (opts.json) return out(JSON.stringify({ data: domain }, null, 2));
  const attached = domain.projects.length ? `attached to ${domain.projects.map((p) => `${p.name} (${p.id})`).join(", ")}` : "attached to no project yet (--project ID)";
  out(`Registered ${domain.domain} (${domain.id}), ${attached}.\n`);
  out(`${zoneSnippet(domain)}\n`);
  out(`Once published: posthorn domains verify ${domain.domain}\n`);
  out(JSON.stringify({ data: domain }, null, 2));
}

/** Checks the domain's records now; true when it can send (its DKIM record is verified). */
export async function verifyDomain(api: ApiClient, name: string, opts: { json: boolean }, out = console.log): Promise<boolean> {
  const domain = await findDomain(api, name);
  const answer = await api.call<{ data: DomainData; verified: boolean; message: string }>("POST", `/v1/domains/${domain.id}/dns-records/verify`);
  if (opts.json) {
    out(JSON.stringify(answer, null, 2));
    return answer.verified;
  }
  for (const r of answer.data.dns_records) {
    const mark = r.status === "active" ? "ok  " : r.status === "failed" ? "FAIL" : "wait";
    const key = r.key_state === "next" || r.key_state === "retiring" ? ` [${r.key_state} key${r.keep_until ? ` until ${r.keep_until}` : ""}]` : "";
    out(`${mark}  ${r.kind.padEnd(11)} ${r.type.padEnd(3)} ${r.fqdn}${key}${r.status_reason ? `: ${r.status_reason}` : ""}`);
  }
  out(`\n${answer.message}`);
  return answer.verified;
}

/** Starts a DKIM key rotation; prints the two new records as zone-file lines, then what happens next. */
export async function rotateDkim(api: ApiClient, name: string, opts: { json: boolean }, out = console.log): Promise<void> {
  const domain = await findDomain(api, name);
  const answer = await api.call<{ data: DomainData; message: string }>("POST", `/v1/domains/${domain.id}/dkim/rotate`);
  if (opts.json) return out(JSON.stringify(answer, null, 2));
  out(`; New DKIM keys of ${domain.domain}: publish these records beside the current ones`);
  for (const r of answer.data.dns_records.filter((r) => r.key_state === "next")) out(zoneLine(r));
  out(`\n${answer.message}\nOnce published: posthorn domains verify ${domain.domain}`);
}
