import type { Deps } from "../../context.ts";
import { iso } from "../../ids.ts";
import type { BlocklistStatusData } from "./model.ts";

/**
 * The blocklist state a team sees: the server's sending addresses (every team sends from them)
 * and its own domains, per zone, from the last check (docs/deliverability.md, Blocklists).
 */
export async function blocklistStatus(deps: Pick<Deps, "store" | "config">, teamId: string): Promise<BlocklistStatusData> {
  const repo = deps.store.read.blocklists;
  const domains = new Set(await repo.teamDomains(teamId));
  const rows = (await repo.all()).filter((r) => r.kind === "ip" || domains.has(r.target));
  const data = rows
    .map((r) => ({
      target: r.target,
      type: r.kind,
      zone: r.zone,
      status: r.listed ? "listed" : r.code !== null || r.meaning !== null ? "error" : "clear",
      listed: r.listed,
      code: r.code,
      meaning: r.meaning,
      since: iso(r.since)!,
      checked_at: iso(r.checked_at)!,
    }))
    .sort((a, b) => Number(b.listed) - Number(a.listed) || a.type.localeCompare(b.type) || a.target.localeCompare(b.target) || a.zone.localeCompare(b.zone));
  return {
    interval_seconds: deps.config.blocklistIntervalSeconds,
    ip_zones: deps.config.blocklistIpZones,
    domain_zones: deps.config.blocklistDomainZones,
    listed: data.filter((d) => d.listed).length,
    data,
  };
}
