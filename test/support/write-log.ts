/**
 * Records every row written to the database, to check that a request answered 4xx left nothing
 * behind.
 *
 * Why triggers and not `total_changes()` or a fingerprint of every table: the server writes on
 * the same connection the test reads (sqliteOf(deps)), and an authenticated request may stamp the
 * token's `token_last_used_at`/`_ip` (asynchronously, through the group-commit writer), which is
 * legitimate bookkeeping, not a write left behind. `total_changes()` counts that stamp too, and
 * hashing every table after every request grows with the database (message bodies of up to a
 * megabyte). TEMP triggers are connection-local (nothing is added to the database file or its
 * schema), fire for exactly the rows the server's statements touch, ignore updates that only set
 * `*last_used*` columns (UPDATE OF lists the other columns), the failure counters and rate
 * limit buckets (IGNORED_TABLES) and a wrong code's spent attempt (COUNTED_ATTEMPTS), and are
 * rolled back with the write
 * that fired them: a write that failed and was rolled back (a savepoint of the writer) is not a
 * write left behind, and is not logged either.
 *
 * On PostgreSQL (installPostgresWriteLog) the same triggers, row by row, write to a log table of
 * the test's throwaway database: triggers there belong to the table, not to a connection, and
 * are as transactional.
 */
import type { Database } from "bun:sqlite";
import type { SqlExecutor } from "../../src/db/sql.ts";

export interface WriteLog {
  /** The sequence number of the last logged write (0 when none). */
  mark(): number;
  /** The writes logged after `mark`, as "table OP×n" strings. */
  since(mark: number): string[];
  uninstall(): void;
}

/** WriteLog with every call awaited, for PostgreSQL. */
export type PostgresWriteLog = { [K in keyof WriteLog]: (...args: Parameters<WriteLog[K]>) => Promise<ReturnType<WriteLog[K]>> };

const IGNORED_COLUMNS = /last_used/i;
/**
 * Tables a refused request writes on purpose: a failed authentication is counted
 * (auth_failures) and a request the limiter answered has used its token (rate_limit_buckets),
 * whatever the answer.
 */
const IGNORED_TABLES = new Set(["auth_failures", "rate_limit_buckets"]);
/**
 * Updates a refused request makes on purpose, told apart by what they change. A wrong report
 * forwarding code is counted (failed_attempts + 1) outside the request's unit of work, so that
 * the limit of wrong codes holds for guesses sent at once, and the 422 leaves that count behind
 * (src/modules/report-forwarding/service.ts, verifyForwarding). Only an update that raises the
 * counter by exactly one and changes nothing but it and `alsoChanged` is left out; any other
 * update of the table (a new destination or code, a verification, a reset) is logged.
 */
const COUNTED_ATTEMPTS: Record<string, { counter: string; alsoChanged: string[] }> = {
  report_forwarding: { counter: "failed_attempts", alsoChanged: ["updated_at"] },
};
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The condition of a table's UPDATE trigger: none, or "not just a counted attempt" (COUNTED_ATTEMPTS). */
function updateCondition(table: string, columns: string[], same: (column: string) => string): string | null {
  const counted = COUNTED_ATTEMPTS[table];
  if (!counted) return null;
  const c = q(counted.counter);
  const unchanged = columns.filter((col) => col !== counted.counter && !counted.alsoChanged.includes(col)).map(same);
  return `NOT (NEW.${c} = OLD.${c} + 1${unchanged.map((u) => ` AND ${u}`).join("")})`;
}

export function installWriteLog(sqlite: Database): WriteLog {
  sqlite.run("CREATE TEMP TABLE IF NOT EXISTS fuzz_write_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, op TEXT NOT NULL)");
  const tables = sqlite
    .query<{ name: string; sql: string | null }, []>("SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()
    .filter((t) => !/^\s*CREATE\s+VIRTUAL/i.test(t.sql ?? "") && !IGNORED_TABLES.has(t.name));
  const triggers: string[] = [];
  for (const { name } of tables) {
    const columns = sqlite.query<{ name: string }, []>(`PRAGMA main.table_info(${q(name)})`).all().map((c) => c.name);
    const watched = columns.filter((c) => !IGNORED_COLUMNS.test(c));
    const lit = `'${name.replace(/'/g, "''")}'`;
    for (const [suffix, event] of triggerEvents(watched)) {
      const trigger = q(`fuzz_wl_${name}_${suffix}`);
      triggers.push(trigger);
      const when = suffix === "u" ? updateCondition(name, columns, (c) => `OLD.${q(c)} IS NEW.${q(c)}`) : null;
      sqlite.run(
        `CREATE TEMP TRIGGER IF NOT EXISTS ${trigger} AFTER ${event} ON ${q(name)}${when ? ` WHEN ${when}` : ""} BEGIN INSERT INTO fuzz_write_log (tbl, op) VALUES (${lit}, '${event.split(" ")[0]}'); END`,
      );
    }
  }
  const markStmt = sqlite.query<{ seq: number | null }, []>("SELECT max(seq) AS seq FROM temp.fuzz_write_log");
  const sinceStmt = sqlite.query<{ tbl: string; op: string; n: number }, [number]>(
    "SELECT tbl, op, count(*) AS n FROM temp.fuzz_write_log WHERE seq > ? GROUP BY tbl, op ORDER BY min(seq)",
  );
  return {
    mark: () => markStmt.get()?.seq ?? 0,
    since: (mark) => sinceStmt.all(mark).map((r) => `${r.tbl} ${r.op}×${r.n}`),
    uninstall() {
      for (const t of triggers) sqlite.run(`DROP TRIGGER IF EXISTS temp.${t}`);
    },
  };
}

/** The events a table's write-log triggers fire on: every insert and delete, and updates of the watched columns. */
function triggerEvents(watched: string[]): [string, string][] {
  const events: [string, string][] = [
    ["i", "INSERT"],
    ["d", "DELETE"],
  ];
  if (watched.length > 0) events.push(["u", `UPDATE OF ${watched.map(q).join(", ")}`]);
  return events;
}

export async function installPostgresWriteLog(db: SqlExecutor): Promise<PostgresWriteLog> {
  await db.run("CREATE TABLE IF NOT EXISTS fuzz_write_log (seq BIGSERIAL PRIMARY KEY, tbl TEXT NOT NULL, op TEXT NOT NULL)");
  await db.run(
    `CREATE OR REPLACE FUNCTION fuzz_write_log() RETURNS trigger LANGUAGE plpgsql AS
     'BEGIN INSERT INTO fuzz_write_log (tbl, op) VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END'`,
  );
  const columns = await db.all<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name NOT IN ('fuzz_write_log', '__posthorn_migrations')
     ORDER BY c.table_name, c.ordinal_position`,
  );
  const tables = new Map<string, string[]>();
  for (const c of columns) if (!IGNORED_TABLES.has(c.table_name)) tables.set(c.table_name, [...(tables.get(c.table_name) ?? []), c.column_name]);
  const triggers: [string, string][] = [];
  for (const [name, cols] of tables) {
    const watched = cols.filter((c) => !IGNORED_COLUMNS.test(c));
    for (const [suffix, event] of triggerEvents(watched)) {
      const trigger = q(`fuzz_wl_${name}_${suffix}`);
      triggers.push([trigger, q(name)]);
      const when = suffix === "u" ? updateCondition(name, cols, (c) => `OLD.${q(c)} IS NOT DISTINCT FROM NEW.${q(c)}`) : null;
      await db.run(`CREATE OR REPLACE TRIGGER ${trigger} AFTER ${event} ON ${q(name)} FOR EACH ROW${when ? ` WHEN (${when})` : ""} EXECUTE FUNCTION fuzz_write_log()`);
    }
  }
  return {
    mark: async () => (await db.get<{ seq: number | null }>("SELECT max(seq) AS seq FROM fuzz_write_log"))?.seq ?? 0,
    since: async (mark) =>
      (await db.all<{ tbl: string; op: string; n: number }>("SELECT tbl, op, count(*) AS n FROM fuzz_write_log WHERE seq > ? GROUP BY tbl, op ORDER BY min(seq)", [mark])).map(
        (r) => `${r.tbl} ${r.op}×${r.n}`,
      ),
    async uninstall() {
      for (const [trigger, table] of triggers) await db.run(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
    },
  };
}
