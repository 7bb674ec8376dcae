/**
 * What a suppression of each type matches (docs/sending.md, "Suppressions"):
 * - email: that one address (compared lower-cased);
 * - domain: every address whose domain is exactly that domain — not its subdomains, which are
 *   other mail domains (a university's faculties, a provider's tenants);
 * - extension: every address whose domain ends in "." + the extension: a top-level domain ("ru"),
 *   a public suffix ("co.uk"), or a domain to cover all of its subdomains ("example.com" matches
 *   mail.example.com and a.b.example.com, not example.com itself).
 */
import type { SuppressionHit, SuppressionType } from "../db/suppressions.ts";

export const SUPPRESSION_TYPES = ["email", "domain", "extension"] as const satisfies readonly SuppressionType[];

/** Where a match comes from, most general first: a global entry wins over a team's, a team's over a project's. */
const SCOPE_RANK: Record<string, number> = { global: 0, team: 1, project: 2, route: 3 };
const TYPE_RANK: Record<string, number> = { email: 0, domain: 1, extension: 2 };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * A value for a suppression of `type`, lower-cased and checked: `{ value }`, or `{ error }` in
 * words for the client. A domain has at least two labels; an extension one or more (a leading
 * dot is dropped); labels are letters, digits and inner hyphens (IDNs in their xn-- form); the
 * last label is not all digits (no IP addresses).
 */
export function normaliseSuppressionValue(type: SuppressionType, raw: string): { value: string } | { error: string } {
  const v = raw.trim().toLowerCase();
  if (type === "email") {
    return EMAIL.test(v) && v.length <= 255 ? { value: v } : { error: "must be a valid email address of at most 255 characters" };
  }
  if (v.includes("@")) return { error: `must be a ${type === "domain" ? "domain such as example.com" : "domain extension such as ru or co.uk"}, not an email address (use type email for addresses)` };
  const name = type === "extension" && v.startsWith(".") ? v.slice(1) : v;
  const labels = name.split(".");
  const wellFormed = name.length <= 253 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1]!);
  if (type === "domain") {
    return wellFormed && labels.length >= 2 ? { value: name } : { error: "must be a domain name such as example.com (ASCII; internationalised names in their xn-- form)" };
  }
  return wellFormed ? { value: name } : { error: "must be a domain extension such as ru or co.uk (ASCII labels separated by dots)" };
}

/** The domain of an address (after its last @), lower-cased; "" when there is none. */
const domainOf = (address: string): string => {
  const at = address.lastIndexOf("@");
  return at < 0 ? "" : address.slice(at + 1);
};

/** The values a suppression must have to match `address` (lower-cased): the address, its domain and every proper suffix of the domain. */
export function candidateValues(address: string): string[] {
  const domain = domainOf(address);
  const values = [address];
  if (!domain) return values;
  values.push(domain);
  for (let i = domain.indexOf("."); i >= 0; i = domain.indexOf(".", i + 1)) values.push(domain.slice(i + 1));
  return values;
}

/** Whether the suppression `hit` matches the address (lower-cased). */
export function hitMatches(hit: Pick<SuppressionHit, "type" | "value">, address: string): boolean {
  if (hit.type === "email") return hit.value === address;
  const domain = domainOf(address);
  if (hit.type === "domain") return hit.value === domain;
  return domain.endsWith(`.${hit.value}`);
}

/** The most general of the suppressions that match `address`: global before team before project before route, an address before a domain before an extension. */
export function strongestHit(hits: readonly SuppressionHit[], address: string): SuppressionHit | null {
  let best: SuppressionHit | null = null;
  for (const h of hits) {
    if (!hitMatches(h, address)) continue;
    if (!best || SCOPE_RANK[h.scope]! < SCOPE_RANK[best.scope]! || (SCOPE_RANK[h.scope] === SCOPE_RANK[best.scope] && TYPE_RANK[h.type]! < TYPE_RANK[best.type]!)) best = h;
  }
  return best;
}
