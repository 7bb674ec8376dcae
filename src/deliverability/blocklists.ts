/**
 * DNS blocklists (DNSBL for addresses, URIBL/DBL for domains): the query name of a target in a
 * zone and what the zone's answer means, as the lists document them. A listing is an A record in
 * 127.0.0.0/8; a few answers there are not listings but refusals (Spamhaus's 127.255.255.x,
 * URIBL's 127.0.0.1), and an answer outside 127/8 comes from a resolver that rewrites NXDOMAIN,
 * not from the list. docs/deliverability.md, Blocklists.
 */
import { DnsError } from "../dns/resolver.ts";
import { parseIp } from "../net/ip.ts";

export type BlocklistKind = "ip" | "domain";

/**
 * The name to look up for `target` in `zone`: an IPv4 address's octets reversed
 * (192.0.2.7 → 7.2.0.192.zone), an IPv6 address's 32 nibbles reversed (RFC 5782 §2.4), a domain
 * as it is. Null for an address that is neither.
 */
export function queryName(target: string, kind: BlocklistKind, zone: string): string | null {
  if (kind === "domain") return `${target.toLowerCase().replace(/\.$/, "")}.${zone}`;
  const bytes = parseIp(target);
  if (!bytes) return null;
  if (bytes.length === 4) return `${[...bytes].reverse().join(".")}.${zone}`;
  const nibbles: string[] = [];
  for (const b of bytes) nibbles.push((b >> 4).toString(16), (b & 15).toString(16));
  return `${nibbles.reverse().join(".")}.${zone}`;
}

/** What one answer means: a listing, or a refusal of the query (not a listing). */
export interface Meaning {
  listing: boolean;
  text: string;
}

const SPAMHAUS_ERRORS: Record<string, string> = {
  "127.255.255.252": "Query refused by Spamhaus: the zone name is misspelt (127.255.255.252)",
  "127.255.255.254": "Query refused by Spamhaus: it came through a public or open resolver (127.255.255.254); use a resolver of your own",
  "127.255.255.255": "Query refused by Spamhaus: too many queries from this resolver (127.255.255.255)",
};

const ZEN: Record<string, string> = {
  "127.0.0.2": "Spamhaus SBL: a known spam source or spam operation",
  "127.0.0.3": "Spamhaus SBL CSS: snowshoe spam from this address",
  "127.0.0.4": "Spamhaus XBL: exploited or infected host (CBL)",
  "127.0.0.5": "Spamhaus XBL: exploited or infected host",
  "127.0.0.6": "Spamhaus XBL: exploited or infected host",
  "127.0.0.7": "Spamhaus XBL: exploited or infected host",
  "127.0.0.9": "Spamhaus DROP: hijacked or criminal network",
  "127.0.0.10": "Spamhaus PBL (ISP): an end-user range that should not send mail directly",
  "127.0.0.11": "Spamhaus PBL: an end-user range that should not send mail directly",
};

const DBL: Record<string, string> = {
  "127.0.1.2": "Spamhaus DBL: spam domain",
  "127.0.1.4": "Spamhaus DBL: phishing domain",
  "127.0.1.5": "Spamhaus DBL: malware domain",
  "127.0.1.6": "Spamhaus DBL: botnet command and control domain",
  "127.0.1.102": "Spamhaus DBL: abused legitimate domain, used in spam",
  "127.0.1.103": "Spamhaus DBL: abused legitimate domain, a spammed redirector",
  "127.0.1.104": "Spamhaus DBL: abused legitimate domain, used in phishing",
  "127.0.1.105": "Spamhaus DBL: abused legitimate domain, used for malware",
  "127.0.1.106": "Spamhaus DBL: abused legitimate domain, botnet command and control",
};

/** What `address`, answered by `zone`, means. */
export function meaningOf(zone: string, address: string): Meaning {
  const z = zone.toLowerCase();
  if (!/^127\.\d+\.\d+\.\d+$/.test(address)) return { listing: false, text: `Not a blocklist answer (${address} is outside 127.0.0.0/8): the resolver rewrites missing names` };
  const spamhaus = z.endsWith("spamhaus.org") || z.endsWith("spamhaus.net") || z.endsWith("dq.spamhaus.net");
  if (address.startsWith("127.255.255.")) {
    return { listing: false, text: SPAMHAUS_ERRORS[address] ?? `Query refused or failed (${address}): the list answers errors in 127.255.255.0/24` };
  }
  if (spamhaus && address === "127.0.1.255") return { listing: false, text: "Query refused by Spamhaus DBL: an IP address was looked up in a domain list (127.0.1.255)" };
  if (z.endsWith("uribl.com")) {
    const last = Number(address.split(".")[3]);
    if (last === 1) return { listing: false, text: "Query refused by URIBL: this resolver is blocked from querying, often a public resolver (127.0.0.1)" };
    const lists = [
      [2, "black"],
      [4, "grey"],
      [8, "red"],
    ].filter(([bit]) => (last & (bit as number)) !== 0).map(([, name]) => name);
    return { listing: true, text: lists.length > 0 ? `URIBL ${lists.join(" and ")} list (${address})` : `URIBL listing (${address})` };
  }
  if (spamhaus && ZEN[address] && !z.startsWith("dbl.")) return { listing: true, text: ZEN[address]! };
  if (spamhaus && DBL[address]) return { listing: true, text: DBL[address]! };
  if (z.endsWith("spamcop.net") && address === "127.0.0.2") return { listing: true, text: "SpamCop: spam was reported from this address" };
  if (z.endsWith("barracudacentral.org") && address === "127.0.0.2") return { listing: true, text: "Barracuda Reputation Block List: poor sending reputation" };
  return { listing: true, text: `Listed in ${zone} (${address})` };
}

/** One lookup's result: listed (with the answers' codes and meanings), clear, or an error that says nothing either way. */
export type LookupResult =
  | { state: "listed"; code: string; meaning: string }
  | { state: "clear" }
  | { state: "error"; code: string | null; meaning: string };

/**
 * Looks `target` up in `zone` with `a` (the resolver's A lookup). NXDOMAIN or no A record: clear.
 * Several answers are combined; a refusal alone (127.255.255.254 …) is an error, not a listing.
 */
export async function lookup(a: (name: string) => Promise<string[]>, target: string, kind: BlocklistKind, zone: string): Promise<LookupResult> {
  const name = queryName(target, kind, zone);
  if (!name) return { state: "error", code: null, meaning: `${target} is not an IP address` };
  let answers: string[];
  try {
    answers = await a(name);
  } catch (err) {
    if (err instanceof DnsError && err.absent) return { state: "clear" };
    return { state: "error", code: null, meaning: err instanceof DnsError ? err.message : String(err) };
  }
  if (answers.length === 0) return { state: "clear" };
  const sorted = [...new Set(answers)].sort();
  const meanings = sorted.map((addr) => ({ addr, ...meaningOf(zone, addr) }));
  const listings = meanings.filter((m) => m.listing);
  if (listings.length > 0) return { state: "listed", code: listings.map((m) => m.addr).join(", "), meaning: listings.map((m) => m.text).join("; ") };
  return { state: "error", code: meanings.map((m) => m.addr).join(", "), meaning: meanings.map((m) => m.text).join("; ") };
}
