/**
 * Warm-up on two PostgreSQL nodes sharing one database (docs/deliverability.md, Warm-up, "Exactly
 * the cap"): 200 messages accepted in one batch, so that both nodes' outbound stages (64 workers
 * each) claim and attempt them at once, against a day's cap of 37 (on the real clock). Exactly 37
 * reach the loopback sink, the day's count is 37, and the other 163 stay pending, held until the
 * next UTC midnight. PostgreSQL only: SQLite is one node, and its one writer serializes the count
 * (the single-node case is test/deliverability/warmup.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../src/context.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { closeOutbound, registerOutboundJobs } from "../../src/mail/outbound-job.ts";
import { utcDay } from "../../src/mail/warmup.ts";
import { clearOfUtcMidnight } from "../support/utc-midnight.ts";
import { openDeps } from "../../src/runtime.ts";
import { engine, testConfig, waitFor } from "../helpers.ts";
import { SENDER_DOMAIN, startOutbound, type OutboundHarness } from "../send/harness.ts";

const CAP = 37;
const MESSAGES = 200;

describe.skipIf(engine !== "postgres")("warm-up on two PostgreSQL nodes", () => {
  let a: OutboundHarness;
  let b: Deps;
  let runnerB: JobRunner;

  beforeAll(async () => {
    a = await startOutbound();
    a.routeToSink("nodes.test");
    b = await openDeps(
      testConfig({
        POSTHORN_DATABASE_URL: a.deps.config.databaseUrl!,
        POSTHORN_DELIVERY: "direct",
        POSTHORN_MX_PORT: String(a.sink.port),
        POSTHORN_DNS_SERVERS: a.dns.server,
        POSTHORN_HOSTNAME: "mta-b.posthorn.test",
      }),
    );
    runnerB = new JobRunner(b);
    registerOutboundJobs(runnerB, b, { retryScheduleMs: [50, 100, 150], mxCacheMs: 0, shaping: false });
    runnerB.start();
  });
  afterAll(async () => {
    await closeOutbound(b);
    await runnerB.stop(2000);
    await b.store.close();
    await a.close();
  });

  test(`a cap of ${CAP}: exactly ${CAP} of ${MESSAGES} messages attempted by two nodes at once, the rest held`, async () => {
    // The day's count is read on the real clock's UTC day: the whole test on one day.
    await clearOfUtcMidnight(60_000, "warm-up on two nodes");
    const path = `/v1/domains/${a.domain.domainId}/warmup`;
    expect((await a.request("PUT", path, { body: { enabled: true, schedule: [CAP], started_at: new Date().toISOString() } })).status).toBe(200);
    const items = Array.from({ length: MESSAGES }, (_, i) => ({ from: `hi@${SENDER_DOMAIN}`, to: [`n${i}@nodes.test`], subject: `Node ${i}`, text: "hello" }));
    const res = await a.request("POST", "/v1/send/batch", { projectToken: a.team.projectToken, body: items });
    expect(res.status).toBe(202);
    const ids = (res.json as { message_id: string }[]).map((r) => r.message_id);

    // Every message has either been delivered or is held until tomorrow.
    const settled = async () => {
      const r = await a.sql.get<{ delivered: number; held: number }>(
        `SELECT (SELECT count(*) FROM recipients WHERE message_id IN (${ids.map(() => "?").join(",")}) AND status = 'delivered') AS delivered,
                (SELECT count(*) FROM jobs WHERE queue = 'outbound' AND run_at > ?) AS held`,
        [...ids, Date.now() + 60_000],
      );
      return Number(r!.delivered) + Number(r!.held) === MESSAGES ? r : null;
    };
    const r = await waitFor(settled, 30_000, 100);
    await Bun.sleep(500);
    expect(Number(r.delivered)).toBe(CAP);
    expect(Number(r.held)).toBe(MESSAGES - CAP);
    expect(a.sink.received).toHaveLength(CAP);
    expect(new Set(a.sink.received.map((m) => m.to[0])).size).toBe(CAP);
    const count = await a.sql.get<{ sent: number }>("SELECT sent FROM warmup_counts WHERE domain_id = ? AND day = ?", [a.domain.domainId, utcDay(Date.now())]);
    expect(Number(count!.sent)).toBe(CAP);
    // Both nodes took part (each took some of the day's places or held some of the mail).
    const pending = await a.sql.get<{ n: number }>(`SELECT count(*) AS n FROM recipients WHERE message_id IN (${ids.map(() => "?").join(",")}) AND status = 'pending'`, ids);
    expect(Number(pending!.n)).toBe(MESSAGES - CAP);
  }, 125_000);
});
