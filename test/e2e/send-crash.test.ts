// Crash safety of outbound mail: the real server (a subprocess) accepts 2,000 messages, is killed
// with SIGKILL while delivering them, and is started again on the same data directory. Every
// message must reach a final status and arrive at the recipient's server exactly once: a 250 the
// killed server had not committed yet is recorded as a receipt, by the server itself or by its
// SMTP agent process, which outlives it (src/mail/smtp-agent.ts).
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, rmSync } from "node:fs";
import { databasePath } from "../../src/db/connection.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startSink } from "../send/harness.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { freePort, prepareDataDir, smtpAgentsOf, spawnServer, type ServerProcess } from "./fixtures/outbound-server.ts";

const TOTAL = 2000;

const dir = tempDir("posthorn-crash-");
let server: ServerProcess | null = null;
afterAll(() => {
  server?.proc.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

test(
  "SIGKILL mid-delivery loses nothing: after restart every accepted message is delivered",
  async () => {
    const data = prepareDataDir(dir);
    const dns = await startDnsServer();
    const sink = await startSink();
    // A remote MX answering DATA in 2–20 ms: deliveries stay in flight, at uneven paces.
    sink.dataDelayMs = 2;
    sink.dataDelayJitterMs = 18;
    dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
    dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
    dns.set("mx.dest.test", "A", ["127.0.0.1"]);
    const env = { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };

    server = await spawnServer({ dataDir: dir, port: await freePort(), env });
    const headers = { "content-type": "application/json", "x-service-token": data.projectToken };
    const ids: string[] = [];
    for (let b = 0; b < TOTAL / 500; b++) {
      const body = Array.from({ length: 500 }, (_, i) => ({
        from: `app@${data.domain}`,
        to: [`user${b * 500 + i}@dest.test`],
        subject: `crash test ${b * 500 + i}`,
        text: "Every accepted message must arrive.",
      }));
      const res = await fetch(`${server.url}/v1/send/batch`, { method: "POST", headers, body: JSON.stringify(body) });
      expect(res.status).toBe(202);
      ids.push(...((await res.json()) as { message_id: string }[]).map((r) => r.message_id));
    }
    expect(ids.length).toBe(TOTAL);

    await waitFor(() => sink.received.length >= 300, 30_000, 5);
    // Kill at a moment unrelated to any one delivery (not right after a 250 was sent).
    await Bun.sleep(Math.random() * 20);
    const agents = smtpAgentsOf(server.proc.pid);
    expect(agents.length).toBe(1);
    const killedAt = Date.now();
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    const atKill = sink.received.length;
    expect(atKill).toBeLessThan(TOTAL); // killed mid-delivery
    // The orphaned agent records what it knows and exits by itself, well within the job lease.
    await waitFor(() => !existsSync(`/proc/${agents[0]}`), 6_000, 10);
    // Recipients whose 250 had arrived but whose outcome had not committed with their job.
    const dead = new Database(databasePath(dir), { readonly: true });
    const receipts = dead
      .query<{ message_id: string; created_at: number }, []>(
        "SELECT r.message_id, d.created_at FROM delivery_receipts d JOIN recipients r ON r.id = d.recipient_id",
      )
      .all();
    const receipted = receipts.map((r) => `${r.message_id}@${data.domain}`);
    const byAgent = receipts.filter((r) => r.created_at >= killedAt).length;
    dead.close();

    server = await spawnServer({ dataDir: dir, port: await freePort(), env });
    const db = new Database(databasePath(dir), { readonly: true });
    const unfinished = () =>
      db.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE status NOT IN ('delivered', 'hard_bounced', 'failed', 'suppressed')").get()!.n;
    // In-flight jobs of the killed process become claimable when their 10 s lease runs out.
    await waitFor(() => unfinished() === 0, 60_000, 100);

    const statuses = db.query<{ status: string; n: number }, []>("SELECT status, count(*) AS n FROM messages GROUP BY status").all();
    expect(statuses).toEqual([{ status: "delivered", n: TOTAL }]);
    const byMessageId = new Map<string, number>();
    const firstAnswered = new Map<string, number>();
    for (const m of sink.received) {
      const id = /^Message-ID:\s*<([^>]+)>/im.exec(m.raw.toString("latin1"))![1]!;
      byMessageId.set(id, (byMessageId.get(id) ?? 0) + 1);
      if (!firstAnswered.has(id)) firstAnswered.set(id, m.at);
    }
    const accepted = new Set(ids.map((id) => `${id}@${data.domain}`));
    expect([...accepted].every((id) => byMessageId.has(id))).toBe(true); // none lost
    const twice = [...byMessageId.entries()].filter(([, n]) => n > 1).map(([id]) => id);
    const afterKill = twice.filter((id) => firstAnswered.get(id)! >= killedAt).length;
    console.log(
      `crash test: ${TOTAL} accepted, ${atKill} received before SIGKILL, ${byMessageId.size} distinct received after restart; ` +
        `${receipted.length} accepted but not yet recorded at the kill (${receipted.length - byAgent} receipts written by the server, ${byAgent} by its orphaned SMTP agent), not sent again; ` +
        `${twice.length} delivered twice (${afterKill} of them first answered after the SIGKILL)`,
    );
    // Every 250 is on record (delivery_receipts) even when the server died before reading it, so
    // no message is sent again.
    expect(receipted.filter((id) => byMessageId.get(id) !== 1)).toEqual([]);
    expect(twice).toEqual([]);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM delivery_receipts").get()!.n).toBe(0);
    db.close();
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    server = null;
    await sink.close();
    await dns.close();
  },
  120_000,
);
