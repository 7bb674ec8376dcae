import type { SqlExecutor } from "./sql.ts";
import { STAT_COUNTERS } from "./stat-columns.ts";

/** One route's (and message type's) sums of the rollup counters. */
export type RouteCounterRow = { route_id: string; message_type: string } & Record<string, number | string | null>;

const KNOWN = new Set<string>(STAT_COUNTERS);

/**
 * The Prometheus counters' reads (src/modules/health/mail-counters.ts): sums of the statistics
 * rollup's hourly rows per route and message type, over every team, for a window of hours. Reads
 * stat_hours by its primary key's leading columns (team, hour), a few rows per route and hour.
 */
export class MetricCountersRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** Sums of `columns` over the hours in [from, to) (ms; to null: no end), per route and message type. */
  sumsByRoute(from: number, to: number | null, columns: readonly string[]): Promise<RouteCounterRow[]> {
    for (const c of columns) if (!KNOWN.has(c)) throw new Error(`unknown statistics counter ${c}`);
    const sums = columns.map((c) => `sum(${c}) AS ${c}`).join(", ");
    const params = to === null ? [from] : [from, to];
    return this.db.all<RouteCounterRow>(
      `SELECT route_id, message_type, ${sums} FROM stat_hours WHERE team_id IN (SELECT id FROM teams) AND hour >= ?${to === null ? "" : " AND hour < ?"} GROUP BY route_id, message_type`,
      params,
    );
  }
}
