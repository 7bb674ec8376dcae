import type { SqlExecutor } from "./sql.ts";

/** A token bucket as stored: `tokens` left (fractional) at `updated_at` (epoch ms). */
export type BucketRow = { tokens: number; updated_at: number };

/** A failure counter: `failures` counted in the window that started at `window_started_at`. */
export type FailureRow = { key: string; failures: number; window_started_at: number };

// dialect: SQLite's scalar MIN/MAX are PostgreSQL's LEAST/GREATEST. Parameters: key, burst and
// count (the new bucket's tokens are burst - count), now, then burst, now and rate per ms for the
// refill of an existing bucket, and count; the same again for the WHERE. The WHERE leaves a bucket
// with fewer than `count` tokens as it is, so a refused take takes nothing and returns no row.
// The casts keep PostgreSQL from typing the rate as a bigint (it is a fraction of a token per ms).
const refill = (least: string, greatest: string) => `${least}(CAST(? AS DOUBLE PRECISION), b.tokens + ${greatest}(0, ? - b.updated_at) * CAST(? AS DOUBLE PRECISION))`;
const takeTokens = (least: string, greatest: string) => `INSERT INTO rate_limit_buckets AS b (key, tokens, updated_at) VALUES (?, CAST(? AS DOUBLE PRECISION) - ?, ?)
  ON CONFLICT (key) DO UPDATE SET tokens = ${refill(least, greatest)} - ?, updated_at = ${greatest}(b.updated_at, excluded.updated_at)
  WHERE ${refill(least, greatest)} >= ?
  RETURNING tokens, updated_at`;
const TAKE_TOKENS = { sqlite: takeTokens("MIN", "MAX"), postgres: takeTokens("LEAST", "GREATEST") };

/** Counts a failure in the key's window, or starts a new window when the old one is over (`? ` = the window's earliest start). */
const RECORD_FAILURE = `INSERT INTO auth_failures (key, failures, window_started_at) VALUES (?, 1, ?)
  ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN auth_failures.window_started_at <= ? THEN 1 ELSE auth_failures.failures + 1 END,
    window_started_at = CASE WHEN auth_failures.window_started_at <= ? THEN excluded.window_started_at ELSE auth_failures.window_started_at END
  RETURNING key, failures, window_started_at`;

/**
 * Takes a place in the key's counter when it has one left: like RECORD_FAILURE, but the WHERE
 * leaves a counter that is at its limit in a window still running as it is, and then no row
 * comes back. The count and the decision are this one statement (on PostgreSQL the conflicting
 * row is locked and the WHERE sees its latest committed version), so concurrent attempts on any
 * node never share a place. Parameters: key, now, the window's earliest start twice, then the
 * window's earliest start and the limit for the WHERE.
 */
const RESERVE_ATTEMPT = `INSERT INTO auth_failures AS f (key, failures, window_started_at) VALUES (?, 1, ?)
  ON CONFLICT (key) DO UPDATE SET
    failures = CASE WHEN f.window_started_at <= ? THEN 1 ELSE f.failures + 1 END,
    window_started_at = CASE WHEN f.window_started_at <= ? THEN excluded.window_started_at ELSE f.window_started_at END
  WHERE f.window_started_at <= ? OR f.failures < ?
  RETURNING key, failures, window_started_at`;

/**
 * API rate limit buckets (used on PostgreSQL, where every node must see the same bucket; one node
 * on SQLite keeps its buckets in memory) and failed-authentication counters (both engines).
 */
export class RateLimitRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Takes `count` tokens from the bucket `key` (created full), refilled at `ratePerMs` up to
   * `burst` since its last update: the bucket after the take, or null when it had fewer (nothing
   * taken). One statement, so concurrent takes on any node never share a token.
   */
  takeTokens(key: string, count: number, burst: number, ratePerMs: number, now: number): Promise<BucketRow | null> {
    return this.db.get<BucketRow>(TAKE_TOKENS[this.db.dialect], [key, burst, count, now, burst, now, ratePerMs, count, burst, now, ratePerMs, count]);
  }

  /** Deletes the buckets under `prefix` untouched since `before` (callers pass a time by which they are full again: the same as none). */
  async purgeBuckets(prefix: string, before: number): Promise<void> {
    await this.db.run("DELETE FROM rate_limit_buckets WHERE key >= ? AND key < ? AND updated_at <= ?", [prefix, prefix + "\uffff", before]);
  }

  bucket(key: string): Promise<BucketRow | null> {
    return this.db.get<BucketRow>("SELECT tokens, updated_at FROM rate_limit_buckets WHERE key = ?", [key]);
  }

  /** The failures counted for each key in windows that started after `windowStart`. */
  async failures(keys: string[], windowStart: number): Promise<FailureRow[]> {
    if (keys.length === 0) return [];
    return this.db.all(
      `SELECT key, failures, window_started_at FROM auth_failures WHERE key IN (${keys.map(() => "?").join(", ")}) AND window_started_at > ?`,
      [...keys, windowStart],
      { dynamic: true },
    );
  }

  /** The keys under `prefix` with at least `limit` failures in windows that started after `windowStart`. */
  overLimit(prefix: string, limit: number, windowStart: number): Promise<FailureRow[]> {
    return this.db.all("SELECT key, failures, window_started_at FROM auth_failures WHERE key >= ? AND key < ? AND failures >= ? AND window_started_at > ?", [
      prefix,
      prefix + "\uffff",
      limit,
      windowStart,
    ]);
  }

  /** Counts one failure for the key (a new window when its last one started at or before `windowStart`); the counter after it. */
  async recordFailure(key: string, now: number, windowStart: number): Promise<FailureRow> {
    return (await this.db.get<FailureRow>(RECORD_FAILURE, [key, now, windowStart, windowStart]))!;
  }

  /**
   * Counts an attempt for the key before its outcome is known, when the counter has fewer than
   * `limit` in its window (a new window when its last one started at or before `windowStart`):
   * the counter after it, or null when it is full (nothing counted). See RESERVE_ATTEMPT.
   */
  reserveAttempt(key: string, limit: number, now: number, windowStart: number): Promise<FailureRow | null> {
    return this.db.get<FailureRow>(RESERVE_ATTEMPT, [key, now, windowStart, windowStart, windowStart, limit]);
  }

  /** Gives back an attempt reserveAttempt counted, if its window (the one that started at `windowStartedAt`) is still the counter's. */
  async giveBackAttempt(key: string, windowStartedAt: number): Promise<void> {
    await this.db.run("UPDATE auth_failures SET failures = failures - 1 WHERE key = ? AND window_started_at = ? AND failures > 0", [key, windowStartedAt]);
  }

  /** Deletes the counters whose window started at or before `before`. */
  async purgeFailures(before: number): Promise<void> {
    await this.db.run("DELETE FROM auth_failures WHERE window_started_at <= ?", [before]);
  }

  async clearFailures(key: string, windowStart: number): Promise<void> {
    // The key's counter, and every other one whose window is over (they would reset anyway).
    await this.db.run("DELETE FROM auth_failures WHERE key = ? OR window_started_at <= ?", [key, windowStart]);
  }
}
