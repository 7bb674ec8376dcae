import type { SqlExecutor } from "./sql.ts";

/** The inbound route an address on the MX belongs to. */
export type InboundRouteHit = { id: string; team_id: string; project_id: string };

// The first verified route of a name gets its mail. What a route never gets, whatever was
// verified (state an older version left, a race): its own team's return-path name (that mail is
// bounces), and a name at or under a sending domain another team verified (made active, its DKIM
// record proving control of the name) no later than the route was, unless the route's team has
// an active domain there as well. A domain another team merely registered blocks nothing, and a
// claim verified after the route's does not take the name from it (docs/security.md "Claims on
// shared names need proof"); the same rules decide at verification (src/modules/domains/service.ts).
// `names` are the name and its parents, as a JSON array, passed twice.
// dialect: SQLite reads the JSON array with json_each, PostgreSQL with json_array_elements_text
// (its parameter cast to text first: typed json, the driver would send the array as a JSON string).
const routeByVerifiedDomainSql = (names: string) => `SELECT r.id, r.team_id, r.project_id FROM routes r
     WHERE lower(r.inbound_domain) = ? AND r.inbound_domain_verified_at IS NOT NULL AND r.route_type = 'inbound'
       AND NOT EXISTS (SELECT 1 FROM domains d WHERE d.domain IN (${names})
         AND ((d.team_id = r.team_id AND d.return_path_host || '.' || d.domain = ?)
           OR (d.team_id <> r.team_id AND d.status = 'active' AND coalesce(d.status_changed_at, 0) <= r.inbound_domain_verified_at
             AND NOT EXISTS (SELECT 1 FROM domains e WHERE e.domain IN (${names}) AND e.team_id = r.team_id AND e.status = 'active'))))
     ORDER BY r.inbound_domain_verified_at, r.id LIMIT 1`;
const ROUTE_BY_VERIFIED_DOMAIN = {
  sqlite: routeByVerifiedDomainSql("SELECT value FROM json_each(?)"),
  postgres: routeByVerifiedDomainSql("SELECT json_array_elements_text(CAST(? AS text)::json)"),
};

/**
 * Who an envelope recipient on the MX is (see src/smtp/rcpt-resolver.ts): an inbound route's
 * address or verified domain, an outbound recipient's bounce address, or a name of ours at all.
 * Domain names passed here are lower-case.
 */
export class InboundAddressRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The inbound route with this generated address (local part without subaddress, lower-case). */
  routeByAddress(address: string): Promise<InboundRouteHit | null> {
    return this.db.get<InboundRouteHit>("SELECT id, team_id, project_id FROM routes WHERE inbound_address = ? AND route_type = 'inbound'", [address]);
  }

  /** The inbound route that receives everything at `domain`, its verified inbound domain; `names` are the domain and its parents. */
  routeByVerifiedDomain(domain: string, names: readonly string[]): Promise<InboundRouteHit | null> {
    const list = JSON.stringify(names);
    return this.db.get<InboundRouteHit>(ROUTE_BY_VERIFIED_DOMAIN[this.db.dialect], [domain, list, domain, list]);
  }

  /** Whether the recipient is one of an outbound message whose team has `bounceDomain` as a return-path name. */
  async isBounceRecipient(recipientId: string, bounceDomain: string): Promise<boolean> {
    const row = await this.db.get(
      `SELECT r.id FROM recipients r JOIN messages m ON m.id = r.message_id
       WHERE r.id = ? AND m.type = 'outbound'
         AND EXISTS (SELECT 1 FROM domains d WHERE d.team_id = m.team_id AND d.return_path_host || '.' || d.domain = ?)`,
      [recipientId, bounceDomain],
    );
    return row !== null;
  }

  /** Whether `domain` is the return-path name (`<return_path_host>.<domain>`) of any sending domain. */
  async isBounceDomain(domain: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS one FROM domains WHERE return_path_host || '.' || domain = ? LIMIT 1", [domain])) !== null;
  }

  /** Whether some route has `domain` verified as its inbound domain. */
  async isVerifiedInboundDomain(domain: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS one FROM routes WHERE lower(inbound_domain) = ? AND inbound_domain_verified_at IS NOT NULL LIMIT 1", [domain])) !== null;
  }
}
