import type { SqlExecutor } from "./sql.ts";

/** A stored Idempotency-Key: the request it was first used with and the answer given (null while that request runs). */
export type IdempotencyRow = { request_hash: string; response_body: string | null; expires_at: number };

/** A key taken by the request that uses it first: its body's hash, kept until `expires_at`. */
export type NewIdempotencyKey = {
  project_id: string;
  key: string;
  request_hash: string;
  created_at: number;
  expires_at: number;
};

/** Idempotency keys of the send endpoints, scoped to a project. */
export class IdempotencyRepository {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * Takes the key for this request, without an answer yet; false when the key is already there.
   * On PostgreSQL a concurrent transaction that inserted the same key first makes this wait for
   * its commit (then false) or its rollback (then true): a repeat never runs alongside the first.
   */
  async claim(k: NewIdempotencyKey): Promise<boolean> {
    const { changes } = await this.db.run(
      `INSERT INTO idempotency_keys (project_id, key, request_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project_id, key) DO NOTHING`,
      [k.project_id, k.key, k.request_hash, k.created_at, k.expires_at],
    );
    return changes === 1;
  }

  /**
   * Takes over a key that had expired by `k.created_at`, as claim does a new one; false when it has
   * not expired (another request took it over meanwhile).
   */
  async claimExpired(k: NewIdempotencyKey): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE idempotency_keys SET request_hash = ?, response_status = NULL, response_body = NULL, created_at = ?, expires_at = ?
       WHERE project_id = ? AND key = ? AND expires_at <= ?`,
      [k.request_hash, k.created_at, k.expires_at, k.project_id, k.key, k.created_at],
    );
    return changes === 1;
  }

  /** The answer to give repeats of the request that claimed the key. */
  async answer(projectId: string, key: string, status: number, body: string): Promise<void> {
    await this.db.run("UPDATE idempotency_keys SET response_status = ?, response_body = ? WHERE project_id = ? AND key = ?", [status, body, projectId, key]);
  }

  /** The key as stored, expired or not (the caller decides). */
  find(projectId: string, key: string): Promise<IdempotencyRow | null> {
    return this.db.get<IdempotencyRow>("SELECT request_hash, response_body, expires_at FROM idempotency_keys WHERE project_id = ? AND key = ?", [
      projectId,
      key,
    ]);
  }

  /** Drops every key that expired before `now` (index idempotency_keys_expires). */
  async purgeExpired(now: number): Promise<void> {
    await this.db.run("DELETE FROM idempotency_keys WHERE expires_at < ?", [now]);
  }
}
