import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { openStorage } from "../../src/db/connection.ts";
import { SqliteStore, type Store } from "../../src/db/store.ts";
import { Writer } from "../../src/db/writer.ts";
import { ConflictError } from "../../src/errors.ts";
import { errorHandler } from "../../src/http/error-responses.ts";
import { unitOfWork } from "../../src/http/unit-of-work.ts";
import { createLogger } from "../../src/log.ts";
import { createTestApp, engine, waitFor } from "../helpers.ts";

/**
 * A store and a way to write a row through it, on the run's engine. SQLite: a `notes` table
 * written synchronously through the group-commit writer, whose batches and hold warnings the
 * tests read. PostgreSQL: rows of the settings table, through store.write.
 */
function engineStore() {
  if (engine === "postgres") {
    const { deps, sql } = createTestApp();
    const store = deps.store;
    return {
      store,
      insert: (id: string) => store.write((tx) => tx.settings.addIfAbsent(`note:${id}`, "1", Date.now())),
      ids: async () => (await sql.all<{ key: string }>("SELECT key FROM settings WHERE key LIKE 'note:%' ORDER BY key")).map((r) => r.key.slice(5)),
      writer: null,
    };
  }
  const storage = openStorage(":memory:");
  storage.sqlite.exec("CREATE TABLE notes (id TEXT PRIMARY KEY)");
  const writer = new Writer(storage.sqlite);
  return {
    store: new SqliteStore(storage.sqlite, writer) as Store,
    insert: (id: string) => writer.write(() => storage.sqlite.query("INSERT INTO notes (id) VALUES (?)").run(id)),
    ids: async () => storage.sqlite.query<{ id: string }, []>("SELECT id FROM notes ORDER BY id").all().map((r) => r.id),
    writer,
  };
}

/** An app whose routes write a row, then answer in different ways. */
function fixture() {
  const { store, insert, ids, writer } = engineStore();
  /** /side answers only once the test lets it (after it has looked for the detached write). */
  let answerSide = () => {};
  const sideHeld = new Promise<void>((resolve) => (answerSide = resolve));
  const errors = errorHandler(createLogger("silent"), 1024 * 1024);
  const app = new Elysia()
    .use(unitOfWork(store, createLogger("silent")))
    .use(errors)
    .post("/ok/:id", async ({ params }) => {
      await insert(params.id);
      return { id: params.id };
    })
    .post("/twice/:id", async ({ params }) => {
      await Promise.all([insert(`${params.id}-a`), insert(`${params.id}-b`)]);
      await insert(`${params.id}-c`);
      return { id: params.id };
    })
    .post("/conflict/:id", async ({ params }) => {
      await insert(params.id);
      throw new ConflictError("Taken.");
    })
    .post("/crash/:id", async ({ params }) => {
      await insert(params.id);
      throw new Error("boom");
    })
    .post(
      "/bad-answer/:id",
      async ({ params }) => {
        await insert(params.id);
        return { id: 42 } as unknown as { id: string };
      },
      { response: { 200: t.Object({ id: t.String() }) } },
    )
    .post("/status/:id", async ({ params, set }) => {
      await insert(params.id);
      set.status = 422;
      return { message: "no" };
    })
    .post("/side/:id", async ({ params }) => {
      const side = store.detached(() => insert(`${params.id}-side`));
      await side;
      await sideHeld;
      throw new ConflictError("no");
    })
    .post("/slow/:id", async ({ params }) => {
      await insert(params.id);
      await Bun.sleep(1300);
      throw new ConflictError("late");
    });
  errors.learnRoutes(app.routes);
  const call = (path: string) => app.handle(new Request(`http://localhost${path}`, { method: "POST" }));
  /** Hold-limit warnings (SQLite's writer tells them; PostgreSQL's units commit as silently). */
  let warned = 0;
  if (writer) writer.onHoldTimeout = () => warned++;
  return { app, store, writer, insert, ids, call, warned: () => warned, answerSide };
}

describe("a request's writes commit only with a successful answer", () => {
  test("2xx commits; the answer is sent after the commit", async () => {
    const f = fixture();
    const before = f.store.stats.commits;
    const res = await f.call("/ok/a");
    expect(res.status).toBe(200);
    expect(f.store.stats.commits).toBe(before + 1);
    expect(await f.ids()).toEqual(["a"]);
  });

  test("a thrown 4xx, a crash, a response that breaks its schema and a set 4xx status leave nothing behind", async () => {
    const f = fixture();
    expect((await f.call("/conflict/b")).status).toBe(409);
    expect((await f.call("/crash/c")).status).toBe(500);
    expect((await f.call("/bad-answer/d")).status).toBe(500);
    expect((await f.call("/status/e")).status).toBe(422);
    expect(await f.ids()).toEqual([]);
  });

  test("several writes of one request, at once and in turn, commit or roll back together", async () => {
    const f = fixture();
    expect((await f.call("/twice/x")).status).toBe(200);
    expect(await f.ids()).toEqual(["x-a", "x-b", "x-c"]);
  });

  test("failing and succeeding requests at once (on SQLite in one group commit): only the failed ones are rolled back", async () => {
    const f = fixture();
    const paths = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `/conflict/f${i}` : i % 3 === 1 ? `/ok/o${i}` : `/twice/t${i}`));
    const statuses = await Promise.all(paths.map(async (p) => (await f.call(p)).status));
    expect(statuses.filter((s) => s === 409).length).toBe(14);
    const expected = paths.filter((p) => !p.startsWith("/conflict")).flatMap((p) => {
      const id = p.split("/")[2]!;
      return p.startsWith("/twice") ? [`${id}-a`, `${id}-b`, `${id}-c`] : [id];
    });
    expect(await f.ids()).toEqual(expected.sort());
    // PostgreSQL commits each unit in its own transaction.
    if (engine === "sqlite") expect(f.store.stats.largestBatch).toBeGreaterThan(1);
  });

  test("a detached write (bookkeeping such as a token's last use) commits at once and whatever the answer", async () => {
    const f = fixture();
    let answered = false;
    const side = f.call("/side/k").finally(() => (answered = true));
    await waitFor(async () => (await f.ids()).length > 0, 5_000);
    expect(await f.ids()).toEqual(["k-side"]);
    expect(answered).toBe(false);
    f.answerSide();
    expect((await side).status).toBe(409);
    expect(await f.ids()).toEqual(["k-side"]);
    expect(f.warned()).toBe(0);
  });

  test("writes outside a request are not held, and a request that awaits I/O after writing cannot stall the writer past the hold limit", async () => {
    const f = fixture();
    const slow = f.call("/slow/s");
    await Bun.sleep(50);
    const started = performance.now();
    await f.insert("job");
    expect(performance.now() - started).toBeLessThan(1500);
    expect((await slow).status).toBe(409);
    if (engine === "sqlite") expect(f.warned()).toBe(1);
    // Past the limit its write was committed as it stood: the log says so, and the answer is still the error.
    expect(await f.ids()).toEqual(["job", "s"]);
  });
});
