import { Resolver } from "node:dns/promises";

/** Why a lookup produced no answer, in terms the rest of the product acts on. */
export type DnsFailure = "NXDOMAIN" | "NODATA" | "TIMEOUT" | "SERVFAIL" | "REFUSED" | "ERROR";

export class DnsError extends Error {
  constructor(
    readonly failure: DnsFailure,
    readonly hostname: string,
    readonly rrtype: string,
    readonly code: string,
  ) {
    super(`${rrtype} lookup for ${hostname} failed: ${DNS_FAILURE_TEXT[failure]} (${code})`);
    this.name = "DnsError";
  }

  /** No record of that type exists (the name may or may not exist). */
  get absent(): boolean {
    return this.failure === "NXDOMAIN" || this.failure === "NODATA";
  }
}

/** Each failure in words, for reasons shown to users. */
export const DNS_FAILURE_TEXT: Record<DnsFailure, string> = {
  NXDOMAIN: "the name does not exist",
  NODATA: "no record of that type",
  TIMEOUT: "the DNS server did not answer in time",
  SERVFAIL: "the DNS server failed to answer (SERVFAIL)",
  REFUSED: "the DNS server refused the query",
  ERROR: "the lookup failed",
};

// Bun reports ENOTFOUND where Node reports ENODATA; both mean "nothing of that type here".
function classify(code: string): DnsFailure {
  switch (code) {
    case "ENOTFOUND":
      return "NXDOMAIN";
    case "ENODATA":
      return "NODATA";
    case "ETIMEOUT":
    case "ETIMEDOUT":
      return "TIMEOUT";
    case "ESERVFAIL":
      return "SERVFAIL";
    case "EREFUSED":
      return "REFUSED";
    default:
      return "ERROR";
  }
}

/**
 * Every DNS lookup of the product goes through here, to POSTHORN_DNS_SERVERS when set (tests point
 * it at a loopback server) or the system resolver otherwise. Errors become DnsError.
 */
export class DnsResolver {
  private readonly resolver: Resolver;

  constructor(
    private readonly servers: string[] | null,
    private readonly opts: { timeoutMs?: number; tries?: number } = {},
  ) {
    this.resolver = new Resolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
    if (servers && servers.length > 0) this.resolver.setServers(servers);
  }

  /**
   * The same servers and timeouts with an empty answer cache. Bun caches answers per resolver
   * (for their TTL), so a check that must see a record the user just published or removed uses
   * a fresh one.
   */
  fresh(): DnsResolver {
    return new DnsResolver(this.servers, this.opts);
  }

  private async run<T>(rrtype: string, hostname: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: string }).code ?? "ERROR";
      throw new DnsError(classify(code), hostname, rrtype, code);
    }
  }

  mx(hostname: string): Promise<{ exchange: string; priority: number }[]> {
    return this.run("MX", hostname, () => this.resolver.resolveMx(hostname));
  }

  /** TXT records, each one's strings joined (a long DKIM key arrives as several strings). */
  async txt(hostname: string): Promise<string[]> {
    const records = await this.run("TXT", hostname, () => this.resolver.resolveTxt(hostname));
    return joinTxtRecords(records);
  }

  a(hostname: string): Promise<string[]> {
    return this.run("A", hostname, () => this.resolver.resolve4(hostname));
  }

  aaaa(hostname: string): Promise<string[]> {
    return this.run("AAAA", hostname, () => this.resolver.resolve6(hostname));
  }

  cname(hostname: string): Promise<string[]> {
    return this.run("CNAME", hostname, () => this.resolver.resolveCname(hostname));
  }

  /** IPv4 and IPv6 addresses of a host; empty when it has neither. Other failures throw. */
  async addresses(hostname: string): Promise<string[]> {
    const settle = async (p: Promise<string[]>) => {
      try {
        return await p;
      } catch (err) {
        if (err instanceof DnsError && err.absent) return [];
        throw err;
      }
    };
    const [v4, v6] = await Promise.all([settle(this.a(hostname)), settle(this.aaaa(hostname))]);
    return [...v4, ...v6];
  }
}

/**
 * Bun's resolveTxt splits one multi-string TXT record into several single-string records, so
 * pieces of one record can arrive as separate entries. Each record's own strings are joined (right
 * for Node); then, for Bun, an entry that does not begin like a record ("tag=…") or that is pure
 * base64 (the middle of a long DKIM key) continues the previous record.
 */
export function joinTxtRecords(records: string[][]): string[] {
  const out: string[] = [];
  for (const rec of records) {
    const joined = rec.join("");
    const continuation = out.length > 0 && (/^[A-Za-z0-9+/]+={0,2}$/.test(joined) || !/^[A-Za-z][A-Za-z0-9_.-]*=/.test(joined));
    if (continuation) out[out.length - 1] += joined;
    else out.push(joined);
  }
  return out;
}
