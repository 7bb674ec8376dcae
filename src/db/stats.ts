import type { SqlExecutor, SqlValue } from "./sql.ts";
import { ACCEPT_COUNTERS, STAT_COLUMNS } from "./stat-columns.ts";

export const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/** What a rollup row is keyed by besides its time; "" where nothing applies. */
export interface StatKey {
  teamId: string;
  projectId: string;
  routeId: string;
  /** transactional | broadcast | inbound */
  messageType: string;
  sendingDomain: string;
  provider: string;
  tag: string;
  bounceClass: string;
  enhancedCode: string;
  /** The message's name-value tags: one stat_tag_days row each (none for an untagged message). */
  tags?: readonly Tag[];
}

export interface Tag {
  name: string;
  value: string;
}

/** The immutable facts of a message the rollups need (read once per message and kept in memory). */
export interface MessageFacts {
  project_id: string | null;
  created_at: number;
  route_type: string | null;
  sending_domain: string | null;
  track_opens: number;
  track_clicks: number;
  /** JSON text as read ([{name, value}]); parsed by the caller. */
  tags: string | null;
}

/** The dimension columns of stat_days a query may group or filter by. */
export const DAY_DIMENSIONS = ["project_id", "route_id", "message_type", "sending_domain", "provider", "tag", "bounce_class", "enhanced_code"] as const;
/** Those stat_hours has too. */
export const HOUR_DIMENSIONS = ["project_id", "route_id", "message_type"] as const;
/** Those stat_provider_days has: a query by these only (at day grain) reads it instead of stat_days. */
export const PROVIDER_DIMENSIONS = ["project_id", "route_id", "message_type", "provider"] as const;
/** Those stat_tag_days has, beside the tag's name (StatQuery.tagName): its value, and the hour table's. */
export const TAG_DIMENSIONS = ["project_id", "route_id", "message_type", "tag_value"] as const;
export type StatDimension = (typeof DAY_DIMENSIONS)[number] | "tag_value";

export interface StatFilter {
  column: StatDimension;
  operator: "eq" | "in" | "not_in" | "is_null" | "is_not_null";
  values: string[];
}

export interface StatQuery {
  /**
   * counters (the default): stat_hours at hour grain; at day grain the narrowest table that has
   * every dimension grouped or filtered by (stat_provider_days, else stat_days). days: stat_days
   * whatever the dimensions (the wide table the narrow ones must equal). accepts: stat_accepts
   * (day grain, ACCEPT_COUNTERS).
   */
  table?: "counters" | "days" | "accepts";
  /** Read stat_tag_days, the rows of the tag of this name (day grain; TAG_DIMENSIONS only). */
  tagName?: string;
  teamId: string;
  /** Inclusive start and exclusive end, ms, aligned to the table's grain. */
  from: number;
  to: number;
  /** hour: stat_hours (only HOUR_DIMENSIONS); day: stat_days. */
  grain: "hour" | "day";
  /** Bucket rows by this many ms (HOUR_MS or DAY_MS), or not at all (null). */
  bucketMs: number | null;
  groupBy: readonly StatDimension[];
  filters: readonly StatFilter[];
  columns: readonly string[];
}

export type StatRow = Record<string, number | string | null>;

const KEY_HOURS = ["team_id", "hour", "project_id", "route_id", "message_type", "slot"];
const KEY_DAYS = ["team_id", "day", "project_id", "route_id", "message_type", "sending_domain", "provider", "tag", "bounce_class", "enhanced_code", "slot"];
const KEY_PROVIDER_DAYS = ["team_id", "day", "project_id", "route_id", "message_type", "provider", "slot"];
/** In the order of the upsert's parameters (add). */
const KEY_TAG_DAYS = ["team_id", "tag_name", "day", "tag_value", "project_id", "route_id", "message_type", "slot"];
const COLUMN_SET = new Set(STAT_COLUMNS);
const ACCEPT_SET = new Set<string>(ACCEPT_COUNTERS);
/** The dimensions stat_accepts has (a bounce class or code never applies to an acceptance). */
export const ACCEPT_DIMENSIONS = ["project_id", "route_id", "message_type", "sending_domain", "provider", "tag"] as const;
const ACCEPTS_UPSERT =
  "INSERT INTO stat_accepts (team_id, day, project_id, route_id, message_type, sending_domain, provider, tag, slot, accepted, recipients) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) " +
  "ON CONFLICT (team_id, day, project_id, route_id, message_type, sending_domain, provider, tag, slot) DO UPDATE SET accepted = stat_accepts.accepted + excluded.accepted, recipients = stat_accepts.recipients + excluded.recipients";

/**
 * Each new PostgreSQL transaction takes the next of STAT_SLOTS slots: concurrent ones add to rows
 * of their own rather than wait on each other's row locks. Every slot is one more row per key for
 * the readers to add up: 8 keeps that small (64 made a 90-day query read 1.4 times the rows after
 * one bench fill, and up to 64 times in a day of steady sends); transactions beyond 8 at once share
 * a slot and wait for each other's commit on that row.
 */
let nextSlot = 0;
export const STAT_SLOTS = 8;

/**
 * The statistics rollups (docs/statistics.md): counters added to in the transaction of each
 * event (src/events/stat-rollup.ts), and the sums the statistics endpoints read from them.
 * Never a scan of the messages table.
 */
export class StatsRepository {
  private readonly slot: number;
  /** The upserts' SQL by the set of columns they add to (the same few sets over and over), for every instance. */
  private static readonly upserts = new Map<string, [string, string, string, string]>();

  constructor(private readonly db: SqlExecutor) {
    this.slot = db.dialect === "postgres" ? nextSlot++ % STAT_SLOTS : 0;
  }

  /**
   * Adds `counts` to the rows of `key` at `at` (ms): the hour's (stat_hours), the day's
   * (stat_days), the day's by provider (stat_provider_days) and, for each of the key's tags, the
   * day's by tag (stat_tag_days). Unknown columns are a bug and throw.
   */
  async add(at: number, key: StatKey, counts: Readonly<Record<string, number>>): Promise<void> {
    const cols = Object.keys(counts).filter((c) => counts[c] !== 0);
    if (cols.length === 0) return;
    cols.sort();
    for (const c of cols) if (!COLUMN_SET.has(c)) throw new Error(`unknown statistics counter ${c}`);
    const [hours, days, providerDays, tagDays] = this.upsertSql(cols);
    const values = cols.map((c) => counts[c]!);
    const hour = at - (at % HOUR_MS);
    const day = at - (at % DAY_MS);
    await this.db.runDeferred(hours, [key.teamId, hour, key.projectId, key.routeId, key.messageType, this.slot, ...values]);
    await this.db.runDeferred(days, [
      key.teamId,
      day,
      key.projectId,
      key.routeId,
      key.messageType,
      key.sendingDomain,
      key.provider,
      key.tag,
      key.bounceClass,
      key.enhancedCode,
      this.slot,
      ...values,
    ]);
    await this.db.runDeferred(providerDays, [key.teamId, day, key.projectId, key.routeId, key.messageType, key.provider, this.slot, ...values]);
    for (const t of key.tags ?? []) {
      await this.db.runDeferred(tagDays, [key.teamId, t.name, day, t.value, key.projectId, key.routeId, key.messageType, this.slot, ...values]);
    }
  }

  /** Adds an acceptance (`accepted` messages, `recipients` recipients) to the day's stat_accepts row of `key`: one narrow upsert, the send path's only one. */
  async addAccepted(at: number, key: Omit<StatKey, "bounceClass" | "enhancedCode">, accepted: number, recipients: number): Promise<void> {
    const params = [
      key.teamId,
      at - (at % DAY_MS),
      key.projectId,
      key.routeId,
      key.messageType,
      key.sendingDomain,
      key.provider,
      key.tag,
      this.slot,
      accepted,
      recipients,
    ];
    if (this.db.runWithNext) this.db.runWithNext(ACCEPTS_UPSERT, params);
    else await this.db.runDeferred(ACCEPTS_UPSERT, params);
  }

  private upsertSql(cols: string[]): [string, string, string, string] {
    const id = cols.join(",");
    let found = StatsRepository.upserts.get(id);
    if (!found) {
      const one = (table: string, key: string[]) =>
        `INSERT INTO ${table} (${[...key, ...cols].join(", ")}) VALUES (${[...key, ...cols].map(() => "?").join(", ")}) ` +
        `ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${cols.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(", ")}`;
      found = [one("stat_hours", KEY_HOURS), one("stat_days", KEY_DAYS), one("stat_provider_days", KEY_PROVIDER_DAYS), one("stat_tag_days", KEY_TAG_DAYS)];
      StatsRepository.upserts.set(id, found);
    }
    return found;
  }

  /** The facts of a message the rollups key by: its creation, its route's type, its From domain and tracking. */
  messageFacts(messageId: string): Promise<MessageFacts | null> {
    return this.db.get<MessageFacts>(
      `SELECT m.project_id, m.created_at, r.route_type, d.domain AS sending_domain, coalesce(c.track_opens, 0) AS track_opens, coalesce(c.track_clicks, 0) AS track_clicks, m.tags
       FROM messages m LEFT JOIN routes r ON r.id = m.route_id LEFT JOIN domains d ON d.id = m.domain_id LEFT JOIN message_contents c ON c.message_id = m.id
       WHERE m.id = ?`,
      [messageId],
    );
  }

  /** A route's type (transactional, broadcast, inbound), which never changes. */
  async routeType(routeId: string): Promise<string | null> {
    return (await this.db.get<{ route_type: string }>("SELECT route_type FROM routes WHERE id = ?", [routeId]))?.route_type ?? null;
  }

  /**
   * The recipient's earliest tracking hit of `kind` in a verdict class before `before` (ms), if any:
   * human (no machine verdict), privacy (a mail provider's image proxy) or machine (any other).
   */
  async earliestHit(recipientId: string, kind: string, cls: "human" | "privacy" | "machine", before: number): Promise<number | null> {
    const where =
      cls === "human" ? "machine = 0" : cls === "privacy" ? "machine = 1 AND machine_reason = 'privacy_proxy'" : "machine = 1 AND (machine_reason IS NULL OR machine_reason <> 'privacy_proxy')";
    const row = await this.db.get<{ at: number | null }>(
      `SELECT min(created_at) AS at FROM tracking_hits WHERE recipient_id = ? AND kind = ? AND ${where} AND created_at < ?`,
      [recipientId, kind, before],
    );
    return row?.at ?? null;
  }

  /** The recipient's human clicks at or after `since` (those a link burst re-judges), oldest first. */
  humanClicksSince(recipientId: string, since: number): Promise<{ created_at: number }[]> {
    return this.db.all(`SELECT created_at FROM tracking_hits WHERE recipient_id = ? AND kind = 'click' AND machine = 0 AND created_at >= ? ORDER BY created_at`, [recipientId, since]);
  }

  /**
   * Sums of `columns` over the query's window, per bucket (column `bucket`, ms) and per group.
   * Reads only the rollup tables, by their primary key's leading (team, time) columns.
   */
  query(q: StatQuery): Promise<StatRow[]> {
    const accepts = q.table === "accepts";
    if (accepts && q.grain !== "day") throw new Error("stat_accepts is kept by day");
    const table = StatsRepository.tableOf(q);
    const time = q.grain === "hour" ? "hour" : "day";
    const known = accepts ? ACCEPT_SET : COLUMN_SET;
    const tagged = q.tagName !== undefined;
    const has = (d: string) => (accepts ? (ACCEPT_DIMENSIONS as readonly string[]).includes(d) : d !== "tag_value" || tagged);
    const select: string[] = [];
    const group: string[] = [];
    const params: SqlValue[] = [];
    if (q.bucketMs !== null) {
      select.push(`(${time} - (${time} % ${q.bucketMs})) AS bucket`);
      group.push("bucket");
    }
    for (const g of q.groupBy) {
      // A dimension the table does not have is "" (none) on every row.
      select.push(has(g) ? g : `'' AS ${g}`);
      if (has(g)) group.push(g);
    }
    for (const c of q.columns) {
      if (!known.has(c)) throw new Error(`unknown statistics counter ${c} for ${table}`);
      select.push(`sum(${c}) AS ${c}`);
    }
    const where = [`team_id = ?`, `${time} >= ?`, `${time} < ?`];
    params.push(q.teamId, q.from, q.to);
    if (tagged) {
      where.push("tag_name = ?");
      params.push(q.tagName!);
    }
    for (const f of q.filters) {
      if (!(DAY_DIMENSIONS as readonly string[]).includes(f.column) && !(tagged && f.column === "tag_value")) throw new Error(`unknown statistics dimension ${f.column}`);
      const col = has(f.column) ? f.column : "''";
      if (f.operator === "is_null") where.push(`${col} = ''`);
      else if (f.operator === "is_not_null") where.push(`${col} <> ''`);
      else {
        const list = f.values.map(() => "?").join(", ");
        where.push(f.operator === "not_in" ? `${col} NOT IN (${list})` : `${col} IN (${list})`);
        params.push(...f.values);
      }
    }
    const sql = `SELECT ${select.join(", ")} FROM ${table} WHERE ${where.join(" AND ")}${group.length ? ` GROUP BY ${group.join(", ")}` : ""}`;
    return this.db.all<StatRow>(sql, params, { dynamic: true });
  }

  /**
   * The table a query reads: the narrowest that has every dimension it groups or filters by, so
   * that a query by day × provider adds up thousands of rows, not stat_days' tens of thousands.
   * Each narrow table gets the same counts as stat_days in the same transaction (add), so the sums
   * are equal (test/modules/stats/stats-narrow.test.ts).
   */
  static tableOf(q: Pick<StatQuery, "table" | "tagName" | "grain" | "groupBy" | "filters">): string {
    const dims = [...q.groupBy, ...q.filters.map((f) => f.column)];
    const within = (set: readonly string[]) => dims.every((d) => set.includes(d));
    if (q.table === "accepts") return "stat_accepts";
    if (q.tagName !== undefined) {
      if (q.grain !== "day" || !within(TAG_DIMENSIONS)) throw new Error(`stat_tag_days is kept by day and by ${TAG_DIMENSIONS.join(", ")}`);
      return "stat_tag_days";
    }
    if (q.grain === "hour") {
      if (!within(HOUR_DIMENSIONS)) throw new Error(`stat_hours is kept by ${HOUR_DIMENSIONS.join(", ")}`);
      return "stat_hours";
    }
    if (q.table !== "days" && within(PROVIDER_DIMENSIONS)) return "stat_provider_days";
    return "stat_days";
  }

  /** The newest outbound message of the team (of `projects` only, when given) created in [from, to), ms (the usage's last increment); one index seek. */
  async lastOutboundAt(teamId: string, from: number, to: number, projects: readonly string[] | null = null): Promise<number | null> {
    if (projects !== null && projects.length === 0) return null;
    const only = projects === null ? "" : ` AND project_id IN (${projects.map(() => "?").join(", ")})`;
    const row = await this.db.get<{ at: number | null }>(
      `SELECT max(created_at) AS at FROM messages WHERE team_id = ? AND type = 'outbound' AND created_at >= ? AND created_at < ?${only}`,
      [teamId, from, to, ...(projects ?? [])],
      { dynamic: projects !== null },
    );
    return row?.at ?? null;
  }

  /** Whether `projectId` is a project of the team. */
  async projectOfTeam(projectId: string, teamId: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS one FROM projects WHERE id = ? AND team_id = ?", [projectId, teamId])) !== null;
  }

  /** Retention: drops hour rows before `hourCutoff` and day rows before `dayCutoff` (ms). */
  async purgeBefore(hourCutoff: number, dayCutoff: number): Promise<number> {
    const a = await this.db.run("DELETE FROM stat_hours WHERE hour < ?", [hourCutoff]);
    const b = await this.db.run("DELETE FROM stat_days WHERE day < ?", [dayCutoff]);
    const c = await this.db.run("DELETE FROM stat_accepts WHERE day < ?", [dayCutoff]);
    const d = await this.db.run("DELETE FROM stat_provider_days WHERE day < ?", [dayCutoff]);
    const e = await this.db.run("DELETE FROM stat_tag_days WHERE day < ?", [dayCutoff]);
    return a.changes + b.changes + c.changes + d.changes + e.changes;
  }
}

/**
 * How long rollup rows are kept (docs/statistics.md): 400 days, a year and its same month the
 * year before, or a month longer than POSTHORN_RETENTION_DAYS should that be longer (the figures
 * outlive the messages they count). Enforced by the retention job.
 */
export const STATS_RETENTION_DAYS = 400;
export const statsRetentionDays = (messageRetentionDays: number): number => Math.max(STATS_RETENTION_DAYS, messageRetentionDays + 31);
