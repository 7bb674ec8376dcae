import { isIP } from "node:net";

/**
 * IP addresses and CIDR networks: parsing literals and networks, membership, and which ranges are
 * not public (loopback, private, link-local, …). Used by config.ts and http/auth.ts (trusted
 * proxies), auth/throttle.ts (per-address limits) and the webhook target policy (events/webhook-post.ts,
 * modules/webhooks), which refuses non-public addresses so a user-chosen URL cannot reach the
 * server's loopback services, the cloud metadata endpoint (169.254.169.254) or the private network.
 *
 * Addresses are compared as bytes; IPv4-mapped IPv6 (::ffff:a.b.c.d), IPv4-translated
 * (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are judged by the IPv4
 * address they carry; translated and local-use NAT64 (64:ff9b:1::/48) addresses are refused whole.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = number[];

export interface Cidr {
  bytes: Bytes;
  prefix: number;
  text: string;
}

function parseV4(ip: string): Bytes | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

function parseV6(ip: string): Bytes | null {
  let s = ip.replace(/%.*$/, "");
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    s = s.slice(0, lastColon + 1) + "0:0";
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const out: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    out.push(n >> 8, n & 0xff);
  }
  if (tail.length) out.splice(12, 4, ...tail);
  return out.length === 16 ? out : null;
}

/** Parses an IPv4 or IPv6 literal (brackets allowed) into bytes; null when it is not one. */
export function parseIp(ip: string): Bytes | null {
  const s = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const kind = isIP(s);
  if (kind === 4) return parseV4(s);
  if (kind === 6) return parseV6(s);
  return null;
}

const startsWith = (b: Bytes, prefix: number[]) => prefix.every((v, i) => b[i] === v);

/** The IPv4 address an IPv6 address stands for (mapped, NAT64, 6to4), if any. */
function embeddedV4(b: Bytes): Bytes | null {
  if (b.length !== 16) return null;
  if (startsWith(b, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])) return b.slice(12);
  // IPv4-translated (SIIT, RFC 2765): ::ffff:0:a.b.c.d
  if (startsWith(b, [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0])) return b.slice(12);
  if (startsWith(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])) return b.slice(12);
  if (startsWith(b, [0x20, 0x02])) return b.slice(2, 6);
  return null;
}

function inPrefix(b: Bytes, net: Bytes, prefix: number): boolean {
  if (b.length !== net.length) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((b[bit / 8]! & mask) !== (net[bit / 8]! & mask)) return false;
  }
  return true;
}

/** Parses "10.0.0.0/8" or "fd00::/8"; a v4-mapped IPv6 network becomes its IPv4 network. */
export function parseCidr(text: string): Cidr {
  const [addr, len] = text.trim().split("/");
  const bytes = addr ? parseIp(addr) : null;
  const prefix = len === undefined ? (bytes?.length ?? 0) * 8 : Number(len);
  if (!bytes || !Number.isInteger(prefix) || prefix < 0 || prefix > bytes.length * 8) {
    throw new Error(`"${text}" is not a CIDR network like 10.0.0.0/8 or fd00::/8`);
  }
  const mapped = embeddedV4(bytes);
  if (mapped && startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) && prefix >= 96) {
    return { bytes: mapped, prefix: prefix - 96, text };
  }
  return { bytes, prefix, text };
}

const RANGES: { cidr: Cidr; kind: string }[] = (
  [
    ["0.0.0.0/8", "unspecified"],
    ["10.0.0.0/8", "private"],
    ["100.64.0.0/10", "shared (CGNAT)"],
    ["127.0.0.0/8", "loopback"],
    ["169.254.0.0/16", "link-local"],
    ["172.16.0.0/12", "private"],
    ["192.0.0.0/24", "reserved"],
    ["192.0.2.0/24", "documentation"],
    ["192.168.0.0/16", "private"],
    ["198.18.0.0/15", "benchmarking"],
    ["198.51.100.0/24", "documentation"],
    ["203.0.113.0/24", "documentation"],
    ["224.0.0.0/4", "multicast"],
    ["240.0.0.0/4", "reserved"],
    ["::/128", "unspecified"],
    ["::1/128", "loopback"],
    // IPv4-compatible (deprecated) addresses, ::a.b.c.d
    ["::/96", "reserved"],
    // SIIT translated addresses and local-use NAT64 (RFC 8215) reach IPv4 hosts through a
    // translator next to us, never a public webhook receiver.
    ["::ffff:0:0:0/96", "IPv4-translated (SIIT)"],
    ["64:ff9b:1::/48", "local-use NAT64"],
    ["100::/64", "discard-only"],
    ["2001::/32", "Teredo"],
    ["2001:db8::/32", "documentation"],
    ["fc00::/7", "unique-local"],
    ["fe80::/10", "link-local"],
    ["fec0::/10", "site-local"],
    ["ff00::/8", "multicast"],
  ] as const
).map(([c, kind]) => ({ cidr: parseCidr(c), kind }));

/** Why an address may not be a webhook target ("loopback", "private", …), or null when it may. */
export function forbiddenKind(ip: string): string | null {
  const bytes = parseIp(ip);
  if (!bytes) return "not an IP address";
  const v4 = embeddedV4(bytes);
  if (v4) {
    const inner = forbiddenKind(v4.join("."));
    if (inner) return inner;
  }
  for (const r of RANGES) if (inPrefix(bytes, r.cidr.bytes, r.cidr.prefix)) return r.kind;
  return null;
}

/**
 * Whether `ip` lies in one of `networks`. A v4-mapped address is the IPv4 host itself and matches
 * its IPv4 network; translated, NAT64 and 6to4 forms go through a translator and never do.
 */
export function inNetworks(ip: string, networks: readonly Cidr[]): boolean {
  const bytes = parseIp(ip);
  if (!bytes) return false;
  const v4 = bytes.length === 16 && startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ? bytes.slice(12) : null;
  return networks.some((n) => inPrefix(bytes, n.bytes, n.prefix) || (v4 !== null && inPrefix(v4, n.bytes, n.prefix)));
}
