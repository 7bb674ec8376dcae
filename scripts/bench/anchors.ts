// The anchors of issue 17, measured side by side with Posthorn in one run on this machine, so
// that anyone can repeat the comparison and read ratios rather than absolute figures (the
// machine's speed drifts by tens of % within an hour):
//
//   - end to end accept → delivered: Posthorn (send.ts, 2 KB messages through the API to the
//     lean sink) against a private Postfix relaying 2 KB messages to the same kind of sink
//     (anchors/postfix.ts; fed over SMTP by 64 sessions, connections reused);
//   - the send API at 64 clients: Posthorn's durable POST /v1/send (send.ts, the API alone)
//     against bare Elysia with one SQLite insert per request (anchors/elysia-sqlite.ts), the same
//     JSON body, the same client loop;
//   - peak RSS of server + SMTP agent and CPU per message delivered (send.ts's own figures);
//   - inbound: inbound.ts, whose last phases alternate Haraka and Posthorn at 100 sessions.
//
// After the ratios it prints what each send-side target leaves Posthorn on this machine, from
// the same rounds: the CPU per message or per request that reaching it would allow (its cores
// all busy), beside the RSA-2048 signature's own cost measured here, before and after the rounds.
//
// Rounds alternate the order (anchors first, then Posthorn first). Everything listens on
// 127.0.0.1 and lives in temp dirs; Postfix and Haraka are installed at bench time if missing
// (apt-get / npm into a temp prefix), and Postfix is stopped at the end even on failure.
//
//   bun scripts/bench/anchors.ts [apiRequests=20000] [e2eMessages=5000] [rounds=2] [inbound=1]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MailComposer from "nodemailer/lib/mail-composer";
import { freePort } from "../../test/e2e/fixtures/outbound-server.ts";
import { startElysiaAnchor } from "./anchors/elysia-sqlite.ts";
import { cpuOf, startPostfixRelay } from "./anchors/postfix.ts";
import { runSmtpLoad } from "./anchors/smtp-load.ts";
import { mark, range } from "./anchors/ratios.ts";
import { signatureCost } from "./anchors/signature-cost.ts";
import { startLeanSink } from "./lean-sink.ts";

const API_REQUESTS = Number(process.argv[2] ?? 20_000);
const E2E = Number(process.argv[3] ?? 5_000);
const ROUNDS = Number(process.argv[4] ?? 2);
const WITH_INBOUND = (process.argv[5] ?? "1") !== "0";
const CLIENTS = 64;
const started = Date.now();
const DEADLINE = started + 20 * 60_000;

const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-anchors-"));

/** The body send.ts posts (its email()): about 2 KB of HTML and a line of text. */
function sendBody(i: number) {
  return JSON.stringify({
    from: "Bench <bench@sender.test>",
    to: [`user${i}@dest.test`],
    subject: `Benchmark message ${i}`,
    html: `<p>Hello user ${i}, this is a benchmark message of about two kilobytes.</p>` + "<p>Lorem ipsum dolor sit amet. </p>".repeat(40),
    text: `Hello user ${i}`,
    tag: "bench",
  });
}

/** The same message as MIME for Postfix (Posthorn composes and DKIM-signs it; Postfix gets it composed). */
async function mimeFile(): Promise<{ file: string; bytes: number }> {
  const raw = await new MailComposer({
    from: "Bench <bench@sender.test>",
    to: "user1@dest.test",
    subject: "Benchmark message 1",
    html: `<p>Hello user 1, this is a benchmark message of about two kilobytes.</p>` + "<p>Lorem ipsum dolor sit amet. </p>".repeat(40),
    text: "Hello user 1",
  })
    .compile()
    .build();
  const file = join(dir, "message.eml");
  const wire = raw.toString("latin1").replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
  await Bun.write(file, wire);
  return { file, bytes: wire.length };
}

/** CLIENTS keep-alive clients POSTing sendBody until `count` requests; requests per second. */
async function postLoop(url: string, count: number): Promise<{ rate: number; failures: number }> {
  const headers = { "content-type": "application/json" };
  let next = 0;
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < count && Date.now() < DEADLINE) {
        const res = await fetch(`${url}/v1/send`, { method: "POST", headers, body: sendBody(next++) });
        await res.arrayBuffer();
        if (res.status !== 202) failures++;
      }
    }),
  );
  return { rate: count / ((performance.now() - t0) / 1000), failures };
}

interface ElysiaApi {
  rate: number;
  /** CPU per request in the anchor's process, ms. */
  serverMs: number;
}

async function elysiaApi(): Promise<ElysiaApi> {
  const file = join(dir, `elysia-${Date.now()}.sqlite`);
  const anchor = await startElysiaAnchor(await freePort(), file);
  try {
    await postLoop(anchor.url, 500); // warm-up, as send.ts does
    const server0 = cpuOf(anchor.pid);
    const client0 = process.cpuUsage();
    const r = await postLoop(anchor.url, API_REQUESTS);
    const client = process.cpuUsage(client0);
    const serverMs = ((cpuOf(anchor.pid) - server0) * 1000) / API_REQUESTS;
    const clientMs = (client.user + client.system) / 1000 / API_REQUESTS;
    console.log(
      `  Elysia + one SQLite insert, POST /v1/send at ${CLIENTS} clients: ${r.rate.toFixed(0)}/s (non-202: ${r.failures}; ` +
        `CPU per request ${serverMs.toFixed(3)} ms in its process, ${clientMs.toFixed(3)} ms in the clients)`,
    );
    return { rate: r.rate, serverMs };
  } finally {
    await anchor.stop();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  }
}

async function postfixEndToEnd(message: { file: string; bytes: number }): Promise<number> {
  const sink = startLeanSink();
  const relay = startPostfixRelay({ port: await freePort(), sinkPort: sink.port });
  try {
    // Warm-up: processes forked, connection cache to the sink open.
    await runSmtpLoad({ port: relay.port, sessions: 8, count: 200, file: message.file, perConnection: false, to: "user1@dest.test" });
    while (sink.received < 200 && Date.now() < DEADLINE) await Bun.sleep(20);
    const before = sink.received;
    const cpu0 = relay.cpuSeconds();
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, relay.pssBytes())), 500);
    const t0 = performance.now();
    const { refused } = await runSmtpLoad({ port: relay.port, sessions: CLIENTS, count: E2E, file: message.file, perConnection: false, to: "user1@dest.test" });
    while (sink.received - before < E2E && Date.now() < DEADLINE) await Bun.sleep(10);
    const secs = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const rate = (sink.received - before) / secs;
    const cpuMs = ((relay.cpuSeconds() - cpu0) * 1000) / E2E;
    console.log(
      `  Postfix relay, ${E2E} msgs of ${(message.bytes / 1024).toFixed(1)} KB over ${CLIENTS} SMTP sessions → lean sink: ${rate.toFixed(0)} msg/s accepted → delivered` +
        ` (${refused} refused; ~${cpuMs.toFixed(2)} ms CPU per message in its processes; its processes' summed PSS up to ${(peakRss / 1048576).toFixed(0)} MB)`,
    );
    return rate;
  } finally {
    relay.stop();
    sink.close();
  }
}

interface PosthornSend {
  api: number;
  /** The API alone, CPU per request, ms: the server's process and its event-loop thread. */
  apiServerMs: number;
  apiEventLoopMs: number;
  e2e: number;
  /** CPU per message delivered, ms: server + agent, and send.ts's own (sink, DNS, HTTP clients). */
  cpuMs: number;
  benchMs: number;
  rssMb: number;
}

/** send.ts in a subprocess (its own sink, DNS and server), its figures parsed from what it prints. */
async function posthornSend(): Promise<PosthornSend> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "send.ts"), String(API_REQUESTS), "0", String(E2E)], {
    // The bench measures capacity: no per-project rate limit (the API's default would cap it).
    env: { POSTHORN_RATE_LIMIT_SEND: "0", ...process.env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`send.ts failed:\n${out}`);
  const num = (re: RegExp) => {
    const m = re.exec(out);
    if (!m) throw new Error(`send.ts printed no ${re}:\n${out}`);
    return Number(m[1]);
  };
  const r = {
    api: num(/HTTP API alone[^\n]*\n\s*accepted: (\d+)\/s/),
    e2e: num(/(\d+) messages\/s accepted → delivered/),
    apiServerMs: num(/CPU per request: ([\d.]+) ms in the server process/),
    apiEventLoopMs: num(/CPU per request: [\d.]+ ms in the server process \(([\d.]+) ms on its event-loop thread\)/),
    cpuMs: num(/server CPU per message: ([\d.]+) ms in all/),
    benchMs: num(/this process \(sink, DNS, HTTP clients\) CPU per message: ([\d.]+) ms/),
    rssMb: num(/peak RSS: (\d+) MB/) + num(/its SMTP agent (\d+) MB/),
  };
  const apiFailures = num(/HTTP API alone[^\n]*\n[^\n]*non-202: (\d+)/);
  console.log(
    `  Posthorn (send.ts): durable POST /v1/send at ${CLIENTS} clients ${r.api}/s${apiFailures ? ` (${apiFailures} non-202!)` : ""}; end to end ${r.e2e} msg/s; ` +
      `${r.cpuMs.toFixed(2)} ms CPU per message (server + agent); peak RSS ${r.rssMb} MB (server + agent)`,
  );
  return r;
}


console.log(`anchors bench: ${ROUNDS} rounds, ${API_REQUESTS} API requests and ${E2E} messages end to end per arm, ${CLIENTS} clients, 2 KB messages`);
const message = await mimeFile();
const signatureBefore = await signatureCost();
const rows: { postfix: number; elysia: ElysiaApi; posthorn: PosthornSend }[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`round ${round + 1} (${round % 2 === 0 ? "anchors first" : "Posthorn first"}):`);
    if (round % 2 === 0) {
      const postfix = await postfixEndToEnd(message);
      const elysia = await elysiaApi();
      rows.push({ postfix, elysia, posthorn: await posthornSend() });
    } else {
      const posthorn = await posthornSend();
      const postfix = await postfixEndToEnd(message);
      rows.push({ postfix, elysia: await elysiaApi(), posthorn });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const signatureAfter = await signatureCost();

console.log(`send-side ratios (Posthorn / anchor, each round measured side by side; ${rows.length} rounds):`);
const e2e = rows.map((r) => r.posthorn.e2e / r.postfix);
const api = rows.map((r) => r.posthorn.api / r.elysia.rate);
const rss = rows.map((r) => r.posthorn.rssMb);
const cpu = rows.map((r) => r.posthorn.cpuMs);
console.log(`  end to end / Postfix relay          ${range(e2e)}   (target ≥ 3: ${mark(Math.min(...e2e) >= 3)})`);
console.log(`  durable send API / Elysia + insert  ${range(api)}   (target ≥ 0.6: ${mark(Math.min(...api) >= 0.6)})`);
console.log(`  peak RSS server + agent             ${range(rss, 0)} MB   (target ≤ 200 MB: ${mark(Math.max(...rss) <= 200)})`);
console.log(`  CPU per message delivered           ${range(cpu)} ms   (target ≤ 1.3 ms: ${mark(Math.max(...cpu) <= 1.3)})`);
printBudgets();

/**
 * What each target leaves Posthorn here, from the same rounds. End to end and CPU per message: at
 * a rate R on C cores, everything together has at most C / R of CPU per message; less what the
 * bench's own sink, DNS and clients take, that is the most server and agent may spend, and the
 * signature is part of it. The send API: one thread runs every handler, so at a rate R it has at
 * most 1 / R per request, whatever the other core does (the API phase leaves part of the cores
 * idle). All are ceilings: reaching a target takes at least the cut they show.
 */
function printBudgets(): void {
  const cores = navigator.hardwareConcurrency;
  const ms = (x: number) => x.toFixed(2);
  const sig = (signatureBefore.ms + signatureAfter.ms) / 2;
  console.log(
    `what the targets leave Posthorn on these ${cores} cores (one RSA-2048 signature, ${signatureBefore.library}, 16 at a time as deliveries sign: ` +
      `${ms(signatureBefore.ms)} ms of CPU before the rounds, ${ms(signatureAfter.ms)} after):`,
  );
  rows.forEach((r, i) => {
    const p = r.posthorn;
    const need = 3 * r.postfix;
    const allIn = (cores * 1000) / need;
    const serverBudget = allIn - p.benchMs;
    console.log(
      `  round ${i + 1}: end to end 3 × ${r.postfix.toFixed(0)} = ${need.toFixed(0)} msg/s → at most ${ms(allIn)} ms of CPU per message in all; less the bench's ` +
        `${ms(p.benchMs)}, ${ms(serverBudget)} for server + agent, ${ms(serverBudget - sig)} beside the signature (now ${ms(p.cpuMs)}, ${ms(p.cpuMs - sig)} beside it)`,
    );
    console.log(`           CPU ≤ 1.3 ms per message → ${ms(1.3 - sig)} ms beside the signature (now ${ms(p.cpuMs - sig)})`);
    const apiNeed = 0.6 * r.elysia.rate;
    console.log(
      `           send API 0.6 × ${r.elysia.rate.toFixed(0)} = ${apiNeed.toFixed(0)}/s → at most ${(1000 / apiNeed).toFixed(3)} ms per request on the event-loop thread ` +
        `(now ${p.apiEventLoopMs.toFixed(3)}, ${p.apiServerMs.toFixed(3)} in all its threads; the anchor's process ${r.elysia.serverMs.toFixed(3)})`,
    );
  });
}

if (WITH_INBOUND) {
  console.log("inbound (bun scripts/bench/inbound.ts 2000 200 20 3000 2):");
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "inbound.ts"), "2000", "200", "20", "3000", "2"], { stdout: "inherit", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error("inbound.ts failed");
}
console.log(`anchors bench done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
