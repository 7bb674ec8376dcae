import { afterAll, describe, expect, test } from "bun:test";
import { createTestApp } from "../../helpers.ts";
import { DAY_MS, HOUR_DIMENSIONS, PROVIDER_DIMENSIONS, StatsRepository, type StatDimension, type StatFilter, type StatKey, type StatQuery, type StatRow } from "../../../src/db/stats.ts";
import { STAT_COUNTERS } from "../../../src/db/stat-columns.ts";

// The narrow rollups (stat_provider_days, stat_hours) a query by few dimensions reads must give
// exactly what the wide stat_days gives: a randomized run of the upsert every event calls, then
// random groupings and filters read both ways, and the analytics API's day × provider answer
// against the run's own count.

let seed = 0x4545;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const some = <T>(xs: readonly T[], max: number): T[] => [...new Set(Array.from({ length: 1 + Math.floor(rand() * max) }, () => pick(xs)))];

describe("statistics: the narrow rollups equal the wide one", () => {
  const t = createTestApp();
  afterAll(() => t.deps.store.close());
  const now = Date.now();
  const today = now - (now % DAY_MS);
  const from = today - 11 * DAY_MS;
  const values: Record<StatDimension, readonly string[]> = {
    project_id: [t.team.projectId, "p-other", ""],
    route_id: ["r1", "r2", "r3", ""],
    message_type: ["transactional", "broadcast", "inbound"],
    sending_domain: ["a.test", "b.test", ""],
    provider: ["google", "microsoft", "yahoo", "other"],
    tag: ["welcome", "reset", ""],
    bounce_class: ["invalid_recipient", "mailbox_full", ""],
    enhanced_code: ["5.1.1", "4.2.2", ""],
    tag_value: [],
  };
  /** day → provider → [delivered, hard_bounced] of the team's run, counted here. */
  const expected = new Map<string, [number, number]>();

  test("a randomized run: 3,000 events' counters over 12 days, in 30 transactions (retries, bounces, moves between counters)", async () => {
    for (let tx = 0; tx < 30; tx++) {
      await t.deps.store.write(async (w) => {
        for (let i = 0; i < 100; i++) {
          const at = from + Math.floor(rand() * 12 * DAY_MS);
          const key: StatKey = {
            teamId: rand() < 0.9 ? t.team.teamId : "team-other",
            projectId: pick(values.project_id),
            routeId: pick(values.route_id),
            messageType: pick(values.message_type),
            sendingDomain: pick(values.sending_domain),
            provider: pick(values.provider),
            tag: pick(values.tag),
            bounceClass: pick(values.bounce_class),
            enhancedCode: pick(values.enhanced_code),
          };
          const counts: Record<string, number> = {};
          for (const c of some(STAT_COUNTERS, 4)) counts[c] = 1 + Math.floor(rand() * 3);
          // A link burst's move: minus one here, plus one there.
          if (rand() < 0.05) Object.assign(counts, { clicks_human: -1, clicks_machine: 1 });
          if (rand() < 0.2) counts[`lat_${String(Math.floor(rand() * 48)).padStart(2, "0")}`] = 1;
          await w.stats.add(at, key, counts);
          if (key.teamId === t.team.teamId) {
            const id = `${new Date(at - (at % DAY_MS)).toISOString().slice(0, 10)}|${key.provider}`;
            const e = expected.get(id) ?? [0, 0];
            e[0] += counts.delivered ?? 0;
            e[1] += counts.hard_bounced ?? 0;
            expected.set(id, e);
          }
        }
      });
    }
    expect(expected.size).toBeGreaterThan(30);
  });

  const norm = (rows: StatRow[]) =>
    rows
      .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, typeof v === "string" ? v : Number(v ?? 0)]))))
      .sort();

  const randomQuery = (dims: readonly StatDimension[]): Omit<StatQuery, "grain"> => {
    const groupBy = rand() < 0.2 ? [] : some(dims, 3);
    const filters: StatFilter[] = [];
    for (let i = Math.floor(rand() * 3); i > 0; i--) {
      const column = pick(dims);
      const operator = pick(["eq", "in", "not_in", "is_null", "is_not_null"] as const);
      const vs = values[column].filter((v) => v !== "");
      filters.push({ column, operator, values: operator === "eq" ? [pick(vs)] : operator === "in" || operator === "not_in" ? some(vs, 2) : [] });
    }
    const start = from + Math.floor(rand() * 6) * DAY_MS;
    return {
      teamId: t.team.teamId,
      from: start,
      to: start + (1 + Math.floor(rand() * 8)) * DAY_MS,
      bucketMs: rand() < 0.5 ? DAY_MS : null,
      groupBy,
      filters,
      columns: some([...STAT_COUNTERS, "lat_03", "lat_17"], 6),
    };
  };

  test("200 random queries by project, route, type and provider: stat_provider_days gives what stat_days gives", async () => {
    let nonEmpty = 0;
    for (let i = 0; i < 200; i++) {
      const q = { ...randomQuery(PROVIDER_DIMENSIONS), grain: "day" as const };
      expect(StatsRepository.tableOf(q)).toBe("stat_provider_days");
      const narrow = await t.deps.store.read.stats.query(q);
      const wide = await t.deps.store.read.stats.query({ ...q, table: "days" });
      expect(norm(narrow)).toEqual(norm(wide));
      if (wide.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(100);
  });

  test("100 random queries by project, route and type: stat_hours summed by day gives what stat_days gives", async () => {
    for (let i = 0; i < 100; i++) {
      const q = randomQuery(HOUR_DIMENSIONS);
      const hours = await t.deps.store.read.stats.query({ ...q, grain: "hour", bucketMs: q.bucketMs });
      const wide = await t.deps.store.read.stats.query({ ...q, grain: "day", table: "days" });
      expect(norm(hours)).toEqual(norm(wide));
    }
  });

  test("a query by any narrower dimension still reads stat_days", () => {
    for (const d of ["sending_domain", "tag", "bounce_class", "enhanced_code"] as const) {
      expect(StatsRepository.tableOf({ grain: "day", groupBy: ["provider"], filters: [{ column: d, operator: "is_null", values: [] }] })).toBe("stat_days");
      expect(StatsRepository.tableOf({ grain: "day", groupBy: [d], filters: [] })).toBe("stat_days");
    }
  });

  test("POST /v1/analytics by day × provider_family answers the run's own count", async () => {
    const res = await t.request("POST", "/v1/analytics", {
      body: {
        metrics: ["delivered", "bounced"],
        from: new Date(from).toISOString().slice(0, 10),
        to: new Date(today).toISOString().slice(0, 10),
        include: ["breakdown"],
        group_by: ["day", "provider_family"],
        limit: 200,
      },
    });
    expect(res.status).toBe(200);
    const got = new Map<string, [number, number]>();
    for (const r of res.json.data.breakdown) got.set(`${r.dimensions.day}|${r.dimensions.provider_family}`, [r.metrics.delivered, r.metrics.bounced]);
    expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
  });
});
