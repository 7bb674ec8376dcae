import type { NewSuppression, SuppressionRow } from "../db/suppressions.ts";
import type { Repositories } from "../db/store.ts";
import { iso } from "../ids.ts";
import { publishEvent } from "./publish.ts";

/**
 * A suppression as the API shows it and as suppression.added / suppression.removed carry it:
 * the spec's fields and, beside them, Lettermint's SuppressedRecipientData (type, value,
 * source_message, updated_at).
 */
export const suppressionData = (r: SuppressionRow) => ({
  id: r.id,
  email: r.email,
  scope: r.scope,
  reason: r.reason,
  project_id: r.project_id,
  route_id: r.route_id,
  created_at: iso(r.created_at)!,
  type: "email" as const,
  value: r.email,
  source_message: null,
  updated_at: iso(r.created_at)!,
});

/**
 * Publishes suppression.added or suppression.removed to the webhooks of the suppression's scope
 * subscribed to the kind: a route's suppression to that route's webhooks, a project's to the
 * webhooks of every route of the project, a team's to every webhook of the team (a team-scoped
 * suppression concerns every route). Call it in the transaction that adds or removes the row.
 */
export function publishSuppressionEvent(tx: Repositories, kind: "suppression.added" | "suppression.removed", teamId: string, r: SuppressionRow, now: number): Promise<string> {
  const base = { teamId, kind, data: suppressionData(r) } as const;
  if (r.scope === "route") return publishEvent(tx, { ...base, routeId: r.route_id }, now);
  if (r.scope === "project" && r.project_id) return publishEvent(tx, { ...base, routeId: null, audience: { scope: "project", projectId: r.project_id } }, now);
  return publishEvent(tx, { ...base, routeId: null, audience: { scope: "team" } }, now);
}

/** Adds the suppression unless its scope already suppresses the address, and publishes suppression.added when it does: the new row, or null. */
export async function addSuppressionRow(tx: Repositories, s: NewSuppression, now: number): Promise<SuppressionRow | null> {
  const row = await tx.suppressions.add(s);
  if (row) await publishSuppressionEvent(tx, "suppression.added", s.team_id, row, now);
  return row;
}

/** Lifts one suppression of the team and publishes suppression.removed: false when there was none. */
export async function removeSuppressionRow(tx: Repositories, id: string, teamId: string, now: number): Promise<boolean> {
  const row = await tx.suppressions.delete(id, teamId);
  if (row) await publishSuppressionEvent(tx, "suppression.removed", teamId, row, now);
  return row !== null;
}
