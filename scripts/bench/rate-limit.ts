// The API rate limiter's overhead on POST /v1/send (issue 15, target < 3 %): two apps in this
// process over one database, one with POSTHORN_RATE_LIMIT_SEND=0 (off) and one with a limit so
// high it never refuses (1,000,000/s: every request takes a token from its project's bucket),
// run in alternated blocks of `perBlock` requests at 64 concurrent clients through app.handle
// (no sockets: the HTTP server's own cost is left out, so the limiter's share is overstated if
// anything). Prints, per arm, the median over the rounds of requests/s and of this process's CPU
// time per request, and the on/off ratios.
//
//   bun scripts/bench/rate-limit.ts [rounds=6] [perBlock=4000]
//   POSTHORN_BENCH_DATABASE=postgres   the same on PostgreSQL (a cluster of its own on loopback,
//                                      fsync on): there the limiter is one more statement per request
//
// Bounded: every block stops at its count, the whole run at 5 minutes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openDeps } from "../../src/runtime.ts";
import { prepareDataDir, preparePostgresDatabase } from "../../test/e2e/fixtures/outbound-server.ts";
import { durablePostgres } from "../../test/support/postgres.ts";

const ROUNDS = Number(process.argv[2] ?? 6);
const PER_BLOCK = Number(process.argv[3] ?? 4000);
const CONCURRENCY = 64;
const DEADLINE = Date.now() + 300_000;
const ENGINE = process.env.POSTHORN_BENCH_DATABASE ?? "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error("POSTHORN_BENCH_DATABASE is sqlite or postgres");

const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-rate-limit-"));
const cluster = ENGINE === "postgres" ? durablePostgres() : null;
let data: { projectToken: string; domain: string };
const env: Record<string, string> = { POSTHORN_DATA_DIR: dir, POSTHORN_LOG_LEVEL: "error", POSTHORN_DELIVERY: "sink", POSTHORN_SMTP_PORT: "0", POSTHORN_SUBMISSION_PORT: "0" };
if (cluster) {
  const url = await cluster.createDatabase();
  const pg = await preparePostgresDatabase(url);
  await pg.sql.close();
  data = { projectToken: pg.boot.project_token, domain: pg.domain };
  env.POSTHORN_DATABASE_URL = url;
} else {
  data = prepareDataDir(dir);
}

const arms = {
  off: createApp(await openDeps(loadConfig({ ...env, POSTHORN_RATE_LIMIT_SEND: "0" }))),
  on: createApp(await openDeps(loadConfig({ ...env, POSTHORN_RATE_LIMIT_SEND: "1000000" }))),
};

const body = (i: number) =>
  JSON.stringify({
    from: `Bench <bench@${data.domain}>`,
    to: [`user${i}@dest.test`],
    subject: `Benchmark message ${i}`,
    html: `<p>Hello user ${i}, this is a benchmark message of about two kilobytes.</p>` + "<p>Lorem ipsum dolor sit amet. </p>".repeat(40),
    text: `Hello user ${i}`,
  });

let sent = 0;
async function block(app: (typeof arms)["on"]): Promise<{ rate: number; cpuUs: number; limited: boolean }> {
  let next = 0;
  let limited = true;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PER_BLOCK && Date.now() < DEADLINE) {
        const i = sent + next++;
        const text = body(i);
        const res = await app.handle(
          new Request("http://localhost/v1/send", {
            method: "POST",
            headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), "x-service-token": data.projectToken },
            body: text,
          }),
        );
        await res.arrayBuffer();
        if (res.status !== 202) throw new Error(`${res.status} from /v1/send`);
        limited &&= res.headers.has("ratelimit-remaining");
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  sent += next;
  return { rate: next / secs, cpuUs: (cpu.user + cpu.system) / next, limited };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results = { off: [] as { rate: number; cpuUs: number }[], on: [] as { rate: number; cpuUs: number }[] };
console.log(`database: ${ENGINE}; ${ROUNDS} rounds of ${PER_BLOCK} requests per arm, ${CONCURRENCY} concurrent, alternated (one warm-up round each, not counted)`);
for (let round = 0; round <= ROUNDS && Date.now() < DEADLINE; round++) {
  // Alternate which arm goes first, so neither always follows the other's leftovers.
  for (const arm of round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)) {
    const r = await block(arms[arm]);
    if (r.limited !== (arm === "on")) throw new Error(`arm ${arm}: RateLimit headers ${r.limited ? "present" : "missing"}`);
    if (round > 0) results[arm].push(r);
    console.log(`  round ${round}${round === 0 ? " (warm-up)" : ""} ${arm.padEnd(3)} ${r.rate.toFixed(0)} req/s, ${r.cpuUs.toFixed(1)} µs CPU/request`);
  }
}
const rate = { off: median(results.off.map((r) => r.rate)), on: median(results.on.map((r) => r.rate)) };
const cpu = { off: median(results.off.map((r) => r.cpuUs)), on: median(results.on.map((r) => r.cpuUs)) };
console.log(`median off: ${rate.off.toFixed(0)} req/s, ${cpu.off.toFixed(1)} µs CPU/request`);
console.log(`median on:  ${rate.on.toFixed(0)} req/s, ${cpu.on.toFixed(1)} µs CPU/request`);
console.log(`limiter: throughput ${(((rate.on - rate.off) / rate.off) * 100).toFixed(1)} %, CPU per request ${(((cpu.on - cpu.off) / cpu.off) * 100).toFixed(1)} % (target: overhead < 3 %)`);
rmSync(dir, { recursive: true, force: true });
cluster?.stop();
process.exit(0);
