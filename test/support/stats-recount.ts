/**
 * The statistics rollups recounted from the records they summarize, for the tests that check
 * them (test/modules/stats/stats-recount.test.ts in-process, test/e2e/stats-crash-recount.test.ts
 * across a SIGKILL): every counter of every rollup table (stat_hours, stat_days,
 * stat_provider_days, stat_tag_days, stat_accepts; src/db/stats.ts) recounted from the messages'
 * rows (accepted, recipients), message_events (sent, retried, delivered and its latency, bounces,
 * failures, suppressions, complaints, unsubscribes) and tracking_hits (opens and clicks by verdict,
 * each recipient's first of a class), keyed exactly as the table is, then compared key by key.
 *
 * The recount is written from what the counters mean (docs/statistics.md), not from the rollup
 * code: it shares with it only the column names, the latency buckets and the bounce classifier.
 * An inbound message counts when its job finishes, as its history row (message.inbound, or
 * message.inbound_spam_blocked when held) says.
 */
import { ACCEPT_COUNTERS, LATENCY_COLUMNS, latencyBucket, STAT_COLUMNS } from "../../src/db/stat-columns.ts";
import { bounceClass, type Reply } from "../../src/events/stat-rollup.ts";

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** A seeded random source in [0, 1) (mulberry32): a run is told by its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Reads rows of either engine (bigint and JSON columns may come back as text). */
export interface RecountDb {
  all<T = Record<string, unknown>>(sql: string): Promise<T[]>;
}

/** Each rollup table: its time column and grain, the columns that key a row besides team, time and slot, and its counters. */
export const ROLLUP_TABLES = {
  stat_hours: { time: "hour", grain: HOUR, dims: ["project_id", "route_id", "message_type"], counters: STAT_COLUMNS },
  stat_days: {
    time: "day",
    grain: DAY,
    dims: ["project_id", "route_id", "message_type", "sending_domain", "provider", "tag", "bounce_class", "enhanced_code"],
    counters: STAT_COLUMNS,
  },
  stat_provider_days: { time: "day", grain: DAY, dims: ["project_id", "route_id", "message_type", "provider"], counters: STAT_COLUMNS },
  stat_tag_days: { time: "day", grain: DAY, dims: ["tag_name", "tag_value", "project_id", "route_id", "message_type"], counters: STAT_COLUMNS },
  stat_accepts: { time: "day", grain: DAY, dims: ["project_id", "route_id", "message_type", "sending_domain", "provider", "tag"], counters: ACCEPT_COUNTERS as readonly string[] },
} as const;
export type RollupTable = keyof typeof ROLLUP_TABLES;
export const ROLLUP_TABLE_NAMES = Object.keys(ROLLUP_TABLES) as RollupTable[];

/** Per table, counters by key (`team|time|dim|dim…`), zeros left out. */
export type Rollups = Record<RollupTable, Map<string, Record<string, number>>>;

interface Dims {
  team_id: string;
  project_id: string;
  route_id: string;
  message_type: string;
  sending_domain: string;
  provider: string;
  tag: string;
  bounce_class: string;
  enhanced_code: string;
  tags: { name: string; value: string }[];
}

interface Fact {
  at: number;
  dims: Dims;
  counts: Record<string, number>;
  /** An acceptance (stat_accepts only) or an event (the other tables). */
  accept: boolean;
}

export interface RecountOptions {
  /** The provider family of a recipient address, as the test's own table says. */
  family: (email: string) => string;
  /** When a status event happened, if the test moved its row since (default: its created_at). */
  eventAt?: (e: { status: string; created_at: number }) => number;
}

const json = <T>(v: unknown, fallback: T): T => (v === null || v === undefined || v === "" ? fallback : typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

const STATUS_COLUMN: Record<string, string> = {
  delivered: "delivered",
  soft_bounced: "soft_bounced",
  hard_bounced: "hard_bounced",
  failed: "failed",
  suppressed: "suppressed",
  spam_complaint: "complained",
  unsubscribed: "unsubscribed",
};

/** Every counter of every rollup table, recounted from messages, message_events and tracking_hits. */
export async function recountRollups(db: RecountDb, opts: RecountOptions): Promise<Rollups> {
  const messages = await db.all<{
    id: string;
    team_id: string;
    project_id: string | null;
    route_id: string | null;
    created_at: number | string;
    tag: string | null;
    tags: unknown;
    from_email: string;
    route_type: string | null;
    track_opens: number | boolean | null;
    track_clicks: number | boolean | null;
  }>(
    `SELECT m.id, m.team_id, m.project_id, m.route_id, m.created_at, m.tag, m.tags, m.from_email, r.route_type, c.track_opens, c.track_clicks
     FROM messages m LEFT JOIN routes r ON r.id = m.route_id LEFT JOIN message_contents c ON c.message_id = m.id`,
  );
  const byId = new Map(messages.map((m) => [m.id, { ...m, created_at: Number(m.created_at) }]));
  // A message's recipients in the order they were added (ids are time-ordered): its first names the family `accepted` counts under.
  const recipients = await db.all<{ id: string; message_id: string; email: string }>("SELECT id, message_id, email FROM recipients ORDER BY id");
  const rcpt = new Map(recipients.map((r) => [r.id, r]));

  const dimsOf = (messageId: string, email: string): Dims => {
    const m = byId.get(messageId)!;
    return {
      team_id: m.team_id,
      project_id: m.project_id ?? "",
      route_id: m.route_id ?? "",
      message_type: m.route_type ?? "",
      sending_domain: m.from_email.slice(m.from_email.lastIndexOf("@") + 1).toLowerCase(),
      provider: opts.family(email),
      tag: m.tag ?? "",
      bounce_class: "",
      enhanced_code: "",
      tags: json<{ name: string; value: unknown }[]>(m.tags, []).map((t) => ({ name: t.name, value: String(t.value ?? "") })),
    };
  };
  const facts: Fact[] = [];

  // Acceptances: `accepted` once per message under its first recipient's family, `recipients` each under its own.
  const counted = new Set<string>();
  for (const r of recipients) {
    const m = byId.get(r.message_id)!;
    const first = !counted.has(m.id);
    counted.add(m.id);
    facts.push({ at: m.created_at, dims: dimsOf(m.id, r.email), counts: { accepted: first ? 1 : 0, recipients: 1 }, accept: true });
  }

  // Inbound messages finished by their job: received, and rejected when held (a release's second row counts nothing).
  const inbound = await db.all<{ message_id: string; status: string; data: unknown; created_at: number | string }>(
    "SELECT message_id, status, data, created_at FROM message_events WHERE recipient_id IS NULL AND kind IN ('message.inbound', 'message.inbound_spam_blocked')",
  );
  for (const e of inbound) {
    if (json<{ released?: boolean }>(e.data, {}).released) continue;
    const m = byId.get(e.message_id)!;
    const dims: Dims = { team_id: m.team_id, project_id: m.project_id ?? "", route_id: m.route_id ?? "", message_type: "inbound", sending_domain: "", provider: "", tag: "", bounce_class: "", enhanced_code: "", tags: [] };
    const rejected = e.status === "quarantined" || e.status === "policy_rejected";
    facts.push({ at: Number(e.created_at), dims, counts: rejected ? { inbound_received: 1, inbound_rejected: 1 } : { inbound_received: 1 }, accept: false });
  }

  // Status events: a recipient's first "processed" is sent, each further one a retry.
  const events = await db.all<{ recipient_id: string; message_id: string; status: string; data: unknown; created_at: number | string }>(
    "SELECT recipient_id, message_id, status, data, created_at FROM message_events WHERE recipient_id IS NOT NULL AND status IS NOT NULL ORDER BY created_at, id",
  );
  const processed = new Set<string>();
  for (const e of events) {
    const r = rcpt.get(e.recipient_id)!;
    const at = opts.eventAt ? opts.eventAt({ status: e.status, created_at: Number(e.created_at) }) : Number(e.created_at);
    const dims = dimsOf(e.message_id, r.email);
    const counts: Record<string, number> = {};
    if (e.status === "processed") {
      counts[processed.has(r.id) ? "retried" : "sent"] = 1;
      processed.add(r.id);
    } else if (STATUS_COLUMN[e.status]) {
      counts[STATUS_COLUMN[e.status]!] = 1;
    } else continue;
    if (e.status === "delivered") {
      const m = byId.get(e.message_id)!;
      counts[LATENCY_COLUMNS[latencyBucket(at - m.created_at)]!] = 1;
      if (m.track_opens) counts.open_tracked_delivered = 1;
      if (m.track_clicks) counts.click_tracked_delivered = 1;
    }
    if (e.status === "soft_bounced" || e.status === "hard_bounced" || e.status === "failed") {
      const response = json<{ response?: Reply }>(e.data, {}).response;
      dims.bounce_class = bounceClass(response, e.status);
      dims.enhanced_code = response?.enhanced_code ?? "";
    }
    facts.push({ at, dims, counts, accept: false });
  }

  // Tracking hits by their final verdict (a link burst re-judges earlier ones), and each recipient's first of a class.
  const hits = await db.all<{ recipient_id: string; message_id: string; kind: string; machine: number | boolean; machine_reason: string | null; created_at: number | string }>(
    "SELECT recipient_id, message_id, kind, machine, machine_reason, created_at FROM tracking_hits ORDER BY created_at, id",
  );
  const firsts = new Set<string>();
  for (const x of hits) {
    const cls = !x.machine ? "human" : x.machine_reason === "privacy_proxy" ? "privacy" : "machine";
    const col = `${x.kind}s_${cls}`;
    const counts: Record<string, number> = { [col]: 1 };
    const first = `${x.recipient_id}|${col}`;
    if (!firsts.has(first)) counts[`${col}_unique`] = 1;
    firsts.add(first);
    facts.push({ at: Number(x.created_at), dims: dimsOf(x.message_id, rcpt.get(x.recipient_id)!.email), counts, accept: false });
  }

  const out = emptyRollups();
  for (const f of facts) {
    for (const name of ROLLUP_TABLE_NAMES) {
      if ((name === "stat_accepts") !== f.accept) continue;
      const t = ROLLUP_TABLES[name];
      const rows: Record<string, string>[] = name === "stat_tag_days" ? f.dims.tags.map((g) => ({ ...flat(f.dims), tag_name: g.name, tag_value: g.value })) : [flat(f.dims)];
      for (const row of rows) add(out[name], keyOf(name, f.dims.team_id, f.at - (f.at % t.grain), row), f.counts);
    }
  }
  return prune(out);
}

/** What the rollup tables hold, the slots of a key added up. */
export async function storedRollups(db: RecountDb): Promise<Rollups> {
  const out = emptyRollups();
  for (const name of ROLLUP_TABLE_NAMES) {
    const t = ROLLUP_TABLES[name];
    for (const row of await db.all<Record<string, unknown>>(`SELECT * FROM ${name}`)) {
      const counts = Object.fromEntries(t.counters.map((c) => [c, Number(row[c])]));
      add(out[name], keyOf(name, String(row.team_id), Number(row[t.time]), row), counts);
    }
  }
  return prune(out);
}

/** Every difference between the tables and the recount, one line each ("table key column: stored n, recounted m"); empty when they are equal. */
export function diffRollups(stored: Rollups, recounted: Rollups): string[] {
  const lines: string[] = [];
  for (const name of ROLLUP_TABLE_NAMES) {
    const keys = [...new Set([...stored[name].keys(), ...recounted[name].keys()])].sort();
    for (const k of keys) {
      const a = stored[name].get(k) ?? {};
      const b = recounted[name].get(k) ?? {};
      for (const c of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
        if ((a[c] ?? 0) !== (b[c] ?? 0)) lines.push(`${name} ${k} ${c}: stored ${a[c] ?? 0}, recounted ${b[c] ?? 0}`);
      }
    }
  }
  return lines;
}

/** A table's counters summed over all its keys. */
export function totalsOf(r: Rollups, table: RollupTable): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const row of r[table].values()) for (const [c, n] of Object.entries(row)) sum[c] = (sum[c] ?? 0) + n;
  return sum;
}

/** The rows of a table summed by one of its key's parts (index into `team|time|dims…`). */
export function sumByKeyPart(r: Rollups, table: RollupTable, part: number): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const [k, row] of r[table]) add(out, k.split("|")[part]!, row);
  return out;
}

const flat = (d: Dims): Record<string, string> => {
  const { tags: _, ...rest } = d;
  return rest;
};

function keyOf(table: RollupTable, team: string, at: number, row: Record<string, unknown>): string {
  return [team, String(at), ...ROLLUP_TABLES[table].dims.map((d) => String(row[d] ?? ""))].join("|");
}

function add(into: Map<string, Record<string, number>>, key: string, counts: Readonly<Record<string, number>>): void {
  const row = into.get(key) ?? {};
  for (const [c, n] of Object.entries(counts)) row[c] = (row[c] ?? 0) + n;
  into.set(key, row);
}

function emptyRollups(): Rollups {
  return Object.fromEntries(ROLLUP_TABLE_NAMES.map((n) => [n, new Map()])) as Rollups;
}

/** Zero counters and rows of zeros left out: a key the tables hold at zero equals one they never had. */
function prune(r: Rollups): Rollups {
  for (const name of ROLLUP_TABLE_NAMES) {
    for (const [k, row] of r[name]) {
      for (const c of Object.keys(row)) if (row[c] === 0) delete row[c];
      if (Object.keys(row).length === 0) r[name].delete(k);
    }
  }
  return r;
}

/** The randomized runs' user agents: a person's browser, a privacy proxy (Google's image proxy) and a machine. */
export const RUN_USER_AGENTS = {
  human: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
  privacy: "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
  machine: "python-requests/2.31",
} as const;
/** The randomized runs' recipient domains, and the provider family each is counted under (written out here, not taken from src). */
export const RUN_DOMAINS = ["gmail.com", "outlook.com", "yahoo.com", "dest.test", "corp.test"];
export const RUN_FAMILY: Record<string, string> = { "gmail.com": "google", "outlook.com": "microsoft", "yahoo.com": "yahoo", "dest.test": "other", "corp.test": "other" };
