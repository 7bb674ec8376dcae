import type { MessageHeadingColumns } from "./messages.ts";
import { FINAL_STATUSES_SQL } from "./recipients.ts";
import { compareIds } from "../ids.ts";
import type { SqlExecutor } from "./sql.ts";

/** An outbound message as a delivery attempt reads it: the message, its contents, route type and sending domain. */
export type OutboundMessageRow = MessageHeadingColumns & {
  id: string;
  message_id_header: string | null;
  created_at: number;
  /** A scheduled message's time to send: its queue lifetime counts from then, not from created_at. */
  scheduled_at: number | null;
  /**
   * The HTML and text parts, when at most INLINE_PART_BYTES; a larger one is null here (its size in
   * html_bytes / text_bytes says it exists) and read by partsToCompose once the attempt has its
   * turn for delivery memory, so that jobs waiting for it hold none of it.
   */
  html: string | null;
  text: string | null;
  /** The parts' sizes (SQLite: in characters), null for a part the message does not have. */
  html_bytes: number | null;
  text_bytes: number | null;
  headers: string;
  /**
   * The size in bytes of the composed, signed message (with tracking: the first recipient's copy);
   * null until the first attempt stores it. The bytes themselves are read when needed (rawSource):
   * a job waiting its turn for delivery memory holds none of them.
   */
  raw_bytes: number | null;
  /** The decoded size of its attachments, in bytes (what composing reads and encodes). */
  attachment_bytes: number;
  /** Open and click tracking of this message (1/0), fixed at acceptance. */
  track_opens: number;
  track_clicks: number;
  /** opportunistic | enforced: the delivery's TLS policy, fixed at acceptance. */
  tls: string;
  route_type: string | null;
  /** The route's settings an attempt honours (1/0; null when the route is gone): docs/sending.md, Route settings. */
  generate_plaintext_fallback: number | null;
  suppress_auto_responders: number | null;
  disable_hosted_unsubscribe: number | null;
  redact_email_content: number | null;
  domain: string | null;
  dkim_selector: string | null;
  dkim_private_key: string | null;
  /** The Ed25519 key, only while its dkim_ed25519 record is verified (signing uses it only then). */
  dkim_ed25519_selector: string | null;
  dkim_ed25519_private_key: string | null;
  return_path_host: string | null;
};

/**
 * The Ed25519 key columns of `domains d`, null unless its record is active: the record of that
 * key (its selector's), not a retiring or next one of a key rotation.
 */
const ED25519_WHEN_ACTIVE = (column: string) =>
  `CASE WHEN EXISTS (SELECT 1 FROM dns_records r WHERE r.domain_id = d.id AND r.purpose = 'dkim_ed25519' AND r.status = 'active'
     AND r.hostname = d.dkim_ed25519_selector || '._domainkey') THEN d.${column} END AS ${column}`;
const ED25519_COLUMNS = `${ED25519_WHEN_ACTIVE("dkim_ed25519_selector")}, ${ED25519_WHEN_ACTIVE("dkim_ed25519_private_key")}`;

type MessagePart = MessageHeadingColumns & Pick<OutboundMessageRow, "id" | "message_id_header" | "created_at" | "scheduled_at"> & {
  route_id: string | null;
  domain_id: string | null;
};
type ContentsPart = Pick<OutboundMessageRow, "html" | "text" | "html_bytes" | "text_bytes" | "headers" | "raw_bytes" | "attachment_bytes" | "track_opens" | "track_clicks" | "tls">;

/** Parts up to this size come with the outbound row; larger ones are read when composing (partsToCompose). */
export const INLINE_PART_BYTES = 256 * 1024;
/** html, text, html_bytes and text_bytes of message_contents (`prefix` its alias and a dot, or ""), by the engine's length function. */
const INLINE_PARTS = (length: string, prefix: string) =>
  ["html", "text"].map((p) => `CASE WHEN ${length}(${prefix}${p}) <= ${INLINE_PART_BYTES} THEN ${prefix}${p} END AS ${p}, ${length}(${prefix}${p}) AS ${p}_bytes`).join(", ");
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** PostgreSQL's bigint and int come back as strings or numbers: numbers here. */
const numbers = (r: Pick<OutboundMessageRow, "html_bytes" | "text_bytes" | "raw_bytes" | "attachment_bytes">) => ({
  html_bytes: num(r.html_bytes),
  text_bytes: num(r.text_bytes),
  raw_bytes: num(r.raw_bytes),
  attachment_bytes: Number(r.attachment_bytes),
});

/** The attachments' decoded size of the message_contents row `c`, as attachment_bytes: by the attachments_message index, 0 for none. */
const ATTACHMENT_BYTES = (c: string) => `(SELECT coalesce(sum(a.size), 0) FROM attachments a WHERE a.message_id = ${c}.message_id) AS attachment_bytes`;
type RoutePart = Pick<OutboundMessageRow, "generate_plaintext_fallback" | "suppress_auto_responders" | "disable_hosted_unsubscribe" | "redact_email_content"> & { route_type: string };
/** The route settings an attempt honours, of the routes row `prefix` ("r." or ""). */
const ROUTE_COMPOSE_COLUMNS = (prefix: string) => ["generate_plaintext_fallback", "suppress_auto_responders", "disable_hosted_unsubscribe", "redact_email_content"].map((c) => `${prefix}${c}`).join(", ");
type DomainPart = Pick<OutboundMessageRow, "domain" | "dkim_selector" | "dkim_private_key" | "dkim_ed25519_selector" | "dkim_ed25519_private_key" | "return_path_host">;

/** An attachment as composing the message needs it. */
export type AttachmentContentRow = { filename: string; content_type: string; content_id: string | null; content: Uint8Array };

/**
 * A remote server's acceptance of a recipient that its job has not recorded yet
 * (delivery_receipts). `reply` is the serialized RemoteReply.
 */
export type DeliveryReceiptRow = { recipient_id: string; reply: string; host: string | null; created_at: number };

const WRITE_RECEIPT = `INSERT INTO delivery_receipts (recipient_id, reply, host, created_at)
  SELECT id, ?, ?, ? FROM recipients WHERE id = ? AND status NOT IN (${FINAL_STATUSES_SQL})
  ON CONFLICT (recipient_id) DO NOTHING`;
/**
 * dialect: on PostgreSQL the receipt and the job's outcome are concurrent transactions, and a
 * plain SELECT reads the status from before an outcome that is committing: the receipt would be
 * written after the outcome removed none. FOR SHARE waits for that outcome and reads the status
 * it leaves (or makes the outcome wait, whose removal then sees the receipt). SQLite writes one
 * transaction at a time.
 */
const WRITE_RECEIPT_PG = `INSERT INTO delivery_receipts (recipient_id, reply, host, created_at)
  SELECT id, ?, ?, ? FROM recipients WHERE id = ? AND status NOT IN (${FINAL_STATUSES_SQL}) FOR SHARE
  ON CONFLICT (recipient_id) DO NOTHING`;

/** What outbound delivery reads and writes of a message beyond recipient statuses: its parts, composed source and receipts. */
export class DeliveryRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Everything an attempt needs, read by primary key table by table: as one four-table join it
   * took ~70 µs a message in the delivery benchmark on SQLite, ~43 µs this way. Null when the
   * message or its contents are gone.
   */
  async outboundMessage(messageId: string): Promise<OutboundMessageRow | null> {
    // PostgreSQL: one round trip (a join); SQLite: lookups by primary key, table by table, which
    // its planner runs faster than the join.
    if (this.db.dialect === "postgres") {
      const row = await this.db.get<OutboundMessageRow>(
        `SELECT m.id, m.from_email, m.from_name, m.subject, m."to", m.cc, m.reply_to, m.message_id_header, m.created_at, m.scheduled_at,
                ${INLINE_PARTS("octet_length", "c.")}, c.headers, octet_length(c.raw) AS raw_bytes, ${ATTACHMENT_BYTES("c")}, c.track_opens, c.track_clicks, c.tls, r.route_type, ${ROUTE_COMPOSE_COLUMNS("r.")}, d.domain, d.dkim_selector, d.dkim_private_key, ${ED25519_COLUMNS}, d.return_path_host
         FROM messages m JOIN message_contents c ON c.message_id = m.id
         LEFT JOIN routes r ON r.id = m.route_id LEFT JOIN domains d ON d.id = m.domain_id
         WHERE m.id = ?`,
        [messageId],
      );
      return row ? { ...row, ...numbers(row) } : null;
    }
    const m = await this.db.get<MessagePart>(
      `SELECT id, from_email, from_name, subject, "to", cc, reply_to, message_id_header, created_at, scheduled_at, route_id, domain_id FROM messages WHERE id = ?`,
      [messageId],
    );
    if (!m) return null;
    const c = await this.db.get<ContentsPart>(`SELECT ${INLINE_PARTS("length", "")}, headers, length(raw) AS raw_bytes, ${ATTACHMENT_BYTES("message_contents")}, track_opens, track_clicks, tls FROM message_contents WHERE message_id = ?`, [messageId]);
    if (!c) return null;
    const route = m.route_id ? await this.db.get<RoutePart>(`SELECT route_type, ${ROUTE_COMPOSE_COLUMNS("")} FROM routes WHERE id = ?`, [m.route_id]) : null;
    const d = m.domain_id
      ? await this.db.get<DomainPart>(`SELECT d.domain, d.dkim_selector, d.dkim_private_key, ${ED25519_COLUMNS}, d.return_path_host FROM domains d WHERE d.id = ?`, [m.domain_id])
      : null;
    const { route_id: _route, domain_id: _domain, ...message } = m;
    return {
      ...message,
      ...c,
      ...numbers(c),
      route_type: route?.route_type ?? null,
      generate_plaintext_fallback: route?.generate_plaintext_fallback ?? null,
      suppress_auto_responders: route?.suppress_auto_responders ?? null,
      disable_hosted_unsubscribe: route?.disable_hosted_unsubscribe ?? null,
      redact_email_content: route?.redact_email_content ?? null,
      domain: d?.domain ?? null,
      dkim_selector: d?.dkim_selector ?? null,
      dkim_private_key: d?.dkim_private_key ?? null,
      dkim_ed25519_selector: d?.dkim_ed25519_selector ?? null,
      dkim_ed25519_private_key: d?.dkim_ed25519_private_key ?? null,
      return_path_host: d?.return_path_host ?? null,
    };
  }

  /** The HTML and text parts whatever their size (see OutboundMessageRow.html). */
  async partsToCompose(messageId: string): Promise<{ html: string | null; text: string | null }> {
    return (await this.db.get<{ html: string | null; text: string | null }>("SELECT html, text FROM message_contents WHERE message_id = ?", [messageId])) ?? { html: null, text: null };
  }

  /** The message's attachments with their content, in the order they were stored (ids are time-ordered). */
  async attachmentsToCompose(messageId: string): Promise<AttachmentContentRow[]> {
    // In the order they were added (their ids are time-ordered), sorted here: SQLite's ORDER BY
    // sets up a sorter even for the none most messages have.
    const rows = await this.db.all<AttachmentContentRow & { id: string }>("SELECT id, filename, content_type, content_id, content FROM attachments WHERE message_id = ?", [messageId]);
    return rows.sort((a, b) => compareIds(a.id, b.id)).map(({ id: _, ...a }) => a);
  }

  /** Stores the composed, signed message, which later attempts send as is. */
  async storeComposed(messageId: string, raw: Uint8Array): Promise<void> {
    await this.db.runDeferred("UPDATE message_contents SET raw = ? WHERE message_id = ?", [raw, messageId]);
  }

  /**
   * Writes a receipt: the next run of the message's job records the recipient as delivered
   * instead of sending again. Only for a recipient still without a final status, so a receipt
   * written late (by the SMTP agent after its parent died) never outlives an outcome that was
   * already committed; a second receipt for the same recipient changes nothing.
   */
  async writeReceipt(r: DeliveryReceiptRow): Promise<void> {
    await this.db.run(this.db.dialect === "postgres" ? WRITE_RECEIPT_PG : WRITE_RECEIPT, [r.reply, r.host, r.created_at, r.recipient_id]);
  }

  /**
   * writeReceipt for several, issued together: on SQLite each runs as it is called, so all of
   * them inside the transaction of the writeNow that calls this; on PostgreSQL, pipelined.
   */
  async writeReceipts(rows: readonly DeliveryReceiptRow[]): Promise<void> {
    await Promise.all(rows.map((r) => this.writeReceipt(r)));
  }

  /** The receipts of the message's recipients. */
  receiptsOf(messageId: string): Promise<DeliveryReceiptRow[]> {
    return this.db.all(
      "SELECT recipient_id, reply, host, created_at FROM delivery_receipts WHERE recipient_id IN (SELECT id FROM recipients WHERE message_id = ?)",
      [messageId],
    );
  }

  /** A recipient's delivery is on record: its receipt, if one was written, has served its purpose. */
  async removeReceipt(recipientId: string): Promise<void> {
    await this.db.runDeferred("DELETE FROM delivery_receipts WHERE recipient_id = ?", [recipientId]);
  }
}
