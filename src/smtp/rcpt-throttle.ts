/**
 * Refused-RCPT throttling for the MX listener, after Postfix's anvil and smtpd_hard_error_limit:
 * RCPT's 250/550 tells whether an address (a route address, a VERP signature) is right, so a
 * client whose RCPTs keep being refused is guessing. Each client has a bucket of `limit` refusals
 * that refills at `limit` per `windowMs`; once it is empty, every RCPT from that client, right or
 * wrong, gets the same temporary refusal, so trying further tells it nothing.
 *
 * Memory is bounded: at most `maxClients` buckets, the least recently refused dropped first.
 */

export const RCPT_FAILURE_WINDOW_MS = 10 * 60 * 1000;
export const RCPT_THROTTLE_MAX_CLIENTS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class RcptFailureThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly limit: number,
    windowMs = RCPT_FAILURE_WINDOW_MS,
    private readonly maxClients = RCPT_THROTTLE_MAX_CLIENTS,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = limit / windowMs;
  }

  private level(key: string, t: number): number {
    const b = this.buckets.get(key);
    if (!b) return this.limit;
    return Math.min(this.limit, b.tokens + (t - b.at) * this.refillPerMs);
  }

  /** Whether `key` has used up its refusals: then it is refused whatever it asks. */
  throttled(key: string): boolean {
    return this.level(key, this.now()) < 1;
  }

  /** Counts a refused RCPT; true when the client is throttled from now on. */
  refused(key: string): boolean {
    const t = this.now();
    const tokens = Math.max(0, this.level(key, t) - 1);
    // Re-inserted, so the Map's order is least recently refused first.
    this.buckets.delete(key);
    this.buckets.set(key, { tokens, at: t });
    while (this.buckets.size > this.maxClients) this.buckets.delete(this.buckets.keys().next().value!);
    return tokens < 1;
  }

  get size(): number {
    return this.buckets.size;
  }
}
