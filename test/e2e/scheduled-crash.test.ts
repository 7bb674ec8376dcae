// Crash safety of scheduled sending: 2,000 messages are scheduled for one and the same second,
// the real server (a subprocess) is SIGKILLed within that second, while it flips them from
// scheduled to queued and delivers them, and started again on the same database. Every message
// must reach the recipients' MX (a loopback SMTP sink behind a loopback DNS server) exactly once,
// counted per Message-ID: none lost, none twice, none before its time. On the test engine
// (SQLite, or PostgreSQL under POSTHORN_TEST_ENGINE=postgres) with one node; on PostgreSQL also
// with two nodes on one database, one of them killed in that second while the other runs on.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, rmSync } from "node:fs";
import { databasePath } from "../../src/db/connection.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startSink, type Sink } from "../send/harness.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { testPostgres } from "../support/postgres.ts";
import { engine } from "../support/test-database.ts";
import { requireTool } from "../support/tools.ts";
import { freePort, preparePostgresDatabase, prepareDataDir, smtpAgentsOf, spawnServer, type ServerProcess } from "./fixtures/outbound-server.ts";

const TOTAL = 2000;
/**
 * How long before the chosen second the scheduling starts: 4 batches of 500 are accepted well
 * within it (6 s was not enough on a 2-core machine at load 15: the last batch came after it).
 */
const LEAD_MS = 10_000;
const FINAL = "('delivered', 'hard_bounced', 'failed', 'suppressed', 'canceled', 'cancelled')";

const live: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const s of live) s.proc.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The count of messages not final yet, on either engine's database. */
type Unfinished = () => Promise<number>;

interface Cluster {
  domain: string;
  token: string;
  env: Record<string, string>;
  unfinished: Unfinished;
  statuses(): Promise<{ status: string; n: number }[]>;
  close(): Promise<void>;
}

async function setUp(on: "sqlite" | "postgres", sink: Sink, dns: TestDnsServer, dir: string): Promise<Cluster> {
  const env: Record<string, string> = { POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };
  if (on === "sqlite") {
    const data = prepareDataDir(dir);
    dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
    let db: Database | null = null;
    const open = () => (db ??= new Database(databasePath(dir), { readonly: true }));
    return {
      domain: data.domain,
      token: data.projectToken,
      env,
      unfinished: async () => open().query<{ n: number }, []>(`SELECT count(*) AS n FROM messages WHERE status NOT IN ${FINAL}`).get()!.n,
      statuses: async () => open().query<{ status: string; n: number }, []>("SELECT status, count(*) AS n FROM messages GROUP BY status").all(),
      close: async () => db?.close(),
    };
  }
  const url = await (await testPostgres()).createDatabase();
  const data = await preparePostgresDatabase(url);
  dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
  env.POSTHORN_DATABASE_URL = url;
  return {
    domain: data.domain,
    token: data.boot.project_token,
    env,
    unfinished: async () =>
      Number(((await data.sql.unsafe(`SELECT count(*) AS n FROM messages WHERE type = 'outbound' AND status NOT IN ${FINAL}`)) as { n: bigint }[])[0]!.n),
    statuses: async () =>
      ((await data.sql.unsafe("SELECT status, count(*) AS n FROM messages WHERE type = 'outbound' GROUP BY status")) as { status: string; n: bigint }[]).map((r) => ({
        status: r.status,
        n: Number(r.n),
      })),
    close: () => data.sql.close(),
  };
}

async function node(dir: string, c: Cluster, name: string): Promise<ServerProcess> {
  const s = await spawnServer({ dataDir: dir, port: await freePort(), env: { ...c.env, POSTHORN_NODE_NAME: name } });
  live.push(s);
  return s;
}

/** SIGKILL, and wait for its orphaned SMTP agent to record what it knows and exit (well within the job lease). */
async function kill(s: ServerProcess): Promise<void> {
  const agents = smtpAgentsOf(s.proc.pid);
  s.proc.kill("SIGKILL");
  await s.proc.exited;
  live.splice(live.indexOf(s), 1);
  await waitFor(() => agents.every((a) => !existsSync(`/proc/${a}`)), 6_000, 10);
}

/** 2,000 messages in 4 batches of 500, sent to the nodes in turn, all for the second `at`. */
async function scheduleAll(nodes: ServerProcess[], c: Cluster, at: number): Promise<string[]> {
  const headers = { "content-type": "application/json", "x-service-token": c.token };
  const scheduledAt = new Date(at).toISOString();
  const ids: string[] = [];
  for (let b = 0; b < TOTAL / 500; b++) {
    const body = Array.from({ length: 500 }, (_, i) => ({
      from: `app@${c.domain}`,
      to: [`user${b * 500 + i}@dest.test`],
      subject: `scheduled crash ${b * 500 + i}`,
      text: "Every scheduled message must arrive once, at its time.",
      scheduled_at: scheduledAt,
    }));
    const res = await fetch(`${nodes[b % nodes.length]!.url}/v1/send/batch`, { method: "POST", headers, body: JSON.stringify(body) });
    const answer = (await res.json()) as { message_id: string; status: string; scheduled_at?: string }[];
    expect(res.status).toBe(202);
    expect(new Set(answer.map((r) => r.status))).toEqual(new Set(["scheduled"]));
    ids.push(...answer.map((r) => r.message_id));
  }
  // Scheduled in time: otherwise this run would test nothing about the second it aims at.
  expect(Date.now()).toBeLessThan(at);
  return ids;
}

/** Per Message-ID at the sink: how often, and when first answered. */
function tally(sink: Sink) {
  const count = new Map<string, number>();
  const first = new Map<string, number>();
  for (const m of sink.received) {
    const id = /^Message-ID:\s*<([^>]+)>/im.exec(m.raw.toString("latin1"))![1]!;
    count.set(id, (count.get(id) ?? 0) + 1);
    if (!first.has(id) || m.at < first.get(id)!) first.set(id, m.at);
  }
  return { count, first };
}

/** Accounting shared by both scenarios; returns the line to print. */
async function expectExactlyOnce(sink: Sink, c: Cluster, ids: string[], at: number): Promise<string> {
  await waitFor(async () => (await c.unfinished()) === 0, 60_000, 100);
  expect(await c.statuses()).toEqual([{ status: "delivered", n: TOTAL }]);
  const { count, first } = tally(sink);
  const lost = ids.filter((id) => !count.has(`${id}@${c.domain}`));
  const twice = [...count].filter(([, n]) => n > 1).map(([id]) => id);
  const early = [...first].filter(([, t]) => t < at).map(([id]) => id);
  const firstAt = Math.min(...first.values());
  expect(lost).toEqual([]);
  expect(twice).toEqual([]);
  expect(early).toEqual([]);
  expect(count.size).toBe(TOTAL);
  return `${count.size} distinct Message-IDs received, lost ${lost.length}, twice ${twice.length}, before their time ${early.length}; first received ${firstAt - at} ms after the scheduled second`;
}

/** The second to schedule for: a whole second, LEAD_MS or more from now. */
const chosenSecond = () => Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
/**
 * A moment within the second `at`: its jobs are being claimed and released (scheduled → queued,
 * up to 4 batches of 500 in one commit each, done some 50–250 ms into the second), the first
 * released are being composed and handed to the MX, the first 250s arriving, so the kill falls on
 * each of those steps.
 */
const killMoment = (at: number) => at + 20 + Math.floor(Math.random() * 930);

test(
  `one node (${engine}): 2,000 messages scheduled for one second, SIGKILL within that second, restart → each delivered exactly once`,
  async () => {
    const dir = tempDir("posthorn-scheduled-crash-");
    dirs.push(dir);
    const dns = await startDnsServer();
    const sink = await startSink();
    // A remote MX answering DATA in 2–20 ms: deliveries stay in flight, at uneven paces.
    sink.dataDelayMs = 2;
    sink.dataDelayJitterMs = 18;
    dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
    dns.set("mx.dest.test", "A", ["127.0.0.1"]);
    const c = await setUp(engine, sink, dns, dir);

    let server = await node(dir, c, "node-a");
    const at = chosenSecond();
    const ids = await scheduleAll([server], c, at);
    expect(ids).toHaveLength(TOTAL);
    expect(sink.received).toHaveLength(0);

    const killAt = killMoment(at);
    await Bun.sleep(killAt - Date.now());
    const killedAt = Date.now();
    await kill(server);
    const atKill = sink.received.length;
    expect(killedAt).toBeLessThan(at + 1000); // within the scheduled second
    expect(atKill).toBeLessThan(TOTAL); // killed with work left

    server = await node(dir, c, "node-a");
    const line = await expectExactlyOnce(sink, c, ids, at);
    console.log(
      `scheduled crash (${engine}, one node): ${TOTAL} scheduled for ${new Date(at).toISOString()}, SIGKILL ${killedAt - at} ms into that second with ${atKill} received; ` +
        `after restart all delivered ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill; ${line}`,
    );

    server.proc.kill("SIGTERM");
    await server.proc.exited;
    live.splice(live.indexOf(server), 1);
    await c.close();
    await sink.close();
    await dns.close();
  },
  120_000,
);

test.skipIf(engine !== "postgres" || !requireTool("postgresql"))(
  "two nodes on one PostgreSQL: 2,000 messages scheduled for one second, one node SIGKILLed within it → each delivered exactly once across the nodes",
  async () => {
    const dns = await startDnsServer();
    const sink = await startSink();
    sink.dataDelayMs = 2;
    sink.dataDelayJitterMs = 18;
    dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
    dns.set("mx.dest.test", "A", ["127.0.0.1"]);
    const [dirA, dirB] = [tempDir("posthorn-scheduled-a-"), tempDir("posthorn-scheduled-b-")];
    dirs.push(dirA, dirB);
    const c = await setUp("postgres", sink, dns, dirA);
    const a = await node(dirA, c, "node-a");
    const b = await node(dirB, c, "node-b");

    const at = chosenSecond();
    // Accepted by both nodes: the due work is the cluster's, not the accepting node's.
    const ids = await scheduleAll([a, b], c, at);
    expect(ids).toHaveLength(TOTAL);

    await Bun.sleep(killMoment(at) - Date.now());
    const killedAt = Date.now();
    await kill(a);
    const atKill = sink.received.length;
    expect(killedAt).toBeLessThan(at + 1000);
    expect(atKill).toBeLessThan(TOTAL);
    // The killed node comes back while the other is still at work: both then claim what node-a
    // had leased once its lease runs out, and must not both deliver it.
    const a2 = await node(dirA, c, "node-a");
    const line = await expectExactlyOnce(sink, c, ids, at);
    console.log(
      `scheduled crash (two PostgreSQL nodes): ${TOTAL} scheduled for ${new Date(at).toISOString()}, node-a SIGKILLed ${killedAt - at} ms into that second with ${atKill} received, ` +
        `node-b running on, node-a restarted; all delivered ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill; ${line}`,
    );

    for (const s of [a2, b]) {
      s.proc.kill("SIGTERM");
      await s.proc.exited;
      live.splice(live.indexOf(s), 1);
    }
    await c.close();
    await sink.close();
    await dns.close();
  },
  120_000,
);
