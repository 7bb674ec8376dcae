/**
 * `posthorn suppressions global …`: the operator's Posthorn-wide suppression list (scope global).
 * It applies to the mail of every team and is kept only here, on the database the servers use:
 * no team token reads or writes it through the API (docs/sending.md, "Suppressions").
 */
import type { Store } from "../db/store.ts";
import type { GlobalSuppressionRow, SuppressionType } from "../db/suppressions.ts";
import { normaliseSuppressionValue, SUPPRESSION_TYPES } from "../events/suppression-rules.ts";
import { iso, newId } from "../ids.ts";

export const GLOBAL_REASONS = ["spam_complaint", "hard_bounce", "unsubscribe", "manual"] as const;

export const GLOBAL_USAGE =
  "usage: posthorn suppressions global list [--json] | posthorn suppressions global add email|domain|extension VALUE... [--reason manual|hard_bounce|spam_complaint|unsubscribe] | posthorn suppressions global remove ID|VALUE...";

/** A refusal in words for the operator (exit 1). */
export class GlobalSuppressionRefused extends Error {}

/** Adds values of one type to the global list: the values added and those it already held. A bad value refuses them all. */
export async function addGlobalSuppressions(store: Pick<Store, "write">, type: string, raw: readonly string[], reason = "manual", now = Date.now()): Promise<{ created: string[]; skipped: string[] }> {
  if (!(SUPPRESSION_TYPES as readonly string[]).includes(type)) throw new GlobalSuppressionRefused(`the type must be one of: ${SUPPRESSION_TYPES.join(", ")} (not "${type}")`);
  if (!(GLOBAL_REASONS as readonly string[]).includes(reason)) throw new GlobalSuppressionRefused(`--reason must be one of: ${GLOBAL_REASONS.join(", ")} (not "${reason}")`);
  if (raw.length === 0) throw new GlobalSuppressionRefused("give at least one value");
  const values: string[] = [];
  for (const r of raw) {
    const checked = normaliseSuppressionValue(type as SuppressionType, r);
    if ("error" in checked) throw new GlobalSuppressionRefused(`"${r}" ${checked.error}`);
    values.push(checked.value);
  }
  return store.write(async (tx) => {
    const created: string[] = [];
    const skipped: string[] = [];
    for (const value of values) {
      const row = await tx.suppressions.addGlobal({ id: newId(), type: type as SuppressionType, value, reason, created_at: now });
      (row ? created : skipped).push(value);
    }
    return { created, skipped };
  });
}

/** Lifts global entries by id or value: the rows removed. */
export function removeGlobalSuppressions(store: Pick<Store, "write">, idsOrValues: readonly string[]): Promise<GlobalSuppressionRow[]> {
  if (idsOrValues.length === 0) throw new GlobalSuppressionRefused("give at least one id or value");
  return store.write(async (tx) => (await Promise.all(idsOrValues.map((v) => tx.suppressions.removeGlobal(v.trim().toLowerCase())))).flat());
}

/** The global list as printed: one line per entry, or JSON with ISO times. */
export function formatGlobalSuppressions(rows: readonly GlobalSuppressionRow[], json: boolean): string {
  if (json) return JSON.stringify(rows.map((r) => ({ ...r, scope: "global", created_at: iso(r.created_at) })));
  if (rows.length === 0) return "the global suppression list is empty";
  return rows.map((r) => `${r.id}  ${r.type.padEnd(9)}  ${r.value}  ${r.reason}  ${iso(r.created_at)}`).join("\n");
}
