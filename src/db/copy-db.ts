import type { SQL } from "bun";
import { migrate, openDatabase } from "./connection.ts";
import { migratePostgres } from "./migrate-pg.ts";

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 500;

export interface CopyReport {
  tables: { table: string; rows: number }[];
}

/** Thrown when the copy must not or cannot go on; its message is for the operator. */
export class CopyRefused extends Error {}

type Column = { name: string; type: string };

/** The tables of the PostgreSQL schema, parents before children (foreign keys), and their columns. */
async function tablesInOrder(pg: SQL): Promise<{ table: string; columns: Column[] }[]> {
  const cols = (await pg.unsafe(
    `SELECT table_name AS t, column_name AS c, data_type AS d FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> '__posthorn_migrations' ORDER BY table_name, ordinal_position`,
  )) as { t: string; c: string; d: string }[];
  const fks = (await pg.unsafe(
    `SELECT DISTINCT cl.relname AS child, pa.relname AS parent FROM pg_constraint co
     JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_class pa ON pa.oid = co.confrelid
     WHERE co.contype = 'f' AND cl.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`,
  )) as { child: string; parent: string }[];
  const columns = new Map<string, Column[]>();
  for (const r of cols) columns.set(r.t, [...(columns.get(r.t) ?? []), { name: r.c, type: r.d }]);
  const ordered: string[] = [];
  const visit = (t: string, path: Set<string>) => {
    if (ordered.includes(t) || path.has(t)) return;
    path.add(t);
    for (const fk of fks) if (fk.child === t && fk.parent !== t) visit(fk.parent, path);
    ordered.push(t);
  };
  for (const t of [...columns.keys()].sort()) visit(t, new Set());
  return ordered.map((table) => ({ table, columns: columns.get(table)! }));
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Copies the SQLite database at `sqlitePath` (Posthorn stopped) into the PostgreSQL database of
 * `pg`, which must be empty: migrates it, copies every table in foreign-key order in one
 * transaction, moves the jobs id sequence past the copied ids, and checks every table's row
 * count against the source. Tokens, keys, secrets and history come along as they are.
 */
export async function copySqliteToPostgres(sqlitePath: string, pg: SQL, log: (line: string) => void = () => {}): Promise<CopyReport> {
  const sqlite = openDatabase(sqlitePath);
  try {
    // Both sides on the current schema, so every column of the one exists in the other.
    migrate(sqlite);
    await migratePostgres(pg);
    const tables = await tablesInOrder(pg);
    for (const { table } of tables) {
      const [row] = (await pg.unsafe(`SELECT EXISTS (SELECT 1 FROM ${quote(table)}) AS any`)) as { any: boolean }[];
      if (row?.any) throw new CopyRefused(`the PostgreSQL database is not empty (table ${table} has rows); copy-db only fills an empty database`);
    }
    const sqliteTables = new Set(sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name));
    const report: CopyReport = { tables: [] };
    // One read transaction: a consistent snapshot of the source, whatever else has the file open.
    sqlite.exec("BEGIN");
    await pg.begin(async (tx) => {
      for (const { table, columns } of tables) {
        if (!sqliteTables.has(table)) throw new CopyRefused(`the SQLite database has no table ${table}; run \`posthorn migrate\` on it first`);
        const names = columns.map((c) => quote(c.name)).join(", ");
        const binary = new Set(columns.filter((c) => c.type === "bytea").map((c) => c.name));
        const rows = sqlite.query<Record<string, unknown>, []>(`SELECT ${names} FROM ${quote(table)}`).all();
        for (let i = 0; i < rows.length; i += BATCH_ROWS) {
          const batch = rows.slice(i, i + BATCH_ROWS);
          const params: unknown[] = [];
          const tuples = batch.map((r) => {
            const marks = columns.map((c) => {
              const v = r[c.name];
              params.push(binary.has(c.name) && v != null ? Buffer.from(v as Uint8Array) : v);
              return `$${params.length}`;
            });
            return `(${marks.join(", ")})`;
          });
          const overriding = table === "jobs" ? " OVERRIDING SYSTEM VALUE" : "";
          await tx.unsafe(`INSERT INTO ${quote(table)} (${names})${overriding} VALUES ${tuples.join(", ")}`, params);
        }
        report.tables.push({ table, rows: rows.length });
        log(`${table}: ${rows.length}`);
      }
      await tx.unsafe(`SELECT setval(pg_get_serial_sequence('jobs', 'id'), GREATEST((SELECT max(id) FROM jobs), 1), (SELECT max(id) FROM jobs) IS NOT NULL)`);
    });
    sqlite.exec("COMMIT");
    for (const { table, rows } of report.tables) {
      const [row] = (await pg.unsafe(`SELECT count(*) AS n FROM ${quote(table)}`)) as { n: bigint | number }[];
      if (Number(row?.n) !== rows) throw new CopyRefused(`row count check failed for ${table}: ${rows} in SQLite, ${Number(row?.n)} in PostgreSQL`);
    }
    return report;
  } finally {
    sqlite.close();
  }
}
