// Inbound benchmark: the MX listener and the inbound job runner in this process on a file
// database (synchronous=FULL, production settings), mailauth's SPF/DKIM/DMARC lookups answered
// by a loopback DNS server, and an SMTP client in a subprocess (anchors/smtp-load.ts, so it does
// not share this process's thread) keeping its sessions busy, each sending message after message.
//
//   bun scripts/bench/inbound.ts [messages2k=4000] [messages200k=400] [sessions=20] [anchorMessages=3000] [anchorRounds=2]
//
// Prints per message size: accepted/s (250 after the durable commit, seen by the client) and
// processed/s (parsed, checked, scored, stored and message.inbound queued as an event, measured
// until the last event exists). Then the anchor (issue 17), side by side and alternated: Haraka
// accepting and discarding (anchors/haraka.ts) against Posthorn, 2 KB, a new connection per
// message, 100 sessions; Posthorn with its default greeting (POSTHORN_SMTP_GREET_DELAY_MS, 0 unless
// set) and with smtp-server's 100 ms pause; the ratios against the targets; the peak RSS of this
// process (the server: listener, job runner, analysis workers; also the bench's own few MB), per
// phase and overall. POSTHORN_SMTP_GREET_DELAY_MS and POSTHORN_SMTP_INFLOW_LAG_MS (0 turns the MX's flow
// control off) are passed through to the server's config.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHaraka, HARAKA_VERSION, type HarakaServer } from "./anchors/haraka.ts";
import { runSmtpLoad } from "./anchors/smtp-load.ts";
import { mark, range } from "./anchors/ratios.ts";
import { benchMessage, senderRecords } from "./inbound-message.ts";

const DEADLINE_MS = 180_000;

// As `serve` does (src/main.ts), before anything else: this process stands in for the server.
(await import("../../src/memory/allocator-options.ts")).reexecWithAllocatorOptions();

// ---------------------------------------------------------------- server (this process) ----
const N2K = Number(process.argv[2] ?? 4000);
const N200K = Number(process.argv[3] ?? 400);
const SESSIONS = Number(process.argv[4] ?? 20);
const ANCHOR_MESSAGES = Number(process.argv[5] ?? 3000);
const ANCHOR_ROUNDS = Number(process.argv[6] ?? 2);
const ANCHOR_SESSIONS = 100;

const { loadConfig } = await import("../../src/config.ts");
const { createDeps } = await import("../../src/runtime.ts");
const { createLogger } = await import("../../src/log.ts");
const { addBootstrapTeam } = await import("../../src/bootstrap.ts");
const { JobRunner } = await import("../../src/jobs/runner.ts");
const { registerInboundJobs } = await import("../../src/smtp/inbound-job.ts");
const { startInboundListener } = await import("../../src/smtp/inbound.ts");
const { generateDkimKeyPair } = await import("../../src/dns/dkim-key.ts");
const { startDnsServer } = await import("../../test/support/dns-server.ts");
const { sqliteOf } = await import("../../test/support/test-database.ts");
const { freePort } = await import("../../test/e2e/fixtures/outbound-server.ts");
const { subscribeEveryRoute } = await import("../../test/support/event-subscriber.ts");

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-inbound-"));
const dns = await startDnsServer();
const config = loadConfig({
  POSTHORN_DATA_DIR: dir,
  POSTHORN_LOG_LEVEL: "error",
  POSTHORN_HOSTNAME: "mx.posthorn.test",
  POSTHORN_DNS_SERVERS: dns.server,
  POSTHORN_SMTP_PORT: "0",
  POSTHORN_SUBMISSION_PORT: "0",
  // The load comes from one address (100 sessions in the anchor phases): no per-client cap.
  POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT: "0",
  ...(process.env.POSTHORN_SMTP_GREET_DELAY_MS ? { POSTHORN_SMTP_GREET_DELAY_MS: process.env.POSTHORN_SMTP_GREET_DELAY_MS } : {}),
  ...(process.env.POSTHORN_SMTP_INFLOW_LAG_MS ? { POSTHORN_SMTP_INFLOW_LAG_MS: process.env.POSTHORN_SMTP_INFLOW_LAG_MS } : {}),
});
const deps = createDeps(config, { log: createLogger("error"), checkpointInBackground: true });
const sqlite = sqliteOf(deps);
await addBootstrapTeam(deps.store, { teamName: "Bench", inboundDomain: config.inboundDomain });
// The app's webhook on the inbound route, so message.inbound is recorded and its delivery queued
// (an event no webhook receives leaves no row); this bench runs only the inbound queue, so the
// deliveries wait in theirs.
await subscribeEveryRoute(deps);
const inboundAddress = sqlite.query<{ a: string }, []>("SELECT inbound_address AS a FROM routes WHERE route_type = 'inbound'").get()!.a;

// A sender with SPF, DKIM and DMARC published, so every check does real work.
const key = generateDkimKeyPair();
for (const [name, type, values] of senderRecords(key)) dns.set(name, type, values);

async function message(bytes: number): Promise<string> {
  const path = join(dir, `msg-${bytes}.eml`);
  // Dot-stuffing for the wire.
  await Bun.write(path, (await benchMessage(bytes, inboundAddress, key)).toString("latin1").replace(/^\./gm, ".."));
  return path;
}

// The event loop's own CPU (the main thread's, from Linux's /proc; clock ticks of 10 ms): what the
// process spends besides is the analysis worker's and the runtime's helper threads (GC, JIT).
function eventLoopCpuMs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

// Peak RSS from the kernel's own high-water mark (VmHWM), reset at each phase's start (writing 5 to
// clear_refs, Linux 4.0+): exact, where a sampler misses short peaks, and read only between
// phases, where a sampler on this thread took time from the server it measures.
const highWaterMark = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN) * 1024;
let peakRss = highWaterMark();
let phasePeakRss = 0;
const startPhasePeak = () => {
  peakRss = Math.max(peakRss, highWaterMark());
  writeFileSync("/proc/self/clear_refs", "5");
};
const endPhasePeak = () => {
  phasePeakRss = highWaterMark();
  peakRss = Math.max(peakRss, phasePeakRss);
};

// As `serve` does (src/main.ts): this process stands in for the server.
(await import("../../src/memory/heap-collector.ts")).collectGarbageAsHeapGrows({ stepBytes: 16 * 1024 * 1024, everyMs: 500 });
const runner = new JobRunner(deps);
registerInboundJobs(runner, deps);
runner.start();
const listener = await startInboundListener(deps, { host: "127.0.0.1", port: 0, maxClients: 1000 });
// The same MX with smtp-server's own pause before the greeting (the early-talker check), for comparison.
const PAUSE_MS = 100;
const paused = await startInboundListener({ ...deps, config: { ...deps.config, smtpGreetDelayMs: PAUSE_MS } }, { host: "127.0.0.1", port: 0, maxClients: 1000 });

// Counted as the rows arrive: each poll reads only the event rows added since the poll before, so
// polling every 20 ms costs the server's thread (this one) a few rows, not a scan of every row of
// the phase so far (~10 % of that thread's samples in a CPU profile of the anchor phases).
const lastEventRow = sqlite.prepare<{ n: number }, []>("SELECT coalesce(max(rowid), 0) AS n FROM events");
const inboundEventsAfter = sqlite.prepare<{ n: number; last: number }, [number]>(
  "SELECT count(*) FILTER (WHERE kind = 'message.inbound') AS n, coalesce(max(rowid), ?1) AS last FROM events WHERE rowid > ?1",
);
const pending = sqlite.prepare<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE status = 'pending'");
const files = new Map<number, string>();
const messageFile = async (bytes: number) => files.get(bytes) ?? files.set(bytes, await message(bytes)).get(bytes)!;

interface PhaseResult {
  accepted: number;
  processed: number;
}

async function phase(label: string, bytes: number, count: number, opts: { perConnection?: boolean; sessions?: number; port?: number } = {}): Promise<PhaseResult> {
  const file = await messageFile(bytes);
  const size = Bun.file(file).size;
  let lastRow = lastEventRow.get()!.n;
  let counted = 0;
  const inboundEvents = () => {
    const added = inboundEventsAfter.get(lastRow)!;
    lastRow = added.last;
    return (counted += added.n);
  };
  const commitsBefore = deps.store.stats.commits;
  startPhasePeak();
  const cpu0 = process.cpuUsage();
  const loop0 = eventLoopCpuMs();
  const t0 = performance.now();
  const { ms: clientMs, refused } = await runSmtpLoad({
    port: opts.port ?? listener.port,
    sessions: opts.sessions ?? SESSIONS,
    count,
    file,
    perConnection: opts.perConnection ?? false,
    to: inboundAddress,
  });
  while (inboundEvents() < count && Date.now() - started < DEADLINE_MS) await Bun.sleep(20);
  const e2eMs = performance.now() - t0;
  const processed = inboundEvents();
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / count;
  const loopMs = (eventLoopCpuMs() - loop0) / count;
  endPhasePeak();
  const r = { accepted: count / (clientMs / 1000), processed: processed / (e2eMs / 1000) };
  console.log(
    `  ${label.padEnd(60)} ${String(count).padStart(5)} msgs of ${(size / 1024).toFixed(0).padStart(3)} KB: ` +
      `accepted ${r.accepted.toFixed(0).padStart(5)}/s, processed ${r.processed.toFixed(0).padStart(5)}/s` +
      ` (${processed}/${count} events, ${refused} refused, ${cpuMs.toFixed(2)} ms CPU each (event loop ${loopMs.toFixed(2)}), ${deps.store.stats.commits - commitsBefore} group commits, RSS now ${(process.memoryUsage.rss() / 1048576).toFixed(0)} MB, peak ${(phasePeakRss / 1048576).toFixed(0)} MB)`,
  );
  return r;
}

async function harakaPhase(haraka: HarakaServer, count: number): Promise<number> {
  const file = await messageFile(2048);
  const cpu0 = haraka.cpuSeconds();
  const { ms, refused } = await runSmtpLoad({ port: haraka.port, sessions: ANCHOR_SESSIONS, count, file, perConnection: true, to: inboundAddress });
  const rate = count / (ms / 1000);
  const cpuMs = ((haraka.cpuSeconds() - cpu0) * 1000) / count;
  console.log(
    `  ${"Haraka, new connection per msg, 100 conc.".padEnd(60)} ${String(count).padStart(5)} msgs of ${(Bun.file(file).size / 1024).toFixed(0).padStart(3)} KB: accepted ${rate.toFixed(0).padStart(5)}/s and discarded` +
      ` (${refused} refused, ${cpuMs.toFixed(2)} ms CPU each, RSS ${(haraka.rssBytes() / 1048576).toFixed(0)} MB)`,
  );
  return rate;
}

const delay = config.smtpGreetDelayMs;
console.log(`inbound bench: ${SESSIONS} concurrent SMTP sessions, file database synchronous=FULL, SPF+DKIM+DMARC checked (loopback DNS, cached 60 s), greeting delay ${delay} ms`);
await phase("2 KB, sessions reused", 2048, N2K);
await phase("200 KB, sessions reused", 200 * 1024, N200K);
await phase(`2 KB, new connection per message (${delay} ms)`, 2048, Math.min(N2K, 1000), { perConnection: true });

// The anchor: Haraka and Posthorn alternated, the same client, message and session count.
const pfx = `new connection per msg, 100 conc.`;
const rounds: { haraka: number; byDefault: PhaseResult; withPause: PhaseResult }[] = [];
const haraka = await startHaraka(await freePort());
try {
  // Warm-up, as Posthorn's phases before have warmed it: Node's JIT, Haraka's plugin hooks.
  await runSmtpLoad({ port: haraka.port, sessions: ANCHOR_SESSIONS, count: 500, file: await messageFile(2048), perConnection: true, to: inboundAddress });
  for (let round = 0; round < ANCHOR_ROUNDS; round++) {
    const h = await harakaPhase(haraka, ANCHOR_MESSAGES);
    const byDefault = await phase(`Posthorn, ${pfx} (${delay} ms, default)`, 2048, ANCHOR_MESSAGES, { perConnection: true, sessions: ANCHOR_SESSIONS });
    const withPause = await phase(`Posthorn, ${pfx} (${PAUSE_MS} ms)`, 2048, ANCHOR_MESSAGES, { perConnection: true, sessions: ANCHOR_SESSIONS, port: paused.port });
    rounds.push({ haraka: h, byDefault, withPause });
  }
} finally {
  await haraka.stop();
}

const peakMb = Math.max(peakRss, highWaterMark()) / 1024 / 1024;
console.log(`anchor ratios (Haraka ${HARAKA_VERSION} accept-and-discard, 2 KB, new connection per message, 100 sessions; ${rounds.length} alternated rounds):`);
for (const [label, pick] of [
  [`greeting delay ${delay} ms (default)`, (r: (typeof rounds)[number]) => r.byDefault],
  [`greeting delay ${PAUSE_MS} ms`, (r: (typeof rounds)[number]) => r.withPause],
] as const) {
  const acc = rounds.map((r) => pick(r).accepted / r.haraka);
  const proc = rounds.map((r) => pick(r).processed / pick(r).accepted);
  console.log(
    `  ${label.padEnd(32)} accepted / Haraka ${range(acc)} (target ≥ 1: ${mark(Math.min(...acc) >= 1)}); processed / accepted ${range(proc)} (target ≥ 0.75: ${mark(Math.min(...proc) >= 0.75)})`,
  );
}
console.log(`  peak RSS ${peakMb.toFixed(0)} MB (target ≤ 250 MB: ${mark(peakMb <= 250)}); messages left pending: ${pending.get()!.n}; total ${((Date.now() - started) / 1000).toFixed(1)} s`);

await paused.stop();
await listener.stop();
await runner.stop();
await dns.close();
await deps.store.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
