import type { SqlExecutor } from "./sql.ts";

export interface ReportForwardingRow {
  project_id: string;
  team_id: string;
  destination: string;
  code_hash: string | null;
  code_expires_at: number | null;
  code_sent_at: number | null;
  failed_attempts: number;
  verified_at: number | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = "project_id, team_id, destination, code_hash, code_expires_at, code_sent_at, failed_attempts, verified_at, created_at, updated_at";
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const row = (r: ReportForwardingRow | null): ReportForwardingRow | null =>
  r && {
    ...r,
    code_expires_at: num(r.code_expires_at),
    code_sent_at: num(r.code_sent_at),
    failed_attempts: Number(r.failed_attempts),
    verified_at: num(r.verified_at),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };

/** Report forwarding of projects: destination, its pending code, its verification. */
export class ReportForwardingRepository {
  constructor(private readonly db: SqlExecutor) {}

  async find(projectId: string): Promise<ReportForwardingRow | null> {
    return row(await this.db.get<ReportForwardingRow>(`SELECT ${COLUMNS} FROM report_forwarding WHERE project_id = ?`, [projectId]));
  }

  /** Sets the destination with a fresh code, unverified (replacing what was there). */
  async set(r: { project_id: string; team_id: string; destination: string; code_hash: string; code_expires_at: number; now: number }): Promise<void> {
    await this.db.run(
      `INSERT INTO report_forwarding (project_id, team_id, destination, code_hash, code_expires_at, code_sent_at, failed_attempts, verified_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)
       ON CONFLICT (project_id) DO UPDATE SET destination = excluded.destination, code_hash = excluded.code_hash, code_expires_at = excluded.code_expires_at,
         code_sent_at = excluded.code_sent_at, failed_attempts = 0, verified_at = NULL, updated_at = excluded.updated_at`,
      [r.project_id, r.team_id, r.destination, r.code_hash, r.code_expires_at, r.now, r.now, r.now],
    );
  }

  /** A new code for the same destination. */
  async newCode(projectId: string, codeHash: string, expiresAt: number, now: number): Promise<void> {
    await this.db.run("UPDATE report_forwarding SET code_hash = ?, code_expires_at = ?, code_sent_at = ?, failed_attempts = 0, updated_at = ? WHERE project_id = ?", [
      codeHash,
      expiresAt,
      now,
      now,
      projectId,
    ]);
  }

  /**
   * Spends one attempt at the pending code, checked and counted in one statement: the count after
   * it and the code's hash, or null when none is left (no pending or an expired code, `max` attempts spent, verified).
   * Concurrent guesses each take their own attempt, so at most `max` are ever evaluated.
   */
  async spendAttempt(projectId: string, max: number, now: number): Promise<{ failed_attempts: number; code_hash: string } | null> {
    const r = await this.db.get<{ failed_attempts: number; code_hash: string }>(
      `UPDATE report_forwarding SET failed_attempts = failed_attempts + 1, updated_at = ?
       WHERE project_id = ? AND verified_at IS NULL AND code_hash IS NOT NULL AND code_expires_at > ? AND failed_attempts < ? RETURNING failed_attempts, code_hash`,
      [now, projectId, now, max],
    );
    return r ? { failed_attempts: Number(r.failed_attempts), code_hash: r.code_hash } : null;
  }

  async markVerified(projectId: string, now: number): Promise<void> {
    await this.db.run("UPDATE report_forwarding SET verified_at = ?, code_hash = NULL, code_expires_at = NULL, failed_attempts = 0, updated_at = ? WHERE project_id = ?", [now, now, projectId]);
  }

  async delete(projectId: string): Promise<void> {
    await this.db.run("DELETE FROM report_forwarding WHERE project_id = ?", [projectId]);
  }

  /** Verified destinations of the projects a domain is attached to. */
  verifiedForDomain(domainId: string): Promise<{ project_id: string; team_id: string; destination: string }[]> {
    return this.db.all(
      `SELECT f.project_id, f.team_id, f.destination FROM report_forwarding f JOIN project_domains pd ON pd.project_id = f.project_id
       WHERE pd.domain_id = ? AND f.verified_at IS NOT NULL ORDER BY f.project_id`,
      [domainId],
    );
  }

  /** The verified destination of the project that sent the message a recipient belongs to, with that message's sending domain. */
  forwardingOfRecipient(recipientId: string): Promise<{ project_id: string; team_id: string; destination: string; domain: string | null } | null> {
    return this.db.get(
      `SELECT f.project_id, f.team_id, f.destination, d.domain FROM recipients r JOIN messages m ON m.id = r.message_id
         JOIN report_forwarding f ON f.project_id = m.project_id LEFT JOIN domains d ON d.id = m.domain_id
       WHERE r.id = ? AND f.verified_at IS NOT NULL`,
      [recipientId],
    );
  }

  /** The project's active sending domain to send its codes and forwarded reports from (the oldest), or null. */
  async senderDomain(projectId: string): Promise<string | null> {
    const r = await this.db.get<{ domain: string }>(
      `SELECT d.domain FROM domains d JOIN project_domains pd ON pd.domain_id = d.id WHERE pd.project_id = ? AND d.status = 'active' ORDER BY d.created_at, d.id LIMIT 1`,
      [projectId],
    );
    return r?.domain ?? null;
  }
}
