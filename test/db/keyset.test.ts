import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { decodeCursor, keysetPage, keysetPageOf, type SortKey } from "../../src/db/keyset.ts";
import { migratePostgres } from "../../src/db/migrate-pg.ts";
import { PostgresExecutor, postgresClient } from "../../src/db/postgres.ts";
import { ValidationError } from "../../src/errors.ts";
import { testPostgres } from "../support/postgres.ts";
import { requireTool } from "../support/tools.ts";

type Row = { id: string; status: string; n: number };

function table(rows: Row[]) {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, status TEXT NOT NULL, n INTEGER NOT NULL)");
  const ins = db.prepare("INSERT INTO t (id, status, n) VALUES (?, ?, ?)");
  for (const r of rows) ins.run(r.id, r.status, r.n);
  return db;
}

const rows: Row[] = Array.from({ length: 23 }, (_, i) => ({ id: `id${String(i).padStart(3, "0")}`, status: ["a", "b", "c"][i % 3]!, n: i % 5 }));
const sort: SortKey[] = [
  { column: "status", desc: false },
  { column: "n", desc: true },
  { column: "id", desc: true },
];
const valuesOf = (r: Row) => [r.status, r.n, r.id];
const expected = [...rows].sort((x, y) => x.status.localeCompare(y.status) || y.n - x.n || y.id.localeCompare(x.id)).map((r) => r.id);

test("walking forward then back over mixed sort directions visits every row once, in order", () => {
  const db = table(rows);
  const seen: string[] = [];
  const pages: { first: string; cursor: string | null }[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 10; i++) {
    const page: ReturnType<typeof keysetPage<Row>> = keysetPage<Row>(db, { select: "SELECT * FROM t", where: [], params: [], sort, size: 5, cursor: cursor ? decodeCursor(cursor, 3) : null, valuesOf });
    pages.push({ first: page.rows[0]!.id, cursor: page.prevCursor });
    seen.push(...page.rows.map((r) => r.id));
    if (i === 0) expect(page.prevCursor).toBeNull();
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  expect(seen).toEqual(expected);
  // The last page's prev cursor leads back to the page before it.
  const last = pages[pages.length - 1]!;
  const back = keysetPage<Row>(db, { select: "SELECT * FROM t", where: [], params: [], sort, size: 5, cursor: decodeCursor(last.cursor!, 3), valuesOf });
  expect(back.rows[0]!.id).toBe(pages[pages.length - 2]!.first);
  expect(back.nextCursor).not.toBeNull();
});

test("rows inserted ahead of the cursor do not shift the next page", () => {
  const db = table(rows);
  const first = keysetPage<Row>(db, { select: "SELECT * FROM t", where: [], params: [], sort, size: 5, cursor: null, valuesOf });
  db.query("INSERT INTO t (id, status, n) VALUES ('id999', 'a', 4)").run();
  const second = keysetPage<Row>(db, { select: "SELECT * FROM t", where: [], params: [], sort, size: 5, cursor: decodeCursor(first.nextCursor!, 3), valuesOf });
  expect(second.rows.map((r) => r.id)).toEqual(expected.slice(5, 10));
});

test("a malformed cursor is a 422 on page[cursor]", () => {
  for (const bad of ["not-base64!", Buffer.from("[1,2]").toString("base64url"), Buffer.from('["x","a",1,"id"]').toString("base64url")]) {
    expect(() => decodeCursor(bad, 3)).toThrow("page[cursor]");
  }
});

test.skipIf(!requireTool("postgresql"))("PostgreSQL: a cursor value of the wrong type for its column is a 422 on page[cursor] (SQLite compares across types)", async () => {
  const client = postgresClient(await (await testPostgres()).createDatabase(), { max: 1 });
  try {
    await migratePostgres(client);
    const db = new PostgresExecutor(client);
    const q = { select: "SELECT id, created_at FROM teams", where: [], params: [], size: 5, valuesOf: (r: { id: string; created_at: number }) => [r.created_at, r.id] };
    const sortByTime: SortKey[] = [
      { column: "created_at", desc: true },
      { column: "id", desc: true },
    ];
    expect((await keysetPageOf(db, { ...q, sort: sortByTime, cursor: { dir: "next", values: [1, "x"] } })).rows).toEqual([]);
    for (const values of [["not-a-date", "x"], [1, 2]]) {
      const err = await keysetPageOf(db, { ...q, sort: sortByTime, cursor: { dir: "next", values } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(Object.keys((err as ValidationError).errors)).toEqual(["page[cursor]"]);
    }
  } finally {
    await client.close();
  }
});
