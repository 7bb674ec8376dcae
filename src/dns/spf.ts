import { isIP } from "node:net";
import type { DnsLookup } from "./bounded.ts";
import { canonicalName } from "./records.ts";
import { DnsError } from "./resolver.ts";

/**
 * Does an SPF policy authorize Posthorn's server? A small RFC 7208 evaluator for one question:
 * would mail from the server named POSTHORN_HOSTNAME pass? Mechanisms are evaluated left to right
 * and the first one that matches decides, as a receiver does:
 *   a / a:<host>   matches when <host> is POSTHORN_HOSTNAME or shares an address with it
 *   mx / mx:<host> matches when an MX of <host> is POSTHORN_HOSTNAME or shares an address with it
 *   ip4 / ip6      matches when it covers an address of POSTHORN_HOSTNAME
 *   include:<d>    matches when d's own policy passes for us; redirect=<d> is followed
 *   all            always matches
 * exists and ptr are not evaluated (they depend on the connecting client) and never match.
 * The RFC's limit of 10 DNS-querying terms applies.
 */
export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror" | "temperror";

export interface SpfOutcome {
  result: SpfResult;
  /** The term that decided, e.g. "~all" or "include:_spf.example.com". */
  term: string | null;
  detail: string;
}

export interface SpfContext {
  lookup: DnsLookup;
  /** POSTHORN_HOSTNAME, canonical. */
  hostname: string;
  /** Addresses of POSTHORN_HOSTNAME, resolved once on first need. */
  ourAddresses: () => Promise<string[]>;
  /** DNS-querying terms evaluated so far (RFC 7208 §4.6.4 caps them at 10). */
  lookups: number;
}

const MAX_LOOKUPS = 10;
const QUALIFIER_RESULT: Record<string, SpfResult> = { "+": "pass", "-": "fail", "~": "softfail", "?": "neutral" };

class SpfTempError extends Error {}
class SpfPermError extends Error {}

/** The v=spf1 records among a name's TXT records. */
export const spfRecordsOf = (txt: string[]): string[] => txt.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));

/** Evaluates `record` (the v=spf1 policy published at `domain`) for our server. Never throws. */
export async function evaluateSpf(ctx: SpfContext, domain: string, record: string, depth = 0): Promise<SpfOutcome> {
  try {
    return await evaluate(ctx, canonicalName(domain), record, depth);
  } catch (err) {
    if (err instanceof SpfTempError) return { result: "temperror", term: null, detail: err.message };
    if (err instanceof SpfPermError) return { result: "permerror", term: null, detail: err.message };
    throw err;
  }
}

async function evaluate(ctx: SpfContext, domain: string, record: string, depth: number): Promise<SpfOutcome> {
  if (depth > MAX_LOOKUPS) throw new SpfPermError("includes nest too deeply");
  const terms = record.trim().split(/\s+/).slice(1);
  let redirect: string | null = null;
  for (const raw of terms) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(raw);
    if (modifier) {
      if (modifier[1]!.toLowerCase() === "redirect") redirect = modifier[2]!;
      continue;
    }
    const m = /^([+\-~?]?)([a-z0-9]+)(?::([^/]*))?(?:\/(\d+))?(?:\/\/(\d+))?$/i.exec(raw);
    if (!m) throw new SpfPermError(`"${raw}" is not a valid SPF term`);
    const qualifier = m[1] || "+";
    const name = m[2]!.toLowerCase();
    const isNetwork = /^ip[46]$/i.test(m[2]!);
    if (m[3] !== undefined && !isNetwork && !/^[a-z0-9_.%{}+=-]*[a-z0-9_%{}-]\.?$/i.test(m[3])) throw new SpfPermError(`"${raw}" has an invalid domain`);
    const arg = m[3] ? canonicalName(m[3]) : null;
    // A macro (%{i}, %{s}…) depends on the connecting client and sender: it cannot match "us" here.
    if (arg?.includes("%")) continue;
    const cidr4 = m[4] !== undefined ? Number(m[4]) : null;
    const cidr6 = m[5] !== undefined ? Number(m[5]) : null;
    if (await matches(ctx, domain, name, arg, raw, cidr4, cidr6, depth)) {
      return { result: QUALIFIER_RESULT[qualifier]!, term: raw, detail: `"${raw}" is the first term that matches ${ctx.hostname}` };
    }
  }
  if (redirect) {
    countLookup(ctx);
    const target = canonicalName(redirect);
    const inner = await policyOf(ctx, target);
    if (!inner) throw new SpfPermError(`redirect=${target} has no SPF record`);
    return evaluate(ctx, target, inner, depth + 1);
  }
  return { result: "none", term: null, detail: `no term matches ${ctx.hostname}` };
}

function countLookup(ctx: SpfContext): void {
  if (++ctx.lookups > MAX_LOOKUPS) throw new SpfPermError(`the policy needs more than ${MAX_LOOKUPS} DNS lookups (RFC 7208 limit)`);
}

/** The single v=spf1 record at `domain`, null when there is none; several is a permerror. */
async function policyOf(ctx: SpfContext, domain: string): Promise<string | null> {
  const txt = await query(() => ctx.lookup.txt(domain));
  const spf = spfRecordsOf(txt ?? []);
  if (spf.length > 1) throw new SpfPermError(`${domain} publishes ${spf.length} SPF records`);
  return spf[0] ?? null;
}

/** Runs a lookup; an absent answer is null, a server failure a temperror. */
async function query<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DnsError && err.absent) return null;
    if (err instanceof DnsError) throw new SpfTempError(err.message);
    throw err;
  }
}

async function addressesOf(ctx: SpfContext, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([query(() => ctx.lookup.a(host)), query(() => ctx.lookup.aaaa(host))]);
  return [...(v4 ?? []), ...(v6 ?? [])];
}

async function matches(
  ctx: SpfContext,
  domain: string,
  name: string,
  arg: string | null,
  raw: string,
  cidr4: number | null,
  cidr6: number | null,
  depth: number,
): Promise<boolean> {
  switch (name) {
    case "all":
      return true;
    case "include": {
      if (!arg) throw new SpfPermError(`"${raw}" needs a domain`);
      countLookup(ctx);
      const inner = await policyOf(ctx, arg);
      if (!inner) throw new SpfPermError(`${raw}: ${arg} has no SPF record`);
      const outcome = await evaluate(ctx, arg, inner, depth + 1);
      return outcome.result === "pass";
    }
    case "a": {
      countLookup(ctx);
      const host = arg ?? domain;
      if (host === ctx.hostname) return true;
      return sharesAddress(ctx, await addressesOf(ctx, host), cidr4, cidr6);
    }
    case "mx": {
      countLookup(ctx);
      const host = arg ?? domain;
      const mx = (await query(() => ctx.lookup.mx(host))) ?? [];
      const exchanges = mx.map((r) => canonicalName(r.exchange));
      if (exchanges.includes(ctx.hostname)) return true;
      for (const exchange of exchanges.slice(0, 10)) {
        if (await sharesAddress(ctx, await addressesOf(ctx, exchange), cidr4, cidr6)) return true;
      }
      return false;
    }
    case "ip4":
    case "ip6": {
      if (!arg) throw new SpfPermError(`"${raw}" needs an address`);
      const family = name === "ip4" ? 4 : 6;
      if (isIP(arg) !== family) throw new SpfPermError(`"${raw}" is not a valid ${name} network`);
      // The term regex puts the one "/prefix" of ip4/ip6 in the first CIDR slot.
      const prefix = cidr4 ?? (family === 4 ? 32 : 128);
      return (await ctx.ourAddresses()).some((ours) => inCidr(ours, arg, prefix));
    }
    case "exists":
    case "ptr":
      countLookup(ctx);
      return false;
    default:
      throw new SpfPermError(`"${raw}" is not a known SPF mechanism`);
  }
}

async function sharesAddress(ctx: SpfContext, theirs: string[], cidr4: number | null, cidr6: number | null): Promise<boolean> {
  if (theirs.length === 0) return false;
  const ours = await ctx.ourAddresses();
  return ours.some((o) => theirs.some((t) => inCidr(o, t, isIP(t) === 4 ? (cidr4 ?? 32) : (cidr6 ?? 128))));
}

/** Is `address` inside `network`/`prefix`? Different families never match. */
export function inCidr(address: string, network: string, prefix: number): boolean {
  const fa = isIP(address);
  if (fa === 0 || fa !== isIP(network)) return false;
  const bits = fa === 4 ? 32 : 128;
  if (!(prefix >= 0 && prefix <= bits)) return false;
  const a = toBigInt(address, fa);
  const n = toBigInt(network, fa);
  const shift = BigInt(bits - prefix);
  return a >> shift === n >> shift;
}

function toBigInt(ip: string, family: number): bigint {
  if (family === 4) return ip.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
  let text = ip.toLowerCase();
  // An IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = toBigInt(v4[1]!, 4);
    text = text.slice(0, -v4[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const h = head ? head.split(":") : [];
  const t = tail !== undefined ? (tail ? tail.split(":") : []) : [];
  const groups = tail !== undefined ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || "0", 16)), 0n);
}
