// Queue throughput on PostgreSQL, with one node and with two: jobs claimed (FOR UPDATE SKIP
// LOCKED), run (a no-op handler) and completed per second by JobRunners in separate processes on
// one database, on a cluster of its own with production durability (fsync, synchronous_commit=on).
//   bun scripts/bench/queue-postgres.ts [jobs=20000] [concurrency per node=64]
// Bounded: each phase stops at its count or after 120 s.
import { openPostgresStore } from "../../src/db/store-postgres.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createLogger } from "../../src/log.ts";
import { durablePostgres } from "../../test/support/postgres.ts";

const poolOpts = { poolSize: 20, poolWaitMs: 30_000 };
const fail = (detail: string) => new Error(detail);

if (process.argv[2] === "--node") {
  // A node: runs the bench queue until told to stop (SIGTERM), then reports how many jobs it ran.
  const [, , , url, concurrency] = process.argv;
  const store = await openPostgresStore(url!, poolOpts, fail);
  let ran = 0;
  const runner = new JobRunner({ store, log: createLogger("silent") }).register(
    "bench",
    async () => {
      ran++;
    },
    { concurrency: Number(concurrency), leaseMs: 60_000, pollMs: 50 },
  );
  runner.start();
  process.stdout.write("ready\n");
  process.on("SIGTERM", async () => {
    await runner.stop();
    await store.close();
    process.stdout.write(`${ran}\n`);
    process.exit(0);
  });
} else {
  const jobs = Number(process.argv[2] ?? 20_000);
  const concurrency = Number(process.argv[3] ?? 64);
  const cluster = durablePostgres();
  console.log(`queue bench on PostgreSQL (fsync=on, synchronous_commit=on): ${jobs} jobs, concurrency ${concurrency} per node`);
  for (const nodes of [1, 2, 1, 2]) {
    const url = await cluster.createDatabase();
    const store = await openPostgresStore(url, poolOpts, fail);
    const t0 = performance.now();
    await store.write(async (tx) => {
      for (let i = 0; i < jobs; i++) await tx.jobs.enqueue("bench", { i });
    });
    const enqueueMs = performance.now() - t0;
    const procs = Array.from({ length: nodes }, () =>
      Bun.spawn([process.execPath, import.meta.path, "--node", url, String(concurrency)], { stdout: "pipe", stderr: "inherit" }),
    );
    const readers = procs.map((p) => p.stdout.getReader());
    await Promise.all(readers.map((r) => r.read()));
    const t1 = performance.now();
    while ((await store.read.jobs.depth("bench")) > 0 && performance.now() - t1 < 120_000) await Bun.sleep(20);
    const runMs = performance.now() - t1;
    const left = await store.read.jobs.depth("bench");
    for (const p of procs) p.kill("SIGTERM");
    const ran = await Promise.all(readers.map(async (r) => Number(new TextDecoder().decode((await r.read()).value).trim())));
    console.log(
      `  ${nodes} node${nodes > 1 ? "s" : ""}: ${(jobs / (runMs / 1000)).toFixed(0)} jobs/s claimed + run + completed (${runMs.toFixed(0)} ms; ran per node: ${ran.join(", ")}; left ${left}); ` +
        `enqueue in one transaction ${(jobs / (enqueueMs / 1000)).toFixed(0)} jobs/s`,
    );
    await store.close();
  }
  cluster.stop();
}
