import { userInfo } from "node:os";
import { auditRow } from "../auth/audit.ts";
import type { AuditRow } from "../db/audit-log.ts";

/** The operating system user running the command, when the system says (it may not in a container). */
function osUser(): string | null {
  try {
    return userInfo().username || null;
  } catch {
    return null;
  }
}

/**
 * An audit row for a change the CLI makes straight in the database (docs/access.md "Audit log"):
 * actor kind cli, its name the OS user; written by the caller in the change's own transaction.
 * Commands that go through the API (posthorn domains, posthorn tokens) are logged by the API as
 * the token they use.
 */
export const cliAuditRow = (teamId: string, operation: string, params: Record<string, string>, body: Record<string, unknown>): AuditRow =>
  auditRow({ teamId, actor: { kind: "cli", id: null, name: osUser() }, operation: `cli ${operation}`, params, body, status: 200, ip: null, userAgent: null });
