import type { Database } from "bun:sqlite";

/**
 * The pragmas every SQLite connection must have, the server's and an orphaned SMTP agent's alike.
 * A module of its own so that the agent, which opens the file to write receipts, does not load
 * the migrations and the ORM with connection.ts.
 */
export function configureConnection(sqlite: Database): void {
  // First: the pragmas below then wait for a lock another process holds (a server restarting
  // while its orphaned agent writes receipts) instead of failing at once.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  enterWal(sqlite);
  // A 202 or a 250 promises the message is on disk: every commit is fsynced (see db/writer.ts
  // for how commits are grouped so that this stays cheap).
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  // 8 MB, not 64: the cache is per connection and fills with what the writes touch, so under a
  // send burst it was ~70 MB of the server's peak RSS; reads barely use it (the OS page cache
  // holds the file), messages-list.ts at 1M messages was the same at 8 and 64 MB.
  sqlite.exec("PRAGMA cache_size = -8192");
}

/**
 * `PRAGMA journal_mode = WAL`, retried while another process holds the file for a moment (the
 * last connection of a CLI command closing as `serve` opens, seen in CI about once in tens of
 * thousands of opens): SQLite can answer that pragma "database is locked" at once, without the
 * busy timeout, and `serve` exited. Retried for as long as the busy timeout would have waited.
 */
export function enterWal(sqlite: Pick<Database, "exec">, timeoutMs = 5000): void {
  const deadline = performance.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      sqlite.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY" || performance.now() + pause > deadline) throw e;
      Bun.sleepSync(pause);
    }
  }
}

/**
 * Makes the file give freed pages back to the file system on request (`PRAGMA incremental_vacuum`,
 * run by retention after it purges), instead of keeping them for reuse only. A new file gets the
 * mode before its first table, for free. An existing file needs one full VACUUM to switch: it
 * rewrites the whole file (about as long as a backup, and as much free disk as the file's size),
 * so it happens once, at the start of `serve`, and returns whether it ran.
 */
export function useIncrementalVacuum(sqlite: Database, beforeVacuum: (bytes: number) => void = () => {}): { vacuumed: boolean } {
  const mode = () => (sqlite.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum;
  if (mode() === 2) return { vacuumed: false };
  sqlite.exec("PRAGMA auto_vacuum = INCREMENTAL");
  if (mode() === 2) return { vacuumed: false };
  const { page_count } = sqlite.query("PRAGMA page_count").get() as { page_count: number };
  const { page_size } = sqlite.query("PRAGMA page_size").get() as { page_size: number };
  beforeVacuum(page_count * page_size);
  sqlite.exec("VACUUM");
  return { vacuumed: true };
}
