import { DnsError, type DnsResolver } from "../dns/resolver.ts";
import type { RemoteReply } from "../events/message-status.ts";

export interface MxHost {
  name: string;
  priority: number;
}

/** Where mail for a domain goes: MX hosts in the order to try, or why it cannot go anywhere. */
export type MxResult =
  | { kind: "hosts"; hosts: MxHost[]; implicit: boolean }
  /** Permanent: the domain does not exist or publishes a null MX (RFC 7505). */
  | { kind: "hard"; reply: RemoteReply }
  /** Temporary: DNS failed (timeout, SERVFAIL); try again later. */
  | { kind: "soft"; reply: RemoteReply };

const local = (message: string, enhanced: string): RemoteReply => ({ code: null, enhanced_code: enhanced, message });

const isNullMx = (exchange: string) => exchange === "" || exchange === ".";

/** Lowest preference first; equal preferences in random order (RFC 5321 §5.1). */
export function orderMx(records: MxHost[], random: () => number = Math.random): MxHost[] {
  return records
    .map((r) => ({ r, k: random() }))
    .sort((a, b) => a.r.priority - b.r.priority || a.k - b.k)
    .map((x) => ({ name: x.r.name.replace(/\.$/, "").toLowerCase(), priority: x.r.priority }));
}

/**
 * RFC 5321 §5.1 routing for `domain`: its MX records by preference; with no MX, the domain
 * itself when it has an address (implicit MX); a null MX or a domain that does not exist is a
 * permanent failure. Bun reports a missing record type as ENOTFOUND, like a missing name, so a
 * "does not exist" answer is confirmed by looking for addresses before it is called permanent.
 */
export async function resolveMx(dns: DnsResolver, domain: string): Promise<MxResult> {
  let records: { exchange: string; priority: number }[];
  try {
    records = await dns.mx(domain);
  } catch (err) {
    if (!(err instanceof DnsError)) return { kind: "soft", reply: local(`MX lookup for ${domain} failed: ${String(err)}`, "4.4.3") };
    if (!err.absent) return { kind: "soft", reply: local(err.message, "4.4.3") };
    records = [];
  }
  if (records.some((r) => isNullMx(r.exchange))) {
    return { kind: "hard", reply: local(`${domain} does not accept mail (null MX)`, "5.1.10") };
  }
  if (records.length > 0) {
    return { kind: "hosts", hosts: orderMx(records.map((r) => ({ name: r.exchange, priority: r.priority }))), implicit: false };
  }
  try {
    const addresses = await dns.addresses(domain);
    if (addresses.length > 0) return { kind: "hosts", hosts: [{ name: domain, priority: 0 }], implicit: true };
    return { kind: "hard", reply: local(`${domain} has no MX and no address record (the domain does not receive mail)`, "5.1.2") };
  } catch (err) {
    return { kind: "soft", reply: local(err instanceof Error ? err.message : String(err), "4.4.3") };
  }
}
