import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import { NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { suppressionScopeKey } from "../../events/message-status.ts";
import { addSuppressionRow, removeSuppressionRow } from "../../events/suppression-events.ts";
import { normaliseSuppressionValue } from "../../events/suppression-rules.ts";
import type { SuppressionType } from "../../db/suppressions.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { newId } from "../../ids.ts";
import { serializeSuppression, type CreateSuppressionsBody, type SuppressionListQuery } from "./model.ts";

type Ctx = Pick<Deps, "store">;

/** Checks the scope's id fields: the one the scope needs is required and must be the team's. */
async function resolveScope(repos: Repositories, teamId: string, body: CreateSuppressionsBody): Promise<{ projectId: string | null; routeId: string | null }> {
  const errors: Record<string, string[]> = fieldErrors();
  for (const [field, needed] of [
    ["project_id", "project"],
    ["route_id", "route"],
  ] as const) {
    const value = body[field];
    if (body.scope === needed) {
      if (value === undefined) errors[field] = [`The ${field} field is required when scope is ${needed}.`];
      else if (!(await repos.suppressions.scopeTargetOfTeam(needed, value.toLowerCase(), teamId))) errors[field] = [`The selected ${field} is not a ${needed} of this team.`];
    } else if (value !== undefined) {
      errors[field] = [`The ${field} field must be empty when scope is ${body.scope}.`];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { projectId: body.project_id?.toLowerCase() ?? null, routeId: body.route_id?.toLowerCase() ?? null };
}

/**
 * The values to suppress, lower-cased and checked for the type: `email`/`emails` (addresses,
 * type email only) and `value`/`values` (any type), in that order. Any bad one refuses the whole
 * request with a 422 naming it; nothing is stored.
 */
function valuesOf(body: CreateSuppressionsBody): { type: SuppressionType; values: string[] } {
  const type = body.type ?? "email";
  const errors: Record<string, string[]> = fieldErrors();
  if (type !== "email") {
    for (const field of ["email", "emails"] as const) {
      if (body[field] !== undefined) errors[field] = [`The ${field} field is for type email; give the ${type} in value or values.`];
    }
  }
  const values: string[] = [...(body.email !== undefined ? [body.email.trim().toLowerCase()] : []), ...(body.emails ?? []).map((e) => e.trim().toLowerCase())];
  const given: [string, string][] = [...(body.value !== undefined ? [["value", body.value] as [string, string]] : []), ...(body.values ?? []).map((v, i) => [`values.${i}`, v] as [string, string])];
  for (const [field, raw] of given) {
    const checked = normaliseSuppressionValue(type, raw);
    if ("error" in checked) errors[field] = [`The ${field} field ${checked.error}.`];
    else values.push(checked.value);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (values.length === 0) {
    throw ValidationError.field(type === "email" ? "email" : "value", type === "email" ? "Either the email or the emails field is required." : `The value or values field is required for type ${type}.`);
  }
  return { type, values };
}

/**
 * Adds one suppression per value for the scope, each published as suppression.added. Values are
 * compared lower-cased; one that is already suppressed in that scope (as that type), or listed
 * twice, is skipped rather than failing the request. The answer lists the values (Lettermint's
 * `created: string[]`, `skipped: string[]`; the spec shows no element shape).
 */
export async function createSuppressions(deps: Ctx, teamId: string, body: CreateSuppressionsBody): Promise<{ created: string[]; skipped: string[] }> {
  const { type, values } = valuesOf(body);
  await resolveScope(deps.store.read, teamId, body);
  return deps.store.write(async (tx) => {
    // Again inside the transaction: the project or route may have been deleted since.
    const { projectId, routeId } = await resolveScope(tx, teamId, body);
    const now = Date.now();
    const seen = new Set<string>();
    const created: string[] = [];
    const skipped: string[] = [];
    const scopeKey = suppressionScopeKey({ scope: body.scope, projectId, routeId });
    for (const value of values) {
      if (seen.has(value)) {
        skipped.push(value);
        continue;
      }
      seen.add(value);
      const row = await addSuppressionRow(tx, {
        id: newId(),
        team_id: teamId,
        scope: body.scope,
        project_id: projectId,
        route_id: routeId,
        scope_key: scopeKey,
        type,
        email: value,
        reason: body.reason,
        source_message_id: null,
        created_at: now,
      }, now);
      (row ? created : skipped).push(value);
    }
    return { created, skipped };
  });
}

const SUPPRESSION_SORT = { created_at: "created_at", email: "email", value: "email", reason: "reason" };

/** A filter[startDate]/filter[endDate] in ms: a bare date is that whole UTC day (its start, or its end for endDate). */
function dateBound(raw: string | undefined, field: string, end: boolean): number | undefined {
  if (raw === undefined) return undefined;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const ms = Date.parse(dateOnly ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(ms)) throw ValidationError.field(field, `The ${field} field must be an ISO 8601 date or date-time.`);
  return dateOnly && end ? ms + 86_400_000 - 1 : ms;
}

export async function listSuppressions(deps: Ctx, teamId: string, q: SuppressionListQuery) {
  const sort = parseSort(q.sort, SUPPRESSION_SORT, "-created_at");
  const page = parsePage(q, sort.length);
  const result = await deps.store.read.suppressions.list(
    teamId,
    {
      email: q["filter[email]"]?.trim().toLowerCase(),
      type: q["filter[type]"],
      valueContains: q["filter[value]"]?.trim().toLowerCase(),
      from: dateBound(q["filter[startDate]"], "filter[startDate]", false),
      to: dateBound(q["filter[endDate]"], "filter[endDate]", true),
      scope: q["filter[scope]"],
      reason: q["filter[reason]"],
      projectId: q["filter[project_id]"]?.toLowerCase(),
      routeId: q["filter[route_id]"]?.toLowerCase(),
    },
    { sort, size: page.size, cursor: page.cursor },
  );
  const sources = await deps.store.read.suppressions.sourceMessages(teamId, result.rows.flatMap((r) => (r.source_message_id ? [r.source_message_id] : [])));
  return { page: result, data: result.rows.map((r) => serializeSuppression(r, r.source_message_id ? (sources.get(r.source_message_id) ?? null) : null)), size: page.size };
}

/** Lifts one suppression (published as suppression.removed): the address can receive mail in that scope again. */
export async function deleteSuppression(deps: Ctx, teamId: string, id: string): Promise<void> {
  if (!(await deps.store.write((tx) => removeSuppressionRow(tx, id, teamId, Date.now())))) throw new NotFoundError("Suppression");
}
