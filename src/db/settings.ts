import type { SqlExecutor } from "./sql.ts";

const GET = "SELECT value FROM settings WHERE key = ?";
const ADD_IF_ABSENT = "INSERT INTO settings (key, value, created_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING";

/** Server-wide values kept in the database (so that backups and every node share them). */
export class SettingsRepository {
  constructor(private readonly db: SqlExecutor) {}

  async get(key: string): Promise<string | null> {
    return (await this.db.get<{ value: string }>(GET, [key]))?.value ?? null;
  }

  /** Stores `value` unless the key already has one (another node or request may have been first). */
  async addIfAbsent(key: string, value: string, now: number): Promise<void> {
    await this.db.run(ADD_IF_ABSENT, [key, value, now]);
  }
}
