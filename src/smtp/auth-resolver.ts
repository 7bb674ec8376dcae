/**
 * The `resolver(name, rrtype)` mailauth calls for SPF, DKIM, DMARC and ARC, answered by the
 * product's DnsResolver (POSTHORN_DNS_SERVERS), with a small TTL cache: a busy MX sees the
 * same senders' records over and over, as a caching resolver would.
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

const dnsError = (code: string, name: string, rrtype: string) =>
  Object.assign(new Error(`${rrtype} ${name}: ${code}`), { code, hostname: name });

type Entry = { expires: number; value?: unknown; error?: Error };

export type AuthResolver = (name: string, rrtype: string) => Promise<any>;

export function createAuthResolver(dns: DnsResolver, opts: { ttlMs?: number; maxEntries?: number } = {}): AuthResolver {
  const ttl = opts.ttlMs ?? 60_000;
  const max = opts.maxEntries ?? 10_000;
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<unknown>>();

  const lookup = async (name: string, rrtype: string): Promise<unknown> => {
    switch (rrtype) {
      case "TXT":
        // Already joined per record (Bun splits long records); mailauth wants string[][].
        return (await dns.txt(name)).map((s) => [s]);
      case "MX":
        return dns.mx(name);
      case "A":
        return dns.a(name);
      case "AAAA":
        return dns.aaaa(name);
      case "CNAME":
        return dns.cname(name);
      default:
        // PTR (SPF "ptr", deprecated by RFC 7208) and anything else: treated as absent.
        throw dnsError("ENOTFOUND", name, rrtype);
    }
  };

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
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(key, e);
    };
    try {
      const value = await pending;
      remember({ expires: now + ttl, value });
      return value;
    } catch (err) {
      const error = err instanceof DnsError ? dnsError(NODE_CODE[err.failure], name, rrtype) : (err as Error);
      // Absent records are cached like answers; failures are retried at the next message.
      if (err instanceof DnsError && err.absent) remember({ expires: now + ttl, error });
      throw error;
    }
  };
}
