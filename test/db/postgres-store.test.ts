import { afterAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { ConfigError } from "../../src/config.ts";
import type { Deps } from "../../src/context.ts";
import { openPostgresStore, type PostgresStore } from "../../src/db/store-postgres.ts";
import { ConflictError, DatabaseUnavailableError } from "../../src/errors.ts";
import { newId } from "../../src/ids.ts";
import { openDeps } from "../../src/runtime.ts";
import { testConfig } from "../helpers.ts";
import { testPostgres } from "../support/postgres.ts";
import { requireTool } from "../support/tools.ts";

const unreachable = (detail: string) => new ConfigError("POSTHORN_DATABASE_URL", detail);
const open = async (url: string, pool = 4, waitMs = 2000) => openPostgresStore(url, { poolSize: pool, poolWaitMs: waitMs }, unreachable);

describe.skipIf(!requireTool("postgresql"))("PostgreSQL store", () => {
  const stores: PostgresStore[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => {});
  });
  const fresh = async (pool = 4, waitMs = 2000) => {
    const url = await (await testPostgres()).createDatabase();
    const store = await open(url, pool, waitMs);
    stores.push(store);
    return { url, store };
  };

  test("a wrong URL or password at start is one line naming POSTHORN_DATABASE_URL, without the password", async () => {
    const pg = await testPostgres();
    const cases = [`postgres://nobody:s3cret@127.0.0.1:${pg.port}/postgres`, "postgres://posthorn:s3cret@127.0.0.1:1/nowhere"];
    for (const url of cases) {
      const err = await open(url).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      expect(message.startsWith("POSTHORN_DATABASE_URL: cannot connect to postgres://")).toBe(true);
      expect(message).not.toContain("\n");
      expect(message).not.toContain("s3cret");
    }
  });

  test("two nodes claiming the same queue never take the same job (SKIP LOCKED), and NOTIFY wakes the other node", async () => {
    const { url, store: a } = await fresh();
    const b = await open(url);
    stores.push(b);
    const heard: string[] = [];
    b.signals.onEnqueue = (q) => heard.push(q);
    await a.write(async (tx) => {
      for (let i = 0; i < 500; i++) await tx.jobs.enqueue("work", { i });
    });
    const seen = new Map<number, number>();
    const claimer = async (store: PostgresStore) => {
      for (;;) {
        const jobs = await store.write((tx) => tx.jobs.claim<{ i: number }>("work", 7, 60_000));
        if (jobs.length === 0) return;
        await store.write(async (tx) => {
          for (const j of jobs) {
            seen.set(j.payload.i, (seen.get(j.payload.i) ?? 0) + 1);
            expect(await tx.jobs.complete(j)).toBe(true);
          }
        });
      }
    };
    await Promise.all([claimer(a), claimer(b), claimer(a), claimer(b)]);
    expect(seen.size).toBe(500);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(await a.read.jobs.depth("work")).toBe(0);
    for (let i = 0; i < 50 && heard.length === 0; i++) await Bun.sleep(20);
    expect(heard).toContain("work");
  });

  test("a unit of work reads its own writes, commits with a good answer and leaves nothing after a bad one", async () => {
    const { store } = await fresh();
    for (const ok of [true, false]) {
      await store.withUnit(async () => {
        await store.write((tx) => tx.settings.addIfAbsent(`first-${ok}`, "1", Date.now()));
        await store.write((tx) => tx.settings.addIfAbsent(`second-${ok}`, "2", Date.now()));
        // The request reads what it wrote before it is committed; nobody else does.
        expect(await store.read.settings.get(`first-${ok}`)).toBe("1");
        expect(await store.detached(() => store.read.settings.get(`first-${ok}`))).toBeNull();
        await store.currentUnit()!.finish(ok);
      });
      expect(await store.read.settings.get(`first-${ok}`)).toBe(ok ? "1" : null);
      expect(await store.read.settings.get(`second-${ok}`)).toBe(ok ? "2" : null);
    }
  });

  test("a pipelined change that fails fails its own write with its own error, commits nothing of that write, and leaves the unit's other writes alone", async () => {
    const { store } = await fresh();
    // Not awaited on the wire: the failure (a foreign key to no message) surfaces later.
    const orphan = () => ({ id: newId(), message_id: newId(), recipient_id: null, kind: "message.created", status: "pending", data: "{}", created_at: Date.now() });
    const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

    // Its last statement: COMMIT of an aborted transaction answers ROLLBACK without an error.
    let err = await failure(store.write(async (tx) => {
      await tx.settings.addIfAbsent("plain", "1", Date.now());
      await tx.recipients.appendHistory(orphan());
    }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(await store.read.settings.get("plain")).toBeNull();

    // Followed by a read: the read reports the change's failure, not "transaction is aborted".
    err = await failure(store.write(async (tx) => {
      await tx.recipients.appendHistory(orphan());
      return tx.settings.get("anything");
    }));
    expect(err).toBeInstanceOf(ConflictError);

    // In a unit: as its first write and as a later one (a savepoint); the others commit.
    await store.withUnit(async () => {
      const first = await failure(store.write((tx) => tx.recipients.appendHistory(orphan())));
      await store.write((tx) => tx.settings.addIfAbsent("unit-a", "1", Date.now()));
      const later = await failure(store.write(async (tx) => {
        await tx.settings.addIfAbsent("unit-b", "1", Date.now());
        await tx.recipients.appendHistory(orphan());
      }));
      await store.write((tx) => tx.settings.addIfAbsent("unit-c", "1", Date.now()));
      expect(first).toBeInstanceOf(ConflictError);
      expect(later).toBeInstanceOf(ConflictError);
      await store.currentUnit()!.finish(true);
    });
    expect([await store.read.settings.get("unit-a"), await store.read.settings.get("unit-b"), await store.read.settings.get("unit-c")]).toEqual(["1", null, "1"]);
  });

  test("an exhausted pool makes callers wait, then answers DatabaseUnavailableError (503) having started nothing", async () => {
    const { store } = await fresh(2, 300);
    // Two transactions hold both connections until released.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const holders = [0, 1].map((i) => store.write(async (tx) => {
      await tx.settings.addIfAbsent(`held-${i}`, "x", Date.now());
      await held;
    }));
    await Bun.sleep(50);
    // The health check does not queue behind them: it says whether the database answers.
    const pingStarted = performance.now();
    await store.ping();
    expect(performance.now() - pingStarted).toBeLessThan(250);
    const started = performance.now();
    const waiting = store.write((tx) => tx.settings.addIfAbsent("late", "x", Date.now()));
    const err = await waiting.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseUnavailableError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    release();
    await Promise.all(holders);
    expect(await store.read.settings.get("late")).toBeNull();
    // A caller that gets a connection within the wait goes through.
    await store.write((tx) => tx.settings.addIfAbsent("after", "y", Date.now()));
    expect(await store.read.settings.get("after")).toBe("y");
  });

  test("/healthz answers 503 with a JSON message while PostgreSQL is down and 200 once it is back; /metrics labels the node", async () => {
    const pg = await testPostgres();
    const url = await pg.createDatabase();
    const config = testConfig({ POSTHORN_DATABASE_URL: url, POSTHORN_NODE_NAME: "node-a", POSTHORN_DATABASE_POOL_WAIT_MS: "1000" });
    const deps: Deps = await openDeps(config);
    const app = createApp(deps);
    const get = async (path: string) => {
      const res = await app.handle(new Request(`http://localhost${path}`));
      return { status: res.status, text: await res.text() };
    };
    try {
      expect((await get("/healthz")).status).toBe(200);
      const metrics = await get("/metrics");
      expect(metrics.text).toContain('posthorn_node_info{node="node-a",engine="postgres"} 1');
      pg.halt();
      try {
        const down = await get("/healthz");
        expect(down.status).toBe(503);
        expect(JSON.parse(down.text)).toEqual({ message: expect.any(String), error: "service_unavailable" });
        expect(down.text).not.toContain("at ");
      } finally {
        pg.resume();
      }
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await get("/healthz")).status;
        if (status !== 200) await Bun.sleep(100);
      }
      expect(status).toBe(200);
    } finally {
      await deps.store.close();
    }
  }, 30_000);
});
