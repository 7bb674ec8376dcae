import type { SqlExecutor } from "./sql.ts";

/** A certificate row: what is stored, the renewal state, and who holds the order's lease. */
export interface TlsCertificateRow {
  name: string;
  domains: string[];
  certPem: string | null;
  keyPem: string | null;
  fingerprint: string | null;
  notBefore: number | null;
  notAfter: number | null;
  issuedAt: number | null;
  renewRequestedAt: number | null;
  failures: number;
  lastError: string | null;
  lastAttemptAt: number | null;
  nextAttemptAt: number | null;
  leaseOwner: string | null;
  leaseUntil: number | null;
}

/** What a successful order stores. */
export interface IssuedCertificate {
  domains: string[];
  certPem: string;
  keyPem: string;
  fingerprint: string;
  notBefore: number;
  notAfter: number;
}

type Row = {
  name: string;
  domains: string | null;
  cert_pem: string | null;
  key_pem: string | null;
  fingerprint: string | null;
  not_before: number | null;
  not_after: number | null;
  issued_at: number | null;
  renew_requested_at: number | null;
  failures: number;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  lease_owner: string | null;
  lease_until: number | null;
};

const COLUMNS = `name, domains, cert_pem, key_pem, fingerprint, not_before, not_after, issued_at, renew_requested_at, failures,
  last_error, last_attempt_at, next_attempt_at, lease_owner, lease_until`;

const toRow = (r: Row): TlsCertificateRow => ({
  name: r.name,
  domains: r.domains ? (JSON.parse(r.domains) as string[]) : [],
  certPem: r.cert_pem,
  keyPem: r.key_pem,
  fingerprint: r.fingerprint,
  notBefore: r.not_before,
  notAfter: r.not_after,
  issuedAt: r.issued_at,
  renewRequestedAt: r.renew_requested_at,
  failures: r.failures,
  lastError: r.last_error,
  lastAttemptAt: r.last_attempt_at,
  nextAttemptAt: r.next_attempt_at,
  leaseOwner: r.lease_owner,
  leaseUntil: r.lease_until,
});

/**
 * Certificates obtained by ACME and the pending HTTP-01 answers, shared by every node. The row of
 * a certificate is also its order's claim: `claim` takes a lease only when none is running, and
 * every write of an order's outcome names the lease owner, so a node whose lease expired (and was
 * taken over) cannot overwrite the newer outcome.
 */
/** What a node saw of the row when it found an order due: `claim` holds it to that. */
export type OrderDecisionBasis = Pick<TlsCertificateRow, "fingerprint" | "failures" | "renewRequestedAt">;

export class TlsCertificateRepository {
  constructor(private readonly db: SqlExecutor) {}

  async get(name: string): Promise<TlsCertificateRow | null> {
    const r = await this.db.get<Row>(`SELECT ${COLUMNS} FROM tls_certificates WHERE name = ?`, [name]);
    return r ? toRow(r) : null;
  }

  /** The stored certificate's fingerprint, cheap enough to ask on every node every few seconds. */
  async fingerprint(name: string): Promise<string | null> {
    return (await this.db.get<{ fingerprint: string | null }>("SELECT fingerprint FROM tls_certificates WHERE name = ?", [name]))?.fingerprint ?? null;
  }

  /** Creates the empty row a first order claims (another node may have been first). */
  async ensure(name: string, now: number): Promise<void> {
    await this.db.run("INSERT INTO tls_certificates (name, failures, created_at, updated_at) VALUES (?, 0, ?, ?) ON CONFLICT (name) DO NOTHING", [name, now, now]);
  }

  /**
   * Takes the order's lease for `owner` unless another node holds a lease that has not run out,
   * and only while the row is as `seen` when the order was found due (null: no row yet). Another
   * node's outcome in between (a new certificate, a failure and its backoff) or a new renewal
   * request makes the claim fail, so a decision made on a stale read never places a second order.
   */
  async claim(name: string, owner: string, now: number, leaseMs: number, seen: OrderDecisionBasis | null): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE tls_certificates SET lease_owner = ?, lease_until = ?, last_attempt_at = ?, updated_at = ?
       WHERE name = ? AND (lease_until IS NULL OR lease_until <= ?)
         AND fingerprint IS NOT DISTINCT FROM ? AND failures = ? AND renew_requested_at IS NOT DISTINCT FROM ?`,
      [owner, now + leaseMs, now, now, name, now, seen?.fingerprint ?? null, seen?.failures ?? 0, seen?.renewRequestedAt ?? null],
    );
    return r.changes === 1;
  }

  /**
   * Stores a new certificate and ends the lease. A renewal request made after `orderStartedAt`
   * stays (it asked for a certificate newer than this one). False when the lease was lost.
   */
  async store(name: string, owner: string, cert: IssuedCertificate, orderStartedAt: number, now: number): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE tls_certificates SET domains = ?, cert_pem = ?, key_pem = ?, fingerprint = ?, not_before = ?, not_after = ?, issued_at = ?,
         renew_requested_at = CASE WHEN renew_requested_at <= ? THEN NULL ELSE renew_requested_at END,
         failures = 0, last_error = NULL, next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?
       WHERE name = ? AND lease_owner = ?`,
      [JSON.stringify(cert.domains), cert.certPem, cert.keyPem, cert.fingerprint, cert.notBefore, cert.notAfter, now, orderStartedAt, now, name, owner],
    );
    return r.changes === 1;
  }

  /** Records a failed order: one more failure, its error, when to try again; ends the lease. */
  async recordFailure(name: string, owner: string, error: string, nextAttemptAt: number, now: number): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE tls_certificates SET failures = failures + 1, last_error = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
       WHERE name = ? AND lease_owner = ?`,
      [error, nextAttemptAt, now, name, owner],
    );
    return r.changes === 1;
  }

  /** Hands the lease back (a node stopping mid-order), so another node need not wait for it to run out. */
  async releaseLease(name: string, owner: string): Promise<void> {
    await this.db.run("UPDATE tls_certificates SET lease_owner = NULL, lease_until = NULL WHERE name = ? AND lease_owner = ?", [name, owner]);
  }

  /** Asks for a new certificate now: the next check orders one, whatever the expiry or backoff. */
  async requestRenewal(name: string, now: number): Promise<void> {
    await this.ensure(name, now);
    await this.db.run("UPDATE tls_certificates SET renew_requested_at = ?, next_attempt_at = NULL, updated_at = ? WHERE name = ?", [now, now, name]);
  }

  async putChallenge(token: string, keyAuthorization: string, expiresAt: number, now: number): Promise<void> {
    // Answers of orders that never cleaned up (a node died) go with the next order's.
    await this.db.run("DELETE FROM acme_challenges WHERE expires_at <= ?", [now]);
    await this.db.run(
      "INSERT INTO acme_challenges (token, key_authorization, expires_at, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (token) DO UPDATE SET key_authorization = excluded.key_authorization, expires_at = excluded.expires_at",
      [token, keyAuthorization, expiresAt, now],
    );
  }

  /** The key authorization for an HTTP-01 token, while its order runs. */
  async challenge(token: string, now: number): Promise<string | null> {
    return (await this.db.get<{ key_authorization: string }>("SELECT key_authorization FROM acme_challenges WHERE token = ? AND expires_at > ?", [token, now]))?.key_authorization ?? null;
  }

  async removeChallenge(token: string): Promise<void> {
    await this.db.run("DELETE FROM acme_challenges WHERE token = ?", [token]);
  }
}
