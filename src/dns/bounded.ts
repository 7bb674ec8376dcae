import type { DnsResolver } from "./resolver.ts";

/** The lookups DNS verification needs; DnsResolver provides them, BoundedLookup limits them. */
export type DnsLookup = Pick<DnsResolver, "mx" | "txt" | "a" | "aaaa" | "cname">;

/**
 * A DnsLookup that lets at most `maxInflight` queries be outstanding at once, whatever number of
 * domains are being checked in parallel: the periodic re-check must not flood the resolver.
 * Each method is one query, so the bound is on queries, not on domains.
 */
export class BoundedLookup implements DnsLookup {
  private inflight = 0;
  private readonly waiting: (() => void)[] = [];
  /** Highest number of queries outstanding at once, and queries made. */
  readonly stats = { inflightMax: 0, queries: 0 };

  constructor(
    private readonly inner: DnsLookup,
    readonly maxInflight: number,
  ) {
    if (!Number.isInteger(maxInflight) || maxInflight < 1) throw new RangeError("maxInflight must be a positive integer");
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inflight >= this.maxInflight) await new Promise<void>((r) => this.waiting.push(r));
    // A released slot is handed over directly (inflight is not decremented), so no one can jump the queue.
    else this.inflight++;
    this.stats.queries++;
    this.stats.inflightMax = Math.max(this.stats.inflightMax, this.inflight);
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.inflight--;
    }
  }

  mx(host: string) {
    return this.run(() => this.inner.mx(host));
  }
  txt(host: string) {
    return this.run(() => this.inner.txt(host));
  }
  a(host: string) {
    return this.run(() => this.inner.a(host));
  }
  aaaa(host: string) {
    return this.run(() => this.inner.aaaa(host));
  }
  cname(host: string) {
    return this.run(() => this.inner.cname(host));
  }
}
