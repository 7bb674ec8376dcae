import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "./migrations/index.ts";
import { configureConnection } from "./pragmas.ts";

export interface Storage {
  sqlite: Database;
  close(): void;
}

/** Opens (creating if needed) the database with the pragmas every connection must have. */
export function openDatabase(path: string): Database {
  if (path !== ":memory:") mkdirSync(join(path, ".."), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  configureConnection(sqlite);
  return sqlite;
}

export function databasePath(dataDir: string): string {
  return join(dataDir, "posthorn.db");
}

/**
 * Applies the embedded migrations that have not run yet, each in its own transaction.
 * Returns the tags applied (empty when the database was already current). Another process may
 * migrate the same file at once (a CLI command beside `serve`): each transaction takes the write
 * lock first (BEGIN IMMEDIATE) and looks for its tag again under it.
 */
export function migrate(sqlite: Database): string[] {
  sqlite.exec(
    "CREATE TABLE IF NOT EXISTS __posthorn_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)",
  );
  const done = new Set(
    sqlite.query<{ tag: string }, []>("SELECT tag FROM __posthorn_migrations").all().map((r) => r.tag),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.tag)) continue;
    const ran = sqlite.transaction(() => {
      if (sqlite.query("SELECT 1 FROM __posthorn_migrations WHERE tag = ?").get(m.tag)) return false;
      for (const stmt of m.sql.split("--> statement-breakpoint")) {
        if (stmt.trim()) sqlite.exec(stmt);
      }
      sqlite.query("INSERT INTO __posthorn_migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, Date.now());
      return true;
    }).immediate();
    if (ran) applied.push(m.tag);
  }
  return applied;
}

/**
 * Opens and migrates the database; `path` may be ":memory:" for tests. The repositories run their
 * own SQL on the connection (db/sql.ts); drizzle's schema (schema.ts) describes the tables for
 * drizzle-kit and the tests, and is not loaded at run time (~110 modules the server never used).
 */
export function openStorage(path: string): Storage {
  const sqlite = openDatabase(path);
  migrate(sqlite);
  return { sqlite, close: () => sqlite.close() };
}
