/**
 * Who an envelope recipient on the MX is: an inbound route (its generated address, with an
 * optional +subaddress, or any address at its verified inbound domain), an outbound recipient
 * (a VERP bounce address), or nobody — then the RCPT is refused, so the MX is never a relay.
 */
import { domainToASCII } from "node:url";
import type { Repositories } from "../db/store.ts";
import { nameAndParents } from "../dns/records.ts";
import { parseVerpLocalPart } from "../mail/verp.ts";
import { parseReportLocalPart, type ReportKind } from "../reports/report-addresses.ts";

export type InboundTarget =
  | {
      kind: "route";
      routeId: string;
      teamId: string;
      projectId: string;
      /** The address as the client gave it, domain lower-cased. */
      address: string;
      subaddress: string | null;
    }
  | { kind: "bounce"; recipientId: string; address: string }
  /** A sending domain's DMARC or TLS report address (src/reports/report-addresses.ts): no route needed. */
  | { kind: "report"; report: ReportKind; domainId: string; teamId: string; address: string };

export type RecipientVerdict =
  | { ok: true; target: InboundTarget }
  /** `local`: the domain is ours (so the mailbox just does not exist); otherwise relaying. */
  | { ok: false; local: boolean };

/** Splits "Local+Sub@Domain" into its parts; null when it is not an address. */
export function splitAddress(address: string): { local: string; domain: string; base: string; subaddress: string | null } | null {
  const at = address.lastIndexOf("@");
  if (at <= 0 || at === address.length - 1 || address.length > 320) return null;
  const local = address.slice(0, at);
  const rawDomain = address.slice(at + 1).toLowerCase().replace(/\.$/, "");
  const domain = /^[\x21-\x7e]+$/.test(rawDomain) ? rawDomain : domainToASCII(rawDomain);
  if (!domain) return null;
  const plus = local.indexOf("+");
  const base = (plus > 0 ? local.slice(0, plus) : local).toLowerCase();
  const subaddress = plus > 0 ? local.slice(plus + 1) || null : null;
  return { local, domain, base, subaddress };
}

/** RCPT decisions, looked up through the store's reads (src/db/inbound-addresses.ts); built once per listener. */
export class RecipientResolver {
  constructor(
    private readonly read: Pick<Repositories, "inboundAddresses" | "deliverabilityReports">,
    private readonly secret: string,
    private readonly inboundDomain: string,
  ) {}

  async resolve(address: string): Promise<RecipientVerdict> {
    const parts = splitAddress(address);
    if (!parts) return { ok: false, local: false };
    const normalized = `${parts.local}@${parts.domain}`;
    const lookups = this.read.inboundAddresses;

    if (parts.base.startsWith("b.")) {
      const recipientId = parseVerpLocalPart(this.secret, parts.local);
      // The bounce domain must belong to the team that sent the message.
      if (recipientId && (await lookups.isBounceRecipient(recipientId, parts.domain))) {
        return { ok: true, target: { kind: "bounce", recipientId, address: normalized } };
      }
    }
    if (parts.domain === this.inboundDomain && (parts.base === "dmarc" || parts.base === "tlsrpt")) {
      const report = parseReportLocalPart(this.secret, parts.local);
      const domain = report && (await this.read.deliverabilityReports.domainOfReport(report.domainId));
      if (report && domain) return { ok: true, target: { kind: "report", report: report.kind, domainId: domain.id, teamId: domain.team_id, address: normalized } };
    }
    const route =
      (await lookups.routeByAddress(`${parts.base}@${parts.domain}`)) ?? (await lookups.routeByVerifiedDomain(parts.domain, nameAndParents(parts.domain)));
    if (route) {
      return {
        ok: true,
        target: { kind: "route", routeId: route.id, teamId: route.team_id, projectId: route.project_id, address: normalized, subaddress: parts.subaddress },
      };
    }
    const local =
      parts.domain === this.inboundDomain || (await lookups.isBounceDomain(parts.domain)) || (await lookups.isVerifiedInboundDomain(parts.domain));
    return { ok: false, local };
  }
}
