// A burst of scheduled mail (issue 44): 2,000 messages scheduled for one and the same second, the
// full server (bun src/main.ts serve, in subprocesses) releasing and delivering them to a loopback
// SMTP sink behind a loopback DNS server. For each setting it prints, in ms after that second:
// the release (scheduled → queued, the history's message.queued) of the first and last message,
// the first and last 250 at the sink, and how many were released / delivered within 1 s, plus the
// median release → 250 (outbound claim, compose, SMTP) and each later history entry's median time
// after the release (where the time goes between the release and the 250). Settings, in one run, each on a fresh
// database: SQLite with one node (the anchor), PostgreSQL (fsync=on, synchronous_commit=on) with
// one node and with two nodes on one database; the ratios are PostgreSQL / SQLite of the last
// release and last 250.
//
//   bun scripts/bench/scheduled-burst.ts [messages=2000] [rounds=1]
//
// POSTHORN_BENCH_DATABASE=sqlite or postgres runs that engine's settings only; POSTHORN_BENCH_NODES=1
// leaves out the two-node setting. POSTHORN_BENCH_AB=NAME=a,b runs every setting once per value of
// the server's env setting NAME (e.g. POSTHORN_COMPOSE_CONCURRENCY=0,4), alternating their order
// from round to round, and prints each value's averages beside the first's. Bounded: every
// wait has a deadline (60 s for a burst to be delivered).
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath } from "../../src/db/connection.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { freePort, prepareDataDir, preparePostgresDatabase, spawnServer, type ServerProcess } from "../../test/e2e/fixtures/outbound-server.ts";
import { startSink } from "../../test/send/harness.ts";
import { startDnsServer } from "../../test/support/dns-server.ts";
import { durablePostgres } from "../../test/support/postgres.ts";

const TOTAL = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 1);
const ONLY = process.env.POSTHORN_BENCH_DATABASE;
/** How far ahead the burst is scheduled: its 4 batches of 500 must be accepted before (POSTHORN_BENCH_LEAD_MS). */
const LEAD_MS = Number(process.env.POSTHORN_BENCH_LEAD_MS ?? 10_000);
const AB = /^([A-Z0-9_]+)=(.+)$/.exec(process.env.POSTHORN_BENCH_AB ?? "");
const variants: (readonly [string, string] | null)[] = AB ? AB[2]!.split(",").map((v) => [AB[1]!, v] as const) : [null];

const servers = new Set<ServerProcess>();
process.on("exit", () => {
  for (const s of servers) s.proc.kill("SIGKILL");
});

const dns = await startDnsServer();
const sink = await startSink();
dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
dns.set("mx.dest.test", "A", ["127.0.0.1"]);
const cluster = ONLY === "sqlite" ? null : durablePostgres();
const uptime = () => Bun.spawnSync(["uptime"]).stdout.toString().trim().replace(/.*load average/, "load average");

type Figures = {
  releaseFirst: number;
  releaseLast: number;
  releasedIn1s: number;
  sinkFirst: number;
  /** The 250th message at the sink (the first 250 in). */
  sink250: number;
  sinkLast: number;
  deliveredIn1s: number;
  releaseTo250: number;
  /** Messages per second at the sink, from the first release to the last 250. */
  rate: number;
  stages: string;
};

async function burst(engine: "sqlite" | "postgres", nodes: number, variant: readonly [string, string] | null): Promise<Figures> {
  const dirs = Array.from({ length: nodes }, () => mkdtempSync(join(tmpdir(), "posthorn-bench-burst-")));
  const env: Record<string, string> = { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };
  if (variant) env[variant[0]] = variant[1];
  let token: string;
  let domain: string;
  let query: <R>(sql: string) => Promise<R[]>;
  let close: () => Promise<void>;
  if (engine === "postgres") {
    const url = await cluster!.createDatabase();
    const pg = await preparePostgresDatabase(url);
    token = pg.boot.project_token;
    domain = pg.domain;
    dns.set(`ph1._domainkey.${domain}`, "TXT", [dkimRecordContent(pg.publicKeyBase64)]);
    env.POSTHORN_DATABASE_URL = url;
    query = async <R>(sql: string) => ((await pg.sql.unsafe(sql)) as Record<string, unknown>[]).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])) as R);
    close = () => pg.sql.close();
  } else {
    const data = prepareDataDir(dirs[0]!);
    token = data.projectToken;
    domain = data.domain;
    dns.set(`ph1._domainkey.${domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
    let db: Database | null = null;
    query = async <R>(sql: string) => (db ??= new Database(databasePath(dirs[0]!), { readonly: true })).query(sql).all() as R[];
    close = async () => db?.close();
  }
  const started: ServerProcess[] = [];
  for (let i = 0; i < nodes; i++) {
    const s = await spawnServer({ dataDir: dirs[i]!, port: await freePort(), env: { ...env, POSTHORN_NODE_NAME: `node-${i}` } });
    servers.add(s);
    started.push(s);
  }
  sink.received.length = 0;
  const at = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
  const headers = { "content-type": "application/json", "x-service-token": token };
  for (let b = 0; b * 500 < TOTAL; b++) {
    const n = Math.min(500, TOTAL - b * 500);
    const body = Array.from({ length: n }, (_, i) => ({
      from: `app@${domain}`,
      to: [`user${b * 500 + i}@dest.test`],
      subject: `burst ${b * 500 + i}`,
      text: "A scheduled message of a burst.",
      scheduled_at: new Date(at).toISOString(),
    }));
    const res = await fetch(`${started[b % nodes]!.url}/v1/send/batch`, { method: "POST", headers, body: JSON.stringify(body) });
    if (res.status !== 202) throw new Error(`batch answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }
  if (Date.now() >= at) throw new Error("scheduling took past the chosen second: the run measures nothing");
  const deadline = at + 60_000;
  while (sink.received.length < TOTAL && Date.now() < deadline) await Bun.sleep(50);
  if (sink.received.length < TOTAL) throw new Error(`only ${sink.received.length} of ${TOTAL} delivered within 60 s`);
  const released = await query<{ message_id: string; t: number }>("SELECT message_id, created_at AS t FROM message_events WHERE kind = 'message.queued'");
  const relOf = new Map(released.map((r) => [r.message_id, Number(r.t)]));
  const rel = [...relOf.values()].map((t) => t - at).sort((a, b) => a - b);
  const got = sink.received.map((m) => m.at - at).sort((a, b) => a - b);
  const lags: number[] = [];
  for (const m of sink.received) {
    const id = /^Message-ID:\s*<([^@>]+)@/im.exec(m.raw.toString("latin1"))?.[1];
    const r = id ? relOf.get(id) : undefined;
    if (r !== undefined) lags.push(m.at - r);
  }
  lags.sort((a, b) => a - b);
  // Where the time goes after the release: each later history kind's median time after it.
  const history = await query<{ message_id: string; kind: string; t: number }>(
    "SELECT message_id, kind, min(created_at) AS t FROM message_events WHERE kind <> 'message.queued' GROUP BY message_id, kind",
  );
  const perKind = new Map<string, number[]>();
  for (const h of history) {
    const r = relOf.get(h.message_id);
    if (r !== undefined && Number(h.t) >= r) (perKind.get(h.kind) ?? perKind.set(h.kind, []).get(h.kind)!).push(Number(h.t) - r);
  }
  const stages = [...perKind]
    .map(([kind, xs]) => [kind, xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!] as const)
    .sort((a, b) => a[1] - b[1])
    .map(([kind, ms]) => `${kind} ${ms}`)
    .join(", ");
  for (const s of started) {
    s.proc.kill("SIGTERM");
    await s.proc.exited;
    servers.delete(s);
  }
  await close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  return {
    releaseFirst: rel[0]!,
    releaseLast: rel[rel.length - 1]!,
    releasedIn1s: rel.filter((t) => t < 1000).length,
    sinkFirst: got[0]!,
    sink250: got[Math.min(249, got.length - 1)]!,
    sinkLast: got[got.length - 1]!,
    deliveredIn1s: got.filter((t) => t < 1000).length,
    releaseTo250: lags[Math.floor(lags.length / 2)] ?? NaN,
    rate: Math.round((TOTAL * 1000) / Math.max(1, got[got.length - 1]! - rel[0]!)),
    stages,
  };
}

const settings: { engine: "sqlite" | "postgres"; nodes: number }[] = [];
if (ONLY !== "postgres") settings.push({ engine: "sqlite", nodes: 1 });
if (ONLY !== "sqlite") settings.push({ engine: "postgres", nodes: 1 });
if (ONLY !== "sqlite" && process.env.POSTHORN_BENCH_NODES !== "1") settings.push({ engine: "postgres", nodes: 2 });
const runs = settings.flatMap((s) => variants.map((variant) => ({ ...s, variant })));
const nameOf = (r: { engine: string; nodes: number; variant: readonly [string, string] | null }) =>
  `${r.engine} ${r.nodes} node${r.nodes > 1 ? "s" : ""}${r.variant ? ` ${r.variant[0].replace(/^POSTHORN_/, "")}=${r.variant[1]}` : ""}`;
const results = new Map<string, Figures[]>();
console.log(`${TOTAL} messages scheduled for one second; ms after that second. ${uptime()}`);
for (let round = 0; round < ROUNDS; round++) {
  for (const r of round % 2 === 0 ? runs : [...runs].reverse()) {
    const name = nameOf(r);
    const f = await burst(r.engine, r.nodes, r.variant);
    (results.get(name) ?? results.set(name, []).get(name)!).push(f);
    console.log(
      `${name.padEnd(18)} release first ${f.releaseFirst} last ${f.releaseLast} (${f.releasedIn1s} within 1 s) · 250 first ${f.sinkFirst}, 250th ${f.sink250}, last ${f.sinkLast} (${f.deliveredIn1s} within 1 s) · ${f.rate} msg/s · release→250 median ${f.releaseTo250} ms · ${uptime()}\n    history after the release (median ms): ${f.stages}`,
    );
  }
}
type Num = Exclude<keyof Figures, "stages">;
const avg = (fs: Figures[], k: Num) => fs.reduce((a, f) => a + f[k], 0) / fs.length;
const anchor = results.get(nameOf({ ...settings[0]!, variant: variants[0]! }));
if (anchor && !AB) {
  for (const [name, fs] of results) {
    if (fs === anchor) continue;
    console.log(`${name} / ${nameOf({ ...settings[0]!, variant: null })}: last release ${(avg(fs, "releaseLast") / avg(anchor, "releaseLast")).toFixed(2)}x, last 250 ${(avg(fs, "sinkLast") / avg(anchor, "sinkLast")).toFixed(2)}x`);
  }
}
if (AB) {
  // Each value beside the first, per setting: averages over the rounds.
  for (const s of settings) {
    const base = results.get(nameOf({ ...s, variant: variants[0]! }))!;
    for (const v of variants) {
      const fs = results.get(nameOf({ ...s, variant: v }))!;
      const cols = (["sinkFirst", "sink250", "sinkLast", "rate"] as Num[]).map((k) => `${k} ${avg(fs, k).toFixed(0)} (${(avg(fs, k) / avg(base, k)).toFixed(2)}x)`);
      console.log(`${nameOf({ ...s, variant: v })} over ${fs.length} rounds: ${cols.join(", ")}`);
    }
  }
}
sink.close();
dns.close();
cluster?.stop();
process.exit(0);
