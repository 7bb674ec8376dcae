import { FINAL_RECIPIENT_STATUSES, MESSAGE_STATUSES } from "./recipient-status.ts";
import { keysetPageOf, whereEquals, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * The statuses of a recipient still in the delivery queue (pending, queued, processed,
 * soft_bounced). A message's status is the highest-ranked of its recipients' and these rank
 * above every final one, so a message is in the queue exactly when its own status is one of them.
 */
export const QUEUED_STATUSES = MESSAGE_STATUSES.filter((s) => !FINAL_RECIPIENT_STATUSES.has(s));
const QUEUED_SQL = QUEUED_STATUSES.map((s) => `'${s}'`).join(", ");

/**
 * The queue's filters; every one optional. `domain` is a recipient domain, lower case; `status`
 * one of QUEUED_STATUSES (`scheduled`: waiting for its scheduled_at).
 */
export interface QueueFilter {
  domain?: string;
  routeId?: string;
  status?: string;
}

/** An outbound message not yet final, as the queue lists it. */
export type QueuedMessageRow = {
  id: string;
  route_id: string | null;
  status: string;
  from_email: string;
  subject: string;
  created_at: number;
  /** When a scheduled send goes out (epoch ms); null: sent on acceptance. */
  scheduled_at: number | null;
};

/** A recipient not yet final; `last_response` is the serialized RemoteReply of its last attempt. */
export type QueuedRecipientRow = {
  id: string;
  message_id: string;
  email: string;
  status: string;
  attempts: number;
  last_response: string | null;
  status_changed_at: number;
};

/** The queue's order: oldest first, as a mail queue is drained. */
export const QUEUE_SORT: SortKey[] = [
  { column: "created_at", desc: false },
  { column: "id", desc: false },
];

/** A LIKE pattern matching addresses at `domain` exactly (escape character `\`). */
const atDomain = (domain: string): string => `%@${domain.replace(/[\\%_]/g, (c) => `\\${c}`)}`;

/**
 * The outbound delivery queue as queue control sees it: the team's messages not yet final and
 * their recipients still to be delivered. The jobs that carry them are the job queue's
 * (JobQueue.ofMessages, hurry, dropOfMessages).
 */
export class QueueRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * One keyset page of the team's queued messages, oldest first. The status condition walks
   * messages_team_status_created; a recipient domain is matched on the recipients still queued.
   */
  list(teamId: string, filter: QueueFilter, page: { size: number; cursor: Cursor | null }): Promise<KeysetPage<QueuedMessageRow>> {
    const where = ["team_id = ?", "type = 'outbound'", `status IN (${QUEUED_SQL})`];
    const params: (string | number)[] = [teamId];
    whereEquals(where, params, { route_id: filter.routeId, status: filter.status });
    if (filter.domain !== undefined) {
      // dialect: SQLite's LIKE folds ASCII case itself; PostgreSQL needs ILIKE for the same match.
      const like = this.db.dialect === "postgres" ? "ILIKE" : "LIKE";
      where.push(`EXISTS (SELECT 1 FROM recipients r WHERE r.message_id = messages.id AND r.status IN (${QUEUED_SQL}) AND r.email ${like} ? ESCAPE '\\')`);
      params.push(atDomain(filter.domain));
    }
    return keysetPageOf<QueuedMessageRow>(this.db, {
      select: "SELECT id, route_id, status, from_email, subject, created_at, scheduled_at FROM messages",
      where,
      params,
      sort: QUEUE_SORT,
      ...page,
      valuesOf: (row) => [row.created_at, row.id],
    });
  }

  /** The recipients of these messages that are not final yet, in the order they were added. */
  recipientsOf(messageIds: readonly string[]): Promise<QueuedRecipientRow[]> {
    if (messageIds.length === 0) return Promise.resolve([]);
    return this.db.all<QueuedRecipientRow>(
      `SELECT id, message_id, email, status, attempts, last_response, status_changed_at FROM recipients
       WHERE message_id IN (${messageIds.map(() => "?").join(", ")}) AND status IN (${QUEUED_SQL}) ORDER BY created_at, id`,
      messageIds,
      { dynamic: true },
    );
  }

  /**
   * The recipient domains (lower case, the part after the first @) of the team's recipients still
   * queued, each with the latest remote reply (serialized RemoteReply) one of those recipients got,
   * or null: the destinations a team is shown are the ones its own mail is waiting for, and the
   * replies it is shown are those about its own mail, never another team's.
   */
  async teamDomains(teamId: string, projects: readonly string[] | null = null): Promise<{ domain: string; last_response: string | null; at: number | null }[]> {
    if (projects !== null && projects.length === 0) return [];
    const only = projects === null ? "" : ` AND m.project_id IN (${projects.map(() => "?").join(", ")})`;
    // dialect: SQLite has no split_part; both take what follows the first @.
    const domain = this.db.dialect === "postgres" ? "lower(split_part(r.email, '@', 2))" : "lower(substr(r.email, instr(r.email, '@') + 1))";
    const rows = await this.db.all<{ domain: string; last_response: string | null; at: number | null; n: number }>(
      `SELECT domain, last_response, at FROM (
         SELECT ${domain} AS domain, r.last_response, r.status_changed_at AS at,
           ROW_NUMBER() OVER (PARTITION BY ${domain} ORDER BY (r.last_response IS NULL), r.status_changed_at DESC, r.id DESC) AS n
         FROM messages m JOIN recipients r ON r.message_id = m.id
         WHERE m.team_id = ? AND m.type = 'outbound' AND m.status IN (${QUEUED_SQL}) AND r.status IN (${QUEUED_SQL})${only}
       ) latest WHERE n = 1`,
      [teamId, ...(projects ?? [])],
      { dynamic: projects !== null },
    );
    return rows.map((r) => ({ domain: r.domain, last_response: r.last_response ?? null, at: r.last_response === null || r.at === null ? null : Number(r.at) }));
  }
}
