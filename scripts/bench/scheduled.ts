// Scheduled sending at scale: does a table of 1,000,000 scheduled messages slow the send path or
// the queue? One run, on loopback, durable (SQLite synchronous=FULL, or PostgreSQL with fsync and
// synchronous_commit=on under POSTHORN_BENCH_DATABASE=postgres), the server in a subprocess:
//
//   1. before the fill, the full server (bun src/main.ts serve): unscheduled mail accepted →
//      delivered to a lean SMTP sink through a loopback DNS server (messages/s), and a batch
//      scheduled for one second: how long after that second its first and last messages arrive;
//   2. the HTTP API alone (no job runner: nothing delivers while it fills): A/B window on the
//      empty table, batches of 500 alternating scheduled and unscheduled, one request at a time
//      (messages/s of each arm, and their ratio);
//   3. the fill: FILL scheduled messages (default 1,000,000) in batches of 500, spread over the
//      next three days, 2 clients: time to accept them, messages/s;
//   4. the A/B window again, with the fill in the table;
//   5. due work with the fill against an anchor: a second database without scheduled mail, the
//      same backlog of 20,000 unscheduled messages in each, the full server run on one and then
//      the other for 15 s from its first 250, 4 rounds in alternating order (messages/s);
//   6. the job queue's own statements on the database, the server stopped, before and after the
//      fill (the same probe both times): the scheduled lane's claim with nothing due (its idle
//      poll) and nextDue (its timer), the outbound lane's nextDue and a claim of 100 due jobs,
//      each a median.
//
// It prints the ratios after/before and scheduled/unscheduled: near 1 means no slowdown.
//
//   bun scripts/bench/scheduled.ts [fill=1000000] [e2eMessages=5000] [abPairs=20]
//
// POSTHORN_BENCH_FAST_FILL=100000 sends only that many through the API (timed, with an A/B window
// there) and copies them in the database up to the fill (the servers stopped), where a million
// through the API does not fit the run's time on the machine.
//
// Bounded: the fill stops at its count or when the run has used 11 minutes (it then says how far
// it got), and every wait has its own deadline; the whole run stays within about 15 minutes.
// POSTHORN_BENCH_FILL_MINUTES=N moves the fill's deadline (the run's grows with it), for a
// million through the API on a slow machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openStorage } from "../../src/db/connection.ts";
import { SqliteStore, type Store } from "../../src/db/store.ts";
import { openPostgresStore } from "../../src/db/store-postgres.ts";
import { Writer } from "../../src/db/writer.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { sha256Hex } from "../../src/ids.ts";
import { Database } from "bun:sqlite";
import { freePort, prepareDataDir, preparePostgresDatabase, spawnServer, type ServerProcess } from "../../test/e2e/fixtures/outbound-server.ts";
import { startDnsServer } from "../../test/support/dns-server.ts";
import { durablePostgres } from "../../test/support/postgres.ts";
import { startLeanSink } from "./lean-sink.ts";

const FILL = Number(process.argv[2] ?? 1_000_000);
const E2E = Number(process.argv[3] ?? 5_000);
const PAIRS = Number(process.argv[4] ?? 20);
/**
 * POSTHORN_BENCH_FAST_FILL=N: only the first N scheduled messages go through the API (timed), the
 * rest up to the fill are copies of them made in the database with the servers stopped: for a
 * machine where a million through the API does not fit the run's time.
 */
const API_FILL = Math.min(FILL, Number(process.env.POSTHORN_BENCH_FAST_FILL ?? FILL));
const BATCH = 500;
const started = Date.now();
const FILL_MINUTES = Number(process.env.POSTHORN_BENCH_FILL_MINUTES ?? 11);
const FILL_DEADLINE = started + FILL_MINUTES * 60_000;
const HARD_DEADLINE = FILL_DEADLINE + 5 * 60_000;
const left = () => HARD_DEADLINE - Date.now();

const ENGINE = process.env.POSTHORN_BENCH_DATABASE ?? "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error("POSTHORN_BENCH_DATABASE is sqlite or postgres");
const cluster = ENGINE === "postgres" ? durablePostgres() : null;
console.log(`database: ${cluster ? "PostgreSQL (fsync=on, synchronous_commit=on), loopback" : "SQLite (WAL, synchronous=FULL)"}; fill ${FILL.toLocaleString("en")} scheduled`);

/** The servers this run started: killed if it ends early (an error), so none outlives it. */
const servers = new Set<ServerProcess>();
process.on("exit", () => {
  for (const sv of servers) sv.proc.kill("SIGKILL");
});
async function start(apiOnly: boolean): Promise<ServerProcess> {
  const sv = await spawnServer({ dataDir: dir, port: await freePort(), env, apiOnly });
  servers.add(sv);
  return sv;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const ratio = (a: number, b: number) => (a / b).toFixed(3);

const dns = await startDnsServer();
const sink = startLeanSink();
dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
dns.set("mx.dest.test", "A", ["127.0.0.1"]);

const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-scheduled-"));
const env: Record<string, string> = { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };
let token: string;
let teamToken: string;
let mainKey: string;
let domain: string;
let dbUrl: string | null = null;
if (cluster) {
  dbUrl = await cluster.createDatabase();
  const pg = await preparePostgresDatabase(dbUrl);
  await pg.sql.close();
  token = pg.boot.project_token;
  mainKey = pg.publicKeyBase64;
  teamToken = pg.boot.team_token;
  domain = pg.domain;
  dns.set(`ph1._domainkey.${domain}`, "TXT", [dkimRecordContent(pg.publicKeyBase64)]);
  env.POSTHORN_DATABASE_URL = dbUrl;
} else {
  const data = prepareDataDir(dir);
  token = data.projectToken;
  mainKey = data.publicKeyBase64;
  teamToken = data.teamToken;
  domain = data.domain;
  dns.set(`ph1._domainkey.${domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
}
const headers = { "content-type": "application/json", "x-service-token": token };

/** Unscheduled messages accepted so far: the sink must receive each once the full server runs. */
let dueSent = 0;
let seq = 0;
const email = (scheduledAt?: string) => ({
  from: `Bench <bench@${domain}>`,
  to: [`user${seq++}@dest.test`],
  subject: `Scheduled benchmark ${seq}`,
  html: "<p>Hello, this is a benchmark message of about one kilobyte.</p>" + "<p>Lorem ipsum dolor sit amet. </p>".repeat(25),
  text: "Hello",
  ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
});

/** One batch of 500; `when(i)` gives each message's scheduled time, or undefined for none. Returns ms. */
async function batch(url: string, when: (i: number) => string | undefined): Promise<number> {
  const body = JSON.stringify(Array.from({ length: BATCH }, (_, i) => email(when(i))));
  const t = performance.now();
  const res = await fetch(`${url}/v1/send/batch`, { method: "POST", headers, body });
  const answer = (await res.json()) as { status: string }[] | { message: string };
  const ms = performance.now() - t;
  if (res.status !== 202 || !Array.isArray(answer)) throw new Error(`batch answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  const want = when(0) === undefined ? null : "scheduled";
  if (want && answer.some((a) => a.status !== want)) throw new Error(`a scheduled send answered status ${answer.find((a) => a.status !== want)!.status}`);
  if (!want) dueSent += BATCH;
  return ms;
}

/** Scheduled times spread from 1 hour to 3 days ahead over the fill. */
const FILL_START = Date.now() + 3_600_000;
const spread = (k: number) => new Date(FILL_START + Math.floor((k / Math.max(1, FILL)) * 3 * 86_400_000)).toISOString();
let filled = 0;

async function abWindow(url: string, label: string) {
  const lat = { scheduled: [] as number[], unscheduled: [] as number[] };
  // Warm-up, both arms: JIT, statement caches.
  for (let i = 0; i < 2; i++) {
    const base = filled;
    await batch(url, () => undefined);
    await batch(url, (k) => spread(base + k));
  }
  for (let p = 0; p < PAIRS && left() > 0; p++) {
    // Alternate which arm goes first, so drift within the window falls on both.
    const order = p % 2 === 0 ? (["scheduled", "unscheduled"] as const) : (["unscheduled", "scheduled"] as const);
    for (const arm of order) {
      const base = filled;
      lat[arm].push(await batch(url, arm === "scheduled" ? (i) => spread(base + i) : () => undefined));
    }
  }
  const rate = (xs: number[]) => (BATCH * xs.length) / (xs.reduce((a, b) => a + b, 0) / 1000);
  const r = { scheduled: rate(lat.scheduled), unscheduled: rate(lat.unscheduled) };
  console.log(
    `  A/B ${label}: ${PAIRS} pairs of batches of ${BATCH}, one request at a time: scheduled ${r.scheduled.toFixed(0)} msg/s (p50 ${median(lat.scheduled).toFixed(0)} ms), ` +
      `unscheduled ${r.unscheduled.toFixed(0)} msg/s (p50 ${median(lat.unscheduled).toFixed(0)} ms); scheduled / unscheduled ${ratio(r.scheduled, r.unscheduled)}`,
  );
  return r;
}

/** Waits (bounded) until the sink has every unscheduled message accepted so far. */
async function drained(limitMs: number): Promise<boolean> {
  const until = Date.now() + Math.min(limitMs, left());
  while (sink.received < dueSent && Date.now() < until) await Bun.sleep(20);
  return sink.received >= dueSent;
}

/** The full server's due work: E2E unscheduled accepted → received; then one batch scheduled for a whole second. */
async function dueWork(url: string, label: string) {
  await batch(url, () => undefined); // warm-up: JIT, pools, statement caches
  await drained(60_000);
  const before = sink.received;
  const t0 = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (sent < E2E) {
        sent += BATCH;
        await batch(url, () => undefined);
      }
    }),
  );
  const ok = await drained(180_000);
  const secs = (performance.now() - t0) / 1000;
  const rate = (sink.received - before) / secs;

  // One batch for a whole second 3 s ahead: when its first and last messages reach the MX.
  const at = Math.ceil((Date.now() + 3000) / 1000) * 1000;
  const iso = new Date(at).toISOString();
  const base = sink.received;
  await batch(url, () => iso);
  dueSent += BATCH; // due in 3 s: the sink is to receive these too
  let first = NaN;
  const until = at + 60_000;
  while (sink.received < base + BATCH && Date.now() < until) {
    if (Number.isNaN(first) && sink.received > base) first = Date.now() - at;
    await Bun.sleep(2);
  }
  const last = sink.received >= base + BATCH ? Date.now() - at : NaN;
  const early = Number.isNaN(first) ? 0 : first < 0 ? 1 : 0;
  console.log(
    `  due work ${label}: ${E2E} unscheduled accepted → received in ${secs.toFixed(1)} s: ${rate.toFixed(0)} msg/s${ok ? "" : " (NOT ALL RECEIVED in time)"}; ` +
      `${BATCH} scheduled for one second: first received ${first} ms, last ${last} ms after it${early ? " (EARLY)" : ""}`,
  );
  return { rate, first, last };
}

/** What the dashboard's queue view asks for: the first page of the team's queue (median of 10 requests, ms). */
async function queuePage(url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/v1/queue?page[size]=50`, { headers: { authorization: `Bearer ${teamToken}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET /v1/queue answered ${res.status}`);
    times.push(performance.now() - t);
  }
  return median(times);
}

async function stop(s: ServerProcess) {
  s.proc.kill("SIGTERM");
  await s.proc.exited;
  servers.delete(s);
}

/**
 * Copies up to `want` of the scheduled messages already in the database (the servers stopped):
 * each copy a new id, with its message row, contents, recipients (new ids) and scheduled job (the
 * same run_at), in transactions of 100,000 messages. Returns how many were copied.
 */
async function copyScheduled(want: number): Promise<number> {
  const CHUNK = 100_000;
  let done = 0;
  if (dbUrl) {
    const { postgresClient } = await import("../../src/db/postgres.ts");
    const sql = postgresClient(dbUrl, { max: 1 });
    const cols = async (table: string) =>
      ((await sql.unsafe("SELECT column_name AS c FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position", [table])) as { c: string }[]).map((r) => r.c);
    const [mc, cc, rc, jc] = [await cols("messages"), await cols("message_contents"), await cols("recipients"), await cols("jobs")];
    while (done < want) {
      const n = Math.min(CHUNK, want - done);
      await sql.begin(async (tx) => {
        await tx.unsafe(`CREATE TEMP TABLE copy_map ON COMMIT DROP AS SELECT id AS old, gen_random_uuid()::text AS new FROM messages WHERE status = 'scheduled' LIMIT ${n}`);
        const pick = (list: string[], map: Record<string, string>, alias: string) => list.map((c) => map[c] ?? `${alias}."${c}"`).join(", ");
        const q = (list: string[]) => list.map((c) => `"${c}"`).join(", ");
        await tx.unsafe(`INSERT INTO messages (${q(mc)}) SELECT ${pick(mc, { id: "m.new", message_id_header: "m.new || '@' || split_part(t.message_id_header, '@', 2)" }, "t")} FROM messages t JOIN copy_map m ON t.id = m.old`);
        await tx.unsafe(`INSERT INTO message_contents (${q(cc)}) SELECT ${pick(cc, { message_id: "m.new" }, "t")} FROM message_contents t JOIN copy_map m ON t.message_id = m.old`);
        await tx.unsafe(`INSERT INTO recipients (${q(rc)}) SELECT ${pick(rc, { id: "gen_random_uuid()::text", message_id: "m.new" }, "t")} FROM recipients t JOIN copy_map m ON t.message_id = m.old`);
        const jcols = jc.filter((c) => c !== "id");
        await tx.unsafe(
          `INSERT INTO jobs (${q(jcols)}) SELECT ${pick(jcols, { payload: "json_build_object('messageId', m.new)::text" }, "t")} FROM jobs t JOIN copy_map m ON (t.payload::jsonb ->> 'messageId') = m.old WHERE t.queue = 'scheduled'`,
        );
      });
      done += n;
    }
    await sql.close();
    return done;
  }
  const { Database } = await import("bun:sqlite");
  const db = new Database(databasePath(dir));
  db.exec("PRAGMA busy_timeout = 10000");
  const cols = (table: string) => db.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((r) => r.name);
  const [mc, cc, rc, jc] = [cols("messages"), cols("message_contents"), cols("recipients"), cols("jobs").filter((c) => c !== "id")];
  const uuid = "lower(printf('%s-%s-%s-%s-%s', hex(randomblob(4)), hex(randomblob(2)), hex(randomblob(2)), hex(randomblob(2)), hex(randomblob(6))))";
  const pick = (list: string[], map: Record<string, string>) => list.map((c) => map[c] ?? `t."${c}"`).join(", ");
  const q = (list: string[]) => list.map((c) => `"${c}"`).join(", ");
  while (done < want) {
    const n = Math.min(CHUNK, want - done);
    db.transaction(() => {
      db.exec(`CREATE TEMP TABLE copy_map AS SELECT id AS old, ${uuid} AS new FROM messages WHERE status = 'scheduled' LIMIT ${n}`);
      db.exec(`INSERT INTO messages (${q(mc)}) SELECT ${pick(mc, { id: "m.new", message_id_header: "m.new || substr(t.message_id_header, instr(t.message_id_header, '@'))" })} FROM messages t JOIN copy_map m ON t.id = m.old`);
      db.exec(`INSERT INTO message_contents (${q(cc)}) SELECT ${pick(cc, { message_id: "m.new" })} FROM message_contents t JOIN copy_map m ON t.message_id = m.old`);
      db.exec(`INSERT INTO recipients (${q(rc)}) SELECT ${pick(rc, { id: uuid, message_id: "m.new" })} FROM recipients t JOIN copy_map m ON t.message_id = m.old`);
      // One statement per job with the ids bound: a join on the payload's messageId walks every
      // scheduled job per copy (SQLite then uses only the queue part of jobs_message).
      const copyJob = db.prepare(
        `INSERT INTO jobs (${q(jc)}) SELECT ${pick(jc, { payload: "json_object('messageId', ?1)" })} FROM jobs t WHERE t.queue = 'scheduled' AND json_extract(payload, '$.messageId') = ?2`,
      );
      for (const m of db.query<{ old: string; new: string }, []>("SELECT old, new FROM copy_map").all()) copyJob.run(m.new, m.old);
      db.exec("DROP TABLE copy_map");
    })();
    done += n;
  }
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return done;
}

/** A database of its own for the anchor: the same team's token (its project answers to ours), an active domain, no scheduled mail. */
async function prepareAnchor(): Promise<{ dataDir: string; env: Record<string, string>; key: string }> {
  const anchorDir = mkdtempSync(join(tmpdir(), "posthorn-bench-scheduled-anchor-"));
  anchorDirs.push(anchorDir);
  if (cluster) {
    const url = await cluster.createDatabase();
    const pg = await preparePostgresDatabase(url);
    await pg.sql.unsafe("UPDATE projects SET token_hash = $1", [sha256Hex(token)]);
    await pg.sql.close();
    return { dataDir: anchorDir, env: { ...env, POSTHORN_DATABASE_URL: url }, key: pg.publicKeyBase64 };
  }
  const data = prepareDataDir(anchorDir);
  const db = new Database(databasePath(anchorDir));
  db.run("UPDATE projects SET token_hash = ?", [sha256Hex(token)]);
  db.close();
  return { dataDir: anchorDir, env, key: data.publicKeyBase64 };
}
const anchorDirs: string[] = [];

/** The full server on one database for `secs` from its first 250: messages/s the sink received. */
async function deliveryWindow(target: { dataDir: string; env: Record<string, string>; key: string }, secs: number): Promise<number> {
  dns.set(`ph1._domainkey.${domain}`, "TXT", [dkimRecordContent(target.key)]);
  const sv = await spawnServer({ dataDir: target.dataDir, port: await freePort(), env: target.env });
  servers.add(sv);
  try {
    const start = sink.received;
    const until = Date.now() + 30_000;
    while (sink.received === start && Date.now() < until) await Bun.sleep(5);
    const t0 = performance.now();
    const n0 = sink.received;
    await Bun.sleep(secs * 1000);
    return (sink.received - n0) / ((performance.now() - t0) / 1000);
  } finally {
    await stop(sv);
  }
}

/** The job queue's statements on the database itself (the server stopped). */
async function probe(label: string) {
  let store: Store;
  let close: () => Promise<void> | void;
  if (dbUrl) {
    store = await openPostgresStore(dbUrl, { poolSize: 4, poolWaitMs: 30_000 }, (d) => new Error(d));
    close = () => store.close();
  } else {
    const storage = openStorage(databasePath(dir));
    store = new SqliteStore(storage.sqlite, new Writer(storage.sqlite));
    close = () => storage.close();
  }
  // Probe jobs due since the epoch's first millisecond: claimed before any real backlog (ORDER BY run_at).
  await store.write(async (tx) => {
    for (let i = 0; i < 2000; i++) await tx.jobs.enqueue("outbound", { messageId: `probe-${i}` }, { runAt: 1 });
  });
  const due: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    const jobs = await store.write((tx) => tx.jobs.claim("outbound", 100, 10_000));
    due.push(performance.now() - t);
    if (jobs.length !== 100 || jobs.some((j) => !String((j.payload as { messageId: string }).messageId).startsWith("probe-"))) throw new Error("the probe claimed other jobs than its own");
    await store.write(async (tx) => {
      for (const j of jobs) await tx.jobs.complete(j);
    });
  }
  const next: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await store.read.jobs.nextDue("outbound");
    next.push(performance.now() - t);
  }
  // The scheduled queue's own lane, where the fill waits: its idle poll (nothing due) and its timer.
  const schedIdle: number[] = [];
  const schedNext: number[] = [];
  for (let i = 0; i < 50; i++) {
    let t = performance.now();
    const got = await store.write((tx) => tx.jobs.claim("scheduled", 100, 5_000));
    schedIdle.push(performance.now() - t);
    if (got.length > 0) throw new Error(`the probe claimed ${got.length} due scheduled jobs`);
    t = performance.now();
    await store.read.jobs.nextDue("scheduled");
    schedNext.push(performance.now() - t);
  }
  const depth = await store.read.jobs.depth("outbound");
  const waiting = await store.read.jobs.depth("scheduled");
  await close();
  const r = { due: median(due), next: median(next), schedIdle: median(schedIdle), schedNext: median(schedNext) };
  console.log(
    `  queue statements ${label} (${depth.toLocaleString("en")} outbound, ${waiting.toLocaleString("en")} scheduled jobs waiting): outbound claim of 100 due ${r.due.toFixed(2)} ms, nextDue ${r.next.toFixed(3)} ms; scheduled claim with nothing due ${r.schedIdle.toFixed(2)} ms, nextDue ${r.schedNext.toFixed(3)} ms (medians, each claim a committed write)`,
  );
  return r;
}

// ---- 1. Before the fill.
console.log("before the fill:");
const probeBefore = await probe("before");
let full = await start(false);
const dueBefore = await dueWork(full.url, "before");
await stop(full);

// ---- 2–4. The API alone: A/B, fill, A/B.
let api = await start(true);
const abBefore = await abWindow(api.url, "on the empty table");
const queueBefore = await queuePage(api.url);
console.log(`fill: ${API_FILL.toLocaleString("en")} scheduled messages through the API, batches of ${BATCH}, 2 clients, HTTP API alone:`);
const tFill = performance.now();
let lastReport = tFill;
const fillLat: number[] = [];
await Promise.all(
  Array.from({ length: 2 }, async () => {
    while (filled < API_FILL && Date.now() < FILL_DEADLINE) {
      const base = filled;
      filled += BATCH;
      fillLat.push(await batch(api.url, (i) => spread(base + i)));
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        console.log(`  ${filled.toLocaleString("en")} accepted after ${((lastReport - tFill) / 1000).toFixed(0)} s`);
      }
    }
  }),
);
const fillSecs = (performance.now() - tFill) / 1000;
const accepted = filled;
console.log(
  `  ${filled.toLocaleString("en")} scheduled accepted in ${fillSecs.toFixed(1)} s: ${(filled / fillSecs).toFixed(0)} msg/s; batch p50 ${median(fillLat).toFixed(0)} ms, p99 ${pct(fillLat, 99).toFixed(0)} ms` +
    (filled < API_FILL ? ` (STOPPED at the fill deadline, short of ${API_FILL.toLocaleString("en")})` : ""),
);
let abMid: { scheduled: number; unscheduled: number } | null = null;
if (filled < FILL) {
  // The faster fill path: the scheduled messages accepted so far copied, rows and jobs alike.
  abMid = await abWindow(api.url, `with ${filled.toLocaleString("en")} scheduled in the table`);
  await stop(api);
  const tCopy = performance.now();
  const copied = await copyScheduled(FILL - filled);
  filled += copied;
  console.log(`  copied in the database (not through the API): ${copied.toLocaleString("en")} more scheduled messages with their recipients, contents and jobs in ${((performance.now() - tCopy) / 1000).toFixed(0)} s`);
  api = await start(true);
}
const abAfter = await abWindow(api.url, `with ${filled.toLocaleString("en")} scheduled in the table`);
const queueAfter = await queuePage(api.url);
await stop(api);

// ---- 5. Due work with the fill against an anchor database without it, alternating: the same
// backlog of unscheduled mail in each, the full server started on one, then the other, and the
// 250s counted for a window from the first one.
console.log(`after the fill (${filled.toLocaleString("en")} scheduled waiting): due work against an anchor without scheduled mail`);
const anchor = await prepareAnchor();
const BACKLOG = 20_000;
for (const [where, target] of [["fill", { dataDir: dir, env }], ["anchor", anchor]] as const) {
  const sv = await spawnServer({ dataDir: target.dataDir, port: await freePort(), env: target.env, apiOnly: true });
  servers.add(sv);
  for (let b = 0; b < BACKLOG / BATCH; b++) await batch(sv.url, () => undefined);
  await stop(sv);
  void where;
}
const windows = { fill: [] as number[], anchor: [] as number[] };
for (let round = 0; round < 4; round++) {
  const order = round % 2 === 0 ? (["fill", "anchor"] as const) : (["anchor", "fill"] as const);
  for (const which of order) windows[which].push(await deliveryWindow(which === "fill" ? { dataDir: dir, env, key: mainKey } : anchor, 15));
}
console.log(
  `  due unscheduled mail delivered (msg/s over 15 s from the first 250, 4 rounds, order alternating): with the fill ${windows.fill.map((x) => x.toFixed(0)).join(", ")}; ` +
    `anchor ${windows.anchor.map((x) => x.toFixed(0)).join(", ")}; per round ${windows.fill.map((f, i) => (f / windows.anchor[i]!).toFixed(2)).join(", ")}`,
);
const probeAfter = await probe("after");

// ---- Ratios.
console.log("ratios (near 1: no slowdown):");
console.log(`  send API, scheduled / unscheduled: ${ratio(abBefore.scheduled, abBefore.unscheduled)} on the empty table, ${ratio(abAfter.scheduled, abAfter.unscheduled)} with the fill`);
if (abMid) console.log(`  send API, scheduled / unscheduled with the ${accepted.toLocaleString("en")} accepted: ${ratio(abMid.scheduled, abMid.unscheduled)}`);
console.log(`  send API, with the fill / empty: scheduled ${ratio(abAfter.scheduled, abBefore.scheduled)}, unscheduled ${ratio(abAfter.unscheduled, abBefore.unscheduled)}`);
const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
console.log(`  due unscheduled mail delivered, with the fill / anchor without: ${ratio(total(windows.fill), total(windows.anchor))}`);
console.log(
  `  queue statements, with the fill / empty (time; below 1: faster): outbound claim of 100 due ${ratio(probeAfter.due, probeBefore.due)}, nextDue ${ratio(probeAfter.next, probeBefore.next)}; ` +
    `scheduled idle claim ${ratio(probeAfter.schedIdle, probeBefore.schedIdle)}, nextDue ${ratio(probeAfter.schedNext, probeBefore.schedNext)}`,
);
console.log(`  GET /v1/queue (first page of 50, the dashboard's queue view), with the fill / empty: ${ratio(queueAfter, queueBefore)} (${queueBefore.toFixed(1)} → ${queueAfter.toFixed(1)} ms)`);
console.log(`  total run ${((Date.now() - started) / 1000).toFixed(0)} s`);

sink.close();
await dns.close();
cluster?.stop();
rmSync(dir, { recursive: true, force: true });
for (const d of anchorDirs) rmSync(d, { recursive: true, force: true });
