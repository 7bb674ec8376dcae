// Queue throughput: jobs claimed and completed per second by the JobRunner on a file database
// with synchronous=FULL (the production settings). Usage: bun scripts/bench/queue.ts [jobs] [concurrency]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage } from "../../src/db/connection.ts";
import { SqliteStore } from "../../src/db/store.ts";
import { Writer } from "../../src/db/writer.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createLogger } from "../../src/log.ts";

const jobs = Number(process.argv[2] ?? 20_000);
const concurrency = Number(process.argv[3] ?? 64);
const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-queue-"));
const storage = openStorage(join(dir, "q.db"));
const writer = new Writer(storage.sqlite);
const store = new SqliteStore(storage.sqlite, writer);
const queue = store.read.jobs;

const t0 = performance.now();
await store.write(async (tx) => {
  for (let i = 0; i < jobs; i++) await tx.jobs.enqueue("bench", { i });
});
const enqueueMs = performance.now() - t0;

let done = 0;
let finished!: () => void;
const allDone = new Promise<void>((r) => (finished = r));
const runner = new JobRunner({ store, log: createLogger("silent") }).register(
  "bench",
  async () => {
    if (++done === jobs) finished();
  },
  { concurrency, leaseMs: 60_000 },
);
const t1 = performance.now();
runner.start();
await Promise.race([allDone, Bun.sleep(120_000)]);
// The last completions are committed by the writer after the handler returns.
while ((await queue.depth("bench")) > 0 && performance.now() - t1 < 120_000) await Bun.sleep(1);
const runMs = performance.now() - t1;
await runner.stop();
const left = await queue.depth("bench");

console.log(`queue bench: ${jobs} jobs, concurrency ${concurrency}, bun:sqlite WAL synchronous=FULL`);
console.log(`  enqueue (one transaction):  ${(jobs / (enqueueMs / 1000)).toFixed(0)} jobs/s`);
console.log(`  claim + run + complete:     ${(jobs / (runMs / 1000)).toFixed(0)} jobs/s  (${runMs.toFixed(0)} ms)`);
console.log(`  group commits: ${writer.stats.commits}, writes: ${writer.stats.writes}, largest batch: ${writer.stats.largestBatch}`);
console.log(`  jobs left: ${left} (must be 0)`);
storage.close();
rmSync(dir, { recursive: true, force: true });
