import type { NewSuppression, SourceMessageRow, SuppressionRow } from "../db/suppressions.ts";
import type { Repositories } from "../db/store.ts";
import { iso } from "../ids.ts";
import { publishEvent } from "./publish.ts";

/**
 * A suppression as the API shows it and as suppression.added / suppression.removed carry it:
 * the spec's fields and, beside them, Lettermint's SuppressedRecipientData (type, value,
 * source_message, updated_at). `email` is the address for type email and null for a domain or
 * extension. `source_message` names the message whose hard bounce, complaint or unsubscribe
 * added it ({id, available, subject, created_at}; available false once that message is no
 * longer stored), null for one added by hand; `source` is that message's row, when still stored.
 */
export const suppressionData = (r: SuppressionRow, source: SourceMessageRow | null = null) => ({
  id: r.id,
  email: r.type === "email" ? r.email : null,
  scope: r.scope,
  reason: r.reason,
  project_id: r.project_id,
  route_id: r.route_id,
  created_at: iso(r.created_at)!,
  type: r.type,
  value: r.email,
  source_message: r.source_message_id
    ? { id: r.source_message_id, available: source !== null, subject: source?.subject ?? null, created_at: source ? iso(source.created_at)! : null }
    : null,
  updated_at: iso(r.created_at)!,
});

/** The suppression's data with its source message looked up (one read, only for automatic suppressions). */
async function suppressionDataOf(repos: Repositories, teamId: string, r: SuppressionRow) {
  const source = r.source_message_id ? ((await repos.suppressions.sourceMessages(teamId, [r.source_message_id])).get(r.source_message_id) ?? null) : null;
  return suppressionData(r, source);
}

/**
 * Publishes suppression.added or suppression.removed to the webhooks of the suppression's scope
 * subscribed to the kind: a route's suppression to that route's webhooks, a project's to the
 * webhooks of every route of the project, a team's to every webhook of the team (a team-scoped
 * suppression concerns every route). Call it in the transaction that adds or removes the row.
 */
export async function publishSuppressionEvent(tx: Repositories, kind: "suppression.added" | "suppression.removed", teamId: string, r: SuppressionRow, now: number): Promise<string> {
  const base = { teamId, kind, data: await suppressionDataOf(tx, teamId, r) } as const;
  if (r.scope === "route") return publishEvent(tx, { ...base, routeId: r.route_id }, now);
  if (r.scope === "project" && r.project_id) return publishEvent(tx, { ...base, routeId: null, audience: { scope: "project", projectId: r.project_id } }, now);
  return publishEvent(tx, { ...base, routeId: null, audience: { scope: "team" } }, now);
}

/** Adds the suppression unless its scope already suppresses that value of that type, and publishes suppression.added when it does: the new row, or null. */
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
