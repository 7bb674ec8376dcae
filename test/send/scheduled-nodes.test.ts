/**
 * Scheduled sending on several PostgreSQL nodes sharing one database (docs/sending.md, When it
 * goes out): a node that did not accept a message, and so set no timer for it, still releases it
 * within 1 s of its time (it polls at least once a second, then sleeps until the next due job);
 * with two nodes releasing the same messages at the same second, each is released once and
 * reaches the MX once. PostgreSQL only: SQLite is one node (test/send/scheduled-sending.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../src/context.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { openDeps } from "../../src/runtime.ts";
import { SCHEDULED_QUEUE, registerScheduledJobs } from "../../src/sending/scheduled-job.ts";
import { engine, testConfig, waitFor } from "../helpers.ts";
import { SENDER_DOMAIN, startOutbound, type OutboundHarness } from "./harness.ts";

const RCPT_DOMAIN = "nodes.test";

describe.skipIf(engine !== "postgres")("scheduled sending on two PostgreSQL nodes", () => {
  let a: OutboundHarness;
  let b: Deps;
  let runnerB: JobRunner;
  let runnerA: JobRunner | null = null;

  beforeAll(async () => {
    // Node A accepts and delivers; node B (its own store and runner on the same database) releases.
    a = await startOutbound();
    a.routeToSink(RCPT_DOMAIN);
    b = await openDeps(testConfig({ POSTHORN_DATABASE_URL: a.deps.config.databaseUrl! }));
    runnerB = new JobRunner(b);
    registerScheduledJobs(runnerB, b);
    runnerB.start();
  });
  afterAll(async () => {
    await runnerA?.stop(2000);
    await runnerB.stop(2000);
    await b.store.close();
    await a.close();
  });

  let n = 0;
  const email = (at: number) => ({ from: `hi@${SENDER_DOMAIN}`, to: [`n${++n}@${RCPT_DOMAIN}`], subject: `Node ${n}`, text: "Later on.", scheduled_at: new Date(at).toISOString() });
  /** When each message was released (its message.queued history entry), in epoch ms. */
  const releases = (id: string) =>
    a.sqlNow.all<{ created_at: number }>("SELECT created_at FROM message_events WHERE message_id = ? AND kind = 'message.queued'", [id]).map((r) => Number(r.created_at));

  test("a node that never heard of the message releases it within 1 s of its time", async () => {
    // Node A has no scheduled lane: only B, which set no timer for these, can release them.
    const base = Date.now() + 1000;
    const sent = await Promise.all([0, 350, 700, 1300, 1900].map(async (d) => {
      const body = email(base + d);
      return { at: base + d, id: (await a.send(body)).json.message_id as string, to: body.to[0]! };
    }));
    for (const s of sent) await a.waitForStatus(s.id, ["delivered"], 8000);
    const late = sent.map((s) => releases(s.id)[0]! - s.at);
    console.log(`release on the other node (postgres): ${late.join(", ")} ms after scheduled_at`);
    for (const l of late) {
      expect(l).toBeGreaterThanOrEqual(0);
      expect(l).toBeLessThan(1000);
    }
  });

  test("two nodes releasing 200 messages due in the same second: each released once, delivered once", async () => {
    runnerA = new JobRunner(a.deps);
    registerScheduledJobs(runnerA, a.deps);
    runnerA.start();
    const at = Date.now() + 2500;
    const bodies = Array.from({ length: 200 }, () => email(at));
    const ids: string[] = [];
    for (let i = 0; i < bodies.length; i += 50) {
      const res = await a.request("POST", "/v1/send/batch", { projectToken: a.team.projectToken, body: bodies.slice(i, i + 50) });
      expect(res.status).toBe(202);
      ids.push(...res.json.map((r: { message_id: string }) => r.message_id));
    }
    await waitFor(() => ids.every((id) => a.messageStatus(id) === "delivered"), 20_000, 50);
    const released = ids.map((id) => releases(id));
    expect(released.every((r) => r.length === 1)).toBe(true);
    const late = released.map((r) => r[0]! - at).sort((x, y) => x - y);
    console.log(`two nodes, 200 due at once (postgres): released ${late[0]}–${late.at(-1)} ms after scheduled_at (median ${late[100]})`);
    expect(late[0]).toBeGreaterThanOrEqual(0);
    expect(late.at(-1)!).toBeLessThan(1000);
    for (const b of bodies) expect(a.sink.received.filter((m) => m.to.includes(b.to[0]!))).toHaveLength(1);
    expect(await a.deps.store.read.jobs.depth(SCHEDULED_QUEUE)).toBe(0);
  });
});
