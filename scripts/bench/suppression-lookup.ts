// The suppression check of the send path (issue 44: email, domain and extension suppressions and
// the global list) against the address-only check it replaced, A/B in one run: one app in this
// process, POST /v1/send through app.handle at 64 concurrent clients, 3 recipients per message
// (to, cc, bcc at distinct domains, one of them three labels deep), alternated blocks of
// `perBlock` requests. Arm "address-only" swaps in the statement the send path ran before (the
// team's address suppressions only: email IN the recipients); arm "typed" is the code as it is
// (the addresses, their domains and every suffix of the domains, in the team's list and the
// global list, one statement). The table holds `rows` suppressions (60 % addresses,
// 30 % domains, 10 % extensions) of the bench's team and a global list of rows/10, none matching the bench's
// recipients, so both arms deliver the same mail. Prints per arm the median requests/s and CPU per
// request, and the typed/address-only ratios.
//
//   bun scripts/bench/suppression-lookup.ts [rounds=6] [perBlock=2000] [rows=50000]
//   POSTHORN_BENCH_DATABASE=postgres   the same on PostgreSQL (a cluster of its own on loopback, fsync on)
//
// Bounded: every block stops at its count, the whole run at 5 minutes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { SuppressionRepository, type SuppressionHit } from "../../src/db/suppressions.ts";
import { newId } from "../../src/ids.ts";
import { openDeps } from "../../src/runtime.ts";
import { prepareDataDir, preparePostgresDatabase } from "../../test/e2e/fixtures/outbound-server.ts";
import { durablePostgres } from "../../test/support/postgres.ts";

const ROUNDS = Number(process.argv[2] ?? 6);
const PER_BLOCK = Number(process.argv[3] ?? 2000);
const ROWS = Number(process.argv[4] ?? 50_000);
const CONCURRENCY = 64;
const DEADLINE = Date.now() + 300_000;
const ENGINE = process.env.POSTHORN_BENCH_DATABASE ?? "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error("POSTHORN_BENCH_DATABASE is sqlite or postgres");

const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-suppressions-"));
const cluster = ENGINE === "postgres" ? durablePostgres() : null;
let data: { projectToken: string; domain: string; teamId: string };
const env: Record<string, string> = { POSTHORN_DATA_DIR: dir, POSTHORN_LOG_LEVEL: "error", POSTHORN_DELIVERY: "sink", POSTHORN_SMTP_PORT: "0", POSTHORN_SUBMISSION_PORT: "0", POSTHORN_RATE_LIMIT_SEND: "0" };
if (cluster) {
  const url = await cluster.createDatabase();
  const pg = await preparePostgresDatabase(url);
  await pg.sql.close();
  data = { projectToken: pg.boot.project_token, domain: pg.domain, teamId: pg.boot.team_id };
  env.POSTHORN_DATABASE_URL = url;
} else {
  const d = prepareDataDir(dir);
  data = { projectToken: d.projectToken, domain: d.domain, teamId: d.teamId };
}
const deps = await openDeps(loadConfig(env));
const app = createApp(deps);

// The table: all of it the bench team's (the worst case for its lookups); nothing matches the recipients below (dest*.test).
const t0 = Date.now();
for (let done = 0; done < ROWS; ) {
  await deps.store.write(async (tx) => {
    for (const end = Math.min(ROWS, done + 5000); done < end; done++) {
      const kind = done % 10;
      const type = kind < 6 ? "email" : kind < 9 ? "domain" : "extension";
      const value = type === "email" ? `user${done}@list${done % 997}.example` : type === "domain" ? `blocked${done}.example` : `ext${done}`;
      await tx.suppressions.add({
        id: newId(), team_id: data.teamId, scope: "team", project_id: null, route_id: null, scope_key: "team",
        type, email: value, reason: "manual", source_message_id: null, created_at: Date.now(),
      });
      if (done % 10 === 0) await tx.suppressions.addGlobal({ id: newId(), type: type === "email" ? "email" : "domain", value: `g${value}`, reason: "manual", created_at: Date.now() });
    }
  });
}
console.log(`database: ${ENGINE}; ${ROWS} team suppressions + ${Math.ceil(ROWS / 10)} global, seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

// Arm address-only: the statement of the send path before issue 44 (addresses, the team's list only).
const typed = SuppressionRepository.prototype.hitsAmong;
function addressOnly(this: SuppressionRepository, teamId: string, scopeKeys: readonly string[], values: readonly string[]): Promise<SuppressionHit[]> {
  const emails = values.filter((v) => v.includes("@"));
  const db = (this as unknown as { db: { all<T>(sql: string, params: unknown[], opts?: { dynamic: boolean }): Promise<T[]> } }).db;
  return db
    .all<{ email: string }>(
      `SELECT email FROM suppressions WHERE team_id = ? AND scope_key IN (${scopeKeys.map(() => "?").join(",")}) AND email IN (${emails.map(() => "?").join(",")})`,
      [teamId, ...scopeKeys, ...emails],
      { dynamic: true },
    )
    .then((rows) => rows.map((r) => ({ type: "email" as const, value: r.email, scope: "team", reason: "manual" })));
}
const arms = { "address-only": addressOnly, typed } as const;
type Arm = keyof typeof arms;

const body = (i: number) =>
  JSON.stringify({
    from: `Bench <bench@${data.domain}>`,
    to: [`user${i}@dest${i % 50}.test`],
    cc: [`copy${i}@mail.dest${i % 7}.co.test`],
    bcc: [`archive@a.b.dest${i % 3}.test`],
    subject: `Benchmark message ${i}`,
    text: `Hello user ${i}, a short benchmark message.`,
  });

let sent = 0;
async function block(arm: Arm): Promise<{ rate: number; cpuUs: number }> {
  SuppressionRepository.prototype.hitsAmong = arms[arm];
  let next = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PER_BLOCK && Date.now() < DEADLINE) {
        const text = body(sent + next++);
        const res = await app.handle(
          new Request("http://localhost/v1/send", {
            method: "POST",
            headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), "x-service-token": data.projectToken },
            body: text,
          }),
        );
        const answer = (await res.json()) as { status?: string };
        if (res.status !== 202 || answer.status !== "pending") throw new Error(`${res.status} ${JSON.stringify(answer)} from /v1/send`);
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  sent += next;
  return { rate: next / secs, cpuUs: (cpu.user + cpu.system) / next };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<Arm, { rate: number; cpuUs: number }[]> = { "address-only": [], typed: [] };
console.log(`${ROUNDS} rounds of ${PER_BLOCK} sends (3 recipients each) per arm, ${CONCURRENCY} concurrent, alternated (one warm-up round each, not counted)`);
for (let round = 0; round <= ROUNDS && Date.now() < DEADLINE; round++) {
  for (const arm of round % 2 === 0 ? (["address-only", "typed"] as const) : (["typed", "address-only"] as const)) {
    const r = await block(arm);
    if (round > 0) results[arm].push(r);
    console.log(`  round ${round}${round === 0 ? " (warm-up)" : ""} ${arm.padEnd(12)} ${r.rate.toFixed(0)} req/s, ${r.cpuUs.toFixed(1)} µs CPU/request`);
  }
}
SuppressionRepository.prototype.hitsAmong = typed;
const rate = { a: median(results["address-only"].map((r) => r.rate)), b: median(results.typed.map((r) => r.rate)) };
const cpu = { a: median(results["address-only"].map((r) => r.cpuUs)), b: median(results.typed.map((r) => r.cpuUs)) };
console.log(`median address-only: ${rate.a.toFixed(0)} req/s, ${cpu.a.toFixed(1)} µs CPU/request`);
console.log(`median typed:        ${rate.b.toFixed(0)} req/s, ${cpu.b.toFixed(1)} µs CPU/request`);
console.log(`typed / address-only: throughput ${(rate.b / rate.a).toFixed(3)}, CPU per request ${(cpu.b / cpu.a).toFixed(3)}`);
await deps.store.close();
rmSync(dir, { recursive: true, force: true });
cluster?.stop();
process.exit(0);
