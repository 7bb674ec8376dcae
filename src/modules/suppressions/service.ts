import type { Database } from "bun:sqlite";
import type { Deps } from "../../context.ts";
import { keysetPage } from "../../db/keyset.ts";
import { NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { addSuppression, suppressionScopeKey } from "../../events/message-status.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import {
  serializeSuppression,
  type CreateSuppressionsBody,
  type SuppressionData,
  type SuppressionListQuery,
  type SuppressionRow,
} from "./model.ts";

const COLUMNS = "id, email, scope, reason, project_id, route_id, created_at";

type Skipped = { email: string; reason: "already_suppressed" | "duplicate" };

/** Checks the scope's id fields: the one the scope needs is required and must be the team's. */
function resolveScope(sqlite: Database, teamId: string, body: CreateSuppressionsBody): { projectId: string | null; routeId: string | null } {
  const errors: Record<string, string[]> = fieldErrors();
  const owned = (table: "projects" | "routes", id: string) =>
    sqlite.query<{ one: number }, [string, string]>(`SELECT 1 AS one FROM ${table} WHERE id = ? AND team_id = ?`).get(id.toLowerCase(), teamId) !== null;
  for (const [field, table, needed] of [
    ["project_id", "projects", "project"],
    ["route_id", "routes", "route"],
  ] as const) {
    const value = body[field];
    if (body.scope === needed) {
      if (value === undefined) errors[field] = [`The ${field} field is required when scope is ${needed}.`];
      else if (!owned(table, value)) errors[field] = [`The selected ${field} is not a ${needed} of this team.`];
    } else if (value !== undefined) {
      errors[field] = [`The ${field} field must be empty when scope is ${body.scope}.`];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { projectId: body.project_id?.toLowerCase() ?? null, routeId: body.route_id?.toLowerCase() ?? null };
}

/**
 * Adds one suppression per address for the scope. Addresses are compared lower-cased; one that is
 * already suppressed in that scope, or listed twice, is skipped (and says why) rather than failing
 * the request.
 */
export async function createSuppressions(
  deps: Pick<Deps, "sqlite" | "writer">,
  teamId: string,
  body: CreateSuppressionsBody,
): Promise<{ created: SuppressionData[]; skipped: Skipped[] }> {
  const emails = [...(body.email !== undefined ? [body.email] : []), ...(body.emails ?? [])];
  if (emails.length === 0) throw ValidationError.field("email", "Either the email or the emails field is required.");
  const { projectId, routeId } = resolveScope(deps.sqlite, teamId, body);
  return deps.writer.write(() => {
    const now = Date.now();
    const seen = new Set<string>();
    const created: SuppressionData[] = [];
    const skipped: Skipped[] = [];
    const scopeKey = suppressionScopeKey({ scope: body.scope, projectId, routeId });
    const read = deps.sqlite.query<SuppressionRow, [string, string, string]>(
      `SELECT ${COLUMNS} FROM suppressions WHERE team_id = ? AND scope_key = ? AND email = ?`,
    );
    for (const raw of emails) {
      const email = raw.trim().toLowerCase();
      if (seen.has(email)) {
        skipped.push({ email, reason: "duplicate" });
        continue;
      }
      seen.add(email);
      if (addSuppression(deps.sqlite, { teamId, scope: body.scope, projectId, routeId, email, reason: body.reason }, now)) {
        created.push(serializeSuppression(read.get(teamId, scopeKey, email)!));
      } else {
        skipped.push({ email, reason: "already_suppressed" });
      }
    }
    return { created, skipped };
  });
}

const SUPPRESSION_SORT = { created_at: "created_at", email: "email" };

export function listSuppressions(sqlite: Database, teamId: string, q: SuppressionListQuery) {
  const sort = parseSort(q.sort, SUPPRESSION_SORT, "-created_at");
  const page = parsePage(q, sort.length);
  const where = ["team_id = ?"];
  const params: (string | number)[] = [teamId];
  const filters: [string, string | undefined][] = [
    ["email", q["filter[email]"]?.trim().toLowerCase()],
    ["scope", q["filter[scope]"]],
    ["reason", q["filter[reason]"]],
    ["project_id", q["filter[project_id]"]?.toLowerCase()],
    ["route_id", q["filter[route_id]"]?.toLowerCase()],
  ];
  for (const [column, value] of filters) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  const result = keysetPage<SuppressionRow>(sqlite, {
    select: `SELECT ${COLUMNS} FROM suppressions`,
    where,
    params,
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => sort.map((k) => row[k.column as keyof SuppressionRow] as string | number),
  });
  return { page: result, data: result.rows.map(serializeSuppression), size: page.size };
}

/** Lifts one suppression: the address can receive mail in that scope again. */
export async function deleteSuppression(deps: Pick<Deps, "sqlite" | "writer">, teamId: string, id: string): Promise<void> {
  const changes = await deps.writer.write(() => deps.sqlite.query("DELETE FROM suppressions WHERE id = ? AND team_id = ?").run(id, teamId).changes);
  if (changes === 0) throw new NotFoundError("Suppression");
}
