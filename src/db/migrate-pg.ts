import type { SQL } from "bun";
import { migrations as embedded } from "./migrations-pg/index.ts";

/**
 * Key of the transaction-scoped advisory lock that serializes migrations across nodes
 * ("posthorn" in ASCII, as an int8). Several `posthorn serve` nodes starting at once on one
 * database apply each migration exactly once: the others wait, then find it recorded.
 */
const MIGRATION_LOCK = "8101821198468346478";

type Client = Pick<SQL, "begin" | "unsafe">;

/**
 * The PostgreSQL twin of `migrate()` in connection.ts: applies the embedded migrations
 * (src/db/migrations-pg, generated from schema-pg.ts) that have not run yet, each in its own
 * transaction, recording each in `__posthorn_migrations`. Returns the tags applied (empty when the
 * database was already current). `sql` is a client from `postgresClient(url)`.
 */
export async function migratePostgres(sql: Client, migrations: readonly { tag: string; sql: string }[] = embedded): Promise<string[]> {
  await sql.begin(async (tx) => {
    await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.unsafe("CREATE TABLE IF NOT EXISTS __posthorn_migrations (tag TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)");
  });
  const done = new Set(((await sql.unsafe("SELECT tag FROM __posthorn_migrations")) as { tag: string }[]).map((r) => r.tag));
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.tag)) continue;
    const ran = await sql.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      // Another node may have applied it while this one waited for the lock.
      if (((await tx.unsafe("SELECT 1 FROM __posthorn_migrations WHERE tag = $1", [m.tag])) as unknown[]).length) return false;
      for (const stmt of m.sql.split("--> statement-breakpoint")) {
        if (stmt.trim()) await tx.unsafe(stmt);
      }
      await tx.unsafe("INSERT INTO __posthorn_migrations (tag, applied_at) VALUES ($1, $2)", [m.tag, Date.now()]);
      return true;
    });
    if (ran) applied.push(m.tag);
  }
  return applied;
}
