import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase, openStorage } from "../../src/db/connection.ts";
import { Writer } from "../../src/db/writer.ts";
import { engine, tempDir } from "../helpers.ts";

// The SQLite file itself (migrations, pragmas, the writer on a file): nothing of it runs on PostgreSQL.
describe.skipIf(engine === "postgres")("storage", () => {
  test("migrations apply once; a second run changes nothing", () => {
    const path = join(tempDir(), "m.db");
    const s = openStorage(path);
    const tables = s.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(["teams", "messages", "recipients", "jobs", "webhooks", "suppressions"]));
    s.close();
    const again = openDatabase(path);
    expect(migrate(again)).toEqual([]);
  });

  test("queued compose and delivery jobs of earlier versions become one outbound job per message", () => {
    const path = join(tempDir(), "q.db");
    const s = openStorage(path);
    // Back to the state before migration 0003, with the old queues' jobs in it.
    s.sqlite.query("DELETE FROM __posthorn_migrations WHERE tag >= '0003' AND tag < '0005'").run();
    s.sqlite.exec("DROP TABLE delivery_receipts");
    const job = s.sqlite.query("INSERT INTO jobs (queue, payload, run_at, max_attempts, created_at) VALUES (?, ?, ?, ?, ?)");
    job.run("compose", '{"messageId":"m1"}', 1, 1000, 1);
    job.run("delivery", '{"messageId":"m2","domain":"a.test","recipientIds":["r1"]}', 5, 100000, 2);
    job.run("delivery", '{"messageId":"m2","domain":"b.test","recipientIds":["r2"]}', 3, 100000, 2);
    job.run("delivery", '{"messageId":"m1","domain":"a.test","recipientIds":["r3"]}', 9, 100000, 2);
    job.run("webhook", '{"deliveryId":"w"}', 1, 25, 1);
    expect(migrate(s.sqlite).map((t) => t.slice(0, 4))).toEqual(["0003", "0004"]);
    const rows = s.sqlite.query<{ queue: string; payload: string; run_at: number }, []>("SELECT queue, payload, run_at FROM jobs ORDER BY id").all();
    expect(rows).toEqual([
      { queue: "outbound", payload: '{"messageId":"m1"}', run_at: 1 },
      { queue: "webhook", payload: '{"deliveryId":"w"}', run_at: 1 },
      { queue: "outbound", payload: '{"messageId":"m2"}', run_at: 3 },
    ]);
    s.close();
  });

  test("every connection has WAL, synchronous=FULL and foreign keys", () => {
    const db = openDatabase(join(tempDir(), "p.db"));
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  });

  test("commitNow commits at once, outside the group commit, and leaves the connection at synchronous=FULL", () => {
    const path = join(tempDir(), "n.db");
    const s = openStorage(path);
    s.sqlite.exec("CREATE TABLE t (v INTEGER NOT NULL UNIQUE)");
    const writer = new Writer(s.sqlite);
    writer.commitNow(() => s.sqlite.query("INSERT INTO t (v) VALUES (1)").run());
    const other = openDatabase(path);
    expect(other.query("SELECT v FROM t").all()).toEqual([{ v: 1 }]); // visible to another connection: committed
    expect(() => writer.commitNow(() => s.sqlite.query("INSERT INTO t (v) VALUES (1)").run())).toThrow();
    expect(s.sqlite.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    expect(writer.stats.commits).toBe(0);
    other.close();
    s.close();
  });

  test("concurrent writes share commits; a failing write is rolled back alone", async () => {
    const s = openStorage(join(tempDir(), "w.db"));
    s.sqlite.exec("CREATE TABLE t (v INTEGER NOT NULL UNIQUE)");
    const writer = new Writer(s.sqlite);
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => writer.write(() => s.sqlite.query("INSERT INTO t (v) VALUES (?)").run(i === 50 ? 49 : i))),
    );
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    expect(s.sqlite.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 199 });
    expect(writer.stats.commits).toBeLessThan(10);
    expect(writer.stats.writes).toBe(200);
  });
});
