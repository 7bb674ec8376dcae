// Sending benchmark on loopback, synchronous=FULL, the server in a subprocess:
//   1. POST /v1/send at 64 concurrent clients against the HTTP API alone (no job runner), then
//      against the full server (bun src/main.ts serve) while it delivers what it accepts;
//   2. POST /v1/send/batch of 500 against the full server;
//   3. end to end: accepted → "delivered" status, direct delivery through a loopback DNS server
//      to an SMTP sink (in this process) playing the recipients' MX: POSTHORN_BENCH_SINK=lean
//      (default, plain SMTP like Postfix's smtp-sink) or smtp-server (full receiver, STARTTLS);
//   4. the full server's peak RSS.
//
// POSTHORN_BENCH_DKIM=rsa|dual (the A/B of issue 16) picks the DKIM signatures of the full
// server's messages; the run prints those of one delivered message either way.
//
// POSTHORN_BENCH_DATABASE=postgres runs the same on PostgreSQL: a cluster of its own on loopback
// with production durability (fsync, synchronous_commit=on), a fresh database per server.
//
//   bun scripts/bench/send.ts [singleRequests=20000] [batches=20] [e2eMessages=10000]
//
// POSTHORN_BENCH_BINARY=dist/posthorn runs the full server from the built executable (`npm run
// build`) instead of from source: what users run, and without the transpiler's memory.
//
// A count of 0 skips its phases (e.g. `send.ts 0 0 5000` measures end to end only).
//
// Bounded: every phase stops at its count or at the overall deadline (5 minutes).
import { Database } from "bun:sqlite";
import type { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath } from "../../src/db/connection.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { freePort, prepareDataDir, preparePostgresDatabase, spawnServer, type ServerProcess } from "../../test/e2e/fixtures/outbound-server.ts";
import { durablePostgres } from "../../test/support/postgres.ts";
import { startSink } from "../../test/send/harness.ts";
import { startLeanSink } from "./lean-sink.ts";
import { startDnsServer } from "../../test/support/dns-server.ts";

const SINGLE = Number(process.argv[2] ?? 20_000);
const BATCHES = Number(process.argv[3] ?? 20);
const E2E = Number(process.argv[4] ?? 10_000);
const CONCURRENCY = 64;
const started = Date.now();
const DEADLINE = started + 300_000;
const timeLeft = () => DEADLINE - Date.now();

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

const ENGINE = process.env.POSTHORN_BENCH_DATABASE ?? "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error("POSTHORN_BENCH_DATABASE is sqlite or postgres");
const cluster = ENGINE === "postgres" ? durablePostgres() : null;
console.log(`database: ${ENGINE === "postgres" ? "PostgreSQL (fsync=on, synchronous_commit=on), loopback" : "SQLite (WAL, synchronous=FULL)"}`);
console.log(`full server: ${process.env.POSTHORN_BENCH_BINARY ? `${process.env.POSTHORN_BENCH_BINARY} serve (built executable)` : "bun src/main.ts serve (from source)"}`);

/** CPU seconds (user + system) used so far by every PostgreSQL server process on this machine. */
function postgresCpuSeconds(): number {
  const fs = require("node:fs") as typeof import("node:fs");
  let total = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("postgres")) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** Counts on the server's database, whichever engine. */
interface Counter {
  count(sql: string): Promise<number>;
  close(): Promise<void>;
}

const dns = await startDnsServer();
/**
 * The recipients' MX. "lean" (default): a minimal sink like Postfix's smtp-sink, plain SMTP with
 * PIPELINING, so that little of this 2-core machine goes to receiving. "smtp-server": the test
 * harness's full receiver (smtp-server, STARTTLS offered and used), as a real MX would be.
 */
const SINK_KIND = process.env.POSTHORN_BENCH_SINK ?? "lean";
if (SINK_KIND !== "lean" && SINK_KIND !== "smtp-server") throw new Error("POSTHORN_BENCH_SINK is lean or smtp-server");
const sink = SINK_KIND === "lean" ? startLeanSink() : await startSink();
let smtpServerReceived = 0;
if ("onData" in sink)
  sink.onData = () => {
    smtpServerReceived++;
    return null;
  };
const receivedCount = () => ("onData" in sink ? smtpServerReceived : sink.received);
dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
dns.set("mx.dest.test", "A", ["127.0.0.1"]);

// POSTHORN_BENCH_TRACKING=off|on (the A/B of issue 13): the HTML has 20 links (about 4 KB), and
// "on" asks for open and click tracking, so each message is rewritten for its recipient.
const TRACKING = process.env.POSTHORN_BENCH_TRACKING ?? null;
if (TRACKING !== null && TRACKING !== "on" && TRACKING !== "off") throw new Error("POSTHORN_BENCH_TRACKING is on or off");
const LINKS = Array.from({ length: 20 }, (_, k) => `<p><a href="https://shop.example/products/${k}?utm_source=mail&amp;utm_medium=email">Product ${k}</a></p>`).join("");

// POSTHORN_BENCH_DKIM: the bench domain is written without an Ed25519 key, so the server's start
// gives it one with a pending dkim_ed25519 record, and RSA alone signs ("rsa", also when unset).
// "dual" publishes that record in the loopback DNS and verifies the domain through the API, as a
// user would, so every message carries ed25519-sha256 and rsa-sha256 signatures.
const DKIM = process.env.POSTHORN_BENCH_DKIM ?? null;
if (DKIM !== null && DKIM !== "rsa" && DKIM !== "dual") throw new Error("POSTHORN_BENCH_DKIM is rsa or dual");

type BenchRecord = { kind: string; key_state: string | null; fqdn: string; content: string; status: string };

/** Publishes and verifies the Ed25519 record for "dual"; for "rsa" checks it is still pending. */
async function applyDkimArm(url: string, teamToken: string, domain: string): Promise<void> {
  const auth = { authorization: `Bearer ${teamToken}` };
  const list = (await (await fetch(`${url}/v1/domains?page[size]=100`, { headers: auth })).json()) as { data: { id: string; domain: string; dns_records: BenchRecord[] }[] };
  const d = list.data.find((x) => x.domain === domain)!;
  const ed = d.dns_records.find((r) => r.kind === "dkim_ed25519" && r.key_state === "current");
  if (!ed) throw new Error("the bench domain has no Ed25519 record: the server did not give it a key");
  if (DKIM !== "dual") {
    if (ed.status === "active") throw new Error("the Ed25519 record is active: RSA would not sign alone");
    return;
  }
  dns.set(ed.fqdn, "TXT", [ed.content]);
  const verified = (await (await fetch(`${url}/v1/domains/${d.id}/dns-records/verify`, { method: "POST", headers: auth })).json()) as { data: { dns_records: BenchRecord[] } };
  if (verified.data.dns_records.find((r) => r.fqdn === ed.fqdn)?.status !== "active") throw new Error("the Ed25519 record did not verify");
}

/** The a= of each DKIM-Signature of a message the full server sent, read back through the API. */
async function signaturesOfOneMessage(url: string, token: string, teamToken: string, domain: string, wait: () => Promise<boolean>): Promise<string[]> {
  const res = await fetch(`${url}/v1/send`, { method: "POST", headers: { "content-type": "application/json", "x-service-token": token }, body: JSON.stringify(email(domain, 0)) });
  const id = ((await res.json()) as { message_id: string }).message_id;
  await wait();
  const source = await (await fetch(`${url}/v1/messages/${id}/source`, { headers: { authorization: `Bearer ${teamToken}` } })).text();
  const headerBlock = source.slice(0, source.indexOf("\r\n\r\n"));
  return [...headerBlock.matchAll(/^DKIM-Signature:[^]*?\ba=([a-z0-9-]+);/gim)].map((m) => m[1]!);
}

function email(domain: string, i: number) {
  return {
    from: `Bench <bench@${domain}>`,
    to: [`user${i}@dest.test`],
    subject: `Benchmark message ${i}`,
    html: `<p>Hello user ${i}, this is a benchmark message of about two kilobytes.</p>` + "<p>Lorem ipsum dolor sit amet. </p>".repeat(40) + (TRACKING ? LINKS : ""),
    text: `Hello user ${i}`,
    tag: "bench",
    ...(TRACKING === "on" ? { track_opens: true, track_clicks: true } : {}),
  };
}

/** 64 clients, keep-alive, POST /v1/send until `count` requests. */
async function singleSends(url: string, token: string, domain: string, count: number) {
  const headers = { "content-type": "application/json", "x-service-token": token };
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count && timeLeft() > 0) {
        const i = next++;
        const t = performance.now();
        const res = await fetch(`${url}/v1/send`, { method: "POST", headers, body: JSON.stringify(email(domain, i)) });
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        if (res.status !== 202) failures++;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: latencies.length / secs, n: latencies.length, p50: pct(latencies, 50), p99: pct(latencies, 99), failures };
}

async function setup(apiOnly: boolean): Promise<{ dir: string; server: ServerProcess; token: string; teamToken: string; domain: string; db: Counter }> {
  const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-send-"));
  const env: Record<string, string> = { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };
  let data: { projectToken: string; teamToken: string; domain: string; publicKeyBase64: string };
  let db: Counter;
  if (cluster) {
    const url = await cluster.createDatabase();
    const pg = await preparePostgresDatabase(url);
    data = { projectToken: pg.boot.project_token, teamToken: pg.boot.team_token, domain: pg.domain, publicKeyBase64: pg.publicKeyBase64 };
    env.POSTHORN_DATABASE_URL = url;
    const sql: SQL = pg.sql;
    db = { count: async (q) => Number(((await sql.unsafe(q)) as { n: bigint }[])[0]!.n), close: () => sql.close() };
  } else {
    data = prepareDataDir(dir);
    const sqlite = new Database(databasePath(dir), { readonly: true });
    db = { count: async (q) => sqlite.query<{ n: number }, []>(q).get()!.n, close: async () => sqlite.close() };
  }
  dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
  const server = await spawnServer({ dataDir: dir, port: await freePort(), apiOnly, env });
  return { dir, server, token: data.projectToken, teamToken: data.teamToken, domain: data.domain, db };
}

async function teardown(s: { dir: string; server: ServerProcess; db: Counter }) {
  s.server.proc.kill("SIGTERM");
  await s.server.proc.exited;
  await s.db.close();
  rmSync(s.dir, { recursive: true, force: true });
}

// ---- 1a. The API alone (skipped when singleRequests is 0, as is 1b).
if (SINGLE > 0) {
  const s = await setup(true);
  await singleSends(s.server.url, s.token, s.domain, 500); // warm-up
  const cpuBefore = s.server.cpuSeconds();
  const pgCpuBefore = cluster ? postgresCpuSeconds() : 0;
  const clientCpu = process.cpuUsage();
  const r = await singleSends(s.server.url, s.token, s.domain, SINGLE);
  const cpuAfter = s.server.cpuSeconds();
  const { user, system } = process.cpuUsage(clientCpu);
  const pgCpu = cluster ? postgresCpuSeconds() - pgCpuBefore : 0;
  console.log(`POST /v1/send, ${CONCURRENCY} concurrent clients, HTTP API alone (no job runner), ${r.n} requests:`);
  console.log(`  accepted: ${r.rate.toFixed(0)}/s   p50 ${fmt(r.p50)}   p99 ${fmt(r.p99)}   non-202: ${r.failures}`);
  if (cpuBefore && cpuAfter) {
    const perRequest = (secs: number) => `${((secs * 1000) / r.n).toFixed(3)} ms`;
    const server = cpuAfter.process - cpuBefore.process;
    // One thread runs every handler: its share bounds the rate whatever the other core does.
    const eventLoop = cpuAfter.mainThread - cpuBefore.mainThread;
    console.log(`  CPU per request: ${perRequest(server)} in the server process (${perRequest(eventLoop)} on its event-loop thread)${cluster ? `, ${perRequest(pgCpu)} in PostgreSQL (together ${perRequest(server + pgCpu)})` : ""}`);
    // The HTTP clients share the 2 cores with the server: their cost bounds what the server can be shown to do.
    console.log(`  CPU per request of this process (the HTTP clients): ${perRequest((user + system) / 1e6)}`);
  }
  await teardown(s);
}

// ---- 1b, 2, 3. The full server, delivering to the sink.
const s = await setup(false);
// Server + agent as PSS too, sampled every 100 ms: the peaks of their RSS, printed at the end as
// the issue's figure, count the pages of the executable they share twice.
let peakPssKb = 0;
const pssSampler = setInterval(() => (peakPssKb = Math.max(peakPssKb, s.server.pssKb() ?? 0)), 100);
const delivered = () => s.db.count("SELECT count(*) AS n FROM messages WHERE status = 'delivered'");
const total = () => s.db.count("SELECT count(*) AS n FROM messages");
/**
 * Waits until every accepted message reads delivered. The sink's own count gates the database
 * polls: counting a growing table every few ms would take CPU from the server on this 2-core box.
 */
async function waitAllDelivered(): Promise<boolean> {
  while (timeLeft() > 0) {
    const all = await total();
    if (receivedCount() >= all && (await delivered()) >= all) return true;
    await Bun.sleep(receivedCount() >= all ? 10 : 100);
  }
  return false;
}
await applyDkimArm(s.server.url, s.teamToken, s.domain);
await singleSends(s.server.url, s.token, s.domain, 500); // warm-up: JIT, pools, statement caches
await waitAllDelivered();
console.log(`DKIM signatures of each message: ${(await signaturesOfOneMessage(s.server.url, s.token, s.teamToken, s.domain, waitAllDelivered)).join(" + ")} (POSTHORN_BENCH_DKIM=${DKIM ?? "unset: rsa"})`);

if (SINGLE > 0) {
  const full = await singleSends(s.server.url, s.token, s.domain, SINGLE);
  const deliveredDuring = await delivered();
  console.log(`POST /v1/send, ${CONCURRENCY} concurrent clients, full server delivering as it accepts, ${full.n} requests:`);
  console.log(`  accepted: ${full.rate.toFixed(0)}/s   p50 ${fmt(full.p50)}   p99 ${fmt(full.p99)}   non-202: ${full.failures}`);
  const drainStart = performance.now();
  await waitAllDelivered();
  console.log(`  (${deliveredDuring - 500} delivered during the burst; backlog drained ${((performance.now() - drainStart) / 1000).toFixed(1)} s later)`);
}

const headers = { "content-type": "application/json", "x-service-token": s.token };
const batchLat: number[] = [];
let batchFailures = 0;
for (let b = 0; b < BATCHES && timeLeft() > 0; b++) {
  const body = JSON.stringify(Array.from({ length: 500 }, (_, i) => email(s.domain, b * 500 + i)));
  const t = performance.now();
  const res = await fetch(`${s.server.url}/v1/send/batch`, { method: "POST", headers, body });
  await res.arrayBuffer();
  batchLat.push(performance.now() - t);
  if (res.status !== 202) batchFailures++;
  await Bun.sleep(100); // one batch at a time, each on a server busy delivering the previous ones
}
if (batchLat.length > 0) {
  batchLat.sort((a, b) => a - b);
  const batchKb = JSON.stringify(Array.from({ length: 500 }, (_, i) => email(s.domain, i))).length / 1024;
  console.log(`POST /v1/send/batch, 500 emails (${batchKb.toFixed(0)} KB), ${batchLat.length} requests, full server:`);
  console.log(`  p50 ${fmt(pct(batchLat, 50))}   p99 ${fmt(pct(batchLat, 99))}   non-202: ${batchFailures}`);
  await waitAllDelivered();
}

const before = await delivered();
const receivedBefore = receivedCount();
const benchCpuBefore = process.cpuUsage();
const cpuBefore = s.server.cpuSeconds();
const pgCpuBefore = cluster ? postgresCpuSeconds() : 0;
const t3 = performance.now();
let sent = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (sent < E2E && timeLeft() > 0) {
      const n = Math.min(500, E2E - sent);
      const from = sent;
      sent += n;
      const body = JSON.stringify(Array.from({ length: n }, (_, i) => email(s.domain, from + i)));
      const res = await fetch(`${s.server.url}/v1/send/batch`, { method: "POST", headers, body });
      await res.arrayBuffer();
    }
  }),
);
const acceptedSecs = (performance.now() - t3) / 1000;
const ok = await waitAllDelivered();
const e2eSecs = (performance.now() - t3) / 1000;
const n = (await delivered()) - before;
const benchCpu = process.cpuUsage(benchCpuBefore);
const cpuAfter = s.server.cpuSeconds();
const pgCpu = cluster ? postgresCpuSeconds() - pgCpuBefore : 0;
console.log(`End to end, ${E2E} messages to the ${SINK_KIND} sink: accepted in ${acceptedSecs.toFixed(1)} s, all delivered (status) after ${e2eSecs.toFixed(1)} s:`);
console.log(`  ${(n / e2eSecs).toFixed(0)} messages/s accepted → delivered   (sink received ${receivedCount() - receivedBefore}${ok ? "" : "; NOT ALL DELIVERED before the deadline"})`);
if (cpuBefore && cpuAfter) {
  const perMessage = (secs: number) => `${((secs * 1000) / n).toFixed(2)} ms`;
  const server = cpuAfter.process - cpuBefore.process;
  const agent = cpuAfter.agent - cpuBefore.agent;
  console.log(
    `  server CPU per message: ${perMessage(server + agent)} in all: ${perMessage(server)} in the server process` +
      ` (${perMessage(cpuAfter.mainThread - cpuBefore.mainThread)} on its event-loop thread, busy ${((100 * (cpuAfter.mainThread - cpuBefore.mainThread)) / e2eSecs).toFixed(0)} % of the time)` +
      ` + ${perMessage(agent)} in its SMTP agent process`,
  );
  console.log(`  this process (sink, DNS, HTTP clients) CPU per message: ${((benchCpu.user + benchCpu.system) / 1000 / n).toFixed(2)} ms`);
  if (cluster) console.log(`  PostgreSQL server processes CPU per message: ${perMessage(pgCpu)} (server + agent + PostgreSQL: ${perMessage(server + agent + pgCpu)})`);
}
clearInterval(pssSampler);
const mb = (kb: number | null) => ((kb ?? 0) / 1024).toFixed(0);
console.log(`Full server peak RSS: ${mb(s.server.peakRssKb())} MB, its SMTP agent ${mb(s.server.agentPeakRssKb())} MB`);
console.log(`  together: ${mb((s.server.peakRssKb() ?? 0) + (s.server.agentPeakRssKb() ?? 0))} MB RSS (target ≤ 200), ${mb(peakPssKb)} MB PSS at the sampled peak (shared pages once)`);

await teardown(s);
await sink.close();
await dns.close();
cluster?.stop();
