/**
 * Outbound MTA-STS (RFC 8461): a recipient domain that publishes `_mta-sts.<domain>` TXT serves
 * a policy at https://mta-sts.<domain>/.well-known/mta-sts.txt saying which MX hosts may receive
 * its mail and whether senders must refuse to deliver without verified TLS (enforce), only report
 * (testing), or neither (none). Policies are cached per domain by the TXT record's id for their
 * max_age, in memory on each node (see README, "Outbound TLS and MTA-STS").
 *
 * A policy that cannot be had (no TXT record, fetch failed, malformed) while no valid policy is
 * cached means "no MTA-STS" (RFC 8461 §3.3, §5): delivery goes on with opportunistic TLS, and the
 * reason is logged. A cached policy stays in force until it expires, whatever happens to the TXT
 * record or the policy server in the meantime.
 */
import { DnsError, type DnsResolver } from "../dns/resolver.ts";
import type { Logger } from "../log.ts";
import { readUpTo } from "../untrusted/bounded-read.ts";

export type StsMode = "enforce" | "testing" | "none";

export interface StsPolicy {
  mode: StsMode;
  /** MX patterns, lower case: "mx.example.com" or "*.example.com". */
  mx: string[];
  /** Seconds the policy may be cached, at most MAX_AGE_LIMIT_S. */
  maxAge: number;
}

/** A policy in force for a domain: the id of the TXT record it was fetched under, and its lifetime. */
export interface KnownPolicy extends StsPolicy {
  domain: string;
  id: string;
  fetchedAt: number;
  expiresAt: number;
}

/** RFC 8461 §3.2: max_age is at most 31557600 s (about a year). */
export const MAX_AGE_LIMIT_S = 31_557_600;
/** Largest policy body read; anything longer is refused (RFC 8461 §3.3 suggests 64 KB). */
export const POLICY_BODY_LIMIT = 64 * 1024;
/** RFC 8461 §3.3 suggests a timeout of a minute for the policy fetch. */
export const POLICY_FETCH_TIMEOUT_MS = 60_000;
/** After a failed fetch, that domain's policy server is not asked again under the same id for this long. */
export const FETCH_BACKOFF_MS = 5 * 60_000;
/** A cached policy still in use is fetched again in the background once it is this old. */
export const REFRESH_AFTER_MS = 24 * 3600_000;
/**
 * How long "this domain has no MTA-STS record" is remembered. Bun's resolver caches answers but
 * not NXDOMAIN, and most domains have no record: without this, every delivery would ask again.
 */
export const ABSENT_RECORD_MS = 60_000;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

const WSP = /^[ \t]+|[ \t]+$/g;
const EXT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;
const TXT_EXT_VALUE = /^[\x21-\x3a\x3c\x3e-\x7e]+$/;
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const MX_PATTERN = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})+$`);

/**
 * The MTA-STS TXT record among a name's TXT records (RFC 8461 §3.1): null when there is none
 * (records not starting with "v=STSv1" are someone else's); refused when there are several or
 * the one is malformed, which means no policy for the domain.
 */
export function parseStsRecord(records: readonly string[]): Parsed<{ id: string }> | null {
  const sts = records.filter((r) => /^v=STSv1(?:[ \t]*;|[ \t]*$)/.test(r));
  if (sts.length === 0) return null;
  if (sts.length > 1) return refuse(`${sts.length} MTA-STS TXT records where one is allowed`);
  const fields = sts[0]!.split(";").map((f) => f.replace(WSP, ""));
  let id: string | null = null;
  for (const [i, field] of fields.entries()) {
    if (i === 0) continue; // v=STSv1
    if (field === "" && i === fields.length - 1) break; // a trailing separator
    const eq = field.indexOf("=");
    const name = field.slice(0, eq);
    const value = field.slice(eq + 1);
    if (eq <= 0) return refuse(`malformed TXT field ${JSON.stringify(field.slice(0, 64))}`);
    if (name === "id") {
      if (!/^[A-Za-z0-9]{1,32}$/.test(value)) return refuse(`TXT id ${JSON.stringify(value.slice(0, 64))} is not 1 to 32 letters and digits`);
      id ??= value; // duplicate fields: the first counts
    } else if (!EXT_NAME.test(name) || !TXT_EXT_VALUE.test(value)) {
      return refuse(`malformed TXT field ${JSON.stringify(field.slice(0, 64))}`);
    }
  }
  return id ? { ok: true, value: { id } } : refuse("TXT record without an id");
}

/**
 * A policy body (RFC 8461 §3.2): "key: value" lines ending in LF or CRLF. version STSv1, mode and
 * max_age are required, and at least one mx unless the mode is none. Names and values are
 * case-sensitive; of a repeated field other than mx the first counts; unknown fields are ignored;
 * blank lines are tolerated. A max_age above the RFC's limit is capped (`capped` says so); one
 * that is not 1 to 10 digits is refused.
 */
export function parsePolicy(body: string): Parsed<StsPolicy & { capped: boolean }> {
  let version: string | null = null;
  let mode: StsMode | null = null;
  let maxAge: number | null = null;
  const mx: string[] = [];
  let capped = false;
  for (const [n, line] of body.split(/\r?\n/).entries()) {
    if (line.replace(WSP, "") === "") continue;
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,31}):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!m) return refuse(`line ${n + 1} is not "key: value": ${JSON.stringify(line.slice(0, 64))}`);
    const [, key, value] = m as unknown as [string, string, string];
    switch (key) {
      case "version":
        if (value !== "STSv1") return refuse(`version ${JSON.stringify(value.slice(0, 64))} is not STSv1`);
        version = value;
        break;
      case "mode":
        if (value !== "enforce" && value !== "testing" && value !== "none") return refuse(`mode ${JSON.stringify(value.slice(0, 64))} is not enforce, testing or none`);
        mode ??= value;
        break;
      case "max_age": {
        if (!/^\d{1,10}$/.test(value)) return refuse(`max_age ${JSON.stringify(value.slice(0, 64))} is not a number of at most 10 digits`);
        const seconds = Number(value);
        if (maxAge === null) {
          capped = seconds > MAX_AGE_LIMIT_S;
          maxAge = Math.min(seconds, MAX_AGE_LIMIT_S);
        }
        break;
      }
      case "mx": {
        const pattern = value.replace(/\.$/, "").toLowerCase();
        if (!MX_PATTERN.test(pattern)) return refuse(`mx ${JSON.stringify(value.slice(0, 64))} is not a host name or *.host name`);
        mx.push(pattern);
        break;
      }
      default:
        break; // extensions are ignored
    }
  }
  if (version === null) return refuse("no version field");
  if (mode === null) return refuse("no mode field");
  if (maxAge === null) return refuse("no max_age field");
  if (mode !== "none" && mx.length === 0) return refuse(`mode ${mode} without any mx field`);
  return { ok: true, value: { mode, mx, maxAge, capped } };
}

/**
 * Whether an MX host name matches a policy's mx pattern (RFC 8461 §4.1): the same name, or for
 * "*.example.com" any name of exactly one more label (a.example.com, not example.com nor
 * b.a.example.com). Case and a final dot do not matter.
 */
export function mxMatches(pattern: string, host: string): boolean {
  const name = host.replace(/\.$/, "").toLowerCase();
  const p = pattern.toLowerCase();
  if (!p.startsWith("*.")) return name === p;
  const dot = name.indexOf(".");
  return dot > 0 && name.slice(dot + 1) === p.slice(2);
}

export interface PolicyFetchOptions {
  /** Resolves mta-sts.<domain> (POSTHORN_DNS_SERVERS). */
  dns: Pick<DnsResolver, "addresses">;
  /** POSTHORN_MTA_STS_PORT: 443 but in tests. */
  port: number;
  timeoutMs?: number;
  /**
   * Certificates to trust instead of the default store. The product leaves this unset and trusts
   * the system store plus NODE_EXTRA_CA_CERTS; tests of the fetch alone pass their CA.
   */
  ca?: string;
}

/**
 * Fetches and parses a domain's policy over HTTPS. The policy host is resolved through our own
 * DNS servers and the connection goes to that address, with SNI and the certificate check on
 * mta-sts.<domain>. Only a 200 with a text/plain body of at most 64 KB is taken; redirects are
 * not followed (RFC 8461 §3.3). Never throws: a failure is a reason.
 */
export async function fetchPolicy(domain: string, opts: PolicyFetchOptions): Promise<Parsed<StsPolicy & { capped: boolean }>> {
  const host = `mta-sts.${domain}`;
  let address: string;
  try {
    const addresses = await opts.dns.addresses(host);
    if (addresses.length === 0) return refuse(`${host} has no address`);
    address = addresses.find((a) => !a.includes(":")) ?? addresses[0]!;
  } catch (err) {
    return refuse(err instanceof DnsError ? err.message : `address lookup of ${host} failed: ${String(err)}`);
  }
  const literal = address.includes(":") ? `[${address}]` : address;
  const port = opts.port === 443 ? "" : `:${opts.port}`;
  const timeoutMs = opts.timeoutMs ?? POLICY_FETCH_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let body: string;
  try {
    const res = await fetch(`https://${literal}${port}/.well-known/mta-sts.txt`, {
      headers: { host: `${host}${port}`, accept: "text/plain" },
      redirect: "manual",
      keepalive: false,
      signal,
      tls: { serverName: host, ...(opts.ca ? { ca: opts.ca } : {}) },
    });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get("location");
      return refuse(`HTTP ${res.status} redirect${location ? ` to ${location.slice(0, 200)}` : ""}; redirects are not followed`);
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      return refuse(`HTTP ${res.status} from ${host}`);
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "text/plain") {
      await res.body?.cancel().catch(() => {});
      return refuse(`served as ${JSON.stringify(type.slice(0, 100) || "no content type")}, not text/plain`);
    }
    const length = Number(res.headers.get("content-length") ?? NaN);
    if (length > POLICY_BODY_LIMIT) {
      await res.body?.cancel().catch(() => {});
      return refuse(`policy of ${length} bytes, more than ${POLICY_BODY_LIMIT}`);
    }
    const read = res.body ? await readUpTo(res.body, POLICY_BODY_LIMIT) : { bytes: new Uint8Array(), complete: true };
    if (!read.complete) return refuse(`policy larger than ${POLICY_BODY_LIMIT} bytes`);
    body = new TextDecoder().decode(read.bytes);
  } catch (err) {
    if (signal.aborted) return refuse(`no complete answer from ${host} within ${timeoutMs} ms`);
    const e = err as { code?: string; message?: string };
    return refuse(`request to ${host} (${address}) failed: ${e.message ?? String(err)}${e.code && !String(e.message).includes(e.code) ? ` (${e.code})` : ""}`);
  }
  const parsed = parsePolicy(body);
  return parsed.ok ? parsed : refuse(`malformed policy: ${parsed.reason}`);
}

export interface MtaStsOptions extends PolicyFetchOptions {
  dns: Pick<DnsResolver, "addresses" | "txt">;
  log: Logger;
  now?: () => number;
  /** Domains whose policy is kept; the oldest entry goes first beyond it. */
  maxEntries?: number;
}

type RecordLookup = { kind: "id"; id: string } | { kind: "none" } | { kind: "unusable"; reason: string };

/**
 * The policies of recipient domains, cached in memory. policyFor() gives the policy to apply to
 * one delivery; it looks up the TXT record each time (answers are cached by the resolver), and
 * fetches the policy only when the record's id differs from the cached policy's or nothing is
 * cached. A failed fetch is not repeated for that id for FETCH_BACKOFF_MS.
 */
export class MtaStsPolicies {
  private readonly cache = new Map<string, KnownPolicy>();
  private readonly failed = new Map<string, { id: string; at: number }>();
  private readonly fetching = new Map<string, Promise<KnownPolicy | null>>();
  private readonly absentUntil = new Map<string, number>();
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(private readonly opts: MtaStsOptions) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 100_000;
  }

  /**
   * The policy that applies to mail for `domain` now: enforce or testing; null when the domain has
   * no usable policy or its policy says none. Never throws.
   */
  async policyFor(domain: string): Promise<KnownPolicy | null> {
    const d = domain.toLowerCase();
    const cached = this.cached(d);
    const record = await this.lookupRecord(d);
    if (record.kind === "unusable") {
      this.opts.log.warn("MTA-STS record unusable", { domain: d, reason: record.reason, cached_policy: cached?.id ?? null });
    }
    if (record.kind !== "id") return applicable(cached);
    if (cached && cached.id === record.id) {
      if (this.now() - cached.fetchedAt >= REFRESH_AFTER_MS) void this.refresh(d, record.id);
      return applicable(cached);
    }
    return applicable((await this.refresh(d, record.id)) ?? cached);
  }

  /** A policy of the cache still within its max_age. */
  private cached(domain: string): KnownPolicy | null {
    const p = this.cache.get(domain);
    if (!p) return null;
    if (p.expiresAt > this.now()) return p;
    this.cache.delete(domain);
    return null;
  }

  private async lookupRecord(domain: string): Promise<RecordLookup> {
    if ((this.absentUntil.get(domain) ?? 0) > this.now()) return { kind: "none" };
    const absent = (): RecordLookup => {
      this.remember(this.absentUntil, domain, this.now() + ABSENT_RECORD_MS);
      return { kind: "none" };
    };
    let records: string[];
    try {
      records = await this.opts.dns.txt(`_mta-sts.${domain}`);
    } catch (err) {
      if (err instanceof DnsError && err.absent) return absent();
      return { kind: "unusable", reason: err instanceof Error ? err.message : String(err) };
    }
    const parsed = parseStsRecord(records);
    if (parsed === null) return absent();
    return parsed.ok ? { kind: "id", id: parsed.value.id } : { kind: "unusable", reason: parsed.reason };
  }

  /** Fetches the policy published under `id` and caches it; null when it cannot be had. One fetch per domain at a time. */
  private refresh(domain: string, id: string): Promise<KnownPolicy | null> {
    const running = this.fetching.get(domain);
    if (running) return running;
    const failed = this.failed.get(domain);
    if (failed && failed.id === id && this.now() - failed.at < FETCH_BACKOFF_MS) return Promise.resolve(null);
    const p = this.fetch(domain, id).finally(() => this.fetching.delete(domain));
    this.fetching.set(domain, p);
    return p;
  }

  private async fetch(domain: string, id: string): Promise<KnownPolicy | null> {
    const result = await fetchPolicy(domain, this.opts);
    const at = this.now();
    if (!result.ok) {
      this.remember(this.failed, domain, { id, at });
      const cached = this.cached(domain);
      this.opts.log.warn("MTA-STS policy refused", {
        domain,
        id,
        reason: result.reason,
        applies: cached ? `the cached policy ${cached.id} (${cached.mode}) until ${new Date(cached.expiresAt).toISOString()}` : "none: delivery as without MTA-STS",
      });
      return null;
    }
    const { capped, ...policy } = result.value;
    if (capped) this.opts.log.warn("MTA-STS max_age above the RFC 8461 limit; capped", { domain, id, max_age: MAX_AGE_LIMIT_S });
    const known: KnownPolicy = { ...policy, domain, id, fetchedAt: at, expiresAt: at + policy.maxAge * 1000 };
    this.failed.delete(domain);
    this.remember(this.cache, domain, known);
    this.opts.log.info("MTA-STS policy fetched", { domain, id, mode: known.mode, mx: known.mx, max_age: known.maxAge });
    return known;
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key); // re-inserted last: the Map's order is the age order
    map.set(key, value);
    if (map.size > this.maxEntries) map.delete(map.keys().next().value!);
  }
}

const applicable = (p: KnownPolicy | null | undefined): KnownPolicy | null => (p && p.mode !== "none" ? p : null);
