/**
 * DNS verification throughput: 1,000 domains × 4 records checked against a loopback
 * authoritative DNS server (test/support/dns-server.ts, run in a child process so it does not
 * share the verifier's thread), through the periodic re-check's code path (recheckDomains:
 * bounded lookups, one group-committed write per domain, file database with synchronous=FULL).
 *
 *   bun scripts/bench/dns-verify.ts [--domains 1000] [--bounds 8,32] [--latency-ms 5]
 *
 * Scenarios: all records published; none published (NXDOMAIN everywhere); all published with
 * every answer delayed by --latency-ms (a remote resolver's latency: queries then overlap at the
 * server, which shows the bound holding). Prints records/s per concurrency bound and the most
 * queries seen in flight, by the limiter and at the DNS server. Bounded: at most 5,000 domains,
 * and a 120 s deadline.
 */
import { join } from "node:path";
import { addBootstrapTeam } from "../../src/bootstrap.ts";
import { loadConfig } from "../../src/config.ts";
import { generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { buildRecordSpecs } from "../../src/dns/records.ts";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { newId } from "../../src/ids.ts";
import { recheckDomains } from "../../src/modules/domains/recheck.ts";
import { createDeps } from "../../src/runtime.ts";

const HOST = "mx.posthorn.bench";
type ZoneEntry = { name: string; type: "TXT" | "MX" | "A"; values: unknown[] };
type ToChild = { type: "zone"; entries: ZoneEntry[] } | { type: "stats" } | { type: "reset"; delayMs: number } | { type: "clear" };
type FromChild = { type: "ready"; server: string } | { type: "ok" } | { type: "stats"; queries: number; inflightMax: number };

if (process.argv.includes("--serve-dns")) {
  const { startDnsServer } = await import("../../test/support/dns-server.ts");
  const dns = await startDnsServer();
  const names = new Set<string>();
  process.on("message", (m: ToChild) => {
    if (m.type === "zone") {
      for (const e of m.entries) {
        dns.set(e.name, e.type, e.values as never);
        names.add(e.name);
      }
      process.send!({ type: "ok" });
    } else if (m.type === "clear") {
      for (const n of names) dns.remove(n);
      names.clear();
      process.send!({ type: "ok" });
    } else if (m.type === "reset") {
      dns.stats.queries = 0;
      dns.stats.inflightMax = 0;
      dns.delayMs = m.delayMs;
      process.send!({ type: "ok" });
    } else if (m.type === "stats") {
      process.send!({ type: "stats", ...dns.stats });
    }
  });
  process.send!({ type: "ready", server: dns.server });
} else {
  await main();
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function main() {
  const deadline = setTimeout(() => {
    console.error("dns-verify: deadline of 120 s passed, aborting");
    process.exit(1);
  }, 120_000);
  const domainCount = Math.min(5000, Math.max(1, Number(arg("domains", "1000"))));
  const bounds = arg("bounds", "8,32").split(",").map(Number).filter((n) => n >= 1);
  const latencyMs = Number(arg("latency-ms", "5"));

  // The DNS server in a child process, talked to over IPC.
  let pending: ((m: FromChild) => void) | null = null;
  const child = Bun.spawn({
    cmd: [process.execPath, import.meta.path, "--serve-dns"],
    stdio: ["ignore", "inherit", "inherit"],
    ipc(message: FromChild) {
      const p = pending;
      pending = null;
      p?.(message);
    },
  });
  const ask = (m: ToChild | null) =>
    new Promise<FromChild>((resolve) => {
      pending = resolve;
      if (m) child.send(m);
    });
  const ready = (await ask(null)) as Extract<FromChild, { type: "ready" }>;

  const dataDir = (await import("node:fs")).mkdtempSync(join((await import("node:os")).tmpdir(), "posthorn-bench-dns-"));
  const config = loadConfig({ POSTHORN_DATA_DIR: dataDir, POSTHORN_LOG_LEVEL: process.env.LOG ?? "silent", POSTHORN_HOSTNAME: HOST, POSTHORN_DNS_SERVERS: ready.server });
  const deps = createDeps(config);
  const { sqliteOf } = await import("../../test/support/test-database.ts");
  const sqlite = sqliteOf(deps);
  const team = await addBootstrapTeam(deps.store, { teamName: "Bench", inboundDomain: config.inboundDomain });

  // RSA generation is not what is measured: a few keys shared by all domains.
  const keys = Array.from({ length: 4 }, () => generateDkimKeyPair());
  const ids: string[] = [];
  const zone: ZoneEntry[] = [{ name: HOST, type: "A", values: ["127.0.0.1"] }];
  sqlite.transaction(() => {
    const now = Date.now();
    const insertDomain = sqlite.query(
      `INSERT INTO domains (id, team_id, domain, status, dkim_selector, dkim_private_key, dkim_public_key, return_path_host, created_at, updated_at)
       VALUES (?, ?, ?, 'pending', 'ph1', ?, ?, 'ph-bounces', ?, ?)`,
    );
    const insertRecord = sqlite.query(
      "INSERT INTO dns_records (id, domain_id, purpose, type, hostname, fqdn, content, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
    );
    for (let i = 0; i < domainCount; i++) {
      const key = keys[i % keys.length]!;
      const domain = `bench${i}.example.test`;
      const id = newId();
      ids.push(id);
      insertDomain.run(id, team.team_id, domain, key.privateKeyPem, key.publicKeyBase64, now, now);
      for (const s of buildRecordSpecs({ domain, selector: "ph1", publicKeyBase64: key.publicKeyBase64, returnPathHost: "ph-bounces", hostname: HOST })) {
        insertRecord.run(newId(), id, s.purpose, s.type, s.hostname, s.fqdn, s.content, now);
        zone.push(s.type === "MX" ? { name: s.fqdn, type: "MX", values: [{ exchange: s.content, priority: 10 }] } : { name: s.fqdn, type: "TXT", values: [s.content] });
      }
    }
  })();

  const records = domainCount * 4;
  console.log(`dns-verify: ${domainCount} domains × 4 records = ${records} records, loopback DNS server in a child process, bounds ${bounds.join(", ")}`);
  const scenarios: { name: string; publish: boolean; expect: string; delayMs: number }[] = [
    { name: "published", publish: true, expect: "active", delayMs: 0 },
    { name: "missing (NXDOMAIN)", publish: false, expect: "pending", delayMs: 0 },
    { name: `published, ${latencyMs} ms latency`, publish: true, expect: "active", delayMs: latencyMs },
  ];
  for (const scenario of scenarios) {
    await ask({ type: "clear" });
    await ask({ type: "zone", entries: scenario.publish ? zone : [zone[0]!] });
    for (const bound of bounds) {
      sqlite.exec("UPDATE dns_records SET status = 'pending', verified_at = NULL; UPDATE domains SET status = 'pending'");
      await ask({ type: "reset", delayMs: scenario.delayMs });
      const commitsBefore = deps.store.stats.commits;
      const started = performance.now();
      const r = await recheckDomains(deps, ids, bound, new DnsResolver([ready.server], { timeoutMs: 2000, tries: 1 }));
      const seconds = (performance.now() - started) / 1000;
      const server = (await ask({ type: "stats" })) as Extract<FromChild, { type: "stats" }>;
      const statuses = sqlite.query<{ status: string; n: number }, []>("SELECT status, count(*) AS n FROM dns_records GROUP BY status").all();
      const ok = statuses.length === 1 && statuses[0]!.status === scenario.expect && statuses[0]!.n === records;
      console.log(
        [
          `  ${scenario.name.padEnd(26)} bound ${String(bound).padStart(3)}:`,
          `${(records / seconds).toFixed(0).padStart(6)} records/s`,
          `(${seconds.toFixed(2)} s, ${r.checked} domains, ${r.dns.queries} queries, ${deps.store.stats.commits - commitsBefore} commits)`,
          `max in flight: limiter ${r.dns.inflightMax}, DNS server ${server.inflightMax}`,
          ok ? `all ${records} records ${scenario.expect}` : `UNEXPECTED statuses ${JSON.stringify(statuses)}`,
        ].join("  "),
      );
      if (!ok || server.inflightMax > bound) process.exitCode = 1;
    }
  }
  child.kill();
  await deps.store.close();
  clearTimeout(deadline);
}
