/**
 * What outbound delivery reads and writes through the store (src/db/deliveries.ts, recipients'
 * dueOf) and the receipt writer an orphaned SMTP agent opens (src/db/receipt-writer.ts), the same
 * SQL on SQLite and on PostgreSQL. The PostgreSQL part is skipped when no server binaries are
 * installed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openStorage } from "../../src/db/connection.ts";
import { DeliveryRepository, INLINE_PART_BYTES } from "../../src/db/deliveries.ts";
import { MessageRepository } from "../../src/db/messages.ts";
import { migratePostgres } from "../../src/db/migrate-pg.ts";
import { PostgresExecutor, postgresClient } from "../../src/db/postgres.ts";
import { openReceiptWriter, type DatabaseLocation } from "../../src/db/receipt-writer.ts";
import { RecipientRepository } from "../../src/db/recipients.ts";
import { SqliteExecutor, type SqlExecutor } from "../../src/db/sql.ts";
import { newId } from "../../src/ids.ts";
import { testPostgres } from "../support/postgres.ts";
import { tempDir } from "../helpers.ts";
import { requireTool } from "../support/tools.ts";

const dir = tempDir("posthorn-deliveries-");
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  rmSync(dir, { recursive: true, force: true });
});

type Engine = { db: SqlExecutor; location: DatabaseLocation };

async function sqliteEngine(): Promise<Engine> {
  const path = join(dir, `${newId()}.db`);
  const storage = openStorage(path);
  closers.push(() => storage.close());
  return { db: new SqliteExecutor(storage.sqlite), location: { sqlite: path } };
}

async function postgresEngine(): Promise<Engine> {
  const url = await (await testPostgres()).createDatabase();
  const client = postgresClient(url, { max: 2 });
  await migratePostgres(client);
  closers.push(() => client.close());
  return { db: new PostgresExecutor(client), location: { postgres: url } };
}

/** A team, a broadcast route, an active domain and one outbound message with `emails` as recipients (created in that order). */
async function seed(db: SqlExecutor, emails: string[], statuses: string[] = []) {
  const now = Date.now();
  const [team, project, route, domain, message] = [newId(), newId(), newId(), newId(), newId()];
  await db.run("INSERT INTO teams (id, name, token_hash, token_generated_at, created_at, updated_at) VALUES (?, 'T', ?, ?, ?, ?)", [team, newId(), now, now, now]);
  await db.run("INSERT INTO projects (id, team_id, name, token_hash, token_generated_at, created_at, updated_at) VALUES (?, ?, 'P', ?, ?, ?, ?)", [
    project,
    team,
    newId(),
    now,
    now,
    now,
  ]);
  await db.run("INSERT INTO routes (id, team_id, project_id, slug, name, route_type, created_at, updated_at) VALUES (?, ?, ?, 'news', 'News', 'broadcast', ?, ?)", [
    route,
    team,
    project,
    now,
    now,
  ]);
  await db.run(
    `INSERT INTO domains (id, team_id, domain, status, status_changed_at, dkim_selector, dkim_private_key, dkim_public_key, return_path_host, created_at, updated_at)
     VALUES (?, ?, 'sender.test', 'active', ?, 'ph1', 'PRIVATE', 'PUBLIC', 'ph-bounces', ?, ?)`,
    [domain, team, now, now, now],
  );
  await db.run(
    `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, status_changed_at, from_email, from_name, subject, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'outbound', 'pending', ?, 'a@sender.test', 'A', 'Hello', '[]', '[]', '[]', '[]', '{}', ?, ?)`,
    [message, team, project, route, domain, now, now, now],
  );
  await db.run("INSERT INTO message_contents (message_id, html, text, headers, raw) VALUES (?, NULL, 'Hi', '{}', NULL)", [message]);
  const recipients: string[] = [];
  for (const [i, email] of emails.entries()) {
    const id = newId();
    recipients.push(id);
    await db.run("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, attempts, created_at) VALUES (?, ?, ?, 'to', ?, ?, 0, ?)", [
      id,
      message,
      email,
      statuses[i] ?? "processed",
      now,
      now,
    ]);
  }
  return { message, route, domain, recipients };
}

const reply = JSON.stringify({ code: 250, enhanced_code: "2.0.0", message: "OK" });
const receipt = (recipientId: string, at = 1_000) => ({ recipient_id: recipientId, reply, host: "mx.dest.test", created_at: at });

const open_ = (name: string) => engines.find(([n]) => n === name)![1]();
const engines: [string, () => Promise<Engine>, boolean][] = [
  ["SQLite", sqliteEngine, true],
  ["PostgreSQL", postgresEngine, requireTool("postgresql")],
];

for (const [name, open, available] of engines) {
  describe.skipIf(!available)(name, () => {
    test("an outbound message with its contents, route type and sending domain; null once gone", async () => {
      const { db } = await open();
      const deliveries = new DeliveryRepository(db);
      const { message } = await seed(db, ["r@dest.test"]);
      expect(await deliveries.outboundMessage(message)).toMatchObject({
        id: message,
        from_email: "a@sender.test",
        subject: "Hello",
        text: "Hi",
        headers: "{}",
        html: null,
        html_bytes: null,
        text_bytes: 2,
        raw_bytes: null,
        attachment_bytes: 0,
        route_type: "broadcast",
        domain: "sender.test",
        dkim_selector: "ph1",
        dkim_private_key: "PRIVATE",
        return_path_host: "ph-bounces",
      });
      expect(await deliveries.outboundMessage(newId())).toBeNull();
    });

    test("a part larger than INLINE_PART_BYTES is not read with the row, only its size: partsToCompose reads it", async () => {
      const { db } = await open();
      const deliveries = new DeliveryRepository(db);
      const { message } = await seed(db, ["r@dest.test"]);
      const html = `<p>${"x".repeat(INLINE_PART_BYTES)}</p>`;
      await db.run("UPDATE message_contents SET html = ? WHERE message_id = ?", [html, message]);
      expect(await deliveries.outboundMessage(message)).toMatchObject({ html: null, html_bytes: html.length, text: "Hi", text_bytes: 2 });
      expect(await deliveries.partsToCompose(message)).toEqual({ html, text: "Hi" });
    });

    test("the composed source is stored byte for byte; attachments come in the order they were added", async () => {
      const { db } = await open();
      const deliveries = new DeliveryRepository(db);
      const { message } = await seed(db, ["r@dest.test"]);
      const raw = new Uint8Array([0, 1, 2, 255, 13, 10]);
      await deliveries.storeComposed(message, raw);
      // The attempt reads its size; the bytes are read back when needed (messages.rawSource).
      expect((await deliveries.outboundMessage(message))!.raw_bytes).toBe(raw.length);
      expect(Buffer.from((await new MessageRepository(db).rawSource(message))!)).toEqual(Buffer.from(raw));
      // Acceptance makes their (time-ordered) ids in the request's order; rows stored in another order still come back in that one.
      const ids = { "b.txt": newId(), "a.txt": newId(), "c.txt": newId() };
      for (const filename of ["c.txt", "b.txt", "a.txt"] as const) {
        await db.run("INSERT INTO attachments (id, message_id, filename, content_type, content_id, size, content) VALUES (?, ?, ?, 'text/plain', NULL, 1, ?)", [
          ids[filename],
          message,
          filename,
          new Uint8Array([120]),
        ]);
      }
      const files = await deliveries.attachmentsToCompose(message);
      expect(files.map((f) => f.filename)).toEqual(["b.txt", "a.txt", "c.txt"]);
      expect(Buffer.from(files[0]!.content)).toEqual(Buffer.from("x"));
      expect((await deliveries.outboundMessage(message))!.attachment_bytes).toBe(3);
    });

    test("due recipients: those without a final status, in the order they were added", async () => {
      const { db } = await open();
      const { message, recipients } = await seed(db, ["z@dest.test", "a@dest.test", "m@dest.test", "b@dest.test"], ["pending", "delivered", "soft_bounced", "processed"]);
      const due = await new RecipientRepository(db).dueOf(message);
      expect(due.map((r) => r.id)).toEqual([recipients[0], recipients[2], recipients[3]]);
      expect(due[0]).toEqual({ id: recipients[0]!, email: "z@dest.test", status: "pending", attempts: 0 });
    });

    test("receipts: written once, only for a recipient without a final status, listed by message, removed", async () => {
      const { db } = await open();
      const deliveries = new DeliveryRepository(db);
      const { message, recipients } = await seed(db, ["a@dest.test", "b@dest.test"], ["processed", "delivered"]);
      await deliveries.writeReceipt(receipt(recipients[0]!));
      await deliveries.writeReceipt({ ...receipt(recipients[0]!, 2_000), host: "other" }); // a second changes nothing
      await deliveries.writeReceipt(receipt(recipients[1]!)); // already delivered: none
      expect(await deliveries.receiptsOf(message)).toEqual([receipt(recipients[0]!)]);
      await deliveries.removeReceipt(recipients[0]!);
      expect(await deliveries.receiptsOf(message)).toEqual([]);
      // Several at once (the 250s of one turn of the event loop), under the same rule.
      await deliveries.writeReceipts([receipt(recipients[0]!, 3_000), receipt(recipients[1]!, 3_000)]);
      expect(await deliveries.receiptsOf(message)).toEqual([receipt(recipients[0]!, 3_000)]);
    });

    test("the receipt writer of an orphaned agent: batches one after another on a connection of its own; close waits for them", async () => {
      const { db, location } = await open();
      const { message, recipients } = await seed(db, ["a@dest.test", "b@dest.test", "c@dest.test"], ["processed", "processed", "failed"]);
      const writer = openReceiptWriter(location);
      const first = writer.write([receipt(recipients[0]!)]);
      const second = writer.write(recipients.slice(1).map((id) => receipt(id)));
      await writer.close(); // waits for both
      await Promise.all([first, second]);
      const written = await new DeliveryRepository(db).receiptsOf(message);
      expect(written.map((r) => r.recipient_id).sort()).toEqual([recipients[0]!, recipients[1]!].sort());
    });
  });
}

describe.skipIf(!requireTool("postgresql"))("PostgreSQL, a receipt beside the job's outcome (concurrent transactions)", () => {
  /** The outcome's transaction: the recipient delivered and its receipt removed, committed `holdMs` later. */
  const outcome = (client: ReturnType<typeof postgresClient>, recipientId: string, holdMs: number, written: () => void = () => {}) =>
    client.begin(async (tx) => {
      const db = new PostgresExecutor(tx);
      await db.run("UPDATE recipients SET status = 'delivered' WHERE id = ?", [recipientId]);
      await new DeliveryRepository(db).removeReceipt(recipientId);
      written();
      await Bun.sleep(holdMs);
    });

  test("written while the outcome commits: it waits, sees delivered and writes nothing", async () => {
    const { db, location } = await open_("PostgreSQL");
    const { message, recipients } = await seed(db, ["a@dest.test"]);
    const client = postgresClient((location as { postgres: string }).postgres, { max: 2 });
    try {
      let written!: () => void;
      const uncommitted = new Promise<void>((r) => (written = r));
      const committing = outcome(client, recipients[0]!, 200, () => written());
      await uncommitted;
      await new DeliveryRepository(db).writeReceipt(receipt(recipients[0]!));
      await committing;
      expect(await new DeliveryRepository(db).receiptsOf(message)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  test("written just before the outcome: the outcome waits for it and removes it", async () => {
    const { db, location } = await open_("PostgreSQL");
    const { message, recipients } = await seed(db, ["a@dest.test"]);
    const client = postgresClient((location as { postgres: string }).postgres, { max: 2 });
    try {
      const writing = client.begin(async (tx) => {
        await new DeliveryRepository(new PostgresExecutor(tx)).writeReceipt(receipt(recipients[0]!));
        await Bun.sleep(200);
      });
      await Bun.sleep(50);
      await outcome(client, recipients[0]!, 0);
      await writing;
      expect(await new DeliveryRepository(db).receiptsOf(message)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

test("the receipt writer never creates a missing SQLite file", () => {
  const path = join(dir, "missing.db");
  expect(() => openReceiptWriter({ sqlite: path })).toThrow();
  expect(existsSync(path)).toBe(false);
});
