/**
 * Who an envelope recipient on the MX is: an inbound route (its generated address, with an
 * optional +subaddress, or any address at its verified inbound domain), an outbound recipient
 * (a VERP bounce address), or nobody — then the RCPT is refused, so the MX is never a relay.
 */
import type { Database } from "bun:sqlite";
import { domainToASCII } from "node:url";
import { nameAndParents } from "../dns/records.ts";
import { parseVerpLocalPart } from "../mail/verp.ts";

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
  | { kind: "bounce"; recipientId: string; address: string };

export type RecipientVerdict =
  | { ok: true; target: InboundTarget }
  /** `local`: the domain is ours (so the mailbox just does not exist); otherwise relaying. */
  | { ok: false; local: boolean };

type RouteHit = { id: string; team_id: string; project_id: string };

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

/** Prepared lookups for RCPT decisions; built once per listener. */
export class RecipientResolver {
  private readonly byAddress;
  private readonly byDomain;
  private readonly bounce;
  private readonly bounceDomain;
  private readonly inboundDomainUsed;

  constructor(
    sqlite: Database,
    private readonly secret: string,
    private readonly inboundDomain: string,
  ) {
    this.byAddress = sqlite.prepare<RouteHit, [string]>(
      "SELECT id, team_id, project_id FROM routes WHERE inbound_address = ? AND route_type = 'inbound'",
    );
    // Two teams could both point MX records of one domain at us; the first verified owns it.
    // Whatever was verified, a route never gets a name at or under a sending domain another team
    // registered (?2: the name and its parents), nor the return-path name of any domain: that
    // mail is the other team's, or bounces.
    this.byDomain = sqlite.prepare<RouteHit, [string, string]>(
      `SELECT r.id, r.team_id, r.project_id FROM routes r
       WHERE lower(r.inbound_domain) = ?1 AND r.inbound_domain_verified_at IS NOT NULL AND r.route_type = 'inbound'
         AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.domain IN (SELECT value FROM json_each(?2))
           AND (d.team_id <> r.team_id OR d.return_path_host || '.' || d.domain = ?1))
       ORDER BY r.inbound_domain_verified_at, r.id LIMIT 1`,
    );
    // The bounce domain must belong to the team that sent the message.
    this.bounce = sqlite.prepare<{ id: string }, [string, string]>(
      `SELECT r.id FROM recipients r JOIN messages m ON m.id = r.message_id
       WHERE r.id = ? AND m.type = 'outbound'
         AND EXISTS (SELECT 1 FROM domains d WHERE d.team_id = m.team_id AND d.return_path_host || '.' || d.domain = ?)`,
    );
    this.bounceDomain = sqlite.prepare<{ one: number }, [string]>(
      "SELECT 1 AS one FROM domains WHERE return_path_host || '.' || domain = ? LIMIT 1",
    );
    this.inboundDomainUsed = sqlite.prepare<{ one: number }, [string]>(
      "SELECT 1 AS one FROM routes WHERE lower(inbound_domain) = ? AND inbound_domain_verified_at IS NOT NULL LIMIT 1",
    );
  }

  resolve(address: string): RecipientVerdict {
    const parts = splitAddress(address);
    if (!parts) return { ok: false, local: false };
    const normalized = `${parts.local}@${parts.domain}`;

    if (parts.base.startsWith("b.")) {
      const recipientId = parseVerpLocalPart(this.secret, parts.local);
      if (recipientId && this.bounce.get(recipientId, parts.domain)) {
        return { ok: true, target: { kind: "bounce", recipientId, address: normalized } };
      }
    }
    const route = this.byAddress.get(`${parts.base}@${parts.domain}`) ?? this.byDomain.get(parts.domain, JSON.stringify(nameAndParents(parts.domain)));
    if (route) {
      return {
        ok: true,
        target: { kind: "route", routeId: route.id, teamId: route.team_id, projectId: route.project_id, address: normalized, subaddress: parts.subaddress },
      };
    }
    const local =
      parts.domain === this.inboundDomain || this.bounceDomain.get(parts.domain) !== null || this.inboundDomainUsed.get(parts.domain) !== null;
    return { ok: false, local };
  }
}
