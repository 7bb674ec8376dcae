// Per-destination shaping against a strict receiver, on loopback: the time to drain N messages
// (default 1,000) to a domain whose MX answers `421 4.7.28` once it has had more than LIMIT
// (default 300) messages in 10 s (test/support/strict-sink.ts), with shaping (production timings:
// first pause 30 s) and without, and the 421s each run got. Direct delivery through a loopback
// DNS server, real SMTP; the server in this process (the test harness's app and job runner).
//
// The comparison runs both with the default retry schedule (src/pacing/backoff.ts) divided by 30 (2 s, 10 s, 30 s,
// 1 min, …): with the real one (1 min, 5 min, 15 min, …) the run without shaping would last over
// 20 minutes. Shaping does not wait on the schedule after a rate reply, so a third run shows it
// with the real schedule.
//
//   bun scripts/bench/shaping.ts [messages=1000] [limit=300]
//
// POSTHORN_TEST_ENGINE=postgres runs it on PostgreSQL. Bounded: each run stops after 15 minutes.
import { DELIVERY_SCHEDULE_MS } from "../../src/pacing/backoff.ts";
import type { OutboundOptions } from "../../src/mail/outbound-job.ts";
import { startOutbound } from "../../test/send/harness.ts";
import { startDnsServer } from "../../test/support/dns-server.ts";
import { drain, sendTo, startStrictSink, statusCounts } from "../../test/support/strict-sink.ts";

const MESSAGES = Number(process.argv[2] ?? 1000);
const LIMIT = Number(process.argv[3] ?? 300);
const STRICT = "strict.test";
const SCHEDULE = DELIVERY_SCHEDULE_MS.map((ms) => ms / 30);
const RUN_LIMIT_MS = 15 * 60_000;

const dns = await startDnsServer();
dns.set(STRICT, "MX", [{ exchange: "mx.strict.test", priority: 10 }]);
dns.set("mx.strict.test", "A", ["127.0.0.1"]);

async function run(label: string, shaping: OutboundOptions["shaping"], schedule: readonly number[] = SCHEDULE) {
  const strict = await startStrictSink({ limit: LIMIT, strictDomains: [STRICT] });
  const h = await startOutbound({ dns, sink: strict.sink, outbound: { retryScheduleMs: schedule, shaping } });
  try {
    const t0 = Date.now();
    await sendTo(h, STRICT, MESSAGES, "r");
    let finished = true;
    await drain(h, STRICT, MESSAGES, RUN_LIMIT_MS).catch(() => (finished = false));
    const seconds = (Date.now() - t0) / 1000;
    const counts = statusCounts(h, STRICT);
    const attempts = h.sqlNow.get<{ n: number }>("SELECT sum(attempts) AS n FROM recipients WHERE email LIKE ?", [`%@${STRICT}`]);
    console.log(
      `${label.padEnd(36)} ${finished ? `drained in ${seconds.toFixed(1)} s` : `NOT drained after ${seconds.toFixed(0)} s`}; ` +
        `421 replies: ${strict.refusals.get(STRICT) ?? 0}; delivery attempts recorded: ${Number(attempts?.n ?? 0)}; statuses ${JSON.stringify(counts)}`,
    );
  } finally {
    await h.close();
    await strict.close();
  }
}

console.log(
  `strict receiver: 421 4.7.28 beyond ${LIMIT} messages per 10 s; ${MESSAGES} messages; database ${process.env.POSTHORN_TEST_ENGINE ?? "sqlite"}; ` +
    `retry schedule ${SCHEDULE.slice(0, 4).map((ms) => `${ms / 1000} s`).join(", ")}, … (the default schedule / 30) unless said`,
);
await run("with shaping", {});
await run("without shaping", false);
await run("with shaping, the real schedule", {}, DELIVERY_SCHEDULE_MS);
await dns.close();
process.exit(0);
