/**
 * Opens and clicks: every hit of a tracking URL is an observation, recorded and published as
 * message.opened / message.clicked with the verdict of the people-or-machine rules
 * (src/modules/tracking/classify.ts). Only a person's first open or click moves the recipient's
 * status. A token that is not ours, or names a recipient or link we do not have, is not found:
 * never a redirect to anywhere the token says.
 *
 * Every hit is counted (a tracking_hits row, so the statistics see it), but a link in a public
 * place must not turn into a flood of webhook POSTs (before this bound, 300 GETs of one link in 8 s were
 * 296 POSTs). What is published (and written to the message's history) is bounded per recipient
 * and link (the open pixel counts as one link) by a token bucket in rate_limit_buckets: a burst of
 * EVENTS_BURST, then one more every EVENTS_REFILL_MS. The bucket is taken in the hit's own write,
 * one statement, so the decision is atomic with the count and holds across nodes on PostgreSQL.
 * Exempt from the bound, though they take from it: the hit that moves the status (a person's
 * first open or click) and each kind's first hit of people and of machines (`first: true`).
 */
import { clip, FIELD_BOUNDS } from "../../untrusted/bounds.ts";
import { readTrackingToken } from "../../auth/tracking-tokens.ts";
import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import type { HitTarget } from "../../db/tracking.ts";
import { changeRecipientStatus, recordObservation } from "../../events/message-status.ts";
import { BURST_WINDOW_MS, classifyHit } from "./classify.ts";
import { hitClass, rollReclassifiedClicks, rollTrackingHit } from "../../events/stat-rollup.ts";
import { newId } from "../../ids.ts";
import { serverSecretOf } from "../../secrets.ts";

export interface TrackingRequest {
  kind: "open" | "click";
  token: string;
  method: string;
  ip: string | null;
  userAgent: string | null;
}

/** Events published per recipient and link at once, before the bound applies. */
export const EVENTS_BURST = 10;
/** Then one more event per recipient and link this often (the bucket is full again after EVENTS_BURST of them: an hour). */
export const EVENTS_REFILL_MS = 6 * 60_000;
/** The buckets' keys: `track:<recipient id>:<"o" for the pixel, or the link index>`. */
const BUCKET_PREFIX = "track:";
/** How often a node deletes buckets that are full again (untouched for a whole refill), the same as none. */
const PURGE_EVERY_MS = 10 * 60_000;
const lastPurge = new WeakMap<object, number>();

/** How far back a recipient's earlier hits matter to the rules (bursts are within a second). */
const RECENT_MS = 60_000;

/** Which status a person's first hit moves a recipient to, from which statuses. */
const MOVES: Record<"open" | "click", { to: "opened" | "clicked"; from: ReadonlySet<string> }> = {
  open: { to: "opened", from: new Set(["delivered"]) },
  click: { to: "clicked", from: new Set(["delivered", "opened"]) },
};

/** Records the hit (at `at`, ms; by default when its turn comes). Returns the link's original URL for a click, "" for an open, null when the token is not found. */
export async function recordTrackingHit(deps: Pick<Deps, "store">, req: TrackingRequest, at?: number): Promise<string | null> {
  const data = readTrackingToken(await serverSecretOf(deps.store), req.token);
  if (!data || data.kind !== req.kind) return null;
  purgeFullBuckets(deps.store, at ?? Date.now());
  const link = data.kind === "click" ? data.link : null;
  return deps.store.write(async (tx) => {
    // The hits of one recipient take turns (on PostgreSQL; SQLite's writes do anyway), each stamped
    // once its turn has come: the first hit of a class (the statistics' _unique counters, the
    // status it moves), a link burst and the clicks it re-judges are each decided once. Before,
    // clicks on different links ran side by side and each counted as the recipient's first, and
    // a hit stamped before another could commit after it and count as first too.
    await tx.locks.take(`tracking-hit:${data.recipientId}`);
    const now = at ?? Date.now();
    // Every hit takes from its bucket, first thing in its write: the decision and the count are
    // one. On PostgreSQL the bucket's row stays locked until this write commits, so the hits of
    // one recipient and link take turns, and each one's reads below (the recipient's status, was
    // it the first?) see the one before. Only our own tokens get here (the MAC was checked).
    const key = `${BUCKET_PREFIX}${data.recipientId}:${link === null ? "o" : link}`;
    const allowed = (await tx.rateLimits.takeTokens(key, 1, EVENTS_BURST, 1 / EVENTS_REFILL_MS, now)) !== null;
    const target = await tx.tracking.target(data.messageId, data.recipientId);
    if (!target) return null;
    const url = link === null ? "" : await tx.tracking.linkUrl(data.messageId, link);
    if (url === null) return null;
    await observe(tx, target, req, link, url, allowed, now);
    return url;
  });
}

async function observe(tx: Repositories, target: HitTarget, req: TrackingRequest, link: number | null, url: string, allowed: boolean, now: number): Promise<void> {
  const recent = await tx.tracking.recentHits(target.id, now - RECENT_MS);
  const verdict = classifyHit({
    kind: req.kind,
    method: req.method,
    userAgent: req.userAgent,
    ip: req.ip,
    at: now,
    deliveredAt: target.delivered_at,
    link: link ?? undefined,
    recentHits: recent.map((h) => ({ at: h.created_at, link: h.link_index })),
  });
  // A burst shows from its third click on: the clicks before it in the window were the same
  // machine's. Their records (and so the statistics) are corrected; a status they moved stays.
  if (verdict.reason === "link_burst") await rollReclassifiedClicks(tx, target, now - BURST_WINDOW_MS);
  if (verdict.reason === "link_burst") await tx.tracking.reclassifyClicks(target.id, now - BURST_WINDOW_MS, verdict.reason);
  const first = !(await tx.tracking.seen(target.id, req.kind, verdict.machine));
  // Stored and published bounded (the request's own header limit is ~16 KB); the rules read it whole.
  const userAgent = req.userAgent === null ? null : clip(req.userAgent, FIELD_BOUNDS.userAgent);
  await rollTrackingHit(tx, target, req.kind, hitClass(verdict), now);
  await tx.tracking.recordHit({
    id: newId(),
    message_id: target.message_id,
    recipient_id: target.id,
    kind: req.kind,
    link_index: link,
    ip: req.ip,
    user_agent: userAgent,
    machine: verdict.machine,
    machine_reason: verdict.reason,
    created_at: now,
  });
  const details = {
    ...(req.kind === "click" ? { url } : {}),
    ip: req.ip,
    user_agent: userAgent,
    first,
    machine: verdict.machine,
    machine_reason: verdict.reason,
  };
  const move = MOVES[req.kind];
  if (!verdict.machine && first && move.from.has(target.status)) {
    await changeRecipientStatus(tx, { recipientId: target.id, status: move.to, details }, now);
    return;
  }
  // Beyond the bound: counted (the hit is stored above), neither in the history nor published.
  if (!allowed && !first) return;
  // An observation that moves nothing: in the message's history and published all the same.
  await recordObservation(tx, target, req.kind === "open" ? "message.opened" : "message.clicked", details, now);
}

/** At most every PURGE_EVERY_MS per node: deletes the buckets untouched for a whole refill (full again), on the side. */
function purgeFullBuckets(store: Deps["store"], now: number): void {
  if (now - (lastPurge.get(store) ?? 0) < PURGE_EVERY_MS) return;
  lastPurge.set(store, now);
  void store
    .detached(() => store.write((tx) => tx.rateLimits.purgeBuckets(BUCKET_PREFIX, now - EVENTS_BURST * EVENTS_REFILL_MS)))
    .catch(() => lastPurge.delete(store));
}
