import type { DeliveryReceiptRow } from "../db/deliveries.ts";
import type { RemoteReply } from "../events/message-status.ts";

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
