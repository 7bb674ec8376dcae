import { openDatabase } from "./connection.ts";

/** Writes a consistent copy of the SQLite database at `source` to `target` while writers carry on (WAL). */
export function backupSqlite(source: string, target: string): void {
  const sqlite = openDatabase(source);
  try {
    // VACUUM INTO reads one snapshot of the database.
    sqlite.query("VACUUM INTO ?").run(target);
  } finally {
    sqlite.close();
  }
}
