import type { Deps } from "../../context.ts";
import type { DestinationRow } from "../../db/destinations.ts";
import type { RemoteReply } from "../../events/message-status.ts";
import { iso } from "../../ids.ts";
import { mxHostsOf, policyFor } from "../../mail/shaping.ts";
import type { DestinationData } from "./model.ts";

/** Destinations listed at most (paused ones first). */
export const DESTINATIONS_LISTED = 1000;

/**
 * Every destination's shaping state. Destinations are the server's, shared by every team that
 * sends through it (one IP, one reputation): the list is the same for every team.
 */
export async function listDestinations(deps: Deps, now = Date.now()): Promise<DestinationData[]> {
  const rows = await deps.store.read.destinations.list(DESTINATIONS_LISTED);
  return rows.map((r) => destinationData(deps, r, now));
}

function destinationData(deps: Deps, r: DestinationRow, now: number): DestinationData {
  const domains = JSON.parse(r.domains) as string[];
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
