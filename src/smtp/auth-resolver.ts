/**
 * The `resolver(name, rrtype)` mailauth calls for SPF, DKIM, DMARC and ARC, answered by the
 * product's DnsResolver (POSTHORN_DNS_SERVERS), with a small TTL cache: a busy MX sees the
 * same senders' records over and over, as a caching resolver would. Analysis workers ask the
 * main thread's resolver through their message channel (see analysis-pool.ts), behind a cache of
 * their own with the same lifetime, so that a repeated question does not cross threads.
 */
import { DnsError, type DnsFailure, type DnsResolver } from "../dns/resolver.ts";

/** mailauth tells "no such record" from "lookup failed" by Node's error codes. */
const NODE_CODE: Record<DnsFailure, string> = {
  NXDOMAIN: "ENOTFOUND",
  NODATA: "ENODATA",
  TIMEOUT: "ETIMEOUT",
  SERVFAIL: "ESERVFAIL",
  REFUSED: "EREFUSED",
  ERROR: "EUNKNOWN",
};

/** A lookup failure as mailauth expects it: an Error with Node's `code`. */
export const dnsError = (code: string, name: string, rrtype: string) =>
  Object.assign(new Error(`${rrtype} ${name}: ${code}`), { code, hostname: name });

const ABSENT = new Set(["ENOTFOUND", "ENODATA"]);

export type AuthResolver = (name: string, rrtype: string) => Promise<any>;

/** Uncached lookups through the DnsResolver, answers shaped like node:dns's resolve(). */
export function dnsLookup(dns: DnsResolver): AuthResolver {
  return async (name, rrtype) => {
    try {
      switch (rrtype) {
        case "TXT":
          // Already joined per record (Bun splits long records); mailauth wants string[][].
          return (await dns.txt(name)).map((s) => [s]);
        case "MX":
          return await dns.mx(name);
        case "A":
          return await dns.a(name);
        case "AAAA":
          return await dns.aaaa(name);
        case "CNAME":
          return await dns.cname(name);
        default:
          // PTR (SPF "ptr", deprecated by RFC 7208) and anything else: treated as absent.
          throw dnsError("ENOTFOUND", name, rrtype);
      }
    } catch (err) {
      if (err instanceof DnsError) throw dnsError(NODE_CODE[err.failure], name, rrtype);
      throw err;
    }
  };
}

type Entry = { expires: number; value?: unknown; error?: Error };

/** How long answers (and absent records) are kept by default. */
export const AUTH_DNS_CACHE_MS = 60_000;

/** Caches answers and absent records for `ttlMs`; failures are retried at the next message. */
export function cachedResolver(lookup: AuthResolver, opts: { ttlMs?: number; maxEntries?: number } = {}): AuthResolver {
  const ttl = opts.ttlMs ?? AUTH_DNS_CACHE_MS;
  const max = opts.maxEntries ?? 10_000;
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<unknown>>();

  return async (rawName: string, rrtype: string) => {
    const name = rawName.toLowerCase().replace(/\.$/, "");
    const key = `${rrtype} ${name}`;
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.expires > now) {
      if (hit.error) throw hit.error;
      return hit.value;
    }
    let pending = inflight.get(key);
    if (!pending) {
      pending = lookup(name, rrtype).finally(() => inflight.delete(key));
      inflight.set(key, pending);
    }
    const remember = (e: Entry) => {
      if (ttl <= 0) return;
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(key, e);
    };
    try {
      const value = await pending;
      remember({ expires: now + ttl, value });
      return value;
    } catch (err) {
      if (ABSENT.has((err as { code?: string }).code ?? "")) remember({ expires: now + ttl, error: err as Error });
      throw err;
    }
  };
}

export function createAuthResolver(dns: DnsResolver, opts: { ttlMs?: number; maxEntries?: number } = {}): AuthResolver {
  return cachedResolver(dnsLookup(dns), opts);
}
