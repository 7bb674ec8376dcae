/**
 * Per-destination shaping against a strict receiver (test/support/strict-sink.ts: 421 4.7.28 once
 * a domain has had more than LIMIT messages in 10 s), over real sockets with the DNS on loopback.
 * 1,000 messages to that domain all end delivered, none failed, with far fewer 421s than half as
 * many messages get without shaping; the destination shows paused in GET /v1/queue/destinations; another
 * destination's mail is delivered during the pause.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { drain, sendTo, startStrictSink, statusCounts, type StrictSink } from "../support/strict-sink.ts";
import type { OutboundOptions } from "../../src/mail/outbound-job.ts";

const STRICT = "strict.test";
const OTHER = "other.test";
const LIMIT = 300;
const MESSAGES = 1000;
/** The run without shaping is half as long, to keep the test short (scripts/bench/shaping.ts runs both at 1,000). */
const UNSHAPED_MESSAGES = 500;
/** The same short retry schedule for both runs (the real one starts at 1 minute). */
const SCHEDULE = [2000];

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
  dns.set(STRICT, "MX", [{ exchange: "mx.strict.test", priority: 10 }]);
  dns.set("mx.strict.test", "A", ["127.0.0.1"]);
  dns.set(OTHER, "MX", [{ exchange: "mx.other.test", priority: 10 }]);
  dns.set("mx.other.test", "A", ["127.0.0.1"]);
});
afterAll(async () => {
  await dns.close();
});

async function run(shaping: OutboundOptions["shaping"]): Promise<{ strict: StrictSink; h: OutboundHarness }> {
  const strict = await startStrictSink({ limit: LIMIT, strictDomains: [STRICT] });
  const h = await startOutbound({ dns, sink: strict.sink, outbound: { retryScheduleMs: SCHEDULE, shaping } });
  return { strict, h };
}

test(
  `${MESSAGES} messages to a strict receiver: all delivered, far fewer 421s with shaping; the destination is seen paused while another keeps going`,
  async () => {
    // With shaping: pauses of 10 s (the receiver's window) and up, ramping every second. After the
    // first 421 the ~700 messages left are held with slots at the pace set then (the ramp raises
    // the pace, not slots already given), so that pace sets the run's length: half the rate seen
    // was ~1,100 a minute (18 a second, 52-59 s drained); the floor of 1,500 (25 a second, under the
    // receiver's 30) leaves the 421s, the pause and the held slots as they were, ~10 s sooner.
    const on = await run({ firstPauseMs: 10_000, maxPauseMs: 40_000, rampEveryMs: 1_000, quietMs: 120_000, minPerMinute: 1_500 });
    let shapedMs: number;
    try {
      const t0 = Date.now();
      const ids = await sendTo(on.h, STRICT, MESSAGES, "s");
      expect(ids.length).toBe(MESSAGES);

      // The first 421 pauses the destination: GET /v1/queue/destinations says so.
      const paused = await waitFor(async () => {
        const res = await on.h.request("GET", "/v1/queue/destinations");
        expect(res.status).toBe(200);
        return (res.json.data as any[]).find((d) => d.name === "mx.strict.test" && d.paused) ?? null;
      }, 20_000);
      expect(paused.domains).toContain(STRICT);
      expect(paused.last_reply).toMatchObject({ code: 421, enhanced_code: "4.7.28" });
      expect(paused.concurrency).toBeGreaterThanOrEqual(1);
      expect(paused.per_minute).toBeGreaterThanOrEqual(1);
      const pausedUntil = Date.parse(paused.paused_until);

      // Another destination keeps its pace meanwhile: its mail is delivered before the pause ends.
      const others = await sendTo(on.h, OTHER, 20, "o");
      await drain(on.h, OTHER, others.length, 10_000);
      expect(statusCounts(on.h, OTHER)).toEqual({ delivered: 20 });
      expect(Date.now()).toBeLessThan(pausedUntil);
      // The list is the team's queued mail's destinations: the other one, drained, is no longer in it.
      const listed = await on.h.request("GET", "/v1/queue/destinations");
      expect((listed.json.data as any[]).map((d) => d.name)).toEqual(["mx.strict.test"]);

      await drain(on.h, STRICT, MESSAGES, 150_000);
      shapedMs = Date.now() - t0;
      expect(statusCounts(on.h, STRICT)).toEqual({ delivered: MESSAGES });
      // Deferred by shaping is not an attempt: most recipients were attempted once.
      const attempts = on.h.sqlNow.all<{ attempts: number; n: number }>("SELECT attempts, count(*) AS n FROM recipients WHERE email LIKE ? GROUP BY attempts", [`%@${STRICT}`]);
      const once = Number(attempts.find((a) => Number(a.attempts) === 1)?.n ?? 0);
      expect(once).toBeGreaterThan(MESSAGES * 0.7);
    } finally {
      await on.h.close();
      await on.strict.close();
    }
    const shaped421 = on.strict.refusals.get(STRICT) ?? 0;

    // Without shaping: half as many messages, the same schedule; every 421 a failed attempt.
    const off = await run(false);
    let unshapedMs: number;
    try {
      const t0 = Date.now();
      await sendTo(off.h, STRICT, UNSHAPED_MESSAGES, "u");
      await drain(off.h, STRICT, UNSHAPED_MESSAGES, 150_000);
      unshapedMs = Date.now() - t0;
      expect(statusCounts(off.h, STRICT)).toEqual({ delivered: UNSHAPED_MESSAGES });
    } finally {
      await off.h.close();
      await off.strict.close();
    }
    const unshaped421 = off.strict.refusals.get(STRICT) ?? 0;
    console.log(
      `strict receiver (${LIMIT} messages per 10 s), retry schedule ${SCHEDULE.join(", ")} ms: ` +
        `with shaping ${MESSAGES} messages, ${shaped421} × 421, drained in ${(shapedMs / 1000).toFixed(1)} s; ` +
        `without shaping ${UNSHAPED_MESSAGES} messages, ${unshaped421} × 421, drained in ${(unshapedMs / 1000).toFixed(1)} s`,
    );
    expect(shaped421 * 3).toBeLessThan(unshaped421);
  },
  300_000,
);
