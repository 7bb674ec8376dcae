/**
 * Opens and clicks: every hit of a tracking URL is an observation, recorded and published as
 * message.opened / message.clicked with the verdict of the people-or-machine rules
 * (src/events/tracking-classify.ts). Only a person's first open or click moves the recipient's
 * status. A token that is not ours, or names a recipient or link we do not have, is not found:
 * never a redirect to anywhere the token says.
 */
import { readTrackingToken } from "../../auth/tracking-tokens.ts";
import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import type { HitTarget } from "../../db/tracking.ts";
import { changeRecipientStatus, recordObservation } from "../../events/message-status.ts";
import { BURST_WINDOW_MS, classifyHit } from "../../events/tracking-classify.ts";
import { newId } from "../../ids.ts";
import { serverSecretOf } from "../../secrets.ts";

export interface TrackingRequest {
  kind: "open" | "click";
  token: string;
  method: string;
  ip: string | null;
  userAgent: string | null;
}

/** How far back a recipient's earlier hits matter to the rules (bursts are within a second). */
const RECENT_MS = 60_000;

/** Which status a person's first hit moves a recipient to, from which statuses. */
const MOVES: Record<"open" | "click", { to: "opened" | "clicked"; from: ReadonlySet<string> }> = {
  open: { to: "opened", from: new Set(["delivered"]) },
  click: { to: "clicked", from: new Set(["delivered", "opened"]) },
};

/** Records the hit. Returns the link's original URL for a click, "" for an open, null when the token is not found. */
export async function recordTrackingHit(deps: Pick<Deps, "store">, req: TrackingRequest, now = Date.now()): Promise<string | null> {
  const data = readTrackingToken(await serverSecretOf(deps.store), req.token);
  if (!data || data.kind !== req.kind) return null;
  return deps.store.write(async (tx) => {
    const target = await tx.tracking.target(data.messageId, data.recipientId);
    if (!target) return null;
    const link = data.kind === "click" ? data.link : null;
    const url = link === null ? "" : await tx.tracking.linkUrl(data.messageId, link);
    if (url === null) return null;
    await observe(tx, target, req, link, url, now);
    return url;
  });
}

async function observe(tx: Repositories, target: HitTarget, req: TrackingRequest, link: number | null, url: string, now: number): Promise<void> {
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
  if (verdict.reason === "link_burst") await tx.tracking.reclassifyClicks(target.id, now - BURST_WINDOW_MS, verdict.reason);
  const first = !(await tx.tracking.seen(target.id, req.kind, verdict.machine));
  await tx.tracking.recordHit({
    id: newId(),
    message_id: target.message_id,
    recipient_id: target.id,
    kind: req.kind,
    link_index: link,
    ip: req.ip,
    user_agent: req.userAgent,
    machine: verdict.machine,
    machine_reason: verdict.reason,
    created_at: now,
  });
  const details = {
    ...(req.kind === "click" ? { url } : {}),
    ip: req.ip,
    user_agent: req.userAgent,
    first,
    machine: verdict.machine,
    machine_reason: verdict.reason,
  };
  const move = MOVES[req.kind];
  if (!verdict.machine && first && move.from.has(target.status)) {
    await changeRecipientStatus(tx, { recipientId: target.id, status: move.to, details }, now);
    return;
  }
  // An observation that moves nothing: in the message's history and published all the same.
  await recordObservation(tx, target, req.kind === "open" ? "message.opened" : "message.clicked", details, now);
}
