import type { Deps } from "../../context.ts";
import type { AuditRow } from "../../db/audit-log.ts";
import { ValidationError } from "../../errors.ts";
import { parsePage } from "../../http/pagination.ts";
import { parseDateFilter } from "../../http/schemas.ts";

const entry = (r: AuditRow) => ({
  id: r.id,
  actor: { kind: r.actor_kind, id: r.actor_id, name: r.actor_name },
  operation: r.operation,
  target_ids: r.target_ids,
  changes: r.changes,
  status: r.status,
  ip: r.ip,
  user_agent: r.user_agent,
  created_at: new Date(r.created_at).toISOString(),
});

/** A page of the team's audit log, newest first, with the filters of GET /v1/team/audit-log. */
export async function listAuditLog(deps: Deps, teamId: string, q: Record<string, string | undefined>) {
  const from = parseDateFilter("filter[from]", q["filter[from]"]);
  const to = parseDateFilter("filter[to]", q["filter[to]"], true);
  if (from !== null && to !== null && to < from) throw ValidationError.field("filter[to]", "The filter[to] field must be on or after filter[from].");
  const { size, cursor } = parsePage(q, 2);
  const page = await deps.store.read.auditLog.list(
    teamId,
    { actor: q["filter[actor]"], target: q["filter[target]"], operation: q["filter[operation]"], from: from ?? undefined, to: to ?? undefined },
    { size, cursor },
  );
  return { page, data: page.rows.map(entry), size };
}
