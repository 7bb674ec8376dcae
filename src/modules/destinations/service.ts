import type { Deps } from "../../context.ts";
import type { DestinationRow } from "../../db/destinations.ts";
import type { RemoteReply } from "../../events/message-status.ts";
import { iso } from "../../ids.ts";
import { mxHostsOf, policyFor } from "../../mail/shaping.ts";
import type { DestinationData } from "./model.ts";

/** Destinations listed at most (paused ones first). */
export const DESTINATIONS_LISTED = 1000;

/**
 * The shaping state of the destinations the team's queued mail is waiting for. Destinations are
 * the server's (one IP, one reputation, shared by every team), but which domains other teams mail
 * to is theirs: a team sees only the destinations, and the domains of them, its own mail goes to.
 */
export async function listDestinations(deps: Deps, teamId: string, now = Date.now()): Promise<DestinationData[]> {
  const [rows, mine] = await Promise.all([deps.store.read.destinations.list(DESTINATIONS_LISTED), deps.store.read.queue.domainsOfTeam(teamId)]);
  const ours = new Set(mine);
  return rows.flatMap((r) => {
    const domains = (JSON.parse(r.domains) as string[]).filter((d) => ours.has(d));
    return domains.length > 0 ? [destinationData(deps, r, domains, now)] : [];
  });
}

function destinationData(deps: Deps, r: DestinationRow, domains: string[], now: number): DestinationData {
  const mxHosts = mxHostsOf(r.name);
  const policy = policyFor(deps.config.destinationPolicies, domains, mxHosts);
  return {
    name: r.name,
    mx_hosts: mxHosts,
    domains,
    paused: (r.paused_until ?? 0) > now,
    paused_until: r.paused_until ? iso(r.paused_until) : null,
    concurrency: r.concurrency ?? policy?.concurrency ?? null,
    max_concurrency: policy?.concurrency ?? null,
    per_minute: r.per_minute ?? policy?.per_minute ?? null,
    max_per_minute: policy?.per_minute ?? null,
    strikes: r.strikes,
    throttled_at: r.throttled_at ? iso(r.throttled_at) : null,
    last_reply: r.last_reply ? (JSON.parse(r.last_reply) as RemoteReply) : null,
    updated_at: new Date(r.updated_at).toISOString(),
  };
}
