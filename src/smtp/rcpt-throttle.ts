/**
 * Refused-RCPT throttling for the MX listener, after Postfix's anvil and smtpd_hard_error_limit:
 * RCPT's 250/550 tells whether an address (a route address, a VERP signature) is right, so a
 * client whose RCPTs keep being refused is guessing. Each client has a bucket of `limit` refusals
 * that refills at `limit` per `windowMs`; once it is empty, every RCPT from that client, right or
 * wrong, gets the same temporary refusal, so trying further tells it nothing.
 *
 * The decision is taken with the count (docs/security.md): a lookup takes a place before it runs
 * (`acquire`), and a client has at most as many lookups running as it has refusals left, so of
 * RCPTs sent at once over many connections only as many are looked up as could be refused; the
 * others wait for a place (a client that is not refused loses only that wait) and, once the
 * refusals are used up, get the throttled reply without being looked up.
 *
 * Memory is bounded: at most `maxClients` buckets, the least recently refused dropped first, and
 * one entry per client with a lookup running.
 */

export const RCPT_FAILURE_WINDOW_MS = 10 * 60 * 1000;
export const RCPT_THROTTLE_MAX_CLIENTS = 50_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** A client's lookups running, and the RCPTs waiting for one of them to end. */
interface Running {
  count: number;
  waiting: (() => void)[];
}

export class RcptFailureThrottle {
  private readonly buckets = new Map<string, Bucket>();
  private readonly running = new Map<string, Running>();
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

  /**
   * A place for one RCPT's lookup: true when the client has a refusal left beyond those its
   * running lookups may use (then call `release` once the verdict is counted), false when it has
   * none left (throttled). In between, waits for a running lookup to end.
   */
  acquire(key: string): boolean | Promise<boolean> {
    const level = this.level(key, this.now());
    if (level < 1) return false;
    let running = this.running.get(key);
    if (!running) this.running.set(key, (running = { count: 0, waiting: [] }));
    if (level - running.count >= 1) {
      running.count++;
      return true;
    }
    const entry = running;
    return new Promise<void>((resolve) => entry.waiting.push(resolve)).then(() => this.acquire(key));
  }

  /** Ends a lookup `acquire` let run: call it after `refused`, in the same turn, so that the RCPTs it wakes see the refusal counted. */
  release(key: string): void {
    const running = this.running.get(key);
    if (!running) return;
    running.count--;
    const waiting = running.waiting.splice(0);
    if (running.count <= 0 && waiting.length === 0) this.running.delete(key);
    for (const wake of waiting) wake();
  }

  get size(): number {
    return this.buckets.size;
  }
}
