import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import { FINAL_RECIPIENT_STATUSES, type RemoteReply } from "../events/message-status.ts";

/** A remote server's acceptance of one recipient, recorded before the attempt's outcome commits. */
export interface Receipt {
  recipientId: string;
  reply: RemoteReply;
  /** The host that answered (MX name or relay). */
  host: string | null;
}

const FINAL = [...FINAL_RECIPIENT_STATUSES].map((s) => `'${s}'`).join(", ");

/**
 * Writes a delivery receipt (delivery_receipts): the next run of the message's job records the
 * recipient as delivered instead of sending again. Only for a recipient still without a final
 * status, so a receipt written late (by the SMTP agent after its parent died) never outlives
 * an outcome that was already committed.
 */
export function writeReceipt(sqlite: Database, r: Receipt, at: number): void {
  stmt(
    sqlite,
    `INSERT INTO delivery_receipts (recipient_id, reply, host, created_at)
     SELECT id, ?, ?, ? FROM recipients WHERE id = ? AND status NOT IN (${FINAL})
     ON CONFLICT (recipient_id) DO NOTHING`,
  ).run(JSON.stringify(r.reply), r.host, at, r.recipientId);
}
