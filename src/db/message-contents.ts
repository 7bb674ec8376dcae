import type { SqlExecutor } from "./sql.ts";

/** Stored message bodies, as the dashboard shows them. */
export class MessageContentRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The message's HTML part as accepted or received, or null (none, or not stored). */
  async html(messageId: string): Promise<string | null> {
    return (await this.db.get<{ html: string | null }>("SELECT html FROM message_contents WHERE message_id = ?", [messageId]))?.html ?? null;
  }

  /** Whether the message's content is kept from the team (message_contents.sealed). */
  async sealed(messageId: string): Promise<boolean> {
    return Number((await this.db.get<{ sealed: number }>("SELECT sealed FROM message_contents WHERE message_id = ?", [messageId]))?.sealed ?? 0) === 1;
  }

  /** The message's plain-text part as accepted or received, or null (none, or not stored). */
  async text(messageId: string): Promise<string | null> {
    return (await this.db.get<{ text: string | null }>("SELECT text FROM message_contents WHERE message_id = ?", [messageId]))?.text ?? null;
  }
}
