import type { Deps } from "../../context.ts";
import type { RouteCounterRow } from "../../db/metric-counters.ts";

/**
 * Mail counters for /metrics (docs/monitoring.md), read from the statistics rollups at scrape
 * time rather than counted again: stat_hours is written in each event's own transaction on every
 * node, so the figures are the whole cluster's (every node reports the same series; aggregate
 * with max, not sum). They count from this node's first scrape, like a process's own counters:
 * the hours before it are an offset subtracted, so a restart is an ordinary counter reset.
 *
 * Cheap at any size: hours older than the last two are folded once into a running base, so a scrape
 * reads only the current and previous hour's rows (a few per route). Labels are bounded: route_id
 * (configured routes), type (transactional, broadcast, inbound) and a fixed outcome, kind or verdict.
 */

const HOUR_MS = 3_600_000;

/** Outbound outcome label → rollup counter (recipients). */
export const OUTBOUND_OUTCOMES: Record<string, string> = {
  sent: "sent",
  retried: "retried",
  delivered: "delivered",
  soft_bounced: "soft_bounced",
  hard_bounced: "hard_bounced",
  failed: "failed",
  suppressed: "suppressed",
  complained: "complained",
  unsubscribed: "unsubscribed",
};
/** Inbound outcome label → counter (messages). */
export const INBOUND_OUTCOMES: Record<string, string> = { received: "inbound_received", quarantined: "inbound_rejected" };
/** Tracking verdict label → the counters' class. */
export const VERDICTS: Record<string, string> = { human: "human", privacy_proxy: "privacy", machine: "machine" };
const KINDS: Record<string, string> = { open: "opens", click: "clicks" };

const COLUMNS = [
  ...Object.values(OUTBOUND_OUTCOMES),
  ...Object.values(INBOUND_OUTCOMES),
  ...Object.values(KINDS).flatMap((k) => Object.values(VERDICTS).flatMap((v) => [`${k}_${v}`, `${k}_${v}_unique`])),
];

type Sums = Map<string, Record<string, number>>;
const keyOf = (r: RouteCounterRow) => `${r.route_id}\u0000${r.message_type}`;

function add(into: Sums, rows: RouteCounterRow[], sign = 1): void {
  for (const r of rows) {
    const k = keyOf(r);
    const sums = into.get(k) ?? {};
    for (const c of COLUMNS) sums[c] = (sums[c] ?? 0) + sign * Number(r[c] ?? 0);
    into.set(k, sums);
  }
}

interface State {
  /** Hours before this are in `base`; those from it on are read at each scrape. */
  until: number;
  base: Sums;
  offset: Sums;
  /** The highest value each series has shown: a counter never goes down (see below). */
  shown: Sums;
}
const states = new WeakMap<Deps, Promise<State>>();

/** The counters' values now, per route and type (serialised per server: one fold at a time). */
export async function mailCounters(deps: Deps, now = Date.now()): Promise<{ routeId: string; type: string; sums: Record<string, number> }[]> {
  const read = deps.store.read.metricCounters;
  const lagged = now - (now % HOUR_MS) - HOUR_MS;
  const prior = states.get(deps);
  const next = (async (): Promise<State> => {
    const s = prior ? await prior.catch(() => null) : null;
    if (!s) {
      const offset: Sums = new Map();
      add(offset, await read.sumsByRoute(lagged, null, COLUMNS));
      return { until: lagged, base: new Map(), offset, shown: new Map() };
    }
    if (lagged > s.until) {
      add(s.base, await read.sumsByRoute(s.until, lagged, COLUMNS));
      s.until = lagged;
    }
    return s;
  })();
  states.set(deps, next);
  const s = await next;
  const total: Sums = new Map();
  for (const [k, v] of s.base) total.set(k, { ...v });
  add(total, await read.sumsByRoute(s.until, null, COLUMNS));
  for (const [k, v] of s.offset) {
    const t = total.get(k) ?? {};
    for (const c of COLUMNS) t[c] = (t[c] ?? 0) - (v[c] ?? 0);
    total.set(k, t);
  }
  // A link burst re-judges a recipient's recent human clicks as a machine's (the rollup subtracts
  // them from clicks_human): the counter keeps its highest value rather than going down, which
  // Prometheus would read as a reset.
  for (const [k, t] of total) {
    const shown = s.shown.get(k) ?? {};
    for (const c of COLUMNS) t[c] = shown[c] = Math.max(shown[c] ?? 0, t[c] ?? 0);
    s.shown.set(k, shown);
  }
  return [...total].map(([k, sums]) => {
    const [routeId = "", type = ""] = k.split("\u0000");
    return { routeId, type, sums };
  });
}

/** The samples of the three counters, as metricsText writes them. */
export async function mailCounterSamples(deps: Deps): Promise<{ outbound: [Record<string, string>, number][]; inbound: [Record<string, string>, number][]; tracking: [Record<string, string>, number][]; trackingRecipients: [Record<string, string>, number][] }> {
  const rows = await mailCounters(deps);
  const out = { outbound: [], inbound: [], tracking: [], trackingRecipients: [] } as Awaited<ReturnType<typeof mailCounterSamples>>;
  for (const { routeId, type, sums } of rows) {
    const labels = { route_id: routeId, type };
    if (type === "inbound") {
      for (const [outcome, c] of Object.entries(INBOUND_OUTCOMES)) out.inbound.push([{ ...labels, outcome }, sums[c] ?? 0]);
      continue;
    }
    for (const [outcome, c] of Object.entries(OUTBOUND_OUTCOMES)) out.outbound.push([{ ...labels, outcome }, sums[c] ?? 0]);
    for (const [kind, k] of Object.entries(KINDS)) {
      for (const [verdict, v] of Object.entries(VERDICTS)) {
        out.tracking.push([{ ...labels, kind, verdict }, sums[`${k}_${v}`] ?? 0]);
        out.trackingRecipients.push([{ ...labels, kind, verdict }, sums[`${k}_${v}_unique`] ?? 0]);
      }
    }
  }
  return out;
}
