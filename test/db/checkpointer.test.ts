import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { BackgroundCheckpointer, WRITER_CHECKPOINT_FRAMES } from "../../src/db/background-checkpointer.ts";
import { openStorage } from "../../src/db/connection.ts";
import { Writer } from "../../src/db/writer.ts";
import { createDeps } from "../../src/runtime.ts";
import { engine, tempDir, testConfig } from "../helpers.ts";

const autocheckpoint = (db: Database) => (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
const pageSize = (db: Database) => (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;

async function until(what: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(10);
  }
}

/** A file database with a table of ~1 KB rows, its writer and a checkpointer (not started). */
function fileWithWriter() {
  const path = join(tempDir(), "c.db");
  const storage = openStorage(path);
  storage.sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  const writer = new Writer(storage.sqlite);
  const insert = storage.sqlite.prepare("INSERT INTO t (v) VALUES (?)");
  /** `rows` rows in commits of 50. */
  const fill = async (rows: number) => {
    for (let i = 0; i < rows; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => writer.write(() => insert.run("x".repeat(1000)))));
    }
  };
  return { path, sqlite: storage.sqlite, writer, fill };
}

// SQLite's write-ahead log: nothing of it runs on PostgreSQL.
describe.skipIf(engine === "postgres")("the log is checkpointed beside the event loop", () => {
  test("the worker copies the log into the file while the writer's own checkpoint waits for a longer log", async () => {
    const db = fileWithWriter();
    const checkpointer = new BackgroundCheckpointer(db.sqlite, db.path, { busyMs: 5, idleMs: 20 }).start();
    await until(() => checkpointer.running);
    expect(autocheckpoint(db.sqlite)).toBe(WRITER_CHECKPOINT_FRAMES);
    const fileBefore = statSync(db.path).size;
    // ~6 MB of rows: without the worker, the writer would have checkpointed once the log passed 1000 frames (4 MB).
    await db.fill(6000);
    // The log never grew to where the writer's own checkpoint runs (a checkpoint that has copied
    // everything lets the next commit start the log over)…
    expect(statSync(`${db.path}-wal`).size / (pageSize(db.sqlite) + 24)).toBeLessThan(WRITER_CHECKPOINT_FRAMES);
    // …yet the rows reach the database file itself, where only a checkpoint writes.
    await until(() => statSync(db.path).size >= fileBefore + 6000 * 1000);
    await db.writer.stop();
    await checkpointer.stop();
    expect(autocheckpoint(db.sqlite)).toBe(1000);
    db.sqlite.close();
  });

  test("under a steady stream of commits the log stays bounded, and every row is there after closing", async () => {
    const deps = createDeps(testConfig(), { checkpointInBackground: true });
    const { sqlite } = deps.store as unknown as { sqlite: Database };
    sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const insert = sqlite.prepare("INSERT INTO t (v) VALUES (?)");
    const path = (sqlite.query("PRAGMA database_list").get() as { file: string }).file;
    await until(() => autocheckpoint(sqlite) === WRITER_CHECKPOINT_FRAMES);
    // ~25,000 frames of log written, six times what the writer lets the log grow to.
    for (let i = 0; i < 25_000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, () => deps.store.write(() => insert.run("y".repeat(3000)))));
    }
    const logBytes = statSync(`${path}-wal`).size;
    expect(logBytes).toBeLessThan(2 * WRITER_CHECKPOINT_FRAMES * (pageSize(sqlite) + 24));
    await deps.store.close();
    const reopened = new Database(path, { readonly: true });
    expect(reopened.query("SELECT count(*) AS n FROM t").get()).toEqual({ n: 25_000 });
    reopened.close();
  });

  test("a worker that cannot start leaves the checkpoints to the writer, at SQLite's default", async () => {
    const db = fileWithWriter();
    const errors: string[] = [];
    const checkpointer = new BackgroundCheckpointer(db.sqlite, db.path, { workerUrl: join(import.meta.dir, "no-such-worker.ts"), onError: (e) => errors.push(e) }).start();
    await until(() => errors.length > 0);
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(db.sqlite)).toBe(1000);
    await db.fill(200);
    await checkpointer.stop();
    await db.writer.stop();
    db.sqlite.close();
  });

  test("only a long-running process on a file checkpoints in the background: not a CLI command, not an in-memory database", async () => {
    const checkpointerOf = (deps: ReturnType<typeof createDeps>) => (deps.store as unknown as { checkpointer: unknown }).checkpointer;
    for (const deps of [createDeps(testConfig()), createDeps(testConfig(), { dbPath: ":memory:", checkpointInBackground: true })]) {
      expect(checkpointerOf(deps)).toBeNull();
      await deps.store.close();
    }
    const serving = createDeps(testConfig(), { checkpointInBackground: true });
    expect(checkpointerOf(serving)).toBeInstanceOf(BackgroundCheckpointer);
    await serving.store.close();
  });
});
