import type { DeliveryReceiptRow } from "../db/deliveries.ts";
import type { Store } from "../db/store.ts";
import type { RemoteReply } from "../events/message-status.ts";
import type { Logger } from "../log.ts";

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

/**
 * The outbound stage's receipts: a 250 is on record within the turn of the event loop it arrives
 * in, so that a crash before the job's outcome commits does not send the message again. The 250s
 * of one turn share one commit (the agent's reports arrive in bursts under load; a commit each
 * was ~60 µs of the event loop per message). A receipt that lands after its outcome's commit is
 * not written (writeReceipt). Best effort: the outcome write records the delivery anyway.
 */
export class ReceiptBatch {
  private rows: DeliveryReceiptRow[] = [];

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  /** Records one acceptance; the first of a turn schedules the turn's commit. */
  add(r: Receipt): void {
    if (this.rows.push(receiptRow(r, Date.now())) === 1) setImmediate(() => this.write());
  }

  private write(): void {
    const rows = this.rows;
    this.rows = [];
    this.store.writeNow((tx) => tx.deliveries.writeReceipts(rows)).catch((err: unknown) => {
      this.log.warn("delivery receipts not written", { recipients: rows.map((r) => r.recipient_id), error: err instanceof Error ? err.message : String(err) });
    });
  }
}
