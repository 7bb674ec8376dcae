import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/db/connection.ts";
import { SqliteStore } from "../../src/db/store.ts";
import { Writer } from "../../src/db/writer.ts";
import { DELIVERY_SCHEDULE_MS, exponentialBackoff, scheduledBackoff } from "../../src/pacing/backoff.ts";
import { JobQueue, JobSignals } from "../../src/db/job-queue.ts";
import { SqliteExecutor } from "../../src/db/sql.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createLogger } from "../../src/log.ts";
import { tempDir, waitFor } from "../helpers.ts";

const silent = createLogger("silent");

function setup() {
  const path = join(tempDir(), "q.db");
  const storage = openStorage(path);
  const writer = new Writer(storage.sqlite);
  const store = new SqliteStore(storage.sqlite, writer);
  return { path, storage, queue: store.read.jobs, writer, store };
}

describe("job queue", () => {
  test("10,000 jobs run by the runner: none lost, none run twice", async () => {
    const { queue, storage, store } = setup();
    await store.write(async (tx) => {
      for (let i = 0; i < 10_000; i++) await tx.jobs.enqueue("work", { n: i });
    });
    const runs = new Map<number, number>();
    let concurrent = 0;
    let maxConcurrent = 0;
    const runner = new JobRunner({ store, log: silent }).register<{ n: number }>(
      "work",
      async (job) => {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        runs.set(job.payload.n, (runs.get(job.payload.n) ?? 0) + 1);
        if (job.payload.n % 7 === 0) await Bun.sleep(0);
        concurrent--;
      },
      { concurrency: 32, leaseMs: 30_000 },
    );
    runner.start();
    await waitFor(async () => (await queue.depth("work")) === 0, 20_000);
    await runner.stop();
    expect(runs.size).toBe(10_000);
    expect([...runs.values()].every((c) => c === 1)).toBe(true);
    expect(maxConcurrent).toBeLessThanOrEqual(32);
    expect(storage.sqlite.query("SELECT count(*) AS n FROM jobs").get()).toEqual({ n: 0 });
  });

  test("a SIGKILLed worker's job is retried after its lease, never while it is held", async () => {
    const { path, queue, store } = setup();
    await store.write((tx) => tx.jobs.enqueue("work", { task: "x" }));
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "claim-and-hang.ts"), path, "1500"], { stdout: "pipe" });
    const reader = proc.stdout.getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value)) as { id: number; attempt: number }[];
    expect(first).toHaveLength(1);
    proc.kill("SIGKILL");
    await proc.exited;

    // The lease is still held: nobody else may take the job.
    expect(await queue.claim("work", 10, 60_000)).toHaveLength(0);
    const again = await waitFor(async () => {
      const jobs = await queue.claim<{ task: string }>("work", 10, 60_000);
      return jobs.length ? jobs : null;
    }, 5000, 50);
    expect(again[0]!.id).toBe(first[0]!.id);
    expect(again[0]!.attempt).toBe(2);
    expect(again[0]!.payload).toEqual({ task: "x" });
    // The dead worker's claim (attempt 1) can no longer complete the job.
    expect(await queue.complete({ ...again[0]!, attempt: 1 })).toBe(false);
    expect(await queue.complete(again[0]!)).toBe(true);
  });

  test("failures back off, then the job is dead after its max attempts", async () => {
    const { storage } = setup();
    let now = 1_000_000;
    const q = new JobQueue(new SqliteExecutor(storage.sqlite), new JobSignals(), () => now);
    await q.enqueue("work", {}, { maxAttempts: 3 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [job] = await q.claim("work", 1, 1000);
      expect(job!.attempt).toBe(attempt);
      const fate = await q.fail(job!, `boom ${attempt}`, { delayMs: 5000 });
      expect(fate).toBe(attempt < 3 ? "retry" : "dead");
      expect(await q.claim("work", 1, 1000)).toHaveLength(0);
      now += 5001;
    }
    expect(await q.claim("work", 1, 1000)).toHaveLength(0);
    expect(await q.depth("work")).toBe(0);
  });

  test("a handler error retries the job through the runner", async () => {
    const { queue, store } = setup();
    await store.write((tx) => tx.jobs.enqueue("flaky", { id: 1 }));
    let calls = 0;
    const runner = new JobRunner({ store, log: silent }).register(
      "flaky",
      async () => {
        calls++;
        if (calls === 1) throw new Error("transient");
        if (calls === 2) return { type: "retry", delayMs: 10, error: "again" };
      },
      { concurrency: 1, leaseMs: 10_000, pollMs: 20 },
    );
    runner.start();
    // The default backoff after a thrown error is ~1 s.
    await waitFor(async () => (await queue.depth("flaky")) === 0, 5000);
    await runner.stop();
    expect(calls).toBe(3);
  });
});

describe("backoff", () => {
  test("exponential backoff never exceeds its cap, jitter included", () => {
    for (let attempt = 1; attempt <= 200; attempt++) {
      for (const r of [0, 0.5, 0.999999]) {
        const d = exponentialBackoff(attempt, { baseMs: 1000, capMs: 60_000, jitter: 0.1 }, () => r);
        expect(d).toBeLessThanOrEqual(60_000);
        expect(d).toBeGreaterThanOrEqual(0);
      }
    }
    expect(exponentialBackoff(1, { baseMs: 1000, jitter: 0 })).toBe(1000);
    expect(exponentialBackoff(4, { baseMs: 1000, jitter: 0 })).toBe(8000);
  });

  test("the delivery schedule repeats its last step within ±10%, and honours a longer requested delay", () => {
    const last = DELIVERY_SCHEDULE_MS[DELIVERY_SCHEDULE_MS.length - 1]!;
    for (const attempt of [7, 8, 50]) {
      const d = scheduledBackoff(attempt, DELIVERY_SCHEDULE_MS, {}, Math.random);
      expect(d).toBeGreaterThanOrEqual(last * 0.9);
      expect(d).toBeLessThanOrEqual(last * 1.1);
    }
    expect(scheduledBackoff(1, DELIVERY_SCHEDULE_MS, { requestedMs: 3_600_000 })).toBe(3_600_000);
  });
});
