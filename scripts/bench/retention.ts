// Retention benchmark (issue 15), SQLite (WAL, synchronous=FULL), the server in a subprocess:
//   1. builds a database with N old final messages (default 200,000: bodies, raw source, events,
//      webhook delivery logs, one in ten with an attachment), accepted 10–40 days ago, plus one
//      message accepted 4 days ago and still being retried (older than the 3-day window);
//   2. switches the file to incremental auto-vacuum (the one-time VACUUM an existing install
//      does at its first start) and times it;
//   3. baseline: the full server with retention off, POST /v1/send at 64 clients for a while,
//      delivering to a lean SMTP sink on loopback;
//   4. the same server with POSTHORN_RETENTION_DAYS=3: the purge starts at once, under the same
//      send load for its first minute; then the throughput and p50/p99 of both periods, the
//      purge's duration and rate, the file's size before and after (once the delivery backlog
//      has drained), and whether the old queued message was delivered.
//
//   bun scripts/bench/retention.ts [oldMessages=200000] [baselineSeconds=20] [loadDuringPurgeSeconds=60]
//
// Under load, the freed pages are reused at once by the mail being sent, so the file grows by less
// than it would without the purge; `… 200000 0 0` (no sends) shows what the purge gives back alone.
//
// Bounded: the purge period stops at 10 minutes whatever happens.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath } from "../../src/db/connection.ts";
import { useIncrementalVacuum } from "../../src/db/pragmas.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { OUTBOUND_MAX_ATTEMPTS, OUTBOUND_QUEUE } from "../../src/mail/outbound-job.ts";
import { idAt, retentionCutoff } from "../../src/modules/retention/service.ts";
import { freePort, prepareDataDir, spawnServer, type ServerProcess } from "../../test/e2e/fixtures/outbound-server.ts";
import { startDnsServer } from "../../test/support/dns-server.ts";
import { startLeanSink } from "./lean-sink.ts";

const OLD = Number(process.argv[2] ?? 200_000);
const BASELINE_S = Number(process.argv[3] ?? 20);
const LOAD_S = Number(process.argv[4] ?? 60);
const RETENTION_DAYS = 3;
const CLIENTS = 64;
const PURGE_DEADLINE_MS = 10 * 60_000;
const DAY = 24 * 3600_000;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const fileSize = (path: string) => {
  let total = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      total += statSync(path + suffix).size;
    } catch {
      // no WAL file
    }
  }
  return total;
};

const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-retention-"));
const dbFile = databasePath(dir);
const data = prepareDataDir(dir);
const dns = await startDnsServer();
const sink = startLeanSink();
dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
dns.set("mx.dest.test", "A", ["127.0.0.1"]);
dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);

// ---- 1. The old messages, written straight into the file (bench fixture, not the product's path).
const HTML = "<p>" + "Your order has shipped and is on its way. ".repeat(25) + "</p>";
const RAW = Buffer.from("Received: from bench\r\nSubject: Order\r\n\r\n" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(36));
const ATTACHMENT = Buffer.alloc(8 * 1024, 7);
const queuedId = Bun.randomUUIDv7("hex", Date.now() - 4 * DAY);
let lastOldId = "";
{
  const t0 = performance.now();
  const db = new Database(dbFile);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF");
  const { id: routeId } = db.query<{ id: string }, [string]>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'").get(data.projectId)!;
  const { id: domainId } = db.query<{ id: string }, []>("SELECT id FROM domains").get()!;
  // Disabled: its delivery logs are what the purge removes; new sends queue no deliveries to it.
  const webhookId = Bun.randomUUIDv7();
  db.query(
    `INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, secret, created_at, updated_at)
     VALUES (?, ?, ?, 'bench', 'https://hooks.example.test/x', '["message.delivered"]', 0, 'whsec_bench', 0, 0)`,
  ).run(webhookId, data.teamId, routeId);
  const message = db.query(
    `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, status_changed_at, tag, from_email, from_name, subject, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, 'outbound', ?6, ?7, 'bench', 'shop@sender.test', 'Shop', 'Your order', ?8, '[]', '[]', '[]', '{}', ?7, ?7)`,
  );
  const contents = db.query("INSERT INTO message_contents (message_id, html, text, headers, raw) VALUES (?, ?, 'Your order has shipped.', '{}', ?)");
  const recipient = db.query("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, attempts, created_at) VALUES (?, ?, ?, 'to', ?, ?, ?, ?)");
  const history = db.query("INSERT INTO message_events (id, message_id, recipient_id, kind, status, data, created_at) VALUES (?, ?, ?, ?, ?, '{}', ?)");
  const event = db.query("INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, ?, 'message.delivered', ?, ?)");
  const delivery = db.query(
    "INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, attempt, outcome, status_code, duration_ms, response_excerpt, created_at) VALUES (?, ?, ?, 'message.delivered', 1, 'succeeded', 200, 12, 'ok', ?)",
  );
  const attachment = db.query("INSERT INTO attachments (id, message_id, filename, content_type, size, content) VALUES (?, ?, 'invoice.pdf', 'application/pdf', ?, ?)");
  const now = Date.now();
  const insertOne = (i: number, at: number, id: string, status: string) => {
    const to = `customer${i}@dest.test`;
    message.run(id, data.teamId, data.projectId, routeId, domainId, status, at, JSON.stringify([{ email: to, name: "" }]));
    contents.run(id, HTML, status === "delivered" ? RAW : null);
    const rcpt = Bun.randomUUIDv7("hex", at);
    recipient.run(rcpt, id, to, status, at, status === "delivered" ? 1 : 3, at);
    for (const s of ["pending", "queued", status]) history.run(Bun.randomUUIDv7("hex", at), id, rcpt, `message.${s}`, s, at);
    if (status !== "delivered") return;
    const eventId = Bun.randomUUIDv7("hex", at);
    const body = JSON.stringify({ id: eventId, event: "message.delivered", timestamp: new Date(at).toISOString(), data: { message_id: id, recipient: to, tag: "bench", response: "250 2.0.0 Ok: queued as ABCDEF0123", metadata: {} } });
    event.run(eventId, data.teamId, routeId, id, body, at);
    delivery.run(Bun.randomUUIDv7("hex", at), webhookId, eventId, at);
    if (i % 10 === 0) attachment.run(Bun.randomUUIDv7("hex", at), id, ATTACHMENT.length, ATTACHMENT);
  };
  for (let from = 0; from < OLD; from += 10_000) {
    db.transaction(() => {
      for (let i = from; i < Math.min(OLD, from + 10_000); i++) {
        // Accepted 40 to 10 days ago, in order.
        const at = now - 40 * DAY + Math.floor((i / OLD) * 30 * DAY);
        lastOldId = Bun.randomUUIDv7("hex", at);
        insertOne(i, at, lastOldId, "delivered");
      }
    })();
  }
  // Older than the window, not final: retried since (attempt 3); made due once the purge runs (below), must deliver.
  db.transaction(() => {
    insertOne(OLD, now - 4 * DAY, queuedId, "soft_bounced");
    db.query("INSERT INTO jobs (queue, payload, run_at, attempts, max_attempts, created_at) VALUES (?, ?, ?, 3, ?, ?)").run(
      OUTBOUND_QUEUE,
      JSON.stringify({ messageId: queuedId }),
      now + DAY,
      OUTBOUND_MAX_ATTEMPTS,
      now - 4 * DAY,
    );
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  console.log(`built ${OLD} old final messages (+1 old queued) in ${((performance.now() - t0) / 1000).toFixed(1)} s; file ${mb(fileSize(dbFile))}`);

  // ---- 2. The one-time switch an existing installation makes at its first start with retention.
  const t1 = performance.now();
  const switched = useIncrementalVacuum(db);
  db.close();
  console.log(`switch to incremental auto-vacuum: ${switched.vacuumed ? "VACUUM" : "nothing to do"} in ${((performance.now() - t1) / 1000).toFixed(1)} s; file ${mb(fileSize(dbFile))}`);
}
const sizeBefore = fileSize(dbFile);

const env = { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };
const body = (i: number) =>
  JSON.stringify({ from: `Bench <bench@${data.domain}>`, to: [`user${i}@dest.test`], subject: `Benchmark ${i}`, html: HTML, text: "Hello", tag: "bench" });

/** 64 clients sending at full speed until `stop()` says so; the latencies of 202s and the count of the rest. */
async function sendWhile(url: string, stop: () => boolean) {
  const headers = { "content-type": "application/json", "x-service-token": data.projectToken };
  const latencies: number[] = [];
  let refused = 0;
  let i = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (!stop()) {
        const t = performance.now();
        const res = await fetch(`${url}/v1/send`, { method: "POST", headers, body: body(i++) });
        await res.arrayBuffer();
        if (res.status === 202) latencies.push(performance.now() - t);
        else refused++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { seconds, n: latencies.length, rate: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.at(-1) ?? NaN, refused };
}

const report = (label: string, r: Awaited<ReturnType<typeof sendWhile>>) =>
  console.log(`  ${label}: ${r.n} sends in ${r.seconds.toFixed(1)} s = ${r.rate.toFixed(0)}/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   max ${r.max.toFixed(0)} ms   non-202: ${r.refused}`);

/** Waits (at most 3 minutes) until every accepted message is delivered, so that a phase's backlog does not weigh on the next. */
async function drained(db: Database) {
  const deadline = Date.now() + 180_000;
  const open = () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE status IN ('pending', 'queued', 'processed', 'soft_bounced')").get()!.n;
  while (open() > 0 && Date.now() < deadline) await Bun.sleep(1000);
}

async function stopServer(server: ServerProcess) {
  server.proc.kill("SIGTERM");
  await server.proc.exited;
}

// ---- 3. Baseline: retention off (skipped with baselineSeconds 0).
console.log(`POST /v1/send, ${CLIENTS} concurrent clients, full server delivering to a lean sink:`);
if (BASELINE_S > 0) {
  const server = await spawnServer({ dataDir: dir, port: await freePort(), env: { ...env, POSTHORN_RETENTION_DAYS: "0" } });
  const warm = Date.now() + 3000;
  await sendWhile(server.url, () => Date.now() > warm);
  const until = Date.now() + BASELINE_S * 1000;
  report("baseline, no purge", await sendWhile(server.url, () => Date.now() > until));
  const db = new Database(dbFile, { readonly: true });
  await drained(db);
  db.close();
  await stopServer(server);
}

// ---- 4. Retention on: the purge starts with the server. Sends at full speed for the first
// LOAD seconds of it (measured), then it finishes alone; the delivery backlog drains; the file is measured.
const reader = new Database(dbFile, { readonly: true });
const before = idAt(retentionCutoff(RETENTION_DAYS));
// Less 1: the old queued message, which the purge must leave (delivered meanwhile, it is final only since now).
const oldLeft = () => reader.query<{ n: number }, [string]>("SELECT count(*) AS n FROM messages WHERE id < ? AND purged_at IS NULL").get(before)!.n - 1;
// The purge walks in id order: the newest old message purged means the pass is through (a point read, not a count, while measuring).
const lastOldPurged = () => reader.query<{ purged_at: number | null }, [string]>("SELECT purged_at FROM messages WHERE id = ?").get(lastOldId)!.purged_at !== null;
const queuedStatus = () => reader.query<{ status: string }, [string]>("SELECT status FROM messages WHERE id = ?").get(queuedId)!.status;
{
  const due = new Database(dbFile);
  due.query("UPDATE jobs SET run_at = ? WHERE queue = ? AND attempts = 3").run(Date.now() + 10_000, OUTBOUND_QUEUE);
  due.close();
  const t0 = Date.now();
  const server = await spawnServer({ dataDir: dir, port: await freePort(), env: { ...env, POSTHORN_RETENTION_DAYS: String(RETENTION_DAYS) } });
  const loadEnd = Date.now() + LOAD_S * 1000;
  // The load stops early if the purge ends first: the figures are of sends during the purge only.
  let purging = true;
  const watch = setInterval(() => (purging = !lastOldPurged()), 1000);
  if (LOAD_S > 0) {
    const during = await sendWhile(server.url, () => Date.now() > loadEnd || !purging);
    const purgedUnderLoad = OLD - Math.max(0, oldLeft());
    report("during the purge", during);
    console.log(`  purged meanwhile: ${purgedUnderLoad} messages in ${during.seconds.toFixed(1)} s = ${(purgedUnderLoad / during.seconds).toFixed(0)}/s`);
  } else console.log("  none: the purge runs alone (loadDuringPurgeSeconds 0), to see what it gives back");
  clearInterval(watch);
  while (!lastOldPurged() && Date.now() - t0 < PURGE_DEADLINE_MS) await Bun.sleep(500);
  const left = oldLeft();
  const purgeSeconds = (Date.now() - t0) / 1000;
  console.log(
    left <= 0
      ? `purge: ${OLD} messages in ${purgeSeconds.toFixed(1)} s from the server's start = ${(OLD / purgeSeconds).toFixed(0)} messages/s`
      : `purge: NOT DONE within ${PURGE_DEADLINE_MS / 60_000} min, ${left} old messages left`,
  );
  await drained(reader);
  // The pass's end gives the freed pages back (a slice's reclaim runs up to 10 s).
  await Bun.sleep(12_000);
  const queued = queuedStatus();
  const rcpt = reader.query<{ attempts: number; last_response: string }, [string]>("SELECT attempts, last_response FROM recipients WHERE message_id = ?").get(queuedId)!;
  const pages = reader.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
  const free = reader.query<{ freelist_count: number }, []>("PRAGMA freelist_count").get()!.freelist_count;
  const messages = reader.query<{ n: number }, []>("SELECT count(*) AS n FROM messages").get()!.n;
  await stopServer(server);
  reader.close();
  console.log(`old queued message (accepted 4 days ago, window ${RETENTION_DAYS} days): ${queued}, attempt ${rcpt.attempts}, last reply ${rcpt.last_response}`);
  console.log(
    `database file: ${mb(sizeBefore)} before, ${mb(fileSize(dbFile))} after (${pages} pages, ${free} of them free; ${messages} messages, ${messages - OLD - 1} of them sent by this benchmark)`,
  );
}
sink.close();
await dns.close();
rmSync(dir, { recursive: true, force: true });
