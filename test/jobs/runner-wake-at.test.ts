/**
 * A job due later wakes its runner at its time, not at the next poll: the enqueue tells this
 * process's runner (JobSignals.later), which sets the idle lane's timer to the job's run_at. With
 * a poll of 10 s, only that timer can start these jobs on time. Both engines (on PostgreSQL the
 * hint comes from the enqueuing transaction's repositories).
 */
import { afterAll, expect, test } from "bun:test";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createTestApp, engine } from "../helpers.ts";

const app = createTestApp();
const runner = new JobRunner(app.deps);
const started = new Map<number, number>();
runner.register<{ n: number }>("wake-at", async (job) => void started.set(job.payload.n, Date.now()), { concurrency: 4, leaseMs: 5000, pollMs: 10_000 });
runner.start();
afterAll(async () => {
  await runner.stop(1000);
  await app.deps.store.close();
});

test("jobs enqueued for 300 ms to 2 s ahead start within 250 ms of their run_at, none before, though the lane polls every 10 s", async () => {
  await Bun.sleep(200); // the lane has found nothing and sleeps its 10 s poll
  const due = [2000, 300, 1200, 700].map((d) => Date.now() + d);
  // One enqueue per write, in an order that makes each new job earlier than the timer set before it, but the first.
  for (const [n, at] of due.entries()) await app.deps.store.write((tx) => tx.jobs.enqueue("wake-at", { n }, { runAt: at }));
  await Bun.sleep(Math.max(...due) - Date.now() + 300);
  const late = due.map((at, n) => started.get(n)! - at);
  console.log(`runner wake-at (${engine}): started ${late.join(", ")} ms after run_at`);
  for (const l of late) {
    expect(l).toBeGreaterThanOrEqual(0);
    expect(l).toBeLessThan(250);
  }
});
