import type { SqlExecutor } from "./sql.ts";

/** A stored Idempotency-Key: the request it was first used with and the answer given. */
export type IdempotencyRow = { request_hash: string; response_body: string | null; expires_at: number };

/** What recording a key stores: the answer (status and JSON body) to give a repeat until `expires_at`. */
export type NewIdempotencyKey = {
  project_id: string;
  key: string;
  request_hash: string;
  response_status: number;
  response_body: string;
  created_at: number;
  expires_at: number;
};

/** Idempotency keys of the send endpoints, scoped to a project. */
export class IdempotencyRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The key as stored, expired or not (the caller decides). */
  find(projectId: string, key: string): Promise<IdempotencyRow | null> {
    return this.db.get<IdempotencyRow>("SELECT request_hash, response_body, expires_at FROM idempotency_keys WHERE project_id = ? AND key = ?", [
      projectId,
      key,
    ]);
  }

  async delete(projectId: string, key: string): Promise<void> {
    await this.db.run("DELETE FROM idempotency_keys WHERE project_id = ? AND key = ?", [projectId, key]);
  }

  /** Drops every key that expired before `now` (index idempotency_keys_expires). */
  async purgeExpired(now: number): Promise<void> {
    await this.db.run("DELETE FROM idempotency_keys WHERE expires_at < ?", [now]);
  }

  async record(k: NewIdempotencyKey): Promise<void> {
    await this.db.run(
      `INSERT INTO idempotency_keys (project_id, key, request_hash, response_status, response_body, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [k.project_id, k.key, k.request_hash, k.response_status, k.response_body, k.created_at, k.expires_at],
    );
  }
}
