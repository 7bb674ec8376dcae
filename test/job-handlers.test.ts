/**
 * src/job-handlers.ts is the one place that registers the job handlers: a job enqueued to a queue
 * it leaves out would wait in the table forever. Every queue the code enqueues to (found in src/)
 * gets a handler on a runner from registerJobHandlers, and JOB_QUEUES names exactly those.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JOB_QUEUES, registerJobHandlers } from "../src/job-handlers.ts";
import { JobRunner } from "../src/jobs/runner.ts";
import { closeOutbound } from "../src/mail/outbound-job.ts";
import { createTestApp } from "./helpers.ts";

const SRC = join(import.meta.dir, "..", "src");

/**
 * The queue names the code enqueues to: each queue passed to enqueue or enqueueOnce, or given as
 * `queue:` (an event's webhook jobs, queued by the events repository).
 */
function enqueuedQueues(): string[] {
  // job-handlers.ts itself is left out: its table is what is checked.
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts") && f !== "job-handlers.ts");
  const sources = files.map((f) => readFileSync(join(SRC, f), "utf8"));
  const valueOf = new Map<string, string>();
  for (const s of sources) for (const m of s.matchAll(/export const ([A-Z_]+_QUEUE) = "([^"]+)"/g)) valueOf.set(m[1]!, m[2]!);
  const used = new Set<string>();
  for (const s of sources) {
    for (const m of s.matchAll(/(?:\.enqueue(?:Once)?\(\s*|\bqueue:\s*)([A-Za-z_"][\w"-]*)/g)) {
      const arg = m[1]!;
      if (arg.startsWith('"')) used.add(arg.slice(1, -1));
      else if (valueOf.has(arg)) used.add(valueOf.get(arg)!);
      else if (/_QUEUE$/.test(arg)) throw new Error(`enqueue to ${arg}, a constant not exported as a string`);
    }
  }
  return [...used].sort();
}

// What is checked is the code, not the database: SQLite either way. (With PostgreSQL the test
// harness's teardown sometimes timed out, 30 s, after the handlers were registered in-process:
// the five register calls of the code before issue 43's split failed 2 of 4 runs, after it 3 of
// 4; cause not found.)
const app = createTestApp({ engine: "sqlite" });
afterAll(() => closeOutbound(app.deps));

test("every queue the code enqueues to has its handler registered by registerJobHandlers, and JOB_QUEUES names exactly those", () => {
  const enqueued = enqueuedQueues();
  expect(enqueued).toEqual(["blocklist-check", "domain-recheck", "inbound", "outbound", "retention", "scheduled", "webhook"]);
  const runner = new JobRunner(app.deps);
  registerJobHandlers(runner, app.deps);
  const registered = [...runner["lanes"].keys()].sort();
  expect(registered).toEqual(enqueued);
  expect(JOB_QUEUES.map((q) => q.queue).sort()).toEqual(enqueued);
});
