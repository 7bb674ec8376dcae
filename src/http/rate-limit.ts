/**
 * API rate limits (docs/api.md, Rate limits): a token bucket per project on the send endpoints (its project
 * token) and per team on management (its team token or a dashboard session). A bucket holds up
 * to `burst` requests (2 × the sustained rate) and refills at the sustained rate; a batch is one
 * request. Every answer of a limited endpoint says where its bucket stands (RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset in seconds until it is full again); an empty bucket is a
 * 429 with Retry-After, decided right after authentication, before the body is validated or
 * anything of the request is stored.
 *
 * One node on SQLite keeps its buckets in memory (no query per request). On PostgreSQL every node
 * takes from the same row (src/db/rate-limits.ts), by atomic statements, a few tokens at a time
 * (see SharedTokenBuckets), so the limit holds for the cluster as a whole.
 */
import { Elysia } from "elysia";
import type { ProjectPrincipal, TeamPrincipal } from "../auth/tokens.ts";
import type { Deps } from "../context.ts";
import type { Store } from "../db/store.ts";
import { RateLimitedError } from "../errors.ts";

/** A bucket's sustained rate (requests per second) and its size. */
export interface BucketRule {
  rate: number;
  burst: number;
}

/** Where a bucket stands after a request took (or could not take) a token from it. */
export interface BucketState {
  allowed: boolean;
  /** Whole tokens left. */
  remaining: number;
  /** Tokens left, fractional, at the time of the take. */
  tokens: number;
}

/** Token buckets by key: in memory (one node) or in the database (a cluster). */
export interface TokenBuckets {
  take(key: string, rule: BucketRule, now: number): Promise<BucketState>;
}

const state = (allowed: boolean, tokens: number): BucketState => ({ allowed, tokens, remaining: allowed ? Math.floor(tokens) : 0 });

/** One node's buckets, in memory: nothing to share on SQLite, and nothing to wait for. */
export class LocalTokenBuckets implements TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  take(key: string, rule: BucketRule, now: number): Promise<BucketState> {
    const bucket = this.buckets.get(key);
    if (!bucket) {
      this.buckets.set(key, { tokens: rule.burst - 1, updatedAt: now });
      return Promise.resolve(state(true, rule.burst - 1));
    }
    const tokens = Math.min(rule.burst, bucket.tokens + (Math.max(0, now - bucket.updatedAt) * rule.rate) / 1000);
    bucket.updatedAt = Math.max(bucket.updatedAt, now);
    const allowed = tokens >= 1;
    bucket.tokens = allowed ? tokens - 1 : tokens;
    return Promise.resolve(state(allowed, bucket.tokens));
  }
}

/** The share of a bucket's burst a node takes from the shared bucket at once (at least one token). */
const LEASE_SHARE = 0.1;

/**
 * The cluster's buckets, one row each in the shared database. A statement per request would cost
 * a quarter of the send API's throughput on PostgreSQL (measured: scripts/bench/rate-limit.ts), so
 * a node takes a tenth of the burst at once (a lease) and hands it out locally; a lease it has not
 * used up by the time the bucket would have refilled it lapses. The cluster therefore never gets
 * more than the limit, a node at most a tenth of the burst less while its lease lasts. Near an
 * empty bucket the node takes single tokens, and after a refusal it refuses locally until the
 * bucket can hold a token again.
 */
export class SharedTokenBuckets implements TokenBuckets {
  private readonly leases = new Map<string, { tokens: number; sharedLeft: number; expiresAt: number }>();
  private readonly empty = new Map<string, { tokens: number; at: number; until: number }>();
  private readonly fetching = new Map<string, Promise<void>>();

  constructor(private readonly store: Store) {}

  async take(key: string, rule: BucketRule, now: number): Promise<BucketState> {
    for (;;) {
      const lease = this.leases.get(key);
      if (lease && lease.tokens >= 1 && lease.expiresAt > now) {
        lease.tokens--;
        return state(true, lease.sharedLeft + lease.tokens);
      }
      const empty = this.empty.get(key);
      if (empty && empty.until > now) return state(false, empty.tokens + ((now - empty.at) * rule.rate) / 1000);
      // One lease in flight per bucket and node; the requests that arrive meanwhile wait for it.
      let pending = this.fetching.get(key);
      if (!pending) {
        pending = this.lease(key, rule, now).finally(() => this.fetching.delete(key));
        this.fetching.set(key, pending);
      }
      await pending;
      now = Math.max(now, Date.now());
    }
  }

  private async lease(key: string, rule: BucketRule, now: number): Promise<void> {
    const { store } = this;
    // writeNow: its own statement, committed at once, outside the request's unit of work (a
    // refused or failed request has used its token all the same).
    const take = (count: number) => store.writeNow((tx) => tx.rateLimits.takeTokens(key, count, rule.burst, rule.rate / 1000, now));
    const size = Math.max(1, Math.floor(rule.burst * LEASE_SHARE));
    let count = size;
    let row = await take(size);
    if (!row && size > 1) row = await take((count = 1));
    if (row) {
      this.empty.delete(key);
      // Counted from the answer, not the request: a round trip longer than a small lease's life
      // (one token at 100/s lasts 10 ms) would hand over a lease already lapsed, and the waiters
      // would take token after token from the shared bucket without using one.
      this.leases.set(key, { tokens: count, sharedLeft: Math.floor(Number(row.tokens)), expiresAt: Date.now() + (count * 1000) / rule.rate });
      return;
    }
    const bucket = await store.detached(() => store.read.rateLimits.bucket(key));
    const tokens = bucket ? Math.min(rule.burst, Number(bucket.tokens) + (Math.max(0, now - Number(bucket.updated_at)) * rule.rate) / 1000) : 0;
    this.empty.set(key, { tokens, at: now, until: now + ((1 - tokens) * 1000) / rule.rate });
  }
}

/** The limits of one app: which bucket a principal takes from, and what its answer says. */
export class ApiRateLimits {
  private readonly send: BucketRule | null;
  private readonly api: BucketRule | null;

  constructor(
    config: { rateLimitSend: number; rateLimitApi: number },
    private readonly buckets: TokenBuckets,
  ) {
    const rule = (rate: number) => (rate > 0 ? { rate, burst: 2 * rate } : null);
    this.send = rule(config.rateLimitSend);
    this.api = rule(config.rateLimitApi);
  }

  /**
   * Takes a token for the request of `principal` and sets the RateLimit-* headers; throws
   * RateLimitedError (429 with Retry-After) when its bucket is empty. A project token is the
   * send endpoints' caller (its project's bucket); a team token or a session, management's
   * (its team's bucket).
   */
  async charge(principal: TeamPrincipal | ProjectPrincipal, headers: Record<string, string | number>): Promise<void> {
    const [key, rule] = principal.kind === "project" ? [`send:${principal.projectId}`, this.send] : [`api:${principal.teamId}`, this.api];
    if (!rule) return;
    const bucket = await this.buckets.take(key, rule, Date.now());
    headers["ratelimit-limit"] = String(rule.burst);
    headers["ratelimit-remaining"] = String(bucket.remaining);
    headers["ratelimit-reset"] = String(Math.ceil((rule.burst - bucket.tokens) / rule.rate));
    if (!bucket.allowed) throw new RateLimitedError(Math.max(1, Math.ceil((1 - bucket.tokens) / rule.rate)));
  }
}

const limits = new WeakMap<Deps, ApiRateLimits>();

/** The limits of an app (one per Deps: every controller's routes take from the same buckets). */
export function apiRateLimits(deps: Deps): ApiRateLimits {
  let l = limits.get(deps);
  if (!l) {
    const buckets = deps.config.databaseUrl === null ? new LocalTokenBuckets() : new SharedTokenBuckets(deps.store);
    limits.set(deps, (l = new ApiRateLimits(deps.config, buckets)));
  }
  return l;
}

/**
 * The rate limit plugin. Its macro `rateLimited` charges the principal the auth plugin
 * (src/http/auth.ts) found for the request; the auth macros include it after their own
 * transform, so every authenticated route is limited and the check runs right after
 * authentication.
 */
export const rateLimitPlugin = (deps: Deps, principalOf: (request: Request) => TeamPrincipal | ProjectPrincipal, seed: number) => {
  const l = apiRateLimits(deps);
  return new Elysia({ name: "rate-limit", seed }).macro({
    rateLimited: {
      async transform({ request, set }) {
        await l.charge(principalOf(request), set.headers as Record<string, string | number>);
      },
    },
  });
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const limitHeader = (description: string) => ({ description, schema: { type: "integer" } });

/** The RateLimit-* headers and the 429 answer, as OpenAPI components. */
export const rateLimitComponents = {
  headers: {
    "RateLimit-Limit": limitHeader("Size of the caller's bucket (twice the sustained requests per second). On every answer of a rate-limited endpoint."),
    "RateLimit-Remaining": limitHeader("Requests the bucket allows right now. On every answer of a rate-limited endpoint."),
    "RateLimit-Reset": limitHeader("Seconds until the bucket is full again. On every answer of a rate-limited endpoint."),
    "Retry-After": limitHeader("Seconds until a request is allowed again."),
  },
  responses: {
    RateLimited: {
      description:
        "Too many requests: the rate limit of the project (send endpoints) or of the team (management) is spent, or the client IP has failed authentication too often. Nothing of the request was stored.",
      headers: Object.fromEntries(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"].map((h) => [h, { $ref: `#/components/headers/${h}` }])),
      content: { "application/json": { schema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } } },
    },
  },
} satisfies Record<string, Json>;

/** Every operation that takes credentials is rate limited: its 429 is documented (once, by reference). */
export function documentRateLimits(paths: Json): void {
  for (const methods of Object.values((paths ?? {}) as Record<string, Record<string, { security?: unknown[]; responses?: Record<string, Json> }>>)) {
    for (const op of Object.values(methods)) {
      if (op.security?.length && op.responses && !op.responses["429"]) op.responses["429"] = { $ref: "#/components/responses/RateLimited" };
    }
  }
}
