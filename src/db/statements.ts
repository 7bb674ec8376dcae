import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

const caches = new WeakMap<Database, Map<string, Statement>>();

/**
 * A prepared statement kept for the life of the connection. bun:sqlite's own query() cache holds
 * only a couple of dozen statements; the send path uses more than that, and a statement that
 * falls out of that cache is compiled again on every call (measured: the outbound pipeline spent
 * ~40% of its CPU re-preparing SQL). Statements here never leave the cache, and using them keeps
 * query()'s small cache free for SQL that is built at run time (lists, IN lists), which must
 * not be kept forever.
 */
export function stmt<R = unknown, P extends SQLQueryBindings[] = SQLQueryBindings[]>(sqlite: Database, sql: string): Statement<R, P> {
  let cache = caches.get(sqlite);
  if (!cache) caches.set(sqlite, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = sqlite.prepare(sql)));
  return s as Statement<R, P>;
}

/** A statement for SQL built at run time: bun:sqlite's own small cache, never kept forever. */
export function query<R = unknown, P extends SQLQueryBindings[] = SQLQueryBindings[]>(sqlite: Database, sql: string): Statement<R, P> {
  return sqlite.query<R, P>(sql) as unknown as Statement<R, P>;
}
