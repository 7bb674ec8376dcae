import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { migrate, openDatabase, openStorage } from "../../src/db/connection.ts";
import { Writer } from "../../src/db/writer.ts";
import { tempDir } from "../helpers.ts";

describe("storage", () => {
  test("migrations apply once; a second run changes nothing", () => {
    const path = join(tempDir(), "m.db");
    const s = openStorage(path);
    const tables = s.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(["teams", "messages", "recipients", "jobs", "webhooks", "suppressions"]));
    s.close();
    const again = openDatabase(path);
    expect(migrate(again)).toEqual([]);
  });

  test("every connection has WAL, synchronous=FULL and foreign keys", () => {
    const db = openDatabase(join(tempDir(), "p.db"));
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 2 });
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
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
