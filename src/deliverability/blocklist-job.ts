/**
 * The blocklist check: one job in its queue at a time (on PostgreSQL one node runs it, the one
 * that claimed it), which looks every sending address up in the DNSBL zones and every verified
 * sending domain in the domain zones (POSTHORN_BLOCKLIST_*), writes each (target, zone)'s state,
 * publishes deliverability.listed / deliverability.delisted on a change, and enqueues itself for
 * the next interval in the same commit. docs/deliverability.md, Blocklists.
 */
import type { Deps } from "../context.ts";
import type { BlocklistRow } from "../db/blocklists.ts";
import type { Repositories } from "../db/store.ts";
import { publishEvent } from "../events/publish.ts";
import { iso } from "../ids.ts";
import type { JobHandler, JobRunner } from "../jobs/runner.ts";
import { forbiddenKind } from "../net/ip.ts";
import { lookup, type BlocklistKind, type LookupResult } from "./blocklists.ts";

export const BLOCKLIST_QUEUE = "blocklist-check";

export interface BlocklistOptions {
  /** Time between two checks; 0: none (from POSTHORN_BLOCKLIST_INTERVAL by default). */
  intervalMs?: number;
  /** Most DNS queries outstanding at once. */
  dnsConcurrency?: number;
}

type Target = { target: string; kind: BlocklistKind; zone: string; teams: string[] };

/**
 * What a check covers: the addresses mail leaves from (POSTHORN_SENDING_ADDRESSES, and those
 * learned from outbound connections unless loopback or private: no list has those) in each IP
 * zone, and each verified domain name in each domain zone. An address's events go to every team
 * with a domain (they all send from it); a domain's to the teams that own it.
 */
export async function blocklistTargets(deps: Pick<Deps, "store" | "config">): Promise<Target[]> {
  const repo = deps.store.read.blocklists;
  const [learned, domains, teams] = await Promise.all([deps.store.read.deliverabilityReports.sendingAddresses(), repo.sendingDomains(), repo.sendingTeams()]);
  const ips = new Set(deps.config.sendingAddresses.map((a) => a.toLowerCase()));
  for (const r of learned) if (forbiddenKind(r.ip) === null) ips.add(r.ip.toLowerCase());
  const out: Target[] = [];
  for (const ip of [...ips].sort()) for (const zone of deps.config.blocklistIpZones) out.push({ target: ip, kind: "ip", zone, teams });
  const owners = new Map<string, string[]>();
  for (const d of domains) owners.set(d.domain, [...(owners.get(d.domain) ?? []), d.team_id]);
  for (const [domain, teamIds] of owners) for (const zone of deps.config.blocklistDomainZones) out.push({ target: domain, kind: "domain", zone, teams: teamIds });
  return out;
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function bounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The new state of a (target, zone) from a lookup and the state before. An error (a refused
 * query, a timeout) changes nothing that was known: a listing stays a listing, and a target
 * never seen is recorded not listed with the refusal's code and reason.
 */
export function nextState(t: Target, r: LookupResult, prev: BlocklistRow | undefined, now: number): BlocklistRow {
  const base = { target: t.target, zone: t.zone, kind: t.kind, checked_at: now };
  if (r.state === "listed") return { ...base, listed: true, code: r.code, meaning: r.meaning, since: prev?.listed ? prev.since : now };
  if (r.state === "clear") return { ...base, listed: false, code: null, meaning: null, since: prev && !prev.listed ? prev.since : now };
  if (prev?.listed) return { ...prev, checked_at: now };
  return { ...base, listed: false, code: r.code, meaning: r.meaning, since: prev?.since ?? now };
}

/** Writes a check's states and publishes an event for each listing and delisting, in `tx`. */
export async function applyBlocklistCheck(tx: Repositories, checked: { t: Target; row: BlocklistRow }[], now: number): Promise<{ listed: number; delisted: number }> {
  const prev = new Map((await tx.blocklists.all()).map((r) => [`${r.target}\u0000${r.zone}`, r]));
  let listed = 0;
  let delisted = 0;
  for (const { t, row } of checked) {
    const before = prev.get(`${t.target}\u0000${t.zone}`);
    await tx.blocklists.put(row);
    const kind = row.listed && !before?.listed ? "deliverability.listed" : !row.listed && before?.listed ? "deliverability.delisted" : null;
    if (!kind) continue;
    if (kind === "deliverability.listed") listed++;
    else delisted++;
    const data =
      kind === "deliverability.listed"
        ? { target: t.target, type: t.kind, zone: t.zone, code: row.code, meaning: row.meaning, listed_since: iso(row.since) }
        : { target: t.target, type: t.kind, zone: t.zone, listed_since: before ? iso(before.since) : null, delisted_at: iso(now) };
    for (const teamId of t.teams) await publishEvent(tx, { teamId, routeId: null, kind, data, audience: { scope: "team" } }, now);
  }
  await tx.blocklists.removeExcept(checked.map((c) => c.t));
  return { listed, delisted };
}

/** One check of every target, its states and events written in one commit. */
export async function runBlocklistCheck(deps: Deps, opts: BlocklistOptions = {}): Promise<{ checked: number; listed: number; delisted: number }> {
  const targets = await blocklistTargets(deps);
  const dns = deps.dns.fresh();
  const results = await bounded(targets, opts.dnsConcurrency ?? 8, (t) => lookup((name) => dns.a(name), t.target, t.kind, t.zone));
  const now = Date.now();
  const before = new Map((await deps.store.read.blocklists.all()).map((r) => [`${r.target}\u0000${r.zone}`, r]));
  const checked = targets.map((t, i) => ({ t, row: nextState(t, results[i]!, before.get(`${t.target}\u0000${t.zone}`), now) }));
  const r = await deps.store.write((tx) => applyBlocklistCheck(tx, checked, now));
  return { checked: targets.length, ...r };
}

const intervalOf = (deps: Deps, opts: BlocklistOptions) => opts.intervalMs ?? deps.config.blocklistIntervalSeconds * 1000;

/** The check, then the next one enqueued in the commit that ends this one (none when checks are off). */
export function blocklistHandler(deps: Deps, opts: BlocklistOptions = {}): JobHandler {
  return async () => {
    const interval = intervalOf(deps, opts);
    if (interval <= 0) return { type: "done" };
    try {
      const r = await runBlocklistCheck(deps, opts);
      if (r.listed + r.delisted > 0) deps.log.warn("blocklist status changed", r);
      else deps.log.debug("blocklists checked", r);
    } catch (err) {
      deps.log.error("blocklist check failed", { error: String(err) });
    }
    const runAt = Date.now() + interval;
    return { type: "done", write: async (tx) => void (await tx.jobs.enqueue(BLOCKLIST_QUEUE, {}, { runAt, maxAttempts: 100 })) };
  };
}

export function registerBlocklistChecks(runner: JobRunner, deps: Deps, opts: BlocklistOptions = {}): void {
  // One check at a time; the lease covers every lookup timing out.
  runner.register(BLOCKLIST_QUEUE, blocklistHandler(deps, opts), { concurrency: 1, leaseMs: 15 * 60_000 });
}

/** Makes sure one check job is queued when checks are on (first start, or after it died); call once at start. */
export async function ensureBlocklistChecksScheduled(deps: Deps, opts: BlocklistOptions = {}): Promise<void> {
  if (intervalOf(deps, opts) <= 0) return;
  await deps.store.write(async (tx) => {
    await tx.locks.take(`jobs:${BLOCKLIST_QUEUE}`);
    await tx.jobs.enqueueOnce(BLOCKLIST_QUEUE, {}, { maxAttempts: 100 });
  });
}
