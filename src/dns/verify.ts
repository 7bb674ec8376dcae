import type { DnsLookup } from "./bounded.ts";
import { clip, storable } from "../untrusted/bounds.ts";
import { canonicalName, type RecordPurpose, type RecordType } from "./records.ts";
import { DNS_FAILURE_TEXT, DnsError } from "./resolver.ts";
import { evaluateSpf, spfRecordsOf } from "./spf.ts";

/**
 * What one check of one record found:
 *  pass      the published value matches
 *  missing   nothing of that type at the name (NXDOMAIN / NODATA)
 *  mismatch  something is published, but not what works; `found` holds what was seen
 *  dns_error the DNS server failed (timeout, SERVFAIL, REFUSED): nothing is known either way
 */
export type CheckOutcome = "pass" | "missing" | "mismatch" | "dns_error";

export interface RecordCheck {
  outcome: CheckOutcome;
  /** Why it did not pass, in words a user can act on; null on pass. */
  reason: string | null;
  /** The values seen at the name (TXT strings joined, MX/CNAME targets), when any. */
  found: string[] | null;
}

export interface RecordToCheck {
  purpose: RecordPurpose | string;
  type: RecordType | string;
  fqdn: string;
  content: string;
}

export interface VerifyContext {
  lookup: DnsLookup;
  /** POSTHORN_HOSTNAME: the MX target and the server SPF must authorize. */
  hostname: string;
  /** Addresses of POSTHORN_HOSTNAME (for ip4/ip6 SPF terms); memoized per context. */
  ourAddresses: () => Promise<string[]>;
}

/** A context for one round of checks; our own addresses are looked up at most once in it. */
export function verifyContext(lookup: DnsLookup, hostname: string): VerifyContext {
  let ours: Promise<string[]> | null = null;
  const host = canonicalName(hostname);
  const settle = async (p: Promise<string[]>) => {
    try {
      return await p;
    } catch {
      return [];
    }
  };
  return {
    lookup,
    hostname: host,
    ourAddresses: () => (ours ??= Promise.all([settle(lookup.a(host)), settle(lookup.aaaa(host))]).then(([a, b]) => [...a, ...b])),
  };
}

const pass = (found: string[] | null): RecordCheck => ({ outcome: "pass", reason: null, found });
const missing = (type: string, fqdn: string): RecordCheck => ({ outcome: "missing", reason: `No ${type} record found at ${fqdn}.`, found: null });
const mismatch = (reason: string, found: string[]): RecordCheck => ({ outcome: "mismatch", reason, found });

/** The reason for a server failure: which query, and what the server did. */
export function dnsErrorCheck(err: unknown): RecordCheck {
  if (err instanceof DnsError) {
    return {
      outcome: "dns_error",
      reason: `The DNS server failed for the ${err.rrtype} lookup of ${err.hostname}: ${DNS_FAILURE_TEXT[err.failure]}. The record keeps its status until a check gets an answer.`,
      found: null,
    };
  }
  return { outcome: "dns_error", reason: `The check could not run: ${err instanceof Error ? err.message : String(err)}.`, found: null };
}

// What a reason quotes of the DNS (anyone's records) is stored and shown: bounded and storable.
const shorten = (s: string, max = 120) => (s.length > max ? `${clip(s, max)}…` : storable(s));
const QUOTED_VALUES = 10;
const quoteList = (values: string[]) =>
  values
    .slice(0, QUOTED_VALUES)
    .map((v) => `"${shorten(v)}"`)
    .join(", ") + (values.length > QUOTED_VALUES ? ` and ${values.length - QUOTED_VALUES} more` : "");

/** Checks one record against DNS. Never throws: every failure becomes an outcome with a reason. */
export async function checkRecord(ctx: VerifyContext, record: RecordToCheck): Promise<RecordCheck> {
  try {
    switch (record.purpose) {
      case "dkim":
      case "dkim_ed25519":
        return await checkDkim(ctx, record);
      case "spf":
        return await checkSpf(ctx, record);
      case "return_path":
        return await checkReturnPath(ctx, record);
      case "dmarc":
        return await checkDmarc(ctx, record);
      case "tls_rpt":
        return await checkTlsRpt(ctx, record);
      default:
        return { outcome: "mismatch", reason: `Unknown record purpose "${record.purpose}".`, found: null };
    }
  } catch (err) {
    if (err instanceof DnsError && err.absent) return missing(err.rrtype, record.fqdn);
    return dnsErrorCheck(err);
  }
}

/** DKIM tag list ("v=DKIM1; k=rsa; p=…") → tags; the p= value loses all whitespace. */
export function dkimTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const name = part.slice(0, i).trim().toLowerCase();
    const value = part.slice(i + 1).replace(/\s+/g, "");
    if (name && !tags.has(name)) tags.set(name, value);
  }
  return tags;
}

async function checkDkim(ctx: VerifyContext, record: RecordToCheck): Promise<RecordCheck> {
  const expected = dkimTags(record.content).get("p");
  const txt = await ctx.lookup.txt(record.fqdn);
  if (txt.length === 0) return missing("TXT", record.fqdn);
  const same = txt.filter((r) => dkimTags(r).get("p") === expected);
  // Receivers read a missing k= as rsa: an Ed25519 key published without k=ed25519 never verifies.
  const keyType = dkimTags(record.content).get("k") ?? "rsa";
  if (same.some((r) => (dkimTags(r).get("k") ?? "rsa").toLowerCase() === keyType)) return pass(txt);
  if (same.length > 0) {
    return mismatch(`The DKIM record at ${record.fqdn} has the right key but not k=${keyType}. Publish "${shorten(record.content)}" as given.`, txt);
  }
  const keys = txt.filter((r) => dkimTags(r).has("p"));
  if (keys.length === 0) {
    return mismatch(`The TXT record at ${record.fqdn} is not a DKIM key record (no p= tag). Found ${quoteList(txt)}.`, txt);
  }
  if (keys.some((r) => dkimTags(r).get("p") === "")) {
    return mismatch(`The DKIM record at ${record.fqdn} has an empty p= tag (a revoked key). Publish the key Posthorn generated.`, txt);
  }
  return mismatch(`The DKIM key published at ${record.fqdn} is not the key Posthorn generated for this domain. Found ${quoteList(keys)}.`, txt);
}

async function checkSpf(ctx: VerifyContext, record: RecordToCheck): Promise<RecordCheck> {
  const txt = await ctx.lookup.txt(record.fqdn);
  const spf = spfRecordsOf(txt);
  if (spf.length === 0) {
    if (txt.length === 0) return missing("TXT", record.fqdn);
    return mismatch(`No SPF record (v=spf1 …) at ${record.fqdn}. Found ${quoteList(txt)}.`, txt);
  }
  if (spf.length > 1) {
    return mismatch(`${record.fqdn} publishes ${spf.length} SPF records; receivers treat that as an error (RFC 7208). Merge them into one.`, spf);
  }
  const outcome = await evaluateSpf({ lookup: ctx.lookup, hostname: ctx.hostname, ourAddresses: ctx.ourAddresses, lookups: 0 }, record.fqdn, spf[0]!);
  const fix = `Add "a:${ctx.hostname}" before the all term, as in "${record.content}".`;
  switch (outcome.result) {
    case "pass":
      if (/^\+?all$/i.test(outcome.term ?? "")) {
        return mismatch(`The SPF record at ${record.fqdn} ends in "+all", which authorizes every server on the internet. ${fix}`, spf);
      }
      return pass(spf);
    case "temperror":
      return { outcome: "dns_error", reason: `The DNS server failed while evaluating the SPF record at ${record.fqdn}: ${outcome.detail}.`, found: spf };
    case "permerror":
      return mismatch(`The SPF record at ${record.fqdn} is invalid: ${outcome.detail}. Found "${shorten(spf[0]!)}".`, spf);
    case "none":
      return mismatch(`The SPF record at ${record.fqdn} does not authorize ${ctx.hostname} (${outcome.detail}). ${fix} Found "${shorten(spf[0]!)}".`, spf);
    default:
      return mismatch(
        `The SPF record at ${record.fqdn} does not authorize ${ctx.hostname}: ${outcome.detail} and gives ${outcome.result}. ${fix} Found "${shorten(spf[0]!)}".`,
        spf,
      );
  }
}

export interface MxVerdict {
  ok: boolean;
  reason: string | null;
  found: string[];
}

/** Mail for `name` reaches `hostname` when it is among the most preferred MX hosts. */
export function mxVerdict(name: string, mx: { exchange: string; priority: number }[], hostname: string): MxVerdict {
  const found = mx.map((r) => `${r.priority} ${canonicalName(r.exchange) || "."}`);
  const real = mx.filter((r) => canonicalName(r.exchange) !== "");
  if (real.length === 0) return { ok: false, reason: `${name} publishes a null MX: it accepts no mail. Point its MX to ${hostname}.`, found };
  const best = Math.min(...real.map((r) => r.priority));
  const preferred = real.filter((r) => r.priority === best).map((r) => canonicalName(r.exchange));
  if (preferred.includes(hostname)) return { ok: true, reason: null, found };
  if (real.some((r) => canonicalName(r.exchange) === hostname)) {
    return {
      ok: false,
      reason: `${hostname} is only a backup MX of ${name}: mail goes first to ${preferred.join(", ")} (priority ${best}). Make ${hostname} the only or the most preferred MX.`,
      found,
    };
  }
  return { ok: false, reason: `The MX record of ${name} points to ${real.map((r) => canonicalName(r.exchange)).join(", ")}, not ${hostname}.`, found };
}

/**
 * Mail for `name` reaches us: its MX (through any CNAME, which the resolver follows) names our
 * host; or, with no MX, a CNAME chain from it ends at our host (mail then goes to our address).
 */
export async function checkMailTarget(ctx: VerifyContext, name: string): Promise<RecordCheck> {
  try {
    const mx = await ctx.lookup.mx(name);
    const v = mxVerdict(name, mx, ctx.hostname);
    return v.ok ? pass(v.found) : mismatch(v.reason!, v.found);
  } catch (err) {
    if (!(err instanceof DnsError && err.absent)) throw err;
  }
  const chain: string[] = [];
  let current = name;
  for (let hop = 0; hop < 8; hop++) {
    let targets: string[];
    try {
      targets = await ctx.lookup.cname(current);
    } catch (err) {
      if (err instanceof DnsError && err.absent) break;
      throw err;
    }
    if (targets.length === 0) break;
    current = canonicalName(targets[0]!);
    chain.push(current);
    if (current === ctx.hostname) return pass([`CNAME ${chain.join(" → ")}`]);
  }
  if (chain.length === 0) return missing("MX", name);
  return mismatch(`${name} is a CNAME to ${chain.join(" → ")}, which neither is ${ctx.hostname} nor has an MX pointing to it.`, [`CNAME ${chain.join(" → ")}`]);
}

/**
 * A TXT record at `fqdn` holds exactly `expected` (surrounding spaces aside): how an inbound
 * domain's verification token is checked. Other TXT records at the name are ignored; when none
 * matches, the ones seen are reported.
 */
export async function checkTxtValue(ctx: VerifyContext, fqdn: string, expected: string): Promise<RecordCheck> {
  let txt: string[];
  try {
    txt = await ctx.lookup.txt(fqdn);
  } catch (err) {
    if (err instanceof DnsError && err.absent) return missing("TXT", fqdn);
    throw err;
  }
  if (txt.length === 0) return missing("TXT", fqdn);
  if (txt.some((r) => r.trim() === expected)) return pass(txt);
  return mismatch(`The TXT record at ${fqdn} does not hold the expected value "${expected}". Found ${quoteList(txt)}.`, txt);
}

async function checkReturnPath(ctx: VerifyContext, record: RecordToCheck): Promise<RecordCheck> {
  return checkMailTarget(ctx, record.fqdn);
}

const isDmarc = (r: string) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(r.trim());

/**
 * Any v=DMARC1 record passes (ours is a recommendation; the owner picks the policy). Receivers
 * fall back to the organizational domain's record, so parents are tried too (no public suffix
 * list here: walking up stops before the last label).
 */
async function checkDmarc(ctx: VerifyContext, record: RecordToCheck): Promise<RecordCheck> {
  const domain = record.fqdn.replace(/^_dmarc\./, "");
  const labels = domain.split(".");
  let firstSeen: string[] | null = null;
  for (let i = 0; labels.length - i >= 2; i++) {
    const at = `_dmarc.${labels.slice(i).join(".")}`;
    let txt: string[];
    try {
      txt = await ctx.lookup.txt(at);
    } catch (err) {
      if (err instanceof DnsError && err.absent) continue;
      throw err;
    }
    const dmarc = txt.filter(isDmarc);
    if (dmarc.length > 0) return pass(dmarc);
    if (i === 0) firstSeen = txt;
  }
  if (firstSeen && firstSeen.length > 0) return mismatch(`No DMARC record (v=DMARC1 …) at ${record.fqdn}. Found ${quoteList(firstSeen)}.`, firstSeen);
  return missing("TXT", record.fqdn);
}

const ruaOf = (content: string): string | undefined => /(?:^|;)\s*rua\s*=\s*([^;]*)/i.exec(content)?.[1]?.trim();

/**
 * The TLS-RPT record (RFC 8460 §3) passes when one v=TLSRPTv1 record at the name sends reports to
 * Posthorn's address (among others, if the owner wants). Informational: it never decides whether
 * the domain can send.
 */
async function checkTlsRpt(ctx: VerifyContext, record: RecordToCheck): Promise<RecordCheck> {
  const txt = await ctx.lookup.txt(record.fqdn);
  if (txt.length === 0) return missing("TXT", record.fqdn);
  const policies = txt.filter((r) => /^v\s*=\s*TLSRPTv1\s*(;|$)/i.test(r.trim()));
  if (policies.length === 0) return mismatch(`No TLS-RPT record (v=TLSRPTv1 …) at ${record.fqdn}. Found ${quoteList(txt)}.`, txt);
  if (policies.length > 1) return mismatch(`${record.fqdn} publishes ${policies.length} TLS-RPT records; RFC 8460 ignores them all. Keep one.`, policies);
  const wanted = ruaOf(record.content)?.toLowerCase();
  const found = (ruaOf(policies[0]!) ?? "").toLowerCase().split(",").map((u) => u.trim());
  if (wanted && !found.includes(wanted)) {
    return mismatch(`The TLS-RPT record at ${record.fqdn} does not send reports to Posthorn: add "${wanted}" to its rua (as in "${shorten(record.content)}").`, policies);
  }
  return pass(policies);
}
