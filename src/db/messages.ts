import { keysetPageOf, whereEquals, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import { countedPairs, STATUS_PAIRS } from "./routes.ts";
import type { SqlExecutor } from "./sql.ts";

/** A message's sender, subject and visible recipients; the address lists are JSON text. */
export type MessageHeadingColumns = {
  from_email: string;
  from_name: string;
  subject: string;
  to: string;
  cc: string;
  reply_to: string;
};

/** The columns of a message that lists show. */
export type MessageRow = MessageHeadingColumns & {
  id: string;
  type: "inbound" | "outbound";
  status: string;
  status_changed_at: number;
  /** A scheduled send's time (epoch ms); null for mail sent on acceptance and inbound mail. */
  scheduled_at: number | null;
  tag: string | null;
  /** The name-value tags, JSON text: [{name, value}]. */
  tags: string;
  bcc: string;
  created_at: number;
};

const LIST_COLUMNS = `id, type, status, status_changed_at, scheduled_at, tag, tags, from_email, from_name, subject, "to", cc, bcc, reply_to, created_at`;

/** A message as its detail shows it. */
export type MessageDetailRow = MessageRow & { route_id: string | null; metadata: string; spam_score: number | null; spam_symbols: string | null };

/** An attachment's metadata (not its content). */
export type AttachmentMetaRow = { size: number; filename: string; content_id: string | null; content_type: string };

/** An attachment as a download serves it. */
export type AttachmentFileRow = { filename: string; content_type: string; content: Uint8Array };

/** One entry of a message's history, with the address of the recipient it concerns. */
export type MessageEventRow = { id: string; kind: string; status: string | null; recipient: string | null; data: string; created_at: number };

/** An outbound message as its unsubscribe link needs it: its team and route (null once deleted). */
export type UnsubscribeMessageRow = { team_id: string; route_id: string | null; route_name: string | null };

export type RecipientStatusRow = { id: string; email: string; status: string };

/** A recipient as its own unsubscribe link needs it, with its message's team and route. */
export type UnsubscribeRecipientRow = RecipientStatusRow & UnsubscribeMessageRow & { message_id: string };

/** The message list's filters; every one optional. Dates are epoch ms, inclusive. */
export interface MessageListFilter {
  type?: string;
  status?: string;
  routeId?: string;
  domainId?: string;
  tag?: string;
  /** Name-value tag pairs a message must all carry (exact, case-sensitive); a pair without a value matches any value. */
  tags?: { name: string; value?: string }[];
  /** Partial, case-insensitive matches. */
  fromEmailContains?: string;
  subjectContains?: string;
  createdFrom?: number | null;
  createdTo?: number | null;
}

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}

/**
 * A sort key's SQL: scheduled_at is null for mail sent at once, and a NULL neither compares in a
 * keyset seek nor sorts the same way on both engines (first on SQLite, last on PostgreSQL), so it
 * sorts as 0: before every scheduled message ascending, after them descending (its cursor value
 * is 0 too, see list).
 */
const sortColumn = (column: string, prefix = ""): string => (column === "scheduled_at" ? `coalesce(${prefix}scheduled_at, 0)` : `${prefix}${column}`);

/** A LIKE pattern matching values that contain `s` literally (escape character `\`). */
const likeContains = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The SELECT and conditions behind one page of a team's messages (also what the benchmark and a
 * test EXPLAIN). Equality filters (type, status, route, domain, tag) and the date range each match
 * an index ordered by (created_at, id), so the default sort seeks to the cursor in an index and
 * stops after one page. A partial match (from_email, subject) walks messages_team_search newest
 * first and checks both columns on the index entry, reading a table row only for a match; the
 * INDEXED BY keeps the planner from choosing another index and then reading every row (3× slower
 * on a term that matches nothing). PostgreSQL has no planner
 * hints and chooses its own path; its ILIKE on the "C" collation folds ASCII case only, as
 * SQLite's LIKE does.
 *
 * With name-value tag pairs (messageTagsListSql) the walk starts in message_tags instead.
 * `sort` comes back with the columns the SQL orders by.
 */
export function messageListSql(
  teamId: string,
  f: MessageListFilter,
  dialect: SqlExecutor["dialect"] = "sqlite",
  sort: SortKey[] = [],
): { select: string; where: string[]; params: (string | number)[]; sort: SortKey[] } {
  if (f.tags && f.tags.length > 0) return messageTagsListSql(teamId, f, f.tags, dialect, sort);
  const where = ["team_id = ?"];
  const params: (string | number)[] = [teamId];
  whereEquals(where, params, { type: f.type, status: f.status, route_id: f.routeId, domain_id: f.domainId, tag: f.tag });
  let search = false;
  for (const [column, value] of [
    ["from_email", f.fromEmailContains],
    ["subject", f.subjectContains],
  ] as const) {
    if (value === undefined) continue;
    search = true;
    where.push(`${column} ${dialect === "postgres" ? "ILIKE" : "LIKE"} ? ESCAPE '\\'`);
    params.push(likeContains(value));
  }
  if (f.createdFrom != null) {
    where.push("created_at >= ?");
    params.push(f.createdFrom);
  }
  if (f.createdTo != null) {
    where.push("created_at <= ?");
    params.push(f.createdTo);
  }
  const hint = search && dialect === "sqlite" ? " INDEXED BY messages_team_search" : "";
  const select = `SELECT ${LIST_COLUMNS} FROM messages${hint}`;
  return { select, where, params, sort: sort.map((k) => ({ ...k, column: sortColumn(k.column) })) };
}

/**
 * The list filtered by name-value tags: the walk goes through message_tags_team_tag from the
 * first pair (team, name, value, then created_at and message id, newest first: the default
 * sort's order, so a page stops after its rows whatever the tag's share of the team's mail),
 * each message looked up by its id; every further pair is one probe of message_tags' primary key.
 * The message's created_at and id are read from message_tags (t0), which copies them, so the
 * order and the cursor seek are the index's; the walk starts from the first pair that has a value.
 * Pairs without a value only, or another sort key, sort the matching messages. On SQLite CROSS JOIN keeps message_tags the outer loop; PostgreSQL
 * plans it itself.
 */
function messageTagsListSql(
  teamId: string,
  f: MessageListFilter,
  pairs: readonly { name: string; value?: string }[],
  dialect: SqlExecutor["dialect"],
  sort: SortKey[],
): { select: string; where: string[]; params: (string | number)[]; sort: SortKey[] } {
  // The walk starts from a pair with a value where there is one: only a name and a value keep the index's order.
  const driver = Math.max(0, pairs.findIndex((p) => p.value !== undefined));
  const [first, ...rest] = [pairs[driver]!, ...pairs.filter((_, i) => i !== driver)];
  const where = ["t0.team_id = ?", "t0.name = ?", "m.id = t0.message_id"];
  const params: (string | number)[] = [teamId, first.name];
  if (first.value !== undefined) {
    where.splice(2, 0, "t0.value = ?");
    params.push(first.value);
  }
  for (const [i, pair] of rest.entries()) {
    const t = `t${i + 1}`;
    where.push(`EXISTS (SELECT 1 FROM message_tags ${t} WHERE ${t}.message_id = m.id AND ${t}.name = ?${pair.value !== undefined ? ` AND ${t}.value = ?` : ""})`);
    params.push(pair.name, ...(pair.value !== undefined ? [pair.value] : []));
  }
  whereEquals(where, params, { "m.type": f.type, "m.status": f.status, "m.route_id": f.routeId, "m.domain_id": f.domainId, "m.tag": f.tag });
  for (const [column, value] of [
    ["m.from_email", f.fromEmailContains],
    ["m.subject", f.subjectContains],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} ${dialect === "postgres" ? "ILIKE" : "LIKE"} ? ESCAPE '\\'`);
    params.push(likeContains(value));
  }
  if (f.createdFrom != null) {
    where.push("t0.created_at >= ?");
    params.push(f.createdFrom);
  }
  if (f.createdTo != null) {
    where.push("t0.created_at <= ?");
    params.push(f.createdTo);
  }
  const column = (c: string) => (c === "created_at" ? "t0.created_at" : c === "id" ? "t0.message_id" : sortColumn(c, "m."));
  const columns = LIST_COLUMNS.split(", ").map((c) => (c === "created_at" || c === "id" ? `${column(c)} AS ${c}` : `m.${c}`));
  return {
    select: `SELECT ${columns.join(", ")} FROM message_tags t0 CROSS JOIN messages m`,
    where,
    params,
    sort: sort.map((k) => ({ ...k, column: column(k.column) })),
  };
}

/** The history's order: (created_at, id), so a page holds still while events are added. */
export const MESSAGE_EVENT_SORT: SortKey[] = [
  { column: "e.created_at", desc: false },
  { column: "e.id", desc: false },
];

/** An inbound message as the SMTP listener accepts it, before the inbound job parses it. */
export type NewInboundMessage = { id: string; team_id: string; project_id: string | null; route_id: string; from_email: string; raw: Uint8Array; created_at: number };

/** An accepted outbound message with its contents; address lists, metadata and headers are JSON text. */
export type NewOutboundMessage = MessageHeadingColumns & {
  id: string;
  team_id: string;
  project_id: string;
  route_id: string;
  domain_id: string;
  tag: string | null;
  /** JSON text: [{name, value}] (the rows of message_tags come from insertTags). */
  tags: string;
  bcc: string;
  metadata: string;
  message_id_header: string;
  html: string | null;
  text: string | null;
  headers: string;
  /** Open and click tracking (1/0): the route's settings or the send's override. */
  track_opens: number;
  track_clicks: number;
  /** opportunistic | enforced: the delivery's TLS policy (the send's settings.tls, else the route's). */
  tls: string;
  /** 1: its content (source, text, html) is kept from the team (message_contents.sealed). */
  sealed?: number;
  /** Sent with scheduled_at: its time (epoch ms); the message and its recipients start `scheduled`. */
  scheduled_at?: number | null;
  created_at: number;
};

/** A file stored with a message (an outbound attachment, or one parsed out of inbound mail). */
export type NewAttachment = { id: string; filename: string; content_type: string; content_id: string | null; content: Uint8Array };

/** A recipient of a new outbound message (status pending, no attempts). */
export type NewRecipient = { id: string; email: string; kind: "to" | "cc" | "bcc" };

/** An inbound message as its job reads it: the stored MIME (null once gone) and where it goes. */
/** A message as a release of quarantined mail sees it. */
export type ReleaseTargetRow = { id: string; type: string; status: string; project_id: string | null; route_id: string | null };

export type InboundSourceRow = { id: string; status: string; team_id: string; route_id: string | null; raw: Uint8Array | null };

/** What the inbound job learned of a message; address lists, headers and symbols are JSON text. */
export type InboundCompletion = MessageHeadingColumns & {
  status: string;
  message_id_header: string | null;
  spam_score: number;
  spam_symbols: string;
  html: string | null;
  text: string | null;
  headers: string;
  now: number;
};

const INSERT_TAG = "INSERT INTO message_tags (message_id, team_id, name, value, created_at) VALUES (?, ?, ?, ?, ?)";
const INSERT_ATTACHMENT = "INSERT INTO attachments (id, message_id, filename, content_type, content_id, size, content) VALUES (?, ?, ?, ?, ?, ?, ?)";
const RECIPIENT_VALUES = "(?, ?, ?, ?, ?, ?, 0, ?)";
const INSERT_RECIPIENTS = "INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, attempts, created_at) VALUES ";
// One string for every call, so that the statement cache does not hash a new one each time.
const INSERT_RECIPIENT = INSERT_RECIPIENTS + RECIPIENT_VALUES;

/** Messages: accepting them (outbound and inbound), and reading them through the API (lists, detail, history, raw source, attachments, unsubscribe targets). */

export class MessageRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** Stores accepted inbound mail as it arrived (status pending; the inbound job fills in the rest). */
  async insertInbound(m: NewInboundMessage): Promise<void> {
    await this.db.run(
      `INSERT INTO messages (id, team_id, project_id, route_id, type, status, status_changed_at, from_email, from_name, subject, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'inbound', 'pending', ?, ?, '', '', '[]', '[]', '[]', '[]', '{}', ?, ?)`,
      [m.id, m.team_id, m.project_id, m.route_id, m.created_at, m.from_email, m.created_at, m.created_at],
    );
    await this.db.run("INSERT INTO message_contents (message_id, html, text, headers, raw) VALUES (?, NULL, NULL, '{}', ?)", [m.id, m.raw]);
  }

  /**
   * Stores an accepted outbound message and its contents (status pending, or scheduled with a
   * scheduled_at; the raw MIME comes with composing).
   */
  async insertOutbound(m: NewOutboundMessage): Promise<void> {
    await this.db.runDeferred(
      `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, scheduled_at, status_changed_at, tag, tags, from_email, from_name, subject,
       "to", cc, bcc, reply_to, metadata, message_id_header, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'outbound', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        m.id,
        m.team_id,
        m.project_id,
        m.route_id,
        m.domain_id,
        m.scheduled_at == null ? "pending" : "scheduled",
        m.scheduled_at ?? null,
        m.created_at,
        m.tag,
        m.tags,
        m.from_email,
        m.from_name,
        m.subject,
        m.to,
        m.cc,
        m.bcc,
        m.reply_to,
        m.metadata,
        m.message_id_header,
        m.created_at,
        m.created_at,
      ],
    );
    await this.db.runDeferred("INSERT INTO message_contents (message_id, html, text, headers, raw, track_opens, track_clicks, tls, sealed) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)", [
      m.id,
      m.html,
      m.text,
      m.headers,
      m.track_opens,
      m.track_clicks,
      m.tls,
      m.sealed ?? 0,
    ]);
  }

  /** The message's name-value tags, one row each for the list's filter (their JSON is in messages.tags). */
  async insertTags(m: { id: string; team_id: string; created_at: number }, tags: readonly { name: string; value: string }[]): Promise<void> {
    for (const t of tags) await this.db.runDeferred(INSERT_TAG, [m.id, m.team_id, t.name, t.value, m.created_at]);
  }

  /** Stores the message's files in the given order. */
  async insertAttachments(messageId: string, files: readonly NewAttachment[]): Promise<void> {
    for (const a of files) await this.db.runDeferred(INSERT_ATTACHMENT, [a.id, messageId, a.filename, a.content_type, a.content_id, a.content.length, a.content]);
  }

  /** The new message's recipients, all pending. */
  async insertRecipients(messageId: string, recipients: readonly NewRecipient[], now: number, status: "pending" | "scheduled" = "pending"): Promise<void> {
    if (recipients.length === 0) return;
    if (this.db.dialect === "sqlite") {
      // dialect: SQLite runs a statement without a round trip, and one cached single-row INSERT a
      // time is cheaper than compiling a multi-row one of each length; PostgreSQL takes them in one.
      for (const r of recipients) await this.db.runDeferred(INSERT_RECIPIENT, [r.id, messageId, r.email, r.kind, status, now, now]);
      return;
    }
    await this.db.runDeferred(
      INSERT_RECIPIENTS + recipients.map(() => RECIPIENT_VALUES).join(", "),
      recipients.flatMap((r) => [r.id, messageId, r.email, r.kind, status, now, now]),
      { dynamic: recipients.length > 1 },
    );
  }

  /** An inbound message with its raw MIME, for the inbound job; null when the message is gone. */
  findInboundSource(id: string): Promise<InboundSourceRow | null> {
    return this.db.get<InboundSourceRow>(
      "SELECT m.id, m.status, m.team_id, m.route_id, c.raw FROM messages m JOIN message_contents c ON c.message_id = m.id WHERE m.id = ?",
      [id],
    );
  }

  /**
   * Fills in a pending inbound message with what its job found (message and contents); false,
   * changing nothing, when it is no longer pending (the job ran before).
   */
  async completeInbound(id: string, c: InboundCompletion): Promise<boolean> {
    const res = await this.db.run(
      `UPDATE messages SET status = ?, status_changed_at = ?, from_email = ?, from_name = ?, subject = ?, "to" = ?, cc = ?, reply_to = ?,
         message_id_header = ?, spam_score = ?, spam_symbols = ?, updated_at = ?
       WHERE id = ? AND status = 'pending'`,
      [c.status, c.now, c.from_email, c.from_name, c.subject, c.to, c.cc, c.reply_to, c.message_id_header, c.spam_score, c.spam_symbols, c.now, id],
    );
    if (res.changes === 0) return false;
    await this.db.run("UPDATE message_contents SET html = ?, text = ?, headers = ? WHERE message_id = ?", [c.html, c.text, c.headers, id]);
    return true;
  }

  /** A pending inbound message nobody can take any more (its route is gone) becomes failed. */
  async failPendingInbound(id: string, now: number): Promise<void> {
    await this.db.run("UPDATE messages SET status = 'failed', status_changed_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'", [now, now, id]);
  }

  /**
   * A quarantined inbound message goes back to pending, for the inbound job that releases it;
   * false, changing nothing, when it is not (or no longer) quarantined.
   */
  async releaseQuarantined(id: string, now: number): Promise<boolean> {
    const res = await this.db.run(
      "UPDATE messages SET status = 'pending', status_changed_at = ?, updated_at = ? WHERE id = ? AND type = 'inbound' AND status = 'quarantined'",
      [now, now, id],
    );
    return res.changes === 1;
  }

  /** What releasing one of the team's messages needs to know of it; null when unknown or another team's. */
  findReleaseTarget(id: string, teamId: string): Promise<ReleaseTargetRow | null> {
    return this.db.get<ReleaseTargetRow>("SELECT id, type, status, project_id, route_id FROM messages WHERE id = ? AND team_id = ?", [id, teamId]);
  }

  /** The data of the message's latest history entry of `kind` (JSON text), or null. */
  async latestHistoryData(messageId: string, kind: string): Promise<string | null> {
    const row = await this.db.get<{ data: string }>("SELECT data FROM message_events WHERE message_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT 1", [
      messageId,
      kind,
    ]);
    return row?.data ?? null;
  }

  /** Drops the message's attachments (a released inbound message stores them anew with its second analysis). */
  async deleteAttachments(messageId: string): Promise<void> {
    await this.db.run("DELETE FROM attachments WHERE message_id = ?", [messageId]);
  }

  /** One keyset page of the team's messages. `page.sort` columns are MessageRow columns and end in id. */
  list(teamId: string, filter: MessageListFilter, page: Page): Promise<KeysetPage<MessageRow>> {
    const columns = page.sort.map((k) => k.column as keyof MessageRow);
    return keysetPageOf<MessageRow>(this.db, {
      ...page,
      ...messageListSql(teamId, filter, this.db.dialect, page.sort),
      valuesOf: (row) => columns.map((c) => (c === "scheduled_at" ? (row.scheduled_at ?? 0) : row[c]) as string | number),
    });
  }

  findOfTeam(id: string, teamId: string): Promise<MessageDetailRow | null> {
    return this.db.get<MessageDetailRow>(`SELECT ${LIST_COLUMNS}, route_id, metadata, spam_score, spam_symbols FROM messages WHERE id = ? AND team_id = ?`, [id, teamId]);
  }

  async existsOfTeam(id: string, teamId: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS one FROM messages WHERE id = ? AND team_id = ?", [id, teamId])) !== null;
  }

  /** The message's attachments in the order they were stored. */
  attachmentsOf(messageId: string): Promise<AttachmentMetaRow[]> {
    // Ids are UUIDv7, monotonic in this process: their order is the order the attachments were stored in.
    return this.db.all("SELECT size, filename, content_id, content_type FROM attachments WHERE message_id = ? ORDER BY id", [messageId]);
  }

  attachmentFile(attachmentId: string): Promise<AttachmentFileRow | null> {
    return this.db.get("SELECT filename, content_type, content FROM attachments WHERE id = ?", [attachmentId]);
  }

  /** The exact MIME as sent or received; null while none is stored. */
  async rawSource(messageId: string): Promise<Uint8Array | null> {
    return (await this.db.get<{ raw: Uint8Array | null }>("SELECT raw FROM message_contents WHERE message_id = ?", [messageId]))?.raw ?? null;
  }

  /** One keyset page of the message's history, oldest first. */
  events(messageId: string, page: { size: number; cursor: Cursor | null }): Promise<KeysetPage<MessageEventRow>> {
    return keysetPageOf<MessageEventRow>(this.db, {
      select: "SELECT e.id, e.kind, e.status, r.email AS recipient, e.data, e.created_at FROM message_events e LEFT JOIN recipients r ON r.id = e.recipient_id",
      where: ["e.message_id = ?"],
      params: [messageId],
      sort: MESSAGE_EVENT_SORT,
      ...page,
      valuesOf: (row) => [row.created_at, row.id],
    });
  }

  /** An outbound message's team and route, for its unsubscribe link; null when unknown or inbound. */
  unsubscribeTarget(id: string): Promise<UnsubscribeMessageRow | null> {
    return this.db.get(
      "SELECT m.team_id, m.route_id, r.name AS route_name FROM messages m LEFT JOIN routes r ON r.id = m.route_id WHERE m.id = ? AND m.type = 'outbound'",
      [id],
    );
  }

  /** A recipient of an outbound message, with the message's team and route, for its unsubscribe link; null when unknown. */
  unsubscribeRecipient(recipientId: string): Promise<UnsubscribeRecipientRow | null> {
    return this.db.get(
      `SELECT rc.id, rc.email, rc.status, rc.message_id, m.team_id, m.route_id, r.name AS route_name
         FROM recipients rc JOIN messages m ON m.id = rc.message_id LEFT JOIN routes r ON r.id = m.route_id
        WHERE rc.id = ? AND m.type = 'outbound'`,
      [recipientId],
    );
  }

  recipientsOf(messageId: string): Promise<RecipientStatusRow[]> {
    return this.db.all("SELECT id, email, status FROM recipients WHERE message_id = ?", [messageId]);
  }

  /**
   * Every message counted by type and status (/metrics). On SQLite a GROUP BY sorts every row in a
   * temporary B-tree (half a second at 1,000,000 messages, on the thread that serves requests), so
   * each route's pairs (and those of messages without a route) are ranges of
   * messages_route_type_status_created instead, with the same check of the total as the route
   * statistics; PostgreSQL hashes the groups in its own process.
   */
  async countsByTypeAndStatus(): Promise<{ type: string; status: string; n: number }[]> {
    if (this.db.dialect === "sqlite") {
      const rows = await this.db.all<{ type: string | null; status: string; n: number }>(
        `WITH pairs (type, status) AS (${STATUS_PAIRS}), keys (route_id) AS (SELECT id FROM routes UNION ALL SELECT NULL)
         SELECT p.type, p.status, sum((SELECT count(*) FROM messages m WHERE m.route_id IS k.route_id AND m.type = p.type AND m.status = p.status)) AS n
         FROM pairs p CROSS JOIN keys k GROUP BY p.type, p.status
         UNION ALL SELECT NULL, NULL, count(*) FROM messages`,
      );
      const counted = countedPairs(rows);
      if (counted) return counted;
    }
    return this.db.all("SELECT type, status, count(*) AS n FROM messages GROUP BY type, status ORDER BY type, status");
  }
}
