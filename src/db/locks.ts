import type { SqlExecutor } from "./sql.ts";

/**
 * Named locks held until the transaction ends, for check-then-act writes that must happen once
 * across nodes (the first team, the periodic sweep's job). On SQLite every write already runs
 * alone (one writer), so there is nothing to take.
 */
export class LockRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** One round trip to the server (health checks). */
  async ping(): Promise<void> {
    await this.db.get("SELECT 1 AS one");
  }

  async take(name: string): Promise<void> {
    if (this.db.dialect === "postgres") await this.db.get("SELECT pg_advisory_xact_lock(hashtext(?)) AS l", [`posthorn:${name}`]);
  }
}
