/**
 * The throttle on failed authentication, one for every kind of credential: API tokens (HTTP),
 * SMTP AUTH on the submission listener and dashboard sign-in count their failures per client IP
 * in one counter (`ip:<address>`), so a brute force cannot spread its guesses over the three.
 * Beyond POSTHORN_AUTH_FAILURE_LIMIT in AUTH_FAILURE_WINDOW_MS every attempt from that IP is refused
 * (HTTP 429, SMTP 421) until the window ends, even with a right credential, so guessing learns
 * nothing. Counters live in the database (auth_failures), so they hold across nodes.
 *
 * Every decision is taken with its count (docs/security.md, "Every throttle decision is atomic
 * with its count"): a sign-in, whose check costs an Argon2 hash, first takes a place in its
 * counters in one statement each (`reserve`) and is checked only with a place; a token, whose
 * check costs a lookup, is checked and then counted or admitted in the same turn of the event loop
 * against every failure this node knows of, including those whose count is still being written
 * (`recordFailure`, `admit`).
 */
import type { Deps } from "../context.ts";
import type { FailureRow } from "../db/rate-limits.ts";
import type { Repositories } from "../db/store.ts";
import { RateLimitedError } from "../errors.ts";
import { parseIp } from "../net/ip.ts";

export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** How stale this node's view of the IPs other nodes have blocked may get. */
const REFRESH_MS = 1000;
/** No counter's window is longer (sign-in's per address is 15 minutes): older rows are deleted, at most this often. */
const FAILURES_KEPT_MS = 15 * 60_000;
const PURGE_MS = 60_000;

/**
 * The client a failure is counted against: an IPv4 address (also written v4-mapped), or the /64
 * of an IPv6 address, which one subscriber usually holds whole and could otherwise walk through.
 */
export function clientKey(ip: string): string {
  const zone = ip.indexOf("%"); // a link-local address's zone (fe80::1%eth0) names our interface, not the client
  const bytes = parseIp((zone >= 0 ? ip.slice(0, zone) : ip).trim());
  if (!bytes) return ip;
  const v4 = bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff ? bytes.slice(12) : null;
  if (bytes.length === 4 || v4) return (v4 ?? bytes).join(".");
  const groups = [0, 2, 4, 6].map((i) => ((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}

/**
 * A client's IP, or how to find it: the HTTP API passes a function, since asking the socket costs
 * a few microseconds that a request whose IP nobody needs (the usual one) should not pay.
 * null: no client IP (app.handle), neither throttled nor counted.
 */
export type ClientAddress = string | null | (() => string | null);

/** The IP of a ClientAddress, asked at most once. */
export function lazyAddress(address: ClientAddress): () => string | null {
  if (typeof address !== "function") return () => address;
  let ip: string | null | undefined;
  return () => (ip === undefined ? (ip = address()) : ip);
}

/** A counter: its key, how many failures its window allows, and how long the window lasts. */
export interface FailureRule {
  key: string;
  limit: number;
  windowMs: number;
}

/** A place an attempt holds in a counter (see AuthThrottle.reserve): the counter after it was taken. */
interface Place {
  rule: FailureRule;
  failures: number;
  windowStartedAt: number;
}

/** What this node knows of an IP's failures (AuthThrottle.tally). */
interface Tally {
  pending: number;
  failures: number;
  until: number;
  learnedAt: number;
}

/** The places one attempt holds, one per rule. */
export interface Reservation {
  readonly places: Place[];
}

const retryAfter = (row: FailureRow, rule: FailureRule, now: number) => Math.max(1, Math.ceil((Number(row.window_started_at) + rule.windowMs - now) / 1000));

type ThrottleDeps = Pick<Deps, "store" | "log" | "config">;
const throttles = new WeakMap<ThrottleDeps, AuthThrottle>();

/** The throttle of an app (one per Deps, shared by the HTTP API, SMTP submission and sign-in). */
export function authThrottle(deps: ThrottleDeps): AuthThrottle {
  let throttle = throttles.get(deps);
  if (!throttle) throttles.set(deps, (throttle = new AuthThrottle(deps)));
  return throttle;
}

export class AuthThrottle {
  /**
   * IPs over the limit → when their window ends, as this node knows them: from the failures it
   * counts itself (exact: the counter comes back from the database with each failure) and, at
   * most REFRESH_MS old, from every node's. Token checks read only this map, so the hot path
   * costs no query; a guess on this node always goes to the database and is refused there.
   */
  private readonly blocked = new Map<string, { until: number; learnedAt: number }>();
  /**
   * IPs this node has counted failures of: how many are being counted right now (`pending`,
   * from the moment the failure is known until the database has answered) and the counter as the
   * database answered last (`failures` in the window that ends at `until`, at `learnedAt`). What
   * `admit` decides on. A refresh forgets what it has newer word of (as for `blocked`): an IP over
   * the limit comes back in `blocked`, one under it with its next failure's answer.
   */
  private readonly tally = new Map<string, Tally>();
  /**
   * Token checks that went to the database (their row was not in memory), per IP, until their
   * outcome is counted; and the right tokens of that IP waiting for them (see `admit`).
   */
  private readonly running = new Map<string, { count: number; waiting: (() => void)[] }>();
  private refreshedAt = 0;
  private refreshing = false;
  private purgedAt = 0;

  private readonly limit: number;

  constructor(private readonly deps: ThrottleDeps) {
    this.limit = deps.config.authFailureLimit;
  }

  /** The counter of a client IP: none when the IP is unknown (app.handle) or the limit is off. */
  ipRules(ip: string | null): FailureRule[] {
    return ip === null || this.limit === 0 ? [] : [{ key: `ip:${clientKey(ip)}`, limit: this.limit, windowMs: AUTH_FAILURE_WINDOW_MS }];
  }

  /** Throws RateLimitedError when the client's IP is over its limit (this node's view; see `blocked` and `tally`). */
  checkIp(address: ClientAddress): void {
    if (this.limit === 0) return;
    const now = Date.now();
    const refreshDue = now - this.refreshedAt >= REFRESH_MS;
    // Nothing blocked or counted and nothing to refresh: the IP is not needed.
    if (!refreshDue && this.blocked.size === 0 && this.tally.size === 0) return;
    const ip = lazyAddress(address)();
    if (ip === null) return;
    if (refreshDue) this.refresh(now);
    this.refuseOverLimit(clientKey(ip), now);
  }

  /**
   * A credential checked after `checkIp` let it through was right: throws RateLimitedError when
   * the failures of the client's IP this node knows of (its own, counted or still being counted,
   * and every node's as of the last refresh) have reached the limit. While checks of the same IP
   * that went to the database are still running and could reach it, waits for them first: of a
   * burst sent at once, a right credential is admitted only if fewer than the limit of the
   * guesses beside it failed, however quickly its own check ended (a token in use is remembered,
   * so its check ends before any guess's), and guessing in parallel learns no more than one by
   * one. Synchronous (no IP asked) while nothing is blocked, counted or running.
   */
  admit(address: ClientAddress): void | Promise<void> {
    if (this.limit === 0 || (this.blocked.size === 0 && this.tally.size === 0 && this.running.size === 0)) return;
    const ip = lazyAddress(address)();
    if (ip === null) return;
    const client = clientKey(ip);
    const now = Date.now();
    this.refuseOverLimit(client, now);
    const running = this.running.get(client);
    if (!running) return;
    const seen = this.tally.get(client);
    const known = seen ? (seen.until > now ? seen.failures : 0) + seen.pending : 0;
    if (known + running.count < this.limit) return;
    return new Promise<void>((resolve) => running.waiting.push(resolve)).then(() => this.admit(ip));
  }

  /**
   * A token check of `ip` goes to the database: until the returned function is called (once its
   * outcome is counted: after `recordFailure` was called, or before `admit`), `admit` holds back
   * the IP's right credentials that it could make over the limit.
   */
  begin(ip: string | null): () => void {
    if (ip === null || this.limit === 0) return () => {};
    const client = clientKey(ip);
    let running = this.running.get(client);
    if (!running) this.running.set(client, (running = { count: 0, waiting: [] }));
    running.count++;
    const entry = running;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.count--;
      const waiting = entry.waiting.splice(0);
      if (entry.count === 0 && this.running.get(client) === entry) this.running.delete(client);
      for (const wake of waiting) wake();
    };
  }

  private refuseOverLimit(client: string, now: number): void {
    const until = this.blocked.get(client)?.until;
    if (until !== undefined) {
      if (until > now) throw new RateLimitedError(Math.max(1, Math.ceil((until - now) / 1000)));
      this.blocked.delete(client);
    }
    const seen = this.tally.get(client);
    if (!seen) return;
    const running = seen.until > now;
    if ((running ? seen.failures : 0) + seen.pending >= this.limit) {
      throw new RateLimitedError(Math.max(1, Math.ceil(((running ? seen.until : now + AUTH_FAILURE_WINDOW_MS) - now) / 1000)));
    }
  }

  /**
   * Takes a place for one attempt in every rule's counter before the attempt is checked, in one
   * transaction: each counter counts and decides in one statement (src/db/rate-limits.ts,
   * reserveAttempt), so concurrent attempts on any node never share a place, and the attempt is
   * checked only once it holds a place in all of them. When one is full, the places taken in the
   * others are given back in the same transaction and this throws RateLimitedError: the attempt
   * is refused without being checked, whatever its credential. The places are kept (the attempt
   * counts as a failure) unless `release` gives them back.
   */
  async reserve(rules: FailureRule[]): Promise<Reservation> {
    if (rules.length === 0) return { places: [] };
    const now = Date.now();
    // Always the same order, so that two transactions on PostgreSQL never wait for each other's rows crosswise.
    const sorted = [...rules].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const { store } = this.deps;
    // Outside the request's unit of work: the place is taken whatever the answer.
    const outcome = await store.detached(() =>
      store.write(async (tx): Promise<{ places: Place[] } | { full: FailureRule }> => {
        const places: Place[] = [];
        for (const rule of sorted) {
          const row = await tx.rateLimits.reserveAttempt(rule.key, rule.limit, now, now - rule.windowMs);
          if (!row) {
            for (const place of places) await tx.rateLimits.giveBackAttempt(place.rule.key, place.windowStartedAt);
            return { full: rule };
          }
          places.push({ rule, failures: row.failures, windowStartedAt: Number(row.window_started_at) });
        }
        return { places };
      }),
    );
    if ("places" in outcome) return outcome;
    const rule = outcome.full;
    const [row] = await store.detached(() => store.read.rateLimits.failures([rule.key], now - rule.windowMs));
    const until = row ? Number(row.window_started_at) + rule.windowMs : now + 1000;
    if (rule.key.startsWith("ip:")) this.blocked.set(rule.key.slice(3), { until, learnedAt: Date.now() });
    throw new RateLimitedError(Math.max(1, Math.ceil((until - now) / 1000)));
  }

  /** The attempt `reserve` let through failed: its places stay counted; an IP whose counter they filled is refused by this node's token checks from now on. */
  failed(reservation: Reservation): void {
    for (const place of reservation.places) {
      if (place.rule.key.startsWith("ip:") && place.failures >= place.rule.limit) {
        this.blocked.set(place.rule.key.slice(3), { until: place.windowStartedAt + place.rule.windowMs, learnedAt: Date.now() });
      }
    }
  }

  /** The attempt `reserve` let through succeeded: its places are given back (a counter whose window has ended since is left alone). */
  async release(reservation: Reservation): Promise<void> {
    if (reservation.places.length === 0) return;
    const { store } = this.deps;
    await store.detached(() => store.write((tx) => this.releaseIn(tx, reservation)));
  }

  /**
   * release, inside `tx`: the write that made the attempt a success. A request that has written
   * must give its places back there: a detached write waits for the request's own unit of work,
   * which on SQLite holds the writer until the request answers (the hold limit, 1 s, then a warning).
   */
  async releaseIn(tx: Repositories, reservation: Reservation): Promise<void> {
    for (const place of reservation.places) await tx.rateLimits.giveBackAttempt(place.rule.key, place.windowStartedAt);
  }

  /**
   * Counts a failure on every rule (outside the request's unit of work: a failure counts
   * whatever the answer). Throws RateLimitedError when one is now beyond its limit, so the
   * attempt that crosses it is refused as those after it are.
   */
  async recordFailure(rules: FailureRule[]): Promise<void> {
    if (rules.length === 0) return;
    const now = Date.now();
    const { store } = this.deps;
    // Known from this moment on, before the database answers: `admit` counts it at once.
    const seen = rules.filter((r) => r.key.startsWith("ip:")).map((r) => this.seen(r.key.slice(3)));
    for (const entry of seen) entry.pending++;
    let rows: FailureRow[];
    try {
      rows = await store.detached(() =>
        store.write(async (tx) => {
          const out: FailureRow[] = [];
          for (const rule of rules) out.push(await tx.rateLimits.recordFailure(rule.key, now, now - rule.windowMs));
          return out;
        }),
      );
    } finally {
      for (const entry of seen) entry.pending--;
    }
    let refused: RateLimitedError | null = null;
    rows.forEach((row, i) => {
      const rule = rules[i]!;
      const until = Number(row.window_started_at) + rule.windowMs;
      if (rule.key.startsWith("ip:")) {
        const entry = this.seen(rule.key.slice(3));
        // The database's answers may come back out of order: a later one of the same window counts more.
        if (until !== entry.until || row.failures > entry.failures) Object.assign(entry, { failures: row.failures, until, learnedAt: Date.now() });
        if (row.failures >= rule.limit) this.blocked.set(rule.key.slice(3), { until, learnedAt: Date.now() });
      }
      if (row.failures > rule.limit) refused ??= new RateLimitedError(retryAfter(row, rule, now));
    });
    if (refused) throw refused;
  }

  private seen(client: string): Tally {
    let entry = this.tally.get(client);
    if (!entry) this.tally.set(client, (entry = { pending: 0, failures: 0, until: 0, learnedAt: 0 }));
    return entry;
  }

  /**
   * Takes the database's list of blocked IPs (every node's), one query at a time, at most every
   * REFRESH_MS; what this node learned while the query ran is kept.
   */
  private refresh(now: number): void {
    if (this.refreshing) return;
    this.refreshing = true;
    this.refreshedAt = now;
    const { store } = this.deps;
    const purge = now - this.purgedAt >= PURGE_MS;
    if (purge) this.purgedAt = now;
    store
      .detached(async () => {
        // Counters whose window is long over: every node purges now and then, so the table stays the size of the last minutes' failures.
        if (purge) await store.write((tx) => tx.rateLimits.purgeFailures(now - FAILURES_KEPT_MS));
        return store.read.rateLimits.overLimit("ip:", this.limit, now - AUTH_FAILURE_WINDOW_MS);
      })
      .then((rows) => {
        for (const [ip, entry] of this.blocked) if (entry.learnedAt < now) this.blocked.delete(ip);
        for (const [ip, entry] of this.tally) if (entry.pending === 0 && entry.learnedAt < now) this.tally.delete(ip);
        for (const row of rows) this.blocked.set(row.key.slice(3), { until: Number(row.window_started_at) + AUTH_FAILURE_WINDOW_MS, learnedAt: now });
      })
      .catch((err: unknown) => this.deps.log.warn("auth throttle refresh failed", { error: String(err) }))
      .finally(() => {
        this.refreshing = false;
      });
  }
}
