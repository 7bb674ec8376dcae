import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { publishEvent } from "../../src/events/publish.ts";
import { createTestApp, engine, tempDir, waitFor } from "../helpers.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver } from "./support.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

test("deliveries pending at SIGKILL are made after a restart", async () => {
  const dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  const cert = makeTestCert(["hooks.example.test"]);
  let slow = true;
  const receiver = startReceiver(cert, {
    respond: async () => {
      if (slow) await Bun.sleep(250);
      return new Response("ok");
    },
  });
  cleanups.push(() => receiver.stop(), () => dns.close());

  const dir = tempDir();
  const dbPath = join(dir, "posthorn.db");
  const env = {
    POSTHORN_DATA_DIR: dir,
    POSTHORN_DNS_SERVERS: dns.server,
    POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
  };
  // The worker opens the same database: the SQLite file, or the test's PostgreSQL database.
  const t = engine === "postgres" ? createTestApp({ env }) : createTestApp({ env, dbPath });
  const workerEnv = { ...env, ...(t.config.databaseUrl ? { POSTHORN_DATABASE_URL: t.config.databaseUrl } : {}) };
  const routeId = (await t.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [t.team.projectId]))!.id;
  const created = await t.request("POST", "/v1/webhooks", { body: { route_id: routeId, name: "crash", url: receiver.url(), events: ["message.delivered"] } });
  receiver.secret = created.json.data.secret;

  const N = 40;
  const eventIds = await t.deps.store.write(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      ids.push(await publishEvent(tx, { teamId: t.team.teamId, routeId, kind: "message.delivered", data: { message_id: `m-${i}` } }));
    }
    return ids;
  });

  const spawnWorker = async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "webhook-worker.ts"), dbPath], {
      env: { ...process.env, ...workerEnv, NODE_EXTRA_CA_CERTS: cert.caPath },
      stdout: "pipe",
      stderr: "inherit",
    });
    cleanups.push(() => proc.kill("SIGKILL"));
    const reader = proc.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("ready");
    return proc;
  };

  const first = await spawnWorker();
  await waitFor(() => receiver.deliveries.length >= 6, 10_000);
  first.kill("SIGKILL");
  await first.exited;
  expect(first.signalCode).toBe("SIGKILL");

  const pending = (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND dead_at IS NULL"))!.n;
  const inFlight = (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND attempts > 0 AND run_at > ?", [Date.now()]))!.n;
  expect(pending).toBeGreaterThan(N / 2); // most deliveries had not been made
  expect(inFlight).toBeGreaterThan(0); // and some were in the middle of an attempt

  slow = false;
  const second = await spawnWorker();
  await waitFor(() => {
    const done = new Set(receiver.deliveries.filter((d) => d.verified && d.status === 200).map((d) => d.json!.id));
    return eventIds.every((id) => done.has(id));
  }, 15_000);
  await waitFor(async () => (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook'"))!.n === 0, 5000);
  second.kill("SIGKILL");

  expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
  const succeeded = await t.sql.all<{ event_id: string }>("SELECT DISTINCT event_id FROM webhook_deliveries WHERE outcome = 'succeeded'");
  expect(new Set(succeeded.map((r) => r.event_id))).toEqual(new Set(eventIds));
  // An attempt cut off by the kill is made again with the next attempt number.
  expect(Math.max(...receiver.deliveries.map((d) => d.attempt))).toBeGreaterThanOrEqual(2);
}, 40_000);
