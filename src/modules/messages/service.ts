import type { Database } from "bun:sqlite";
import { keysetPage } from "../../db/keyset.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso } from "../../ids.ts";
import { likeContains, parseDateFilter } from "../../http/schemas.ts";
import { LIST_COLUMNS, serializeListItem, type MessageData, type MessageListQuery, type MessageRow } from "./model.ts";

/** Sort key → column. Every list is keyed on (sort…, id), so pages hold still while mail arrives. */
const MESSAGE_SORT: Record<string, string> = {
  type: "type",
  status: "status",
  from_email: "from_email",
  subject: "subject",
  created_at: "created_at",
  status_changed_at: "status_changed_at",
};

/**
 * The query behind one page of the team's messages, for listMessages (and for the benchmark's
 * EXPLAIN). Equality filters (type, status, route, domain, tag) and the date range each match an
 * index ordered by (created_at, id), so the default sort seeks to the cursor in an index and stops
 * after one page. A partial match (from_email, subject) walks messages_team_search newest first
 * and checks both columns on the index entry, reading a table row only for a match: the planner,
 * given statistics, prefers the narrower messages_team_created and then reads every row (3× slower
 * on a term that matches nothing), hence the INDEXED BY.
 */
export function messageListQuery(teamId: string, q: MessageListQuery) {
  const sort = parseSort(q.sort, MESSAGE_SORT, "-created_at");
  const page = parsePage(q, sort.length);
  const from = parseDateFilter("filter[from_date]", q["filter[from_date]"]);
  const to = parseDateFilter("filter[to_date]", q["filter[to_date]"], true);
  if (from !== null && to !== null && from > to) {
    throw ValidationError.field("filter[to_date]", "The filter[to_date] field must be a date on or after filter[from_date].");
  }

  const where = ["team_id = ?"];
  const params: (string | number)[] = [teamId];
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    params.push(value);
  };
  eq("type", q["filter[type]"]);
  eq("status", q["filter[status]"]);
  eq("route_id", q["filter[route_id]"]?.toLowerCase());
  eq("domain_id", q["filter[domain_id]"]?.toLowerCase());
  eq("tag", q["filter[tag]"]);
  let search = false;
  for (const key of ["from_email", "subject"] as const) {
    const v = q[`filter[${key}]`];
    if (v === undefined) continue;
    search = true;
    where.push(`${key} LIKE ? ESCAPE '\\'`);
    params.push(likeContains(v));
  }
  if (from !== null) {
    where.push("created_at >= ?");
    params.push(from);
  }
  if (to !== null) {
    where.push("created_at <= ?");
    params.push(to);
  }
  const select = `SELECT ${LIST_COLUMNS} FROM messages${search ? " INDEXED BY messages_team_search" : ""}`;
  return { select, where, params, sort, page };
}

/** One page of the team's messages (MessageListData), with the spec's filters and sort keys. */
export function listMessages(sqlite: Database, teamId: string, q: MessageListQuery) {
  const { select, where, params, sort, page } = messageListQuery(teamId, q);
  const result = keysetPage<MessageRow>(sqlite, {
    select,
    where,
    params,
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => sort.map((k) => row[k.column as keyof MessageRow] as string | number),
  });
  return { page: result, data: result.rows.map(serializeListItem), size: page.size };
}

type DetailRow = MessageRow & { route_id: string | null; metadata: string; spam_score: number | null; spam_symbols: string | null };

/** MessageData of one of the team's messages, with its attachments' metadata (not their content). */
export function getMessage(sqlite: Database, teamId: string, messageId: string): MessageData {
  const r = sqlite
    .query<DetailRow, [string, string]>(`SELECT ${LIST_COLUMNS}, route_id, metadata, spam_score, spam_symbols FROM messages WHERE id = ? AND team_id = ?`)
    .get(messageId, teamId);
  if (!r) throw new NotFoundError("Message");
  const attachments = sqlite
    .query<{ size: number; filename: string; content_id: string | null; content_type: string }, [string]>(
      "SELECT size, filename, content_id, content_type FROM attachments WHERE message_id = ? ORDER BY rowid",
    )
    .all(messageId);
  const item = serializeListItem(r);
  return {
    id: item.id,
    type: item.type,
    status: item.status,
    status_changed_at: iso(r.status_changed_at)!,
    tag: item.tag,
    from_email: item.from_email,
    from_name: item.from_name,
    reply_to: item.reply_to,
    subject: item.subject,
    to: item.to,
    cc: item.cc,
    bcc: item.bcc,
    attachments: attachments.map((a) => ({ size: a.size, filename: a.filename, content_id: a.content_id, content_type: a.content_type })),
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    route_id: r.route_id,
    created_at: item.created_at,
    spam_score: r.spam_score,
    spam_symbols: r.spam_symbols ? (JSON.parse(r.spam_symbols) as MessageData["spam_symbols"]) : [],
  };
}

function assertMessage(sqlite: Database, teamId: string, messageId: string): void {
  if (!sqlite.query<{ one: number }, [string, string]>("SELECT 1 AS one FROM messages WHERE id = ? AND team_id = ?").get(messageId, teamId)) {
    throw new NotFoundError("Message");
  }
}

type EventRow = { id: string; kind: string; status: string | null; recipient: string | null; data: string; created_at: number };

/** The message's history (status changes and engagement), oldest first. */
export function listMessageEvents(sqlite: Database, teamId: string, messageId: string, query: Record<string, unknown>) {
  assertMessage(sqlite, teamId, messageId);
  const sort = parseSort(undefined, { created_at: "e.created_at" }, "created_at", "e.id");
  const page = parsePage(query, sort.length);
  const result = keysetPage<EventRow>(sqlite, {
    select: "SELECT e.id, e.kind, e.status, r.email AS recipient, e.data, e.created_at FROM message_events e LEFT JOIN recipients r ON r.id = e.recipient_id",
    where: ["e.message_id = ?"],
    params: [messageId],
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => [row.created_at, row.id],
  });
  const data = result.rows.map((e) => ({
    id: e.id,
    event: e.kind,
    status: e.status,
    recipient: e.recipient,
    data: JSON.parse(e.data) as Record<string, unknown>,
    created_at: iso(e.created_at)!,
  }));
  return { page: result, data, size: page.size };
}

/** The exact MIME as sent or received; 404 while none is stored (e.g. not composed yet). */
export function getMessageSource(sqlite: Database, teamId: string, messageId: string): Uint8Array {
  assertMessage(sqlite, teamId, messageId);
  const row = sqlite.query<{ raw: Uint8Array | null }, [string]>("SELECT raw FROM message_contents WHERE message_id = ?").get(messageId);
  if (!row?.raw) throw new NotFoundError("Message source");
  return row.raw;
}
