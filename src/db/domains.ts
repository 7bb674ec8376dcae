import { keysetPageOf, type Cursor, type KeysetPage, type SortKey } from "./keyset.ts";
import { placeholders, type SqlExecutor } from "./sql.ts";

/** A sending domain as services and the API see it; the DKIM key pair is read only by signing. */
export type DomainRow = {
  id: string;
  team_id: string;
  domain: string;
  status: string;
  status_changed_at: number | null;
  dkim_selector: string;
  return_path_host: string;
  last_checked_at: number | null;
  created_at: number;
  updated_at: number;
};

/** What inserting a domain stores: the row plus its key pairs. */
export type NewDomainRow = DomainRow & {
  dkim_private_key: string;
  dkim_public_key: string;
  dkim_ed25519_selector: string;
  dkim_ed25519_private_key: string;
  dkim_ed25519_public_key: string;
};

/** A domain without an Ed25519 DKIM key yet (created before Ed25519 DKIM). */
export type DomainWithoutEd25519Row = { id: string; domain: string };

export type DnsRecordRow = {
  id: string;
  domain_id: string;
  purpose: string;
  type: string;
  hostname: string;
  fqdn: string;
  content: string;
  status: string;
  status_reason: string | null;
  verified_at: number | null;
  last_checked_at: number | null;
  /**
   * For a DKIM record whose key does not sign: next (a rotation's new key, signing once its
   * records verify) or retiring (a replaced key, kept published until keep_until). Null for the
   * keys that sign and for every other record.
   */
  key_state: DkimKeyState | null;
  keep_until: number | null;
};

/** A DKIM key besides the two that sign (dkim_keys). */
export type DkimKeyState = "next" | "retiring";
export type DkimKeyRow = {
  id: string;
  domain_id: string;
  record_id: string;
  algorithm: "rsa" | "ed25519";
  selector: string;
  private_key: string;
  public_key: string;
  state: DkimKeyState;
  keep_until: number | null;
  created_at: number;
};

/** The two keys that sign for a domain (the Ed25519 one null only before the upgrade step). */
export type SigningKeysRow = {
  dkim_selector: string;
  dkim_private_key: string;
  dkim_public_key: string;
  dkim_ed25519_selector: string | null;
  dkim_ed25519_private_key: string | null;
  dkim_ed25519_public_key: string | null;
};

export type NewDnsRecordRow = Pick<DnsRecordRow, "id" | "domain_id" | "purpose" | "type" | "hostname" | "fqdn" | "content"> & { created_at: number };

/** The outcome of one check of one record. */
export type RecordCheckUpdate = Pick<DnsRecordRow, "status" | "status_reason" | "verified_at" | "last_checked_at">;

/** Sort keys of the domain list: API name → trusted SQL expression (never-changed sorts first). */
export const DOMAIN_SORT = { created_at: "created_at", domain: "domain", status: "status", status_changed_at: "coalesce(status_changed_at, 0)" };

const DOMAIN_COLUMNS = "id, team_id, domain, status, status_changed_at, dkim_selector, return_path_host, last_checked_at, created_at, updated_at";

// DKIM first: it decides whether the domain can send; the signing keys, then a rotation's next
// keys, then the retiring ones.
const RECORD_ORDER = `CASE WHEN r.purpose IN ('dkim', 'dkim_ed25519') THEN 0 ELSE 1 END,
  CASE WHEN k.state IS NULL THEN 0 WHEN k.state = 'next' THEN 1 ELSE 2 END,
  CASE r.purpose WHEN 'dkim' THEN 0 WHEN 'dkim_ed25519' THEN 1 WHEN 'spf' THEN 2 WHEN 'return_path' THEN 3 WHEN 'dmarc' THEN 4 WHEN 'tls_rpt' THEN 5 ELSE 6 END, r.id`;

const COLUMNS_OF_RECORD =
  "r.id, r.domain_id, r.purpose, r.type, r.hostname, r.fqdn, r.content, r.status, r.status_reason, r.verified_at, r.last_checked_at, k.state AS key_state, k.keep_until";

const SIGNING_KEY_COLUMNS = "dkim_selector, dkim_private_key, dkim_public_key, dkim_ed25519_selector, dkim_ed25519_private_key, dkim_ed25519_public_key";

interface Page {
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
}


/** Sending domains, their DNS records and the projects they are attached to (project_domains). */
export class DomainRepository {
  constructor(private readonly db: SqlExecutor) {}

  findOfTeam(id: string, teamId: string): Promise<DomainRow | null> {
    return this.db.get<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = ? AND team_id = ?`, [id, teamId]);
  }

  find(id: string): Promise<DomainRow | null> {
    return this.db.get<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = ?`, [id]);
  }

  /**
   * Locks the domain's row for a change of it or its children (records, project links), and
   * reads it; null when it is gone. Every write that changes a domain's children takes this
   * first, as DELETE does by its cascade: parent before children, one order for all, so that on
   * PostgreSQL a delete, a check and a PUT of its projects queue up rather than deadlock.
   * SQLite serialises writers; there it is a plain read.
   */
  lockForChange(id: string): Promise<DomainRow | null> {
    const lock = this.db.dialect === "postgres" ? " FOR NO KEY UPDATE" : "";
    return this.db.get<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM domains WHERE id = ?${lock}`, [id]);
  }

  /**
   * The team's domain of that name when it is attached to the project (the project may send from
   * it), else null. Two lookups by unique key rather than a join, which Bun's SQLite runs several
   * times slower (see RecipientRepository.withMessage); this runs for every send.
   */
  async sendingDomainOf(teamId: string, projectId: string, domain: string): Promise<Pick<DomainRow, "id" | "status"> | null> {
    if (this.db.dialect === "postgres") {
      // One round trip: PostgreSQL plans the semi-join as cheaply as the two lookups.
      return this.db.get<Pick<DomainRow, "id" | "status">>(
        `SELECT d.id, d.status FROM domains d WHERE d.team_id = ? AND d.domain = ?
           AND EXISTS (SELECT 1 FROM project_domains pd WHERE pd.project_id = ? AND pd.domain_id = d.id)`,
        [teamId, domain, projectId],
      );
    }
    const row = await this.db.get<Pick<DomainRow, "id" | "status">>("SELECT id, status FROM domains WHERE team_id = ? AND domain = ?", [teamId, domain]);
    if (!row) return null;
    const attached = await this.db.get("SELECT 1 AS x FROM project_domains WHERE project_id = ? AND domain_id = ?", [projectId, row.id]);
    return attached ? row : null;
  }

  /** The id of the team's domain of that (canonical) name, else null. */
  async idOfName(teamId: string, domain: string): Promise<string | null> {
    return (await this.db.get<{ id: string }>("SELECT id FROM domains WHERE team_id = ? AND domain = ?", [teamId, domain]))?.id ?? null;
  }

  /** A new domain and its records, all pending. */
  async insert(row: NewDomainRow, records: readonly NewDnsRecordRow[]): Promise<void> {
    await this.db.run(
      `INSERT INTO domains (id, team_id, domain, status, status_changed_at, dkim_selector, dkim_private_key, dkim_public_key,
         dkim_ed25519_selector, dkim_ed25519_private_key, dkim_ed25519_public_key, return_path_host, last_checked_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.id,
        row.team_id,
        row.domain,
        row.status,
        row.status_changed_at,
        row.dkim_selector,
        row.dkim_private_key,
        row.dkim_public_key,
        row.dkim_ed25519_selector,
        row.dkim_ed25519_private_key,
        row.dkim_ed25519_public_key,
        row.return_path_host,
        row.last_checked_at,
        row.created_at,
        row.updated_at,
      ],
    );
    for (const r of records) await this.insertRecord(r);
  }

  private async insertRecord(r: NewDnsRecordRow): Promise<void> {
    await this.db.run(
      "INSERT INTO dns_records (id, domain_id, purpose, type, hostname, fqdn, content, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
      [r.id, r.domain_id, r.purpose, r.type, r.hostname, r.fqdn, r.content, r.created_at],
    );
  }

  /** Up to `limit` domains that have no Ed25519 DKIM key yet. */
  withoutEd25519Key(limit: number): Promise<DomainWithoutEd25519Row[]> {
    return this.db.all<DomainWithoutEd25519Row>("SELECT id, domain FROM domains WHERE dkim_ed25519_selector IS NULL ORDER BY id LIMIT ?", [limit]);
  }

  /**
   * Gives a domain its Ed25519 DKIM key and the record to publish for it (pending), unless it
   * got one meanwhile. True when this call set it.
   */
  async addEd25519Key(domainId: string, key: { selector: string; privateKeyPem: string; publicKeyBase64: string }, record: NewDnsRecordRow): Promise<boolean> {
    const set = await this.db.run(
      `UPDATE domains SET dkim_ed25519_selector = ?, dkim_ed25519_private_key = ?, dkim_ed25519_public_key = ?
       WHERE id = ? AND dkim_ed25519_selector IS NULL`,
      [key.selector, key.privateKeyPem, key.publicKeyBase64, domainId],
    );
    if (set.changes === 0) return false;
    await this.insertRecord(record);
    return true;
  }

  /** Deletes the domain, its records and attachments (cascade). True when it existed. */
  async delete(id: string, teamId: string): Promise<boolean> {
    return (await this.db.run("DELETE FROM domains WHERE id = ? AND team_id = ?", [id, teamId])).changes > 0;
  }

  list(teamId: string, filter: { status?: string }, page: Page): Promise<KeysetPage<DomainRow>> {
    const where = ["team_id = ?"];
    const params: string[] = [teamId];
    if (filter.status !== undefined) {
      where.push("status = ?");
      params.push(filter.status);
    }
    // Sort expressions are read back under aliases: a cursor holds what the ORDER BY compared.
    const columns = page.sort.map((k) => k.column);
    return keysetPageOf<DomainRow>(this.db, {
      select: `SELECT ${DOMAIN_COLUMNS}, ${columns.map((c, i) => `${c} AS _s${i}`).join(", ")} FROM domains`,
      where,
      params,
      ...page,
      valuesOf: (row) => columns.map((_, i) => (row as unknown as Record<string, string | number>)[`_s${i}`]!),
    });
  }

  /** The domain's records, DKIM first, each DKIM record with the state of its key. */
  records(domainId: string): Promise<DnsRecordRow[]> {
    return this.db.all<DnsRecordRow>(
      `SELECT ${COLUMNS_OF_RECORD} FROM dns_records r LEFT JOIN dkim_keys k ON k.record_id = r.id WHERE r.domain_id = ? ORDER BY ${RECORD_ORDER}`,
      [domainId],
    );
  }

  /** The two keys that sign for the domain now. */
  signingKeys(domainId: string): Promise<SigningKeysRow | null> {
    return this.db.get<SigningKeysRow>(`SELECT ${SIGNING_KEY_COLUMNS} FROM domains WHERE id = ?`, [domainId]);
  }

  /** The domain's DKIM keys in that state (a rotation's next pair, or the retiring ones). */
  dkimKeys(domainId: string, state: DkimKeyState): Promise<DkimKeyRow[]> {
    return this.db.all<DkimKeyRow>(
      "SELECT id, domain_id, record_id, algorithm, selector, private_key, public_key, state, keep_until, created_at FROM dkim_keys WHERE domain_id = ? AND state = ? ORDER BY id",
      [domainId, state],
    );
  }

  /** A DKIM key that does not sign, with its record (a next key's record is new and pending; a retiring key's is the one it signed under). */
  async insertDkimKey(key: DkimKeyRow, newRecord: NewDnsRecordRow | null): Promise<void> {
    if (newRecord) await this.insertRecord(newRecord);
    await this.db.run(
      `INSERT INTO dkim_keys (id, domain_id, record_id, algorithm, selector, private_key, public_key, state, keep_until, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [key.id, key.domain_id, key.record_id, key.algorithm, key.selector, key.private_key, key.public_key, key.state, key.keep_until, key.created_at],
    );
  }

  async deleteRecord(recordId: string): Promise<void> {
    await this.db.run("DELETE FROM dns_records WHERE id = ?", [recordId]);
  }

  /** Forgets a pending rotation: its keys and their records. */
  async deleteNextKeys(domainId: string): Promise<void> {
    await this.db.run("DELETE FROM dns_records WHERE id IN (SELECT record_id FROM dkim_keys WHERE domain_id = ? AND state = 'next')", [domainId]);
    await this.db.run("DELETE FROM dkim_keys WHERE domain_id = ? AND state = 'next'", [domainId]);
  }

  /**
   * The next pair signs from now on: its keys move into the domain row and out of dkim_keys,
   * which leaves their records as the signing keys' records. Move the old pair to retiring first.
   */
  async promoteNextKeys(domainId: string, rsa: DkimKeyRow, ed25519: DkimKeyRow, now: number): Promise<void> {
    await this.db.run(
      `UPDATE domains SET dkim_selector = ?, dkim_private_key = ?, dkim_public_key = ?,
         dkim_ed25519_selector = ?, dkim_ed25519_private_key = ?, dkim_ed25519_public_key = ?, updated_at = ? WHERE id = ?`,
      [rsa.selector, rsa.private_key, rsa.public_key, ed25519.selector, ed25519.private_key, ed25519.public_key, now, domainId],
    );
    await this.db.run("DELETE FROM dkim_keys WHERE domain_id = ? AND state = 'next'", [domainId]);
  }

  /**
   * Drops the retiring keys whose keep_until has come, with their records, on every domain at
   * once; the domains they belonged to are updated_at `now`. The number of keys dropped.
   */
  async dropRetiredDkimKeys(now: number): Promise<number> {
    const due = await this.db.all<{ id: string }>("SELECT id FROM dkim_keys WHERE state = 'retiring' AND keep_until <= ?", [now]);
    if (due.length === 0) return 0;
    const dueSql = (column: string) => `SELECT ${column} FROM dkim_keys WHERE state = 'retiring' AND keep_until <= ?`;
    await this.db.run(`UPDATE domains SET updated_at = ? WHERE id IN (${dueSql("domain_id")})`, [now, now]);
    // The keys go with their records (cascade).
    await this.db.run(`DELETE FROM dns_records WHERE id IN (${dueSql("record_id")})`, [now]);
    return due.length;
  }


  async recordCheck(recordId: string, u: RecordCheckUpdate): Promise<void> {
    await this.db.run("UPDATE dns_records SET status = ?, status_reason = ?, verified_at = ?, last_checked_at = ? WHERE id = ?", [
      u.status,
      u.status_reason,
      u.verified_at,
      u.last_checked_at,
      recordId,
    ]);
  }

  /** Stamps a check of the domain; a new status also moves status_changed_at and updated_at. */
  async checked(domainId: string, now: number, newStatus: string | null): Promise<void> {
    if (newStatus !== null) {
      await this.db.run("UPDATE domains SET status = ?, status_changed_at = ?, last_checked_at = ?, updated_at = ? WHERE id = ?", [newStatus, now, now, now, domainId]);
    } else {
      await this.db.run("UPDATE domains SET last_checked_at = ? WHERE id = ?", [now, domainId]);
    }
  }

  /**
   * Ids of the domains due for a re-check at `now`, least recently checked first: never checked,
   * or checked longer ago than `verifiedIntervalMs` (active, every record but DMARC and TLS-RPT,
   * which are informational, active) or
   * `unverifiedIntervalMs` (the rest).
   */
  async dueForCheck(now: number, verifiedIntervalMs: number, unverifiedIntervalMs: number, limit: number): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      `SELECT d.id FROM domains d
       WHERE d.last_checked_at IS NULL
          OR d.last_checked_at <= ? - CASE
               WHEN d.status = 'active' AND NOT EXISTS (
                 SELECT 1 FROM dns_records r WHERE r.domain_id = d.id AND r.purpose NOT IN ('dmarc', 'tls_rpt') AND r.status != 'active')
               THEN ? ELSE ? END
       ORDER BY coalesce(d.last_checked_at, 0), d.id
       LIMIT ?`,
      [now, verifiedIntervalMs, unverifiedIntervalMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /** The projects that may send from the domain, oldest first. */
  projects(domainId: string): Promise<{ id: string; name: string }[]> {
    return this.db.all(
      "SELECT p.id, p.name FROM projects p JOIN project_domains pd ON pd.project_id = p.id WHERE pd.domain_id = ? ORDER BY p.created_at, p.id",
      [domainId],
    );
  }

  /**
   * Of the given project ids (any case), those that are the team's: lower-cased id → stored id.
   * Reads the projects table for the attachment's sake (src/db/projects.ts may take it over).
   */
  async projectIdsOfTeam(teamId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const lower = [...new Set(ids.map((id) => id.toLowerCase()))];
    if (lower.length === 0) return new Map();
    const rows = await this.db.all<{ id: string }>(
      `SELECT id FROM projects WHERE team_id = ? AND lower(id) IN (${placeholders(lower.length)})`,
      [teamId, ...lower],
      { dynamic: true },
    );
    return new Map(rows.map((r) => [r.id.toLowerCase(), r.id]));
  }

  /**
   * The domain is attached to exactly these projects from now on. Take lockForChange first. On
   * PostgreSQL the projects are key-share locked, in id order, before any link is touched: a
   * concurrent DELETE of one of them then waits for this write instead of deadlocking with it
   * over a link row; a project deleted before fails the insert (foreign key, a 409).
   */
  async replaceProjects(domainId: string, projectIds: readonly string[], now: number): Promise<void> {
    if (this.db.dialect === "postgres" && projectIds.length > 0) {
      await this.db.all(`SELECT id FROM projects WHERE id IN (${placeholders(projectIds.length)}) ORDER BY id FOR KEY SHARE`, [...projectIds], { dynamic: true });
    }
    await this.db.run("DELETE FROM project_domains WHERE domain_id = ?", [domainId]);
    for (const p of projectIds) {
      await this.db.run("INSERT INTO project_domains (project_id, domain_id, created_at) VALUES (?, ?, ?)", [p, domainId, now]);
    }
    await this.db.run("UPDATE domains SET updated_at = ? WHERE id = ?", [now, domainId]);
  }

  /** Routes of every project the domain is attached to (they get its events). */
  async routeIdsOfAttachedProjects(domainId: string): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      "SELECT r.id FROM routes r JOIN project_domains pd ON pd.project_id = r.project_id WHERE pd.domain_id = ? ORDER BY r.id",
      [domainId],
    );
    return rows.map((r) => r.id);
  }
}

/**
 * A sending domain that may claim an inbound name (equal to it or a parent of it): one of the
 * asking team's (any status: its bounce name, and, active, the team's own proof) or another
 * team's active one (its DKIM record verified: proof of control of the name).
 */
export type InboundClaimRow = { domain: string; team_id: string; return_path_host: string; status: string; status_changed_at: number | null };

/** What verifying a route's inbound domain reads of the route. */
export type InboundRouteRow = { id: string; route_type: string; inbound_domain: string | null; inbound_domain_verified_at: number | null };

const claimsSql = (names: number) =>
  `SELECT domain, team_id, return_path_host, status, status_changed_at FROM domains
   WHERE domain IN (${placeholders(names)}) AND (team_id = ? OR status = 'active')`;

/**
 * Who owns an inbound domain: the sending domains that claim a name, and the inbound_domain
 * columns of routes (their verification). These read and write the routes table; they live here
 * while src/db/routes.ts is being built by someone else, and may move there later.
 */
export class InboundDomainRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Sending domains among `names` (a name and its parents) that are `teamId`'s own (any status)
   * or another team's active ones. An unverified domain of another team claims nothing.
   */
  claims(names: readonly string[], teamId: string): Promise<InboundClaimRow[]> {
    return this.db.all<InboundClaimRow>(claimsSql(names.length), [...names, teamId], { dynamic: true });
  }

  routeOfTeam(routeId: string, teamId: string): Promise<InboundRouteRow | null> {
    return this.db.get<InboundRouteRow>("SELECT id, route_type, inbound_domain, inbound_domain_verified_at FROM routes WHERE id = ? AND team_id = ?", [routeId, teamId]);
  }

  /**
   * True when a route other than `routeId` has `name` (canonical) verified as its inbound domain,
   * verified before `before` when given (a route verified since a route's own verification does
   * not take the name from it; the MX listener also gives the name to the first verified).
   */
  async verifiedElsewhere(name: string, routeId: string, before: number | null): Promise<boolean> {
    const row = await this.db.get(
      "SELECT id FROM routes WHERE lower(inbound_domain) = ? AND inbound_domain_verified_at IS NOT NULL AND inbound_domain_verified_at < ? AND id != ? LIMIT 1",
      [name, before ?? Number.MAX_SAFE_INTEGER, routeId],
    );
    return row !== null;
  }

  /** Forgets the route's verification, if it had one. */
  async clearVerification(routeId: string): Promise<void> {
    await this.db.run("UPDATE routes SET inbound_domain_verified_at = NULL WHERE id = ? AND inbound_domain_verified_at IS NOT NULL", [routeId]);
  }

  /**
   * Records the verification of the route's inbound domain; false when it is no longer `stored`.
   * A route verified already keeps the time of its first verification: its claim dates from
   * then, and checking it again must not make it younger than claims that came after it.
   */
  async markVerified(routeId: string, stored: string, now: number): Promise<boolean> {
    return (
      await this.db.run("UPDATE routes SET inbound_domain_verified_at = coalesce(inbound_domain_verified_at, ?) WHERE id = ? AND inbound_domain = ?", [
        now,
        routeId,
        stored,
      ])
    ).changes > 0;
  }

  /**
   * The team registered a sending domain whose return-path name is `bounceName`: its own routes
   * receiving there lose their verification (that mail is bounces). Other teams' routes are not
   * touched: a registration proves nothing about the name.
   */
  async unverifyOwnBounceName(teamId: string, bounceName: string, now: number): Promise<void> {
    await this.db.run(
      `UPDATE routes SET inbound_domain_verified_at = NULL, updated_at = ?
       WHERE inbound_domain_verified_at IS NOT NULL AND team_id = ? AND lower(inbound_domain) = ?`,
      [now, teamId, bounceName],
    );
  }
}
