import { keysetPageOf, type Cursor, type KeysetPage } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";

/** Who made a change: a dashboard user, the team's own token, one of its named tokens, or the CLI on the server. */
export type AuditActorKind = "user" | "team_token" | "named_token" | "cli";

/** One audit_log row as the repository takes and gives it (target_ids and changes parsed). */
export interface AuditRow {
  id: string;
  team_id: string;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_name: string | null;
  operation: string;
  target_ids: Record<string, string>;
  changes: Record<string, unknown>;
  status: number;
  ip: string | null;
  user_agent: string | null;
  created_at: number;
}

type Raw = Omit<AuditRow, "target_ids" | "changes" | "status" | "created_at"> & { target_ids: string; changes: string; status: number | string; created_at: number | string };
const COLUMNS = "id, team_id, actor_kind, actor_id, actor_name, operation, target_ids, changes, status, ip, user_agent, created_at";
const row = (r: Raw): AuditRow => ({
  ...r,
  target_ids: JSON.parse(r.target_ids) as Record<string, string>,
  changes: JSON.parse(r.changes) as Record<string, unknown>,
  status: Number(r.status),
  created_at: Number(r.created_at),
});

/** Filters of GET /v1/team/audit-log; each undefined one is no filter. */
export interface AuditFilter {
  actor?: string;
  operation?: string;
  /** A target id: matches a row any of whose path parameters has this value. */
  target?: string;
  from?: number;
  to?: number;
}

/**
 * The audit log (docs/access.md): append-only. There is deliberately no update; rows leave only
 * through retention (deleteBefore), never one by one.
 */
export class AuditLogRepository {
  constructor(private readonly db: SqlExecutor) {}

  async append(r: AuditRow): Promise<void> {
    await this.db.run(`INSERT INTO audit_log (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      r.id,
      r.team_id,
      r.actor_kind,
      r.actor_id,
      r.actor_name,
      r.operation,
      JSON.stringify(r.target_ids),
      JSON.stringify(r.changes),
      r.status,
      r.ip,
      r.user_agent,
      r.created_at,
    ]);
  }

  /** The team's rows, newest first, keyset-paged on (created_at, id). */
  async list(teamId: string, f: AuditFilter, page: { size: number; cursor: Cursor | null }): Promise<KeysetPage<AuditRow>> {
    const where = ["team_id = ?"];
    const params: (string | number | null)[] = [teamId];
    if (f.actor !== undefined) {
      where.push("(actor_id = ? OR actor_kind = ?)");
      params.push(f.actor, f.actor);
    }
    if (f.operation !== undefined) {
      where.push("operation = ?");
      params.push(f.operation);
    }
    if (f.target !== undefined) {
      // target_ids is a small JSON object of ids: the quoted value is matched as a whole string.
      where.push("target_ids LIKE ? ESCAPE '!'");
      params.push(`%${JSON.stringify(f.target).replace(/[!%_]/g, (c) => `!${c}`)}%`);
    }
    if (f.from !== undefined) {
      where.push("created_at >= ?");
      params.push(f.from);
    }
    if (f.to !== undefined) {
      where.push("created_at <= ?");
      params.push(f.to);
    }
    const page_ = await keysetPageOf<Raw>(this.db, {
      select: `SELECT ${COLUMNS} FROM audit_log`,
      where,
      params,
      sort: [
        { column: "created_at", desc: true },
        { column: "id", desc: true },
      ],
      ...page,
      valuesOf: (r) => [Number(r.created_at), r.id],
    });
    return { ...page_, rows: page_.rows.map(row) };
  }

  /** Retention: removes up to `limit` rows older than `cutoff`; the number removed. */
  async deleteBefore(cutoff: number, limit: number): Promise<number> {
    const r = await this.db.run("DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE created_at < ? LIMIT ?)", [cutoff, limit]);
    return r.changes;
  }
}
