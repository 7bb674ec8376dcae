/**
 * POSTHORN_DESTINATION_POLICIES: the most a destination (an MX host set, or the relay) gets,
 * by recipient domain or by a name its MX hosts are in. The file's parser, which config.ts runs at
 * startup, and the lookup the shaper (mail/shaping.ts) and GET /v1/destinations apply. No imports:
 * config.ts imports no feature.
 */

/** A policy of POSTHORN_DESTINATION_POLICIES: the most a destination gets (null = no limit). */
export interface DestinationPolicy {
  concurrency: number | null;
  per_minute: number | null;
}

export type DestinationPolicies = Record<string, DestinationPolicy>;

/**
 * The policy of a destination: that of one of its recipient domains, else that of a name one of
 * its MX hosts is in ("google.com" covers aspmx.l.google.com and every domain it serves).
 */
export function policyFor(policies: DestinationPolicies, domains: Iterable<string>, mxHosts: readonly string[]): DestinationPolicy | null {
  for (const d of domains) if (policies[d]) return policies[d];
  for (const [name, policy] of Object.entries(policies)) {
    if (mxHosts.some((h) => h === name || h.endsWith(`.${name}`))) return policy;
  }
  return null;
}

const POLICY_KEYS = new Set(["concurrency", "per_minute"]);

/**
 * Reads POSTHORN_DESTINATION_POLICIES' file: `{"gmail.com": {"concurrency": 5, "per_minute": 600}}`,
 * keys recipient domains (or a name MX hosts are in), each limit a positive integer or absent.
 * Throws an Error saying what is wrong and where.
 */
export function parseDestinationPolicies(text: string): DestinationPolicies {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new Error('expected an object such as {"gmail.com": {"concurrency": 5, "per_minute": 600}}');
  const policies: DestinationPolicies = {};
  for (const [key, value] of Object.entries(data)) {
    const domain = key.trim().toLowerCase().replace(/\.$/, "");
    if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(domain)) throw new Error(`"${key}" is not a domain name`);
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`"${key}": expected an object with concurrency and/or per_minute`);
    for (const k of Object.keys(value)) if (!POLICY_KEYS.has(k)) throw new Error(`"${key}": unknown setting "${k}" (concurrency, per_minute)`);
    const limit = (k: "concurrency" | "per_minute", max: number): number | null => {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined || v === null) return null;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max) throw new Error(`"${key}": ${k} must be an integer from 1 to ${max} (got ${JSON.stringify(v)})`);
      return v;
    };
    policies[domain] = { concurrency: limit("concurrency", 10_000), per_minute: limit("per_minute", 10_000_000) };
  }
  return policies;
}
