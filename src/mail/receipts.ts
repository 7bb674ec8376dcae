import type { Database } from "bun:sqlite";
import type { DeliveryReceiptRow } from "../db/deliveries.ts";
import { stmt } from "../db/statements.ts";
import { FINAL_RECIPIENT_STATUSES, type RemoteReply } from "../events/message-status.ts";

/**
 * A remote server's acceptance of one recipient, recorded (delivery_receipts) before the
 * attempt's outcome commits: the next run of the message's job records the recipient as
 * delivered instead of sending again (DeliveryRepository.writeReceipt).
 */
export interface Receipt {
  recipientId: string;
  reply: RemoteReply;
  /** The host that answered (MX name or relay). */
  host: string | null;
}

export const receiptRow = (r: Receipt, at: number): DeliveryReceiptRow => ({
  recipient_id: r.recipientId,
  reply: JSON.stringify(r.reply),
  host: r.host,
  created_at: at,
});

const FINAL = [...FINAL_RECIPIENT_STATUSES].map((s) => `'${s}'`).join(", ");

/** DeliveryRepository.writeReceipt for the SMTP agent, which opens the SQLite file itself (until it reaches the database through the layer). */
export function writeReceipt(sqlite: Database, r: Receipt, at: number): void {
  stmt(
    sqlite,
    `INSERT INTO delivery_receipts (recipient_id, reply, host, created_at)
     SELECT id, ?, ?, ? FROM recipients WHERE id = ? AND status NOT IN (${FINAL})
     ON CONFLICT (recipient_id) DO NOTHING`,
  ).run(JSON.stringify(r.reply), r.host, at, r.recipientId);
}
