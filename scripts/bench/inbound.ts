// Inbound benchmark: the MX listener and the inbound job runner in this process on a file
// database (synchronous=FULL, production settings), mailauth's SPF/DKIM/DMARC lookups answered
// by a loopback DNS server, and an SMTP client in a subprocess (so it does not share this
// process's thread) keeping 20 sessions busy, each sending message after message.
//
//   bun scripts/bench/inbound.ts [messages2k=4000] [messages200k=400] [sessions=20]
//
// Prints per message size (and, for comparison with Haraka's figure, with a new connection per
// message): accepted/s (250 after the durable commit, seen by the client) and
// processed/s (parsed, checked, scored, stored and message.inbound queued as an event, measured
// until the last event exists), then the peak RSS of this process.
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DEADLINE_MS = 180_000;

// ---------------------------------------------------------------- client (subprocess) ----
if (process.argv[2] === "--client") {
  const [port, sessions, count, file, perConnection] = process.argv.slice(3);
  const raw = await Bun.file(file!).bytes();
  const to = process.argv[8]!;
  const body = Buffer.concat([Buffer.from(raw), Buffer.from("\r\n.\r\n")]);
  let next = 0;
  let refused = 0;
  const total = Number(count);

  /** One SMTP session; with perConnection, a new connection per message (as Haraka was measured). */
  async function session(): Promise<void> {
    for (;;) {
      const socket = connect({ port: Number(port), host: "127.0.0.1" });
      socket.setNoDelay(true);
      let buffer = "";
      const waiters: ((line: string) => void)[] = [];
      const lines: string[] = [];
      socket.on("data", (c: Buffer) => {
        buffer += c.toString("latin1");
        let i: number;
        while ((i = buffer.indexOf("\r\n")) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (line[3] === "-") continue;
          const w = waiters.shift();
          if (w) w(line);
          else lines.push(line);
        }
      });
      const reply = () => new Promise<string>((r) => (lines.length ? r(lines.shift()!) : waiters.push(r)));
      await reply();
      socket.write("EHLO bench.client\r\n");
      await reply();
      while (next < total) {
        next++;
        socket.write(`MAIL FROM:<alice@sender.test>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
        const [m, r, d] = [await reply(), await reply(), await reply()];
        if (!m.startsWith("250") || !r.startsWith("250") || !d.startsWith("354")) throw new Error(`unexpected: ${m} / ${r} / ${d}`);
        socket.write(body);
        const final = await reply();
        if (!final.startsWith("250")) refused++;
        if (perConnection === "1") break;
      }
      socket.write("QUIT\r\n");
      socket.end();
      if (next >= total) return;
    }
  }
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Number(sessions) }, session));
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ ms, refused }));
  process.exit(0);
}

// ---------------------------------------------------------------- server (this process) ----
const N2K = Number(process.argv[2] ?? 4000);
const N200K = Number(process.argv[3] ?? 400);
const SESSIONS = Number(process.argv[4] ?? 20);

const { loadConfig } = await import("../../src/config.ts");
const { createDeps } = await import("../../src/runtime.ts");
const { createLogger } = await import("../../src/log.ts");
const { addBootstrapTeam } = await import("../../src/bootstrap.ts");
const { JobRunner } = await import("../../src/jobs/runner.ts");
const { registerInboundJobs } = await import("../../src/smtp/inbound-job.ts");
const { startInboundListener } = await import("../../src/smtp/inbound.ts");
const { generateDkimKeyPair, dkimRecordContent } = await import("../../src/dns/dkim-key.ts");
const { startDnsServer } = await import("../../test/support/dns-server.ts");
const { sqliteOf } = await import("../../test/support/test-database.ts");
const { dkimSign } = await import("mailauth");
const MailComposer = (await import("nodemailer/lib/mail-composer")).default;

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
});
const deps = createDeps(config, { log: createLogger("error") });
const sqlite = sqliteOf(deps);
await addBootstrapTeam(deps.store, { teamName: "Bench", inboundDomain: config.inboundDomain });
const inboundAddress = sqlite.query<{ a: string }, []>("SELECT inbound_address AS a FROM routes WHERE route_type = 'inbound'").get()!.a;

// A sender with SPF, DKIM and DMARC published, so every check does real work.
const key = generateDkimKeyPair();
dns.set("sender.test", "TXT", ["v=spf1 ip4:127.0.0.0/8 -all"]);
dns.set("s1._domainkey.sender.test", "TXT", [dkimRecordContent(key.publicKeyBase64)]);
dns.set("_dmarc.sender.test", "TXT", ["v=DMARC1; p=reject"]);

async function message(bytes: number): Promise<string> {
  const paragraph = "The quick brown fox jumps over the lazy dog while the mail server keeps counting messages. ";
  const text = paragraph.repeat(Math.ceil((bytes * 0.45) / paragraph.length));
  const html = `<html><body>${`<p>${paragraph}<a href="https://sender.test/offer">offer</a></p>`.repeat(Math.ceil((bytes * 0.45) / (paragraph.length + 50)))}</body></html>`;
  const raw = await new MailComposer({
    from: "Alice <alice@sender.test>",
    to: inboundAddress,
    subject: "Benchmark message",
    text: text.slice(0, Math.floor(bytes * 0.4)),
    html: html.slice(0, Math.floor(bytes * 0.4)).replace(/<[^>]*$/, ""),
  })
    .compile()
    .build();
  const signed = await dkimSign(raw, { signatureData: [{ signingDomain: "sender.test", selector: "s1", privateKey: key.privateKeyPem }] } as never);
  const full = Buffer.concat([Buffer.from(signed.signatures), raw]).toString("latin1");
  // Dot-stuffing for the wire.
  const path = join(dir, `msg-${bytes}.eml`);
  await Bun.write(path, full.replace(/\r?\n/g, "\r\n").replace(/^\./gm, ".."));
  return path;
}

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 25);

const runner = new JobRunner(deps);
registerInboundJobs(runner, deps);
runner.start();
const listener = await startInboundListener(deps, { host: "127.0.0.1", port: 0, maxClients: 1000 });

const inboundEvents = sqlite.prepare<{ n: number }, []>("SELECT count(*) AS n FROM events WHERE kind = 'message.inbound'");
const pending = sqlite.prepare<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE status = 'pending'");

async function phase(label: string, bytes: number, count: number, perConnection = false, sessions = SESSIONS) {
  const file = await message(bytes);
  const size = Bun.file(file).size;
  const before = inboundEvents.get()!.n;
  const commitsBefore = deps.store.stats.commits;
  const t0 = performance.now();
  const client = Bun.spawn([process.execPath, import.meta.path, "--client", String(listener.port), String(sessions), String(count), file, perConnection ? "1" : "0", inboundAddress], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(client.stdout).text();
  await client.exited;
  const { ms: clientMs, refused } = JSON.parse(out.trim().split("\n").pop()!) as { ms: number; refused: number };
  while (inboundEvents.get()!.n - before < count && Date.now() - started < DEADLINE_MS) await Bun.sleep(20);
  const e2eMs = performance.now() - t0;
  const processed = inboundEvents.get()!.n - before;
  console.log(
    `  ${label.padEnd(34)} ${String(count).padStart(5)} msgs of ${(size / 1024).toFixed(0).padStart(3)} KB: ` +
      `accepted ${(count / (clientMs / 1000)).toFixed(0).padStart(5)}/s, processed ${(processed / (e2eMs / 1000)).toFixed(0).padStart(5)}/s` +
      ` (${processed}/${count} events, ${refused} refused, ${deps.store.stats.commits - commitsBefore} group commits)`,
  );
}

console.log(`inbound bench: ${SESSIONS} concurrent SMTP sessions, file database synchronous=FULL, SPF+DKIM+DMARC checked (loopback DNS, cached 60 s)`);
await phase("2 KB, sessions reused", 2048, N2K);
await phase("200 KB, sessions reused", 200 * 1024, N200K);
// smtp-server holds every new connection's greeting for 100 ms (early-talker detection), so
// with a connection per message the rate is about sessions / 0.1 s; shown at 20 and 100.
await phase("2 KB, new connection per message", 2048, Math.min(N2K, 1000), true);
await phase("2 KB, new connection per msg, 100 conc.", 2048, Math.min(N2K, 3000), true, 100);
clearInterval(sampler);
console.log(`  peak RSS: ${(peakRss / 1024 / 1024).toFixed(0)} MB; messages left pending: ${pending.get()!.n}; total ${((Date.now() - started) / 1000).toFixed(1)} s`);

await listener.stop();
await runner.stop();
await dns.close();
await deps.store.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
