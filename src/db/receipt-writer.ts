import { Database } from "bun:sqlite";
import { DeliveryRepository, type DeliveryReceiptRow } from "./deliveries.ts";
import { PostgresExecutor, postgresClient } from "./postgres.ts";
import { configureConnection } from "./pragmas.ts";
import { SqliteExecutor } from "./sql.ts";

/** Where the server's database is, as a process of its own (the SMTP agent) is told. */
export type DatabaseLocation = { sqlite: string } | { postgres: string };

/** Delivery receipts written from outside the server's store (an orphaned SMTP agent). */
export interface ReceiptWriter {
  /** Writes the receipts in one transaction (one commit for an orphan's whole backlog). */
  write(receipts: readonly DeliveryReceiptRow[]): Promise<void>;
  /** Waits for the writes under way, then closes the connection. */
  close(): Promise<void>;
}

type Transaction = (fn: (deliveries: DeliveryRepository) => Promise<void>) => Promise<void>;

/**
 * A connection of its own to the server's database, for receipts only. SQLite: the file with
 * the server's pragmas, never created (a missing file throws here). PostgreSQL: one connection.
 */
export function openReceiptWriter(at: DatabaseLocation): ReceiptWriter {
  if ("postgres" in at) {
    const client = postgresClient(at.postgres, { max: 1 });
    return receiptWriter(
      async (fn) => {
        await client.begin((tx) => fn(new DeliveryRepository(new PostgresExecutor(tx))));
      },
      () => client.close(),
    );
  }
  const sqlite = new Database(at.sqlite, { readwrite: true, create: false, strict: true });
  configureConnection(sqlite);
  const deliveries = new DeliveryRepository(new SqliteExecutor(sqlite));
  return receiptWriter(
    async (fn) => {
      sqlite.exec("BEGIN IMMEDIATE");
      try {
        await fn(deliveries);
        sqlite.exec("COMMIT");
      } catch (err) {
        sqlite.exec("ROLLBACK");
        throw err;
      }
    },
    async () => sqlite.close(),
  );
}

function receiptWriter(transaction: Transaction, close: () => Promise<void>): ReceiptWriter {
  // One transaction at a time: SQLite's connection cannot nest them.
  let last: Promise<unknown> = Promise.resolve();
  return {
    write(receipts) {
      const done = last.then(() =>
        transaction((deliveries) => deliveries.writeReceipts(receipts)),
      );
      last = done.catch(() => {});
      return done;
    },
    async close() {
      await last;
      await close();
    },
  };
}
