// /healthz latency while the API is fuzzed: the figure test/http/fuzz.test.ts only bounds with a
// shared machine's margin (p99 < 1 s there). The fuzzer's requests (test/support/fuzz.ts, every
// operation of /openapi/json, a kind picked per request) go 16 at a time to the real server in a
// child process (test/support/fuzz-server.ts) while a Worker GETs /healthz every 20 ms; prints
// p50 / p99 / max of the probe and the requests' statuses. On a quiet machine p99 stays under
// 100 ms: a parser or validator that holds the event loop shows here first.
//
//   bun scripts/bench/fuzz-healthz.ts [requests=4000] [seed=0x5eed2024]
//
// POSTHORN_TEST_ENGINE=postgres runs it on PostgreSQL. Bounded: it stops after 2 minutes.
import { emptyPools, execute, harvest, operationsOf, RequestGenerator, Rng, type Fixtures } from "../../test/support/fuzz.ts";
import { startFuzzServer } from "../../test/support/fuzz-server.ts";
import { percentile, startHealthProbe } from "../../test/support/healthz-probe.ts";

const REQUESTS = Number(process.argv[2] ?? 4000);
const SEED = Number(process.argv[3] ?? 0x5eed2024) >>> 0;
const CONCURRENCY = 16;
const LIMIT_MS = 120_000;

const srv = await startFuzzServer();
try {
  const doc = (await (await fetch(`${srv.base}/openapi/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const ops = operationsOf(doc);
  const fx: Fixtures = {
    team: srv.team,
    sendingDomain: "nowhere.example",
    own: { ...emptyPools(), project: [srv.team.projectId] },
    foreign: emptyPools(),
    protectedIds: new Set([srv.team.projectId]),
    cursors: new Map(),
  };
  const rng = new Rng(SEED);
  const gen = new RequestGenerator(rng, fx);
  const order = rng.shuffle([...ops]);
  const statuses = new Map<number, number>();
  let issued = 0;
  const started = performance.now();
  const probe = startHealthProbe(`${srv.base}/healthz`, 20);
  const worker = async () => {
    while (issued < REQUESTS && performance.now() - started < LIMIT_MS) {
      const req = gen.next(order[issued++ % order.length]!);
      const out = await execute(srv.base, req);
      harvest(req, out, fx);
      const bucket = Math.floor(out.status / 100) * 100;
      statuses.set(bucket, (statuses.get(bucket) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const { latencies, errors } = await probe.stop();
  const seconds = (performance.now() - started) / 1000;
  const fmt = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `${issued} fuzz requests (seed 0x${SEED.toString(16)}, ${CONCURRENCY} in flight) in ${seconds.toFixed(1)} s: ` +
      [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s === 0 ? "no answer" : `${s / 100}xx`} ${n}`).join(", "),
  );
  console.log(
    `/healthz every 20 ms meanwhile: ${latencies.length} probes, ${errors} errors, p50 ${fmt(percentile(latencies, 0.5))}, p99 ${fmt(percentile(latencies, 0.99))}, max ${fmt(Math.max(...latencies))}`,
  );
} finally {
  await srv.stop();
}
