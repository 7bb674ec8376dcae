import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import { NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { suppressionScopeKey } from "../../events/message-status.ts";
import { addSuppressionRow, removeSuppressionRow } from "../../events/suppression-events.ts";
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
 * Adds one suppression per address for the scope, each published as suppression.added. Addresses
 * are compared lower-cased; one that is already suppressed in that scope, or listed twice, is
 * skipped rather than failing the request. The answer lists the addresses (Lettermint's
 * `created: string[]`, `skipped: string[]`; the spec shows no element shape).
 */
export async function createSuppressions(deps: Ctx, teamId: string, body: CreateSuppressionsBody): Promise<{ created: string[]; skipped: string[] }> {
  const emails = [...(body.email !== undefined ? [body.email] : []), ...(body.emails ?? [])];
  if (emails.length === 0) throw ValidationError.field("email", "Either the email or the emails field is required.");
  await resolveScope(deps.store.read, teamId, body);
  return deps.store.write(async (tx) => {
    // Again inside the transaction: the project or route may have been deleted since.
    const { projectId, routeId } = await resolveScope(tx, teamId, body);
    const now = Date.now();
    const seen = new Set<string>();
    const created: string[] = [];
    const skipped: string[] = [];
    const scopeKey = suppressionScopeKey({ scope: body.scope, projectId, routeId });
    for (const raw of emails) {
      const email = raw.trim().toLowerCase();
      if (seen.has(email)) {
        skipped.push(email);
        continue;
      }
      seen.add(email);
      const row = await addSuppressionRow(tx, {
        id: newId(),
        team_id: teamId,
        scope: body.scope,
        project_id: projectId,
        route_id: routeId,
        scope_key: scopeKey,
        email,
        reason: body.reason,
        created_at: now,
      }, now);
      (row ? created : skipped).push(email);
    }
    return { created, skipped };
  });
}

const SUPPRESSION_SORT = { created_at: "created_at", email: "email" };

export async function listSuppressions(deps: Ctx, teamId: string, q: SuppressionListQuery) {
  const sort = parseSort(q.sort, SUPPRESSION_SORT, "-created_at");
  const page = parsePage(q, sort.length);
  const result = await deps.store.read.suppressions.list(
    teamId,
    {
      email: q["filter[email]"]?.trim().toLowerCase(),
      scope: q["filter[scope]"],
      reason: q["filter[reason]"],
      projectId: q["filter[project_id]"]?.toLowerCase(),
      routeId: q["filter[route_id]"]?.toLowerCase(),
    },
    { sort, size: page.size, cursor: page.cursor },
  );
  return { page: result, data: result.rows.map(serializeSuppression), size: page.size };
}

/** Lifts one suppression (published as suppression.removed): the address can receive mail in that scope again. */
export async function deleteSuppression(deps: Ctx, teamId: string, id: string): Promise<void> {
  if (!(await deps.store.write((tx) => removeSuppressionRow(tx, id, teamId, Date.now())))) throw new NotFoundError("Suppression");
}
