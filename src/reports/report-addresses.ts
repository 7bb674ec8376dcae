/**
 * The addresses DMARC aggregate (RFC 7489 rua) and TLS (RFC 8460) reports about a sending domain
 * are sent to, on POSTHORN_INBOUND_DOMAIN, which Posthorn receives itself:
 *   dmarc+<domain id, 32 hex>.<signature, 16 hex>@<inbound domain>
 *   tlsrpt+<domain id, 32 hex>.<signature, 16 hex>@<inbound domain>
 * The address alone says which domain (and so which team) a report is for: nothing in the
 * report's content is trusted for that. The signature (HMAC with the server secret) stops anyone
 * from guessing addresses of other domains; the addresses are public (they are in DNS) anyway.
 */
import { signValue, verifySignedValue } from "../secrets.ts";

export type ReportKind = "dmarc" | "tlsrpt";

const SIGNATURE_HEX = 16;
const PURPOSE = "report-address";
const LOCAL = /^(dmarc|tlsrpt)\+([0-9a-f]{32})\.([0-9a-f]{16})$/;

const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

/** The local part of a domain's report address of `kind`. */
export function reportLocalPart(secret: string, kind: ReportKind, domainId: string): string {
  const hex = domainId.replace(/-/g, "").toLowerCase();
  return `${kind}+${hex}.${signValue(secret, `${PURPOSE}:${kind}`, hex, SIGNATURE_HEX)}`;
}

/** Which report kind and domain a local part stands for, or null when it is not one of ours. */
export function parseReportLocalPart(secret: string, local: string): { kind: ReportKind; domainId: string } | null {
  const m = LOCAL.exec(local.toLowerCase());
  if (!m) return null;
  const kind = m[1] as ReportKind;
  if (!verifySignedValue(secret, `${PURPOSE}:${kind}`, m[2]!, m[3]!)) return null;
  return { kind, domainId: uuidOf(m[2]!) };
}

export interface ReportAddresses {
  /** Where the domain's DMARC aggregate reports go (the rua of its DMARC record). */
  dmarc: string;
  /** Where its TLS reports go (the rua of its _smtp._tls record). */
  tlsRpt: string;
  /** The domain the addresses are on: POSTHORN_INBOUND_DOMAIN. */
  reportDomain: string;
}

export function reportAddresses(secret: string, inboundDomain: string, domainId: string): ReportAddresses {
  return {
    dmarc: `${reportLocalPart(secret, "dmarc", domainId)}@${inboundDomain}`,
    tlsRpt: `${reportLocalPart(secret, "tlsrpt", domainId)}@${inboundDomain}`,
    reportDomain: inboundDomain,
  };
}

/**
 * The record RFC 7489 §7.1 asks of a report domain that is not the domain reported on: receivers
 * send reports for <domain> to an address at <report domain> only when
 * <domain>._report._dmarc.<report domain> publishes "v=DMARC1". Posthorn runs no DNS server, so
 * the operator publishes it on the report domain: one wildcard record covers every domain.
 */
export function reportAuthorizationRecord(domain: string, reportDomain: string): { type: "TXT"; fqdn: string; wildcard: string; content: string } | null {
  if (domain === reportDomain) return null;
  return { type: "TXT", fqdn: `${domain}._report._dmarc.${reportDomain}`, wildcard: `*._report._dmarc.${reportDomain}`, content: "v=DMARC1" };
}
