// Sending benchmark against the real server (a subprocess: bun src/main.ts serve) on loopback,
// with synchronous=FULL, direct delivery through a loopback DNS server to an SMTP sink (in this
// process) playing the recipient's MX.
//
//   bun scripts/bench/send.ts [singleRequests=20000] [batches=20] [e2eMessages=10000]
//
// Prints: POST /v1/send accepted/s at 64 concurrent clients (p50/p99), POST /v1/send/batch of
// 500 (p50/p99), end-to-end accept → delivered rate, and the server's peak RSS.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath } from "../../src/db/connection.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { freePort, prepareDataDir, spawnServer } from "../../test/e2e/fixtures/outbound-server.ts";
import { startSink } from "../../test/send/harness.ts";
import { startDnsServer } from "../../test/support/dns-server.ts";

const SINGLE = Number(process.argv[2] ?? 20_000);
const BATCHES = Number(process.argv[3] ?? 20);
const E2E = Number(process.argv[4] ?? 10_000);
const CONCURRENCY = 64;
const DEADLINE_MS = 240_000;
const started = Date.now();

const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-send-"));
const data = prepareDataDir(dir);
const dns = await startDnsServer();
const sink = await startSink();
let received = 0;
sink.onData = () => {
  received++;
  return null;
};
dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
dns.set("mx.dest.test", "A", ["127.0.0.1"]);

const port = await freePort();
const server = await spawnServer({
  dataDir: dir,
  port,
  env: { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server },
});
const db = new Database(databasePath(dir), { readonly: true });
const headers = { "content-type": "application/json", "x-service-token": data.projectToken };
const email = (i: number) => ({
  from: `Bench <bench@${data.domain}>`,
  to: [`user${i}@dest.test`],
  subject: `Benchmark message ${i}`,
  html: `<p>Hello user ${i}, this is a benchmark message of about two kilobytes.</p>` + "<p>Lorem ipsum dolor sit amet. </p>".repeat(40),
  text: `Hello user ${i}`,
  tag: "bench",
});

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const delivered = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE status = 'delivered'").get()!.n;
const total = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM messages").get()!.n;

async function waitAllDelivered(limitMs: number): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until && Date.now() - started < DEADLINE_MS) {
    if (delivered() >= total()) return true;
    await Bun.sleep(50);
  }
  return false;
}

// Warm-up: JIT, connection pools, statement caches.
for (let i = 0; i < 200; i++) await fetch(`${server.url}/v1/send`, { method: "POST", headers, body: JSON.stringify(email(i)) });
await waitAllDelivered(30_000);

// 1. POST /v1/send, 64 concurrent clients.
const latencies: number[] = [];
let next = 0;
let failures = 0;
const t1 = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < SINGLE && Date.now() - started < DEADLINE_MS) {
      const i = next++;
      const t = performance.now();
      const res = await fetch(`${server.url}/v1/send`, { method: "POST", headers, body: JSON.stringify(email(i)) });
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res.status !== 202) failures++;
    }
  }),
);
const singleSecs = (performance.now() - t1) / 1000;
latencies.sort((a, b) => a - b);
const deliveredDuringSingle = delivered();
console.log(`POST /v1/send, ${CONCURRENCY} concurrent clients, ${latencies.length} requests (delivery running in the same server):`);
console.log(`  accepted: ${(latencies.length / singleSecs).toFixed(0)}/s   p50 ${fmt(pct(latencies, 50))}   p99 ${fmt(pct(latencies, 99))}   non-202: ${failures}`);
const drainStart = performance.now();
await waitAllDelivered(120_000);
console.log(`  backlog drained in ${((performance.now() - drainStart) / 1000).toFixed(1)} s (${deliveredDuringSingle} delivered during the burst)`);

// 2. POST /v1/send/batch of 500, sequential.
const batchLat: number[] = [];
for (let b = 0; b < BATCHES && Date.now() - started < DEADLINE_MS; b++) {
  const body = JSON.stringify(Array.from({ length: 500 }, (_, i) => email(b * 500 + i)));
  const t = performance.now();
  const res = await fetch(`${server.url}/v1/send/batch`, { method: "POST", headers, body });
  await res.arrayBuffer();
  batchLat.push(performance.now() - t);
  if (res.status !== 202) failures++;
}
batchLat.sort((a, b) => a - b);
console.log(`POST /v1/send/batch (500 emails, ~${(JSON.stringify(Array.from({ length: 500 }, (_, i) => email(i))).length / 1024).toFixed(0)} KB), ${batchLat.length} requests:`);
console.log(`  p50 ${fmt(pct(batchLat, 50))}   p99 ${fmt(pct(batchLat, 99))}`);
await waitAllDelivered(120_000);

// 3. End to end: accept E2E messages (batches of 500, 4 in flight) → all delivered at the sink.
const before = delivered();
const receivedBefore = received;
const t3 = performance.now();
let sent = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (sent < E2E) {
      const n = Math.min(500, E2E - sent);
      sent += n;
      const body = JSON.stringify(Array.from({ length: n }, (_, i) => email(sent + i)));
      const res = await fetch(`${server.url}/v1/send/batch`, { method: "POST", headers, body });
      await res.arrayBuffer();
    }
  }),
);
const acceptedAt = performance.now();
const ok = await waitAllDelivered(DEADLINE_MS);
const e2eSecs = (performance.now() - t3) / 1000;
console.log(`End to end, ${E2E} messages accepted (${((acceptedAt - t3) / 1000).toFixed(1)} s) → delivered status at the SMTP sink:`);
console.log(
  `  ${((delivered() - before) / e2eSecs).toFixed(0)} messages/s   (${(delivered() - before)} delivered in ${e2eSecs.toFixed(1)} s; sink received ${received - receivedBefore}${ok ? "" : "; NOT ALL DELIVERED before the deadline"})`,
);
console.log(`Server peak RSS: ${((server.peakRssKb() ?? 0) / 1024).toFixed(0)} MB`);

server.proc.kill("SIGTERM");
await server.proc.exited;
db.close();
await sink.close();
await dns.close();
rmSync(dir, { recursive: true, force: true });
