// Our own TLS outcomes of GET …/deliverability/tls (issue 47): the history read of
// DeliverabilityReportRepository.ownTlsAttempts over N attempts of one domain (default 100,000,
// spread over 30 days; as many of a second domain of the same team beside them), timed against an
// anchor beside it in the same run: the index-only count of the domain's messages of the period.
// A/B alternating, 5 rounds each, medians; a 30-day and a 1-day period.
//
//   bun scripts/bench/own-tls-outcomes.ts [attempts=100000]          (SQLite)
//   POSTHORN_TEST_ENGINE=postgres bun scripts/bench/own-tls-outcomes.ts   (PostgreSQL)
import type { SqlValue } from "../../src/db/sql.ts";
import { createTestApp, insertTestDomain } from "../../test/helpers.ts";

const N = Number(process.argv[2] ?? 100_000);
const DAY = 86_400_000;
const DAYS = 30;
const t = createTestApp();
const teamId = t.team.teamId;
const a = insertTestDomain(t.deps, { teamId, projectId: t.team.projectId, domain: "bench-a.test", status: "active" });
const b = insertTestDomain(t.deps, { teamId, projectId: t.team.projectId, domain: "bench-b.test", status: "active" });
const end = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) + DAY;
const start = end - DAYS * DAY;

const t0 = performance.now();
const BATCH = 500;
for (const domainId of [a.domainId, b.domainId]) {
  for (let i = 0; i < N; i += BATCH) {
    const msgs: SqlValue[] = [];
    const evs: SqlValue[] = [];
    const n = Math.min(BATCH, N - i);
    for (let k = 0; k < n; k++) {
      const at = start + Math.floor(((i + k) / N) * DAYS * DAY);
      const id = Bun.randomUUIDv7("hex", at);
      msgs.push(id, teamId, domainId, "outbound", "delivered", at, "app@bench.test", "[]", "[]", "[]", "[]", "{}", at, at);
      const kind = (i + k) % 10;
      const tls = kind === 0 ? { protocol: null, cipher: null, verified: false, mta_sts: null } : { protocol: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384", verified: kind !== 1, mta_sts: null };
      const data = { message_id: id, recipient: `r${k}@dest.test`, status: "delivered", response: { code: 250, enhanced_code: "2.0.0", message: "OK" }, mx: `mx${kind % 3}.dest.test`, tls };
      evs.push(Bun.randomUUIDv7("hex", at + 1000), id, "message.delivered", "delivered", JSON.stringify(data), at + 1000);
    }
    const mRows = Array.from({ length: n }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ");
    await t.sql.run(
      `INSERT INTO messages (id, team_id, domain_id, type, status, status_changed_at, from_email, tags, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
       VALUES ${mRows.replaceAll("?, ?)", "?, ?, ?)")}`,
      msgs.flatMap((v, j) => (j % 14 === 13 ? [v, v] : [v])),
    );
    const eRows = Array.from({ length: n }, () => "(?, ?, ?, ?, ?, ?)").join(", ");
    await t.sql.run(`INSERT INTO message_events (id, message_id, kind, status, data, created_at) VALUES ${eRows}`, evs);
  }
}
console.log(`seeded ${2 * N} messages and attempts (${N} of the measured domain) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const repo = t.deps.store.read.deliverabilityReports;
const lifetime = t.deps.config.queueLifetimeSeconds * 1000;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
async function time(f: () => Promise<unknown>) {
  const s = performance.now();
  await f();
  return performance.now() - s;
}
for (const days of [DAYS, 1]) {
  const from = end - days * DAY;
  const own = () => repo.ownTlsAttempts(teamId, a.domainId, from - lifetime, from, end);
  const anchor = () => t.sql.get("SELECT count(*) AS n FROM messages WHERE domain_id = ? AND created_at >= ? AND created_at < ?", [a.domainId, from - lifetime, end]);
  const rows = await own();
  const attempts = rows.reduce((s, r) => s + r.verified_tls + r.unverified_tls + r.plaintext + r.tls_failures, 0);
  const A: number[] = [];
  const B: number[] = [];
  for (let r = 0; r < 5; r++) {
    A.push(await time(own));
    B.push(await time(anchor));
  }
  const ma = median(A);
  const mb = median(B);
  console.log(
    `${process.env.POSTHORN_TEST_ENGINE ?? "sqlite"} ${days}-day period: ${attempts} attempts in ${rows.length} day×MX rows; own TLS outcomes ${ma.toFixed(1)} ms, anchor (index count) ${mb.toFixed(1)} ms, ratio ${(ma / mb).toFixed(1)}x`,
  );
}
await t.deps.store.close();
process.exit(0);
