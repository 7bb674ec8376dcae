import type { Deps } from "../../context.ts";
import type { DestinationRow } from "../../db/destinations.ts";
import type { RemoteReply } from "../../events/message-status.ts";
import { iso } from "../../ids.ts";
import { policyFor } from "../../pacing/destination-policy.ts";
import { mxHostsOf } from "../../mail/shaping.ts";
import type { DestinationData } from "./model.ts";

/** Destinations listed at most (paused ones first). */
export const DESTINATIONS_LISTED = 1000;

/**
 * The shaping state of the destinations the team's queued mail is waiting for. Destinations are
 * the server's (one IP, one reputation, shared by every team): their pause, limits, strikes and
 * when they were throttled hold every team's mail there, so every team with mail waiting there is
 * shown them. Which domains other teams mail to, and what the remote said about their mail, is
 * theirs: a team sees only the destinations, and the domains of them, its own mail goes to, and as
 * the last reply the latest one its own queued mail got there (null when none has). With
 * `projects` (a member limited to selected projects), only those projects' queued mail counts.
 */
export async function listDestinations(deps: Deps, teamId: string, now = Date.now(), projects: readonly string[] | null = null): Promise<DestinationData[]> {
  const [rows, mine] = await Promise.all([deps.store.read.destinations.list(DESTINATIONS_LISTED), deps.store.read.queue.teamDomains(teamId, projects)]);
  const ours = new Map(mine.map((d) => [d.domain, d]));
  return rows.flatMap((r) => {
    const domains = (JSON.parse(r.domains) as string[]).filter((d) => ours.has(d));
    if (domains.length === 0) return [];
    let latest: { last_response: string | null; at: number | null } | null = null;
    for (const d of domains) {
      const o = ours.get(d)!;
      if (o.last_response !== null && (latest === null || (o.at ?? 0) > (latest.at ?? 0))) latest = o;
    }
    return [destinationData(deps, r, domains, latest?.last_response ?? null, now)];
  });
}

function destinationData(deps: Deps, r: DestinationRow, domains: string[], lastReply: string | null, now: number): DestinationData {
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
    // The row's last_reply is the destination's, about whichever team's mail got it: never shown.
    last_reply: lastReply ? (JSON.parse(lastReply) as RemoteReply) : null,
    updated_at: new Date(r.updated_at).toISOString(),
  };
}
