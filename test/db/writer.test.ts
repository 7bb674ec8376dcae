import { describe, expect, test } from "bun:test";
import { openStorage } from "../../src/db/connection.ts";
import { Writer } from "../../src/db/writer.ts";
import { engine } from "../helpers.ts";

function fixture() {
  const storage = openStorage(":memory:");
  storage.sqlite.exec("CREATE TABLE notes (id TEXT PRIMARY KEY)");
  const writer = new Writer(storage.sqlite);
  const insertNow = (id: string) => storage.sqlite.query("INSERT INTO notes (id) VALUES (?)").run(id);
  const ids = () => storage.sqlite.query<{ id: string }, []>("SELECT id FROM notes ORDER BY id").all().map((r) => r.id);
  return { storage, writer, insertNow, ids };
}

// SQLite's group-commit writer; PostgreSQL commits each transaction on its own (test/db/postgres-store.test.ts).
describe.skipIf(engine === "postgres")("asynchronous work in the group commit", () => {
  test("async writes share one commit with sync ones; a failing async write is rolled back alone", async () => {
    const f = fixture();
    const before = f.writer.stats.commits;
    const results = await Promise.allSettled([
      f.writer.write(() => f.insertNow("a")),
      f.writer.write(async () => {
        f.insertNow("b1");
        await Promise.resolve();
        f.insertNow("b2");
        return "b";
      }),
      f.writer.write(async () => {
        f.insertNow("c1");
        await Promise.resolve();
        throw new Error("c fails after writing");
      }),
      f.writer.write(() => f.insertNow("d")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseFulfilledResult<string>).value).toBe("b");
    expect(f.ids()).toEqual(["a", "b1", "b2", "d"]);
    expect(f.writer.stats.commits).toBe(before + 1);
  });

  test("a unit's async writes, concurrent ones included, commit together or not at all", async () => {
    const f = fixture();
    const runUnit = (prefix: string, ok: boolean) =>
      f.writer.withUnit(async () => {
        await f.writer.write(async () => {
          f.insertNow(`${prefix}-1`);
          await Promise.resolve();
        });
        await Promise.all([
          f.writer.write(async () => {
            await Promise.resolve();
            f.insertNow(`${prefix}-2`);
          }),
          f.writer.write(() => f.insertNow(`${prefix}-3`)),
        ]);
        await f.writer.currentUnit()!.finish(ok);
      });
    await Promise.all([runUnit("keep", true), runUnit("drop", false), runUnit("also", true)]);
    expect(f.ids()).toEqual(["also-1", "also-2", "also-3", "keep-1", "keep-2", "keep-3"]);
  });
});

// WriteOptions.checksBeforeChanges: the send path's writes, run without a savepoint of their own.
describe.skipIf(engine === "postgres")("writes that check before they change", () => {
  const checked = { checksBeforeChanges: true };

  test("commit in the group with other writes; a plain write failing beside them is still rolled back alone", async () => {
    const f = fixture();
    const before = f.writer.stats.commits;
    const results = await Promise.allSettled([
      f.writer.write(() => f.insertNow("a"), checked),
      f.writer.write(() => {
        f.insertNow("b");
        throw new Error("b fails after writing");
      }),
      f.writer.write(async () => {
        f.insertNow("c1");
        await Promise.resolve();
        f.insertNow("c2");
        return "c";
      }, checked),
      f.writer.write(() => f.insertNow("d")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(f.ids()).toEqual(["a", "c1", "c2", "d"]);
    expect(f.writer.stats.commits).toBe(before + 1);
  });

  test("one refused before any change fails alone, as with a savepoint: the others in its group commit", async () => {
    const f = fixture();
    const refusal = new Error("422: the route does not exist");
    const results = await Promise.allSettled([
      f.writer.write(() => f.insertNow("a"), checked),
      f.writer.write(async () => {
        f.storage.sqlite.query("SELECT count(*) FROM notes").get(); // reads are no change
        await Promise.resolve();
        throw refusal;
      }, checked),
      f.writer.write(() => {
        throw refusal;
      }, checked),
      f.writer.withUnit(async () => {
        await f.writer.write(() => f.insertNow("unit"), checked);
        return f.writer.currentUnit()!.finish(true);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toBe(refusal);
    expect(f.ids()).toEqual(["a", "unit"]);
  });

  test("one that fails after a change takes its whole group transaction with it; the next group commits", async () => {
    const f = fixture();
    const failure = new Error("the disk is full");
    const results = await Promise.allSettled([
      f.writer.write(() => f.insertNow("a")),
      f.writer.write(async () => {
        f.insertNow("b");
        await Promise.resolve();
        throw failure;
      }, checked),
      f.writer.write(() => f.insertNow("c"), checked),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason).toBe(failure);
    expect(f.ids()).toEqual([]);
    await f.writer.write(() => f.insertNow("later"), checked);
    expect(f.ids()).toEqual(["later"]);
  });

  test("a unit whose answer fails anyway after such a write rolls back the group, and the units answered in it learn that their commit failed", async () => {
    const f = fixture();
    const runUnit = (id: string, ok: boolean) =>
      f.writer.withUnit(async () => {
        await f.writer.write(() => f.insertNow(id), checked);
        return f.writer.currentUnit()!.finish(ok);
      });
    const results = await Promise.allSettled([runUnit("first", true), runUnit("failing", false), runUnit("third", true)]);
    // The unit that failed is answered with its own error, not with the commit's.
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "rejected"]);
    expect(f.ids()).toEqual([]);
    // Units with a savepoint of their own are untouched by a failing neighbour, as before.
    const plainUnit = (id: string, ok: boolean) =>
      f.writer.withUnit(async () => {
        await f.writer.write(() => f.insertNow(id));
        return f.writer.currentUnit()!.finish(ok);
      });
    await Promise.allSettled([plainUnit("kept", true), plainUnit("dropped", false)]);
    expect(f.ids()).toEqual(["kept"]);
  });
});
