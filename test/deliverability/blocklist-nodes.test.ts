/**
 * The blocklist check on two PostgreSQL nodes sharing one database: both start it
 * (ensureBlocklistChecksScheduled) and both run the queue, yet one check job exists and one node
 * runs it at a time: over 6 s at a 1 s interval, at most 7 checks ran (not twice that), and a
 * listing keeps the time it was first found across the checks that follow. PostgreSQL only:
 * SQLite is one node.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../src/context.ts";
import { BLOCKLIST_QUEUE, ensureBlocklistChecksScheduled, registerBlocklistChecks } from "../../src/deliverability/blocklist-job.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { openDeps } from "../../src/runtime.ts";
import { createTestApp, engine, testConfig, waitFor } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

const ENV = { POSTHORN_SENDING_ADDRESSES: "192.0.2.7", POSTHORN_BLOCKLIST_IP_ZONES: "zen.spamhaus.org", POSTHORN_BLOCKLIST_DOMAIN_ZONES: "none", POSTHORN_BLOCKLIST_INTERVAL: "1" };

describe.skipIf(engine !== "postgres")("blocklist checks on two PostgreSQL nodes", () => {
  let dns: TestDnsServer;
  let app: ReturnType<typeof createTestApp>;
  let b: Deps;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    dns = await startDnsServer();
    app = createTestApp({ env: { ...ENV, POSTHORN_DNS_SERVERS: dns.server } });
    b = await openDeps(testConfig({ ...ENV, POSTHORN_DNS_SERVERS: dns.server, POSTHORN_DATABASE_URL: app.deps.config.databaseUrl! }));
    for (const deps of [app.deps, b]) {
      const r = new JobRunner(deps);
      registerBlocklistChecks(r, deps);
      runners.push(r);
    }
    await Promise.all([ensureBlocklistChecksScheduled(app.deps), ensureBlocklistChecksScheduled(b)]);
    for (const r of runners) r.start();
  });
  afterAll(async () => {
    for (const r of runners) await r.stop(2000);
    await b.store.close();
    await dns.close();
  });

  test("one job, one check at a time, a listing found once", async () => {
    expect(Number((await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = ?", [BLOCKLIST_QUEUE]))!.n)).toBe(1);
    const checks = new Set<number>();
    const started = Date.now();
    dns.set("7.2.0.192.zen.spamhaus.org", "A", ["127.0.0.2"]);
    while (Date.now() - started < 6000) {
      const r = await app.sql.get<{ checked_at: number }>("SELECT checked_at FROM blocklist_status WHERE target = '192.0.2.7'");
      if (r) checks.add(Number(r.checked_at));
      await Bun.sleep(50);
    }
    console.log(`checks in 6 s at a 1 s interval on two nodes: ${checks.size}`);
    expect(checks.size).toBeGreaterThanOrEqual(4);
    expect(checks.size).toBeLessThanOrEqual(7);
    await waitFor(async () => Number((await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = ? AND dead_at IS NULL", [BLOCKLIST_QUEUE]))!.n) === 1);
    // Found once: the checks after it keep its since.
    const row = await app.sql.get<{ listed: number; since: number }>("SELECT listed, since FROM blocklist_status WHERE target = '192.0.2.7'");
    expect(Number(row!.listed)).toBe(1);
    expect(Number(row!.since)).toBeLessThan(Math.max(...checks));
  }, 20_000);
});
