// Webhook delivery figures, loopback only, bounded in count and time:
//  1. throughput: signed deliveries per second from the "webhook" queue (file database,
//     synchronous=FULL, default concurrency) to a local HTTPS receiver over keep-alive connections;
//  2. latency: from the commit of a message's delivered status (changeRecipientStatus →
//     publishEvent) to the arrival of its message.delivered webhook at the receiver (p50, p99).
// The receiver runs in a child process (this script with --receiver) and verifies every signature.
//
// Usage: [EVENTS_PER_MESSAGE=1] bun scripts/bench/webhooks.ts [deliveries=20000] [latencySamples=500]
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const now = () => performance.timeOrigin + performance.now();

if (process.argv[2] === "--receiver") {
  // ---- receiver process: argv = --receiver certDir secret ----
  const [, , , certDir, secret] = process.argv;
  let verified = 0;
  let rejected = 0;
  // Client source ports seen: one per TCP connection, so this counts connections.
  const connections = new Set<number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: readFileSync(join(certDir!, "leaf.pem"), "utf8"), key: readFileSync(join(certDir!, "leaf.key"), "utf8") },
    async fetch(req, srv) {
      if (req.method === "GET") return Response.json({ verified, rejected, connections: connections.size });
      connections.add(srv.requestIP(req)?.port ?? 0);
      const at = now();
      const body = await req.text();
      const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(req.headers.get("x-service-signature") ?? "");
      const expected = m ? createHmac("sha256", secret!).update(`${m[1]}.${body}`).digest() : null;
      if (!m || !expected || !timingSafeEqual(expected, Buffer.from(m[2]!, "hex")) || Math.abs(Date.now() / 1000 - Number(m[1])) > 300) {
        rejected++;
        return new Response("bad signature", { status: 401 });
      }
      verified++;
      if (req.headers.get("x-service-event") === "message.delivered") {
        const messageId = (JSON.parse(body) as { data: { message_id: string } }).data.message_id;
        process.stdout.write(JSON.stringify({ messageId, at }) + "\n");
      }
      return new Response("ok");
    },
  });
  process.stdout.write(JSON.stringify({ port: server.port }) + "\n");
} else {
  await main();
}

async function main() {
  const { changeRecipientStatus } = await import("../../src/events/message-status.ts");
  const { publishEvent } = await import("../../src/events/publish.ts");
  const { WebhookSender, useWebhookSender } = await import("../../src/events/webhook-post.ts");
  const { registerWebhookJobs } = await import("../../src/events/webhook-job.ts");
  const { JobRunner } = await import("../../src/jobs/runner.ts");
  const { newId } = await import("../../src/ids.ts");
  const { createTestApp, sqliteOf, tempDir } = await import("../../test/helpers.ts");
  const { startDnsServer } = await import("../../test/support/dns-server.ts");
  const { makeTestCert } = await import("../../test/webhooks/support.ts");

  const deliveries = Number(process.argv[2] ?? 20_000);
  const samples = Number(process.argv[3] ?? 500);
  const deadline = Date.now() + 120_000;
  const bounded = () => {
    if (Date.now() > deadline) {
      console.error("webhooks bench: gave up after 120 s");
      process.exit(1);
    }
  };

  const dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  const cert = makeTestCert(["hooks.example.test"]);
  const certDir = cert.caPath.replace(/\/ca\.pem$/, "");

  const dir = tempDir("posthorn-bench-webhooks-");
  const env = { POSTHORN_DATA_DIR: dir, POSTHORN_DNS_SERVERS: dns.server, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" };
  const t = createTestApp({ env, dbPath: join(dir, "posthorn.db") });
  const { deps } = t;
  const sqlite = sqliteOf(deps);
  const routeId = sqlite
    .query<{ id: string }, [string]>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'")
    .get(t.team.projectId)!.id;

  // The receiver needs the secret, so the webhook is created first with a placeholder URL.
  const created = await t.request("POST", "/v1/webhooks", {
    body: { route_id: routeId, name: "bench", url: "https://hooks.example.test/hook", events: ["message.delivered", "message.sent"] },
  });
  const webhook = created.json.data as { id: string; secret: string };
  const receiver = Bun.spawn([process.execPath, import.meta.path, "--receiver", certDir, webhook.secret], { stdout: "pipe", stderr: "inherit" });
  const arrivals = new Map<string, number>();
  let port = 0;
  const portReady = Promise.withResolvers<void>();
  (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of receiver.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = JSON.parse(buf.slice(0, nl)) as { port?: number; messageId?: string; at?: number };
        buf = buf.slice(nl + 1);
        if (line.port) {
          port = line.port;
          portReady.resolve();
        } else arrivals.set(line.messageId!, line.at!);
      }
    }
  })();
  await portReady.promise;
  sqlite.query("UPDATE webhooks SET url = ? WHERE id = ?").run(`https://hooks.example.test:${port}/hook`, webhook.id);

  const sender = new WebhookSender({ dns: deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem });
  useWebhookSender(deps, sender);
  const runner = new JobRunner(deps);
  registerWebhookJobs(runner, deps, { sender });
  const pendingJobs = () => sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND dead_at IS NULL").get()!.n;

  // ---- 1. throughput ----
  const perMessage = Math.max(1, Number(process.env.EVENTS_PER_MESSAGE ?? 1));
  for (let i = 0; i < deliveries; i += 1000) {
    await deps.store.write(async (tx) => {
      for (let j = i; j < Math.min(deliveries, i + 1000); j++) {
        // Each event is about a message, as the product's are; EVENTS_PER_MESSAGE > 1 gives each
        // message several in a row (a burst's sent and delivered events queued together).
        const message = `bench-${Math.floor(j / perMessage)}`;
        await publishEvent(tx, { teamId: t.team.teamId, routeId, messageId: message, kind: "message.sent", data: { message_id: message, n: j } });
      }
    });
  }
  const t0 = performance.now();
  runner.start();
  while (pendingJobs() > 0) {
    bounded();
    await Bun.sleep(5);
  }
  const seconds = (performance.now() - t0) / 1000;
  const stats = (await (
    await fetch(`https://127.0.0.1:${port}/stats`, { tls: { ca: cert.caPem, serverName: "hooks.example.test" } })
  ).json()) as { verified: number; rejected: number; connections: number };
  const recorded = sqlite
    .query<{ ok: number; failed: number }, [string]>(
      "SELECT sum(outcome = 'succeeded') AS ok, sum(outcome = 'failed') AS failed FROM webhook_deliveries WHERE webhook_id = ?",
    )
    .get(webhook.id)!;
  console.log(`webhooks: ${deliveries} signed deliveries (${perMessage} event(s) a message) in ${seconds.toFixed(2)} s = ${Math.round(deliveries / seconds)}/s`);
  console.log(
    `  (concurrency ${deps.config.webhookConcurrency}, keep-alive HTTPS over ${stats.connections} connections, file database synchronous=FULL; receiver verified ${stats.verified}, rejected ${stats.rejected}; attempts recorded: ${recorded.ok} succeeded, ${recorded.failed ?? 0} failed)`,
  );

  // ---- 2. latency: delivered status committed → webhook received ----
  const recipients: { recipientId: string; messageId: string }[] = [];
  await deps.store.write(() => {
    const ts = Date.now();
    for (let i = 0; i < samples; i++) {
      const messageId = newId();
      const recipientId = newId();
      sqlite
        .query(
          `INSERT INTO messages (id, team_id, project_id, route_id, type, status, status_changed_at, from_email, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'outbound', 'processed', ?, 'bench@shop.example', '[]', '[]', '[]', '[]', '{}', ?, ?)`,
        )
        .run(messageId, t.team.teamId, t.team.projectId, routeId, ts, ts, ts);
      sqlite
        .query("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, created_at) VALUES (?, ?, 'rcpt@example.org', 'to', 'processed', ?, ?)")
        .run(recipientId, messageId, ts, ts);
      recipients.push({ recipientId, messageId });
    }
  });
  const committedAt = new Map<string, number>();
  const paceMs = 5;
  await Promise.all(
    recipients.map(async (r, i) => {
      await Bun.sleep(i * paceMs);
      await deps.store.write((tx) =>
        changeRecipientStatus(tx, {
          recipientId: r.recipientId,
          status: "delivered",
          response: { code: 250, enhanced_code: "2.0.0", message: "2.0.0 Ok" },
          attempted: true,
        }),
      );
      committedAt.set(r.messageId, now());
    }),
  );
  while (arrivals.size < samples) {
    bounded();
    await Bun.sleep(5);
  }
  const lat = recipients.map((r) => arrivals.get(r.messageId)! - committedAt.get(r.messageId)!).sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))]!.toFixed(1);
  console.log(
    `latency delivered-status commit → webhook received (${samples} messages, one every ${paceMs} ms): p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${lat[lat.length - 1]!.toFixed(1)} ms`,
  );

  await runner.stop();
  sender.close();
  receiver.kill();
  await dns.close();
  process.exit(0);
}
