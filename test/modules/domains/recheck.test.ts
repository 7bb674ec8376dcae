import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateDkimKeyPair } from "../../../src/dns/dkim-key.ts";
import { buildRecordSpecs } from "../../../src/dns/records.ts";
import { DnsResolver } from "../../../src/dns/resolver.ts";
import { newId } from "../../../src/ids.ts";
import { JobRunner } from "../../../src/jobs/runner.ts";
import {
  DEFAULT_RECHECK,
  DOMAIN_RECHECK_QUEUE,
  dueDomainIds,
  ensureDomainRecheckScheduled,
  recheckDomains,
  registerDomainRecheck,
} from "../../../src/modules/domains/recheck.ts";
import { startServer } from "../../../src/server.ts";
import { createTestApp, databaseEnv, insertTestDomain, testConfig, waitFor, type TestApp } from "../../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.ts";
import { subscribeEveryRoute } from "../../support/event-subscriber.ts";

const HOST = "mx.posthorn.test";
const key = generateDkimKeyPair();
let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(() => dns.close());

function app(): TestApp {
  const a = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
  a.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
  return a;
}

/** A domain row with its four records (one shared key: RSA generation is not what is tested here). */
function insertDomain(a: TestApp, domain: string, opts: { publish?: boolean } = {}) {
  const id = newId();
  const now = Date.now();
  a.sqlNow.run(
    `INSERT INTO domains (id, team_id, domain, status, dkim_selector, dkim_private_key, dkim_public_key, return_path_host, created_at, updated_at)
     VALUES (?, ?, ?, 'pending', 'ph1', ?, ?, 'ph-bounces', ?, ?)`,
    [id, a.team.teamId, domain, key.privateKeyPem, key.publicKeyBase64, now, now],
  );
  const specs = buildRecordSpecs({ domain, selector: "ph1", publicKeyBase64: key.publicKeyBase64, returnPathHost: "ph-bounces", hostname: HOST });
  for (const s of specs) {
    a.sqlNow.run(
      "INSERT INTO dns_records (id, domain_id, purpose, type, hostname, fqdn, content, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
      [newId(), id, s.purpose, s.type, s.hostname, s.fqdn, s.content, now],
    );
    if (opts.publish !== false) {
      if (s.type === "MX") dns.set(s.fqdn, "MX", [{ exchange: s.content, priority: 10 }]);
      else dns.set(s.fqdn, "TXT", [s.content]);
    }
  }
  return { id, specs, dkimFqdn: specs[0]!.fqdn };
}

const statusOf = (a: TestApp, id: string) =>
  a.sqlNow.get<{ status: string; status_changed_at: number | null; last_checked_at: number | null }>("SELECT status, status_changed_at, last_checked_at FROM domains WHERE id = ?", [id])!;
const ageChecks = (a: TestApp, id: string, ms: number) => {
  a.sqlNow.run("UPDATE domains SET last_checked_at = last_checked_at - ? WHERE id = ?", [ms, id]);
  a.sqlNow.run("UPDATE dns_records SET last_checked_at = last_checked_at - ? WHERE domain_id = ?", [ms, id]);
};

describe("which domains are due", () => {
  test("never checked: due; unverified: every 10 min; verified: daily", async () => {
    const a = app();
    const fresh = insertDomain(a, "due-fresh.example.test", { publish: false });
    const pending = insertDomain(a, "due-pending.example.test", { publish: false });
    const verified = insertDomain(a, "due-verified.example.test");
    await recheckDomains(a.deps, [pending.id, verified.id], 8);
    expect(statusOf(a, verified.id).status).toBe("active");
    expect(statusOf(a, pending.id).status).toBe("pending");
    const now = Date.now();
    const due = async (at: number) => (await dueDomainIds(a.deps, DEFAULT_RECHECK, at)).sort();
    expect(await due(now)).toEqual([fresh.id]);
    expect(await due(now + 5 * 60_000)).toEqual([fresh.id]);
    expect(await due(now + 11 * 60_000)).toEqual([fresh.id, pending.id].sort());
    expect(await due(now + 23 * 3600_000)).toEqual([fresh.id, pending.id].sort());
    expect(await due(now + 25 * 3600_000)).toEqual([fresh.id, pending.id, verified.id].sort());
    // Least recently checked first, and no more than the batch.
    expect(await dueDomainIds(a.deps, { ...DEFAULT_RECHECK, batch: 1 }, now + 25 * 3600_000)).toEqual([fresh.id]);
  });
});

describe("the periodic job", () => {
  test("flips a broken verified record to failed and publishes domain.dns_record_failed to the routes", async () => {
    const a = app();
    const d = insertDomain(a, "broken.example.test");
    await a.sql.run("INSERT INTO project_domains (project_id, domain_id, created_at) VALUES (?, ?, ?)", [a.team.projectId, d.id, Date.now()]);
    const routes = (await a.sql.all<{ id: string }>("SELECT id FROM routes WHERE project_id = ? ORDER BY id", [a.team.projectId])).map((r) => r.id);
    const hookId = newId();
    await a.sql.run(
      "INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, secret, created_at, updated_at) VALUES (?, ?, ?, 'h', 'https://hooks.example.test/', ?, 1, 'whsec_x', 0, 0)",
      [hookId, a.team.teamId, routes[0]!, JSON.stringify(["domain.dns_record_failed"])],
    );
    await recheckDomains(a.deps, [d.id], 8);
    const active = statusOf(a, d.id);
    expect(active.status).toBe("active");

    // The DKIM record is replaced by someone else's key, and a day has passed.
    dns.set(d.dkimFqdn, "TXT", ["v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong"]);
    ageChecks(a, d.id, 25 * 3600_000);

    const runner = new JobRunner(a.deps);
    registerDomainRecheck(runner, a.deps, { ...DEFAULT_RECHECK, sweepIntervalMs: 60_000 });
    await ensureDomainRecheckScheduled(a.deps);
    await ensureDomainRecheckScheduled(a.deps); // idempotent: still one sweep job
    expect((await a.deps.queue.depth(DOMAIN_RECHECK_QUEUE))).toBe(1);
    runner.start();
    try {
      await waitFor(() => statusOf(a, d.id).status === "failed");
    } finally {
      await runner.stop();
    }
    const after = statusOf(a, d.id);
    expect(after.status_changed_at).toBeGreaterThan(active.status_changed_at!);
    expect(after.last_checked_at).toBeGreaterThan(active.last_checked_at!);
    const dkim = (await a.sql.get<{ id: string; status: string; status_reason: string; last_checked_at: number }>(
      "SELECT id, status, status_reason, last_checked_at FROM dns_records WHERE domain_id = ? AND purpose = 'dkim'",
      [d.id],
    ))!;
    expect(dkim.status).toBe("failed");
    expect(dkim.status_reason).toContain("not the key Posthorn generated");

    // Published to every route of the project; recorded where a webhook listens (the first route).
    const events = await a.sql.all<{ route_id: string; kind: string; body: string }>("SELECT route_id, kind, body FROM events WHERE team_id = ? ORDER BY route_id", [a.team.teamId]);
    expect(events.map((e) => [e.route_id, e.kind])).toEqual([[routes[0]!, "domain.dns_record_failed"]]);
    const body = JSON.parse(events[0]!.body);
    expect(body).toMatchObject({
      event: "domain.dns_record_failed",
      data: {
        domain_id: d.id,
        domain: "broken.example.test",
        record: { id: dkim.id, purpose: "dkim", type: "TXT", fqdn: d.dkimFqdn },
        reason: dkim.status_reason,
      },
    });
    // The subscribed webhook got a delivery job; the sweep re-scheduled itself (one job, in the future).
    const hookJobs = await a.sql.all<{ payload: string }>("SELECT payload FROM jobs WHERE queue = 'webhook'");
    expect(hookJobs.map((j) => JSON.parse(j.payload).webhookId)).toEqual([hookId]);
    expect((await a.deps.queue.depth(DOMAIN_RECHECK_QUEUE))).toBe(1);
    expect((await a.deps.queue.nextDue(DOMAIN_RECHECK_QUEUE))!).toBeGreaterThan(Date.now() + 30_000);

    // A second sweep over the still-broken record publishes nothing new.
    ageChecks(a, d.id, 25 * 3600_000);
    await recheckDomains(a.deps, [d.id], 8);
    expect((await a.sql.get<{ n: number }>("SELECT count(*) AS n FROM events"))!.n).toBe(1);
    expect((await a.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook'"))!.n).toBe(1);
  });

  test("a DNS server failure on a verified domain changes nothing and publishes nothing", async () => {
    const a = app();
    const d = insertDomain(a, "flaky.example.test");
    // Attached to the project, and every route listening: anything published would be on record.
    await a.sql.run("INSERT INTO project_domains (project_id, domain_id, created_at) VALUES (?, ?, ?)", [a.team.projectId, d.id, Date.now()]);
    await subscribeEveryRoute(a.deps);
    await recheckDomains(a.deps, [d.id], 8);
    const before = statusOf(a, d.id);
    dns.fail(d.dkimFqdn, "SERVFAIL");
    dns.fail("ph-bounces.flaky.example.test", "TIMEOUT");
    const r = await recheckDomains(a.deps, [d.id], 8);
    dns.fail(d.dkimFqdn, null);
    dns.fail("ph-bounces.flaky.example.test", null);
    expect(r).toMatchObject({ checked: 1, broken: 0 });
    const after = statusOf(a, d.id);
    expect(after.status).toBe("active");
    expect(after.status_changed_at).toBe(before.status_changed_at);
    expect(after.last_checked_at).toBeGreaterThanOrEqual(before.last_checked_at!);
    const reasons = await a.sql.all<{ purpose: string; status: string; status_reason: string | null }>(
      "SELECT purpose, status, status_reason FROM dns_records WHERE domain_id = ? ORDER BY purpose",
      [d.id],
    );
    expect(reasons.every((x) => x.status === "active")).toBe(true);
    expect(reasons.find((x) => x.purpose === "dkim")!.status_reason).toContain("SERVFAIL");
    expect(reasons.find((x) => x.purpose === "return_path")!.status_reason).toContain("did not answer in time");
    expect((await a.sql.get<{ n: number }>("SELECT count(*) AS n FROM events"))!.n).toBe(0);
  });

  test("a domain deleted during its check is skipped without error", async () => {
    const a = app();
    const d = insertDomain(a, "gone.example.test");
    // Deleted while its DNS queries are unanswered (not after a fixed sleep: on PostgreSQL the
    // check's reads and this delete each take a round trip). The answers are held a second, in
    // a resolver that waits for them, so that a loaded machine's delete still lands first.
    a.deps.dns = new DnsResolver([dns.server], { timeoutMs: 3000, tries: 1 });
    dns.delayMs = 1000;
    const asked = dns.stats.queries;
    const pending = recheckDomains(a.deps, [d.id], 8);
    await waitFor(() => dns.stats.queries > asked, 5000, 1);
    await a.sql.run("DELETE FROM domains WHERE id = ?", [d.id]);
    dns.delayMs = 0;
    expect(await pending).toMatchObject({ checked: 0, broken: 0 });
  });
});

describe("scheduling", () => {
  test("the server queues one sweep on start, and still one after a restart", async () => {
    const config = testConfig({ ...databaseEnv(), POSTHORN_HTTP_HOST: "127.0.0.1", POSTHORN_HTTP_PORT: "0", POSTHORN_DNS_SERVERS: dns.server });
    for (let i = 0; i < 2; i++) {
      const server = await startServer(config);
      try {
        expect((await server.deps.queue.depth(DOMAIN_RECHECK_QUEUE))).toBe(1);
      } finally {
        await server.stop();
      }
    }
  });

  test("a domain without record rows (a fixture) keeps its status", async () => {
    const a = app();
    const d = insertTestDomain(a.deps, { teamId: a.team.teamId, domain: "fixture.example.test", status: "active" });
    await recheckDomains(a.deps, [d.domainId], 8);
    expect(statusOf(a, d.domainId).status).toBe("active");
  });
});

describe("bounded DNS concurrency", () => {
  test("never more queries in flight than the bound, whatever the number of domains", async () => {
    const a = app();
    const ids = Array.from({ length: 40 }, (_, i) => insertDomain(a, `bound${i}.example.test`).id);
    dns.delayMs = 10;
    try {
      for (const bound of [4, 12]) {
        dns.stats.inflightMax = 0;
        await a.sql.run("UPDATE domains SET last_checked_at = NULL");
        const r = await recheckDomains(a.deps, ids, bound);
        expect(r.checked).toBe(40);
        // Seen at the DNS server and counted by the limiter: the bound is reached, never passed.
        expect(dns.stats.inflightMax).toBeLessThanOrEqual(bound);
        expect(dns.stats.inflightMax).toBeGreaterThanOrEqual(bound - 1);
        expect(r.dns.inflightMax).toBe(bound);
        expect(r.dns.queries).toBeGreaterThanOrEqual(40 * 4);
      }
    } finally {
      dns.delayMs = 0;
    }
    const statuses = await a.sql.all<{ status: string; n: number }>("SELECT status, count(*) AS n FROM domains GROUP BY status");
    expect(statuses).toEqual([{ status: "active", n: 40 }]);
  });
});
