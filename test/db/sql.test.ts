import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { PostgresExecutor, postgresClient, toPostgresPlaceholders } from "../../src/db/postgres.ts";
import { SqliteExecutor, type SqlExecutor } from "../../src/db/sql.ts";
import { testPostgres } from "../support/postgres.ts";
import { requireTool } from "../support/tools.ts";

test("? placeholders become $n, except inside quotes and comments", () => {
  expect(toPostgresPlaceholders("SELECT * FROM t WHERE a = ? AND b IN (?, ?)")).toBe("SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)");
  expect(toPostgresPlaceholders(`SELECT '?', "a?b", x FROM t -- what?\nWHERE y = ?`)).toBe(`SELECT '?', "a?b", x FROM t -- what?\nWHERE y = $1`);
  expect(toPostgresPlaceholders("SELECT 'it''s ?' WHERE a = ?")).toBe("SELECT 'it''s ?' WHERE a = $1");
});

const TABLE = "CREATE TABLE notes (id TEXT PRIMARY KEY, n BIGINT NOT NULL, flag INTEGER NOT NULL, note TEXT)";

/** The executor contract both engines keep: what repositories may rely on. */
function contract(name: string, open: () => Promise<{ db: SqlExecutor; exec: (sql: string) => Promise<void>; close: () => Promise<void> }>, skip = false) {
  describe.skipIf(skip)(`executor contract: ${name}`, () => {
    let db: SqlExecutor;
    let close: () => Promise<void>;
    test("setup", async () => {
      const opened = await open();
      db = opened.db;
      close = opened.close;
      await opened.exec(TABLE);
    });
    afterAll(() => close?.());

    test("run reports the rows it changed; get and all read them back with numbers as numbers and null as null", async () => {
      expect(await db.run("INSERT INTO notes (id, n, flag, note) VALUES (?, ?, ?, ?), (?, ?, ?, ?)", ["a", 1_790_000_000_123, 1, null, "b", 2, 0, "x?y"])).toEqual({ changes: 2 });
      expect(await db.get("SELECT * FROM notes WHERE id = ?", ["a"])).toEqual({ id: "a", n: 1_790_000_000_123, flag: 1, note: null });
      expect(await db.all("SELECT id, note FROM notes ORDER BY id")).toEqual([
        { id: "a", note: null },
        { id: "b", note: "x?y" },
      ]);
      expect(await db.get("SELECT * FROM notes WHERE id = ?", ["none"])).toBeNull();
      expect(await db.run("UPDATE notes SET flag = ? WHERE flag = ?", [5, 9])).toEqual({ changes: 0 });
    });

    test("RETURNING, a parameter used in an expression, and dynamic SQL", async () => {
      expect(await db.get("UPDATE notes SET n = n + ? WHERE id = ? RETURNING id, n", [10, "b"])).toEqual({ id: "b", n: 12 });
      expect(await db.all("SELECT id FROM notes WHERE id IN (?, ?) ORDER BY id", ["a", "b"], { dynamic: true })).toEqual([{ id: "a" }, { id: "b" }]);
      expect(await db.get("SELECT count(*) AS c FROM notes")).toEqual({ c: 2 });
      expect((await db.run("DELETE FROM notes WHERE id = ?", ["a"])).changes).toBe(1);
    });

    test("a constraint violation rejects", async () => {
      await expect(db.run("INSERT INTO notes (id, n, flag) VALUES (?, ?, ?)", ["b", 1, 1])).rejects.toThrow();
    });
  });
}

contract("sqlite", async () => {
  const sqlite = new Database(":memory:", { strict: true });
  return { db: new SqliteExecutor(sqlite), exec: async (s) => void sqlite.exec(s), close: async () => sqlite.close() };
});

contract(
  "postgres",
  async () => {
    const url = await (await testPostgres()).createDatabase();
    const client = postgresClient(url, { max: 2 });
    return { db: new PostgresExecutor(client), exec: async (s) => void (await client.unsafe(s)), close: () => client.close() };
  },
  !requireTool("postgresql"),
);
