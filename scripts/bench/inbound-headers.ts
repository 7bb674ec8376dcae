// Inbound header fields from outside, as an attacker sends them (issue 41, finding 5): a real
// server process (`bun src/main.ts serve`, production settings, a fresh SQLite data dir) receives
// N unauthenticated messages over real SMTP, each with a subject of SUBJECT_MB MB (folded at 998
// characters, valid RFC 5322), then GET /v1/messages?page[size]=N is asked once.
//
//   bun scripts/bench/inbound-headers.ts [messages=6] [subjectMB=20] [subject|body]
//
// Prints the server's RSS before, its peak (VmHWM) while receiving and processing, its RSS after,
// the size of the listing's JSON and of the longest stored subject, and that the stored source
// kept the whole subject.
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDnsServer } from "../../test/support/dns-server.ts";

const N = Number(process.argv[2] ?? 6);
const SUBJECT_MB = Number(process.argv[3] ?? 20);
// "body": the same bytes in the body, as plain lines of text (a legitimate large message), to compare.
const WHERE = process.argv[4] === "body" ? "body" : "subject";
const root = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-headers-"));
const dns = await startDnsServer();

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const p = s.port;
  s.stop(true);
  return p;
}
const httpPort = await freePort();
const smtpPort = await freePort();

const child = Bun.spawn([process.execPath, join(root, "src/main.ts"), "serve"], {
  cwd: root,
  env: {
    ...process.env,
    POSTHORN_DATA_DIR: dir,
    POSTHORN_HTTP_HOST: "127.0.0.1",
    POSTHORN_HTTP_PORT: String(httpPort),
    POSTHORN_SMTP_HOST: "127.0.0.1",
    POSTHORN_SMTP_PORT: String(smtpPort),
    POSTHORN_SUBMISSION_PORT: "0",
    POSTHORN_HOSTNAME: "mx.posthorn.test",
    POSTHORN_DNS_SERVERS: dns.server,
    POSTHORN_LOG_LEVEL: "error",
    POSTHORN_DELIVERY: "sink",
  },
  stdout: "pipe",
  stderr: "inherit",
});

// The server goes with this script, however it ends.
process.on("exit", () => child.kill("SIGKILL"));
process.on("uncaughtException", (err) => {
  console.error(err);
  process.exit(1);
});

let out = "";
const reader = child.stdout.getReader();
const decoder = new TextDecoder();
const deadline = Date.now() + 60_000;
while (!/POSTHORN_TEAM_TOKEN=\S+/.test(out)) {
  if (Date.now() > deadline) throw new Error(`server did not print its tokens:\n${out}`);
  const { value, done } = await reader.read();
  if (done) throw new Error(`server exited:\n${out}`);
  out += decoder.decode(value);
}
const teamToken = /POSTHORN_TEAM_TOKEN=(\S+)/.exec(out)![1]!;
for (;;) {
  const ok = await fetch(`http://127.0.0.1:${httpPort}/healthz`).then((r) => r.ok, () => false);
  if (ok) break;
  await Bun.sleep(100);
}

const db = new Database(join(dir, "posthorn.db"), { readonly: true });
const route = db.query<{ id: string; a: string }, []>("SELECT id, inbound_address AS a FROM routes WHERE route_type = 'inbound'").get()!;
const inboundAddress = route.a;
// A webhook on the route, so that message.inbound is published and stored as an event (its
// deliveries fail: the name does not resolve, and nothing leaves the machine).
const hook = await fetch(`http://127.0.0.1:${httpPort}/v1/webhooks`, {
  method: "POST",
  headers: { authorization: `Bearer ${teamToken}`, "content-type": "application/json" },
  body: JSON.stringify({ name: "attack", route_id: route.id, url: "https://hooks.invalid/inbound", events: ["message.inbound"] }),
});
if (!hook.ok) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);

const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;
const mb = (n: number) => `${n.toFixed(0)} MB`;

function message(i: number): Buffer {
  const big = `Attack ${i} `.padEnd(SUBJECT_MB * 1024 * 1024, "x");
  const lines: string[] = [];
  for (let at = 0; at < big.length; at += 990) lines.push(big.slice(at, at + 990));
  const subject = WHERE === "subject" ? lines.join("\r\n ") : `Message ${i}`;
  const body = WHERE === "body" ? lines.join("\r\n") : "hello";
  return Buffer.from(
    `From: Mallory <mallory@attacker.test>\r\nTo: <${inboundAddress}>\r\nSubject: ${subject}\r\nMessage-ID: <m${i}@attacker.test>\r\nDate: ${new Date().toUTCString()}\r\nContent-Type: text/plain\r\n\r\n${body}\r\n`,
    "latin1",
  );
}

/** One SMTP transaction, step by step; resolves with the reply to DATA's end. */
function send(raw: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(smtpPort, "127.0.0.1");
    const steps = [`EHLO attacker.test\r\n`, `MAIL FROM:<mallory@attacker.test>\r\n`, `RCPT TO:<${inboundAddress}>\r\n`, `DATA\r\n`];
    let buf = "";
    let step = -1;
    socket.on("data", (d) => {
      buf += d.toString("latin1");
      if (!/(^|\r\n)\d{3} [^\r\n]*\r\n$/.test(buf)) return;
      const reply = buf;
      buf = "";
      step++;
      if (step < steps.length) return void socket.write(steps[step]!);
      if (step === steps.length) return void socket.write(Buffer.concat([raw, Buffer.from(".\r\n")]));
      socket.end("QUIT\r\n");
      resolve(reply.trim());
    });
    socket.on("error", reject);
  });
}

Bun.gc(true);
await Bun.sleep(1000);
const before = status("VmRSS");
let peak = before;
const sampler = setInterval(() => (peak = Math.max(peak, status("VmRSS"))), 50);
const replies = await Promise.all(Array.from({ length: N }, (_, i) => send(message(i))));
const peakWhileReceiving = Math.max(peak, status("VmHWM"));
const t0 = Date.now();
for (;;) {
  const pending = db.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE type = 'inbound' AND status = 'pending'").get()!.n;
  const all = db.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE type = 'inbound'").get()!.n;
  if (all >= N && pending === 0) break;
  if (Date.now() - t0 > 300_000) throw new Error("inbound jobs did not finish");
  await Bun.sleep(200);
}
const processedAfterMs = Date.now() - t0;
const res = await fetch(`http://127.0.0.1:${httpPort}/v1/messages?page[size]=${N}`, { headers: { authorization: `Bearer ${teamToken}` } });
const listing = await res.arrayBuffer();
await Bun.sleep(500);
clearInterval(sampler);
const hwm = status("VmHWM");
const after = status("VmRSS");
const longest = db.query<{ n: number }, []>("SELECT max(length(subject)) AS n FROM messages WHERE type = 'inbound'").get()!.n;
const sources = db.query<{ n: number }, []>("SELECT min(length(raw)) AS n FROM message_contents").get()?.n ?? NaN;
const eventBytes = db.query<{ n: number }, []>("SELECT max(length(body)) AS n FROM events").get()?.n ?? NaN;

console.log(`replies: ${[...new Set(replies.map((r) => r.slice(0, 3)))].join(",")}; processed ${processedAfterMs} ms after the last 250`);
console.log(`server RSS before ${mb(before)}, peak ${mb(Math.max(peak, hwm))} (until the last 250: ${mb(peakWhileReceiving)}), after ${mb(after)}`);
console.log(`GET /v1/messages?page[size]=${N}: HTTP ${res.status}, ${(listing.byteLength / 1024).toFixed(1)} KB`);
console.log(`longest stored subject: ${longest} characters; largest event data: ${eventBytes} bytes; smallest stored source: ${(sources / 1024 / 1024).toFixed(1)} MB`);

db.close();
child.kill("SIGTERM");
await child.exited;
await dns.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
