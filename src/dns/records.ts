import { isIP } from "node:net";
import { randomBytes } from "node:crypto";
import { domainToASCII } from "node:url";
import { getPublicSuffix } from "tldts";
import { signValue } from "../secrets.ts";
import { dkimRecordContent, ed25519DkimRecordContent } from "./dkim-key.ts";

/** What a record is for; also the order records are listed in. */
export const RECORD_PURPOSES = ["dkim", "dkim_ed25519", "spf", "return_path", "dmarc", "tls_rpt"] as const;
export type RecordPurpose = (typeof RECORD_PURPOSES)[number];

export type RecordType = "TXT" | "MX";

/** A DNS record the user must publish: `hostname` is relative to the domain, `fqdn` absolute. */
export interface RecordSpec {
  purpose: RecordPurpose;
  type: RecordType;
  hostname: string;
  fqdn: string;
  content: string;
}

/** Host under the sending domain used as envelope sender (VERP bounce domain). */
export const RETURN_PATH_HOST = "ph-bounces";

/** What we recommend at _dmarc: monitoring only, relaxed alignment (DKIM aligns with the From domain). */
export const DMARC_RECOMMENDATION = "v=DMARC1; p=none; adkim=r; aspf=r";

/** The DMARC record we recommend, with aggregate reports sent to `rua` (Posthorn's report address) when given. */
export const dmarcRecordContent = (rua?: string): string => (rua ? `${DMARC_RECOMMENDATION}; rua=mailto:${rua}` : DMARC_RECOMMENDATION);

/** Host of a domain's TLS reporting policy (RFC 8460 §3). */
export const TLS_RPT_HOST = "_smtp._tls";

/** The TLS-RPT record: failures of TLS to the domain's MX hosts reported to `rua` (RFC 8460). */
export const tlsRptRecordContent = (rua: string): string => `v=TLSRPTv1; rua=mailto:${rua}`;

/** The SPF policy of the return-path host: the server named POSTHORN_HOSTNAME sends for it. */
export const spfRecordContent = (hostname: string): string => `v=spf1 a:${hostname} ~all`;

/** Longest textual DNS name (RFC 1035: 255 octets on the wire = 253 characters without the root dot). */
const MAX_DNS_NAME = 253;
/** Room the longest generated record name needs before the domain: "<selector>._domainkey.". */
const LONGEST_PREFIX = "ph20000101abcd._domainkey.".length;
export const MAX_DOMAIN_LENGTH = MAX_DNS_NAME - LONGEST_PREFIX;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export type NormalizedName = { ok: true; domain: string } | { ok: false; message: string };

/**
 * Turns what a user typed into the name we store and look up: trimmed, lower case, IDN as
 * punycode, no trailing dot. Refuses what cannot be a sending domain: IP addresses, single
 * labels, bad characters, labels over 63 characters, names too long for their DKIM record,
 * public suffixes (co.uk, github.io: see isPublicSuffix).
 */
export function normalizeDomainName(input: string): NormalizedName {
  let name = input.trim().toLowerCase();
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "") return { ok: false, message: "The domain field is required." };
  const bare = name.replace(/^\[|\]$/g, "");
  if (isIP(bare) !== 0) return { ok: false, message: "The domain must be a domain name, not an IP address." };
  // Checked before domainToASCII, which reads a numeric last label as an IPv4 address and fails.
  if (/(^|\.)[0-9]+$/.test(name)) return { ok: false, message: "The domain's top-level label must not be numeric." };
  const ascii = domainToASCII(name);
  if (ascii === "") return { ok: false, message: "The domain contains characters that are not allowed in a domain name." };
  const labels = ascii.split(".");
  if (labels.length < 2) return { ok: false, message: "The domain must be a full domain name such as example.com." };
  for (const label of labels) {
    if (label === "") return { ok: false, message: "The domain must not contain empty labels (two dots in a row)." };
    if (label.length > 63) return { ok: false, message: `The domain label "${label.slice(0, 20)}…" is longer than 63 characters.` };
    if (!LABEL.test(label)) {
      return { ok: false, message: `The domain label "${label}" may contain only letters, digits and hyphens, and must not start or end with a hyphen.` };
    }
  }
  if (ascii.length > MAX_DOMAIN_LENGTH) {
    return { ok: false, message: `The domain is longer than ${MAX_DOMAIN_LENGTH} characters, too long for its DKIM record name to fit in DNS.` };
  }
  if (isPublicSuffix(ascii)) return { ok: false, message: publicSuffixMessage("domain", ascii) };
  return { ok: true, domain: ascii };
}

/**
 * Whether a name (canonical: lower case, punycode, no trailing dot) is itself a public suffix:
 * a rule of the Public Suffix List, ICANN section (com, co.uk, *.ck) or private section
 * (github.io, blogspot.com), through the tldts package. The names under a public suffix belong
 * to different owners, so no team may claim one. A name merely under one (example.co.uk) is
 * fine; a single label is its own suffix too (callers refuse those with their own message).
 */
export function isPublicSuffix(name: string): boolean {
  return getPublicSuffix(name, { allowPrivateDomains: true }) === name;
}

/** The 422 message for a public suffix given as `what` ("domain", "inbound domain"). */
export const publicSuffixMessage = (what: string, name: string): string =>
  `The ${what} ${name} is a public suffix (on the Public Suffix List): the names under it belong to different owners, so it cannot be claimed. Use a domain of your own under it, such as example.${name}.`;

/** A fresh DKIM selector: "ph" + the date + 4 hex, so a later key rotation gets a distinct name. */
export function newDkimSelector(now = new Date()): string {
  const date = now.toISOString().slice(0, 10).replace(/-/g, "");
  return `ph${date}${randomBytes(2).toString("hex")}`;
}

/**
 * A fresh Ed25519 DKIM selector: "phe" + the date + 3 hex, as long as an RSA selector (so the
 * longest record name, and MAX_DOMAIN_LENGTH, stay as they were) and told apart from one by the "e".
 */
export function newEd25519DkimSelector(now = new Date()): string {
  return `phe${newDkimSelector(now).slice(2, 10)}${randomBytes(2).toString("hex").slice(0, 3)}`;
}

/** The RSA DKIM record of a domain: TXT at <selector>._domainkey.<domain>. */
export function rsaDkimRecordSpec(d: { domain: string; selector: string; publicKeyBase64: string }): RecordSpec {
  const host = `${d.selector}._domainkey`;
  return { purpose: "dkim", type: "TXT", hostname: host, fqdn: `${host}.${d.domain}`, content: dkimRecordContent(d.publicKeyBase64) };
}

/** The Ed25519 DKIM record of a domain: TXT at <selector>._domainkey.<domain>. */
export function ed25519DkimRecordSpec(d: { domain: string; selector: string; publicKeyBase64: string }): RecordSpec {
  const host = `${d.selector}._domainkey`;
  return { purpose: "dkim_ed25519", type: "TXT", hostname: host, fqdn: `${host}.${d.domain}`, content: ed25519DkimRecordContent(d.publicKeyBase64) };
}

/**
 * The records a sending domain publishes for Posthorn (README "DNS records"): five, or four
 * without `ed25519` (a domain from before Ed25519 DKIM, until the upgrade step gives it a key).
 */
export function buildRecordSpecs(d: {
  domain: string;
  selector: string;
  publicKeyBase64: string;
  ed25519?: { selector: string; publicKeyBase64: string };
  returnPathHost: string;
  hostname: string;
  /** Posthorn's report addresses of the domain: rua of the DMARC record and the TLS-RPT record. */
  reports?: { dmarc: string; tlsRpt: string };
}): RecordSpec[] {
  const at = (host: string): RecordSpec["fqdn"] => `${host}.${d.domain}`;
  return [
    rsaDkimRecordSpec(d),
    ...(d.ed25519 ? [ed25519DkimRecordSpec({ domain: d.domain, ...d.ed25519 })] : []),
    { purpose: "spf", type: "TXT", hostname: d.returnPathHost, fqdn: at(d.returnPathHost), content: spfRecordContent(d.hostname) },
    { purpose: "return_path", type: "MX", hostname: d.returnPathHost, fqdn: at(d.returnPathHost), content: d.hostname },
    { purpose: "dmarc", type: "TXT", hostname: "_dmarc", fqdn: at("_dmarc"), content: dmarcRecordContent(d.reports?.dmarc) },
    ...(d.reports ? [tlsRptRecordSpec(d.domain, d.reports.tlsRpt)] : []),
  ];
}

/** The TLS-RPT record of a domain: TXT at _smtp._tls.<domain>. */
export const tlsRptRecordSpec = (domain: string, rua: string): RecordSpec => ({
  purpose: "tls_rpt",
  type: "TXT",
  hostname: TLS_RPT_HOST,
  fqdn: `${TLS_RPT_HOST}.${domain}`,
  content: tlsRptRecordContent(rua),
});

/** Lower case, no trailing dot: how DNS names are compared. */
export const canonicalName = (name: string): string => name.trim().toLowerCase().replace(/\.$/, "");

/**
 * A name and every parent of it with at least two labels, longest first, compared with the
 * names of registered domains to find the ones it is equal to or under (label boundaries only:
 * "x.example.com" → ["x.example.com", "example.com"]; "badexample.com" is not under "example.com").
 * The name must already be canonical (lower case, punycode, no trailing dot).
 */
export function nameAndParents(name: string): string[] {
  const labels = name.split(".");
  const out: string[] = [];
  for (let i = 0; labels.length - i >= 2; i++) out.push(labels.slice(i).join("."));
  return out;
}

/** Label before a custom inbound domain where the route's verification token is published. */
export const INBOUND_VERIFICATION_HOST = "_posthorn-verification";
const INBOUND_VERIFICATION_TAG = "posthorn-verification";

/**
 * The route's proof-of-control token for one inbound domain: keyed with the server secret, so it
 * needs no storage, and bound to both the route and the name (another route, or the same route
 * with another domain, has another token).
 */
export const inboundVerificationToken = (secret: string, routeId: string, domain: string): string =>
  signValue(secret, "inbound-domain", `${routeId}:${canonicalName(domain)}`, 32);

/** A record an inbound domain publishes: `fqdn` is absolute (the zone is the user's to know). */
export interface InboundDomainRecord {
  purpose: "inbound_mx" | "inbound_verification";
  type: "MX" | "TXT";
  fqdn: string;
  content: string;
}

/** The two records a custom inbound domain publishes (README "Inbound domains"). */
export function inboundDomainRecords(d: { domain: string; hostname: string; token: string }): InboundDomainRecord[] {
  const domain = canonicalName(d.domain);
  return [
    { purpose: "inbound_mx", type: "MX", fqdn: domain, content: canonicalName(d.hostname) },
    { purpose: "inbound_verification", type: "TXT", fqdn: `${INBOUND_VERIFICATION_HOST}.${domain}`, content: `${INBOUND_VERIFICATION_TAG}=${d.token}` },
  ];
}
