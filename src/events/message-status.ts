import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import { newId } from "../ids.ts";
import type { JobQueue } from "../db/job-queue.ts";
import { publishEvent, type EventKind } from "./publish.ts";

export const MESSAGE_STATUSES = [
  "pending",
  "queued",
  "suppressed",
  "processed",
  "delivered",
  "opened",
  "clicked",
  "soft_bounced",
  "hard_bounced",
  "spam_complaint",
  "failed",
  "blocked",
  "policy_rejected",
  "unsubscribed",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A recipient in one of these states will not change again by delivery. */
export const FINAL_RECIPIENT_STATUSES: ReadonlySet<string> = new Set([
  "delivered",
  "hard_bounced",
  "failed",
  "suppressed",
  "blocked",
  "policy_rejected",
  "spam_complaint",
  "unsubscribed",
  "opened",
  "clicked",
]);

/**
 * How a message's status is derived from its recipients': the highest-ranked recipient status
 * wins. Work still under way ranks above any outcome, so a message reads soft_bounced while any
 * recipient is still being retried, and delivered once some recipient got it and none is pending.
 */
const AGGREGATE_RANK: readonly string[] = [
  "soft_bounced",
  "processed",
  "queued",
  "pending",
  "spam_complaint",
  "unsubscribed",
  "clicked",
  "opened",
  "delivered",
  "hard_bounced",
  "failed",
  "blocked",
  "policy_rejected",
  "suppressed",
];

export function aggregateStatus(statuses: readonly string[]): string {
  let best = -1;
  for (const s of statuses) {
    const r = AGGREGATE_RANK.indexOf(s);
    if (r !== -1 && (best === -1 || r < best)) best = r;
  }
  return best === -1 ? (statuses[0] ?? "pending") : AGGREGATE_RANK[best]!;
}

/** The webhook event kind a recipient status change publishes, if any. */
const STATUS_EVENT: Partial<Record<string, EventKind>> = {
  processed: "message.sent",
  delivered: "message.delivered",
  soft_bounced: "message.soft_bounced",
  hard_bounced: "message.hard_bounced",
  failed: "message.failed",
  suppressed: "message.suppressed",
  opened: "message.opened",
  clicked: "message.clicked",
  spam_complaint: "message.spam_complaint",
  unsubscribed: "message.unsubscribed",
  policy_rejected: "message.policy_rejected",
};

export type RemoteReply = { code: number | null; enhanced_code: string | null; message: string };

export interface RecipientChange {
  recipientId: string;
  status: MessageStatus;
  /** The remote server's reply for delivery outcomes. */
  response?: RemoteReply | null;
  /** Extra fields for the history row and the webhook event (bounce details, url clicked, …). */
  details?: Record<string, unknown>;
  /** Add a team-scope suppression with this reason (hard bounces, complaints). */
  suppress?: "hard_bounce" | "spam_complaint" | "unsubscribe" | null;
  /** Count this as a delivery attempt. */
  attempted?: boolean;
}

/** A recipient with what status changes and reports need of its message. */
export type RecipientWithMessage = {
  id: string;
  message_id: string;
  email: string;
  status: string;
  attempts: number;
  team_id: string;
  route_id: string | null;
  project_id: string | null;
  tag: string | null;
  metadata: string;
  message_status: string;
};

/**
 * The recipient and what a change needs of its message (null when the recipient is gone), as two
 * lookups by primary key: with the SQLite bundled in Bun (3.54.1) the same as one join took
 * several times longer (~1.5 µs per lookup against 6–15 µs for the join, measured), and this runs
 * for every status change.
 */
export function recipientWithMessage(sqlite: Database, recipientId: string): RecipientWithMessage | null {
  const rcpt = stmt<Pick<RecipientWithMessage, "id" | "message_id" | "email" | "status" | "attempts">, [string]>(
    sqlite,
    "SELECT id, message_id, email, status, attempts FROM recipients WHERE id = ?",
  ).get(recipientId);
  if (!rcpt) return null;
  const m = stmt<Pick<RecipientWithMessage, "team_id" | "route_id" | "project_id" | "tag" | "metadata"> & { status: string }, [string]>(
    sqlite,
    "SELECT team_id, route_id, project_id, tag, metadata, status FROM messages WHERE id = ?",
  ).get(rcpt.message_id);
  if (!m) return null;
  return { ...rcpt, team_id: m.team_id, route_id: m.route_id, project_id: m.project_id, tag: m.tag, metadata: m.metadata, message_status: m.status };
}

/**
 * Applies one recipient's status change: updates the recipient, appends to the message's history,
 * re-derives the message status, publishes the webhook event(s), and adds a suppression when
 * asked. Synchronous; call inside a Writer transaction together with the change's cause.
 * Returns the message's status afterwards.
 */
export function changeRecipientStatus(sqlite: Database, queue: JobQueue, change: RecipientChange, now = Date.now()): string {
  const r = recipientWithMessage(sqlite, change.recipientId);
  if (!r) throw new Error(`recipient ${change.recipientId} not found`);

  stmt(sqlite, `UPDATE recipients SET status = ?, status_changed_at = ?, attempts = attempts + ?, last_response = coalesce(?, last_response) WHERE id = ?`)
    .run(change.status, now, change.attempted ? 1 : 0, change.response ? JSON.stringify(change.response) : null, r.id);

  const kind = STATUS_EVENT[change.status];
  const eventData: Record<string, unknown> = {
    message_id: r.message_id,
    recipient: r.email,
    status: change.status,
    tag: r.tag,
    metadata: JSON.parse(r.metadata),
    ...(change.response ? { response: change.response } : {}),
    ...change.details,
  };
  stmt(sqlite, "INSERT INTO message_events (id, message_id, recipient_id, kind, status, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(newId(), r.message_id, r.id, kind ?? `message.${change.status}`, change.status, JSON.stringify(eventData), now);

  const statuses = stmt<{ status: string }, [string]>(sqlite, "SELECT status FROM recipients WHERE message_id = ?")
    .all(r.message_id)
    .map((x) => x.status);
  const aggregate = aggregateStatus(statuses);
  if (aggregate !== r.message_status) {
    stmt(sqlite, "UPDATE messages SET status = ?, status_changed_at = ?, updated_at = ? WHERE id = ?").run(aggregate, now, now, r.message_id);
  }

  // message.sent goes out once per recipient, at its first attempt; a retry's "processed" is in
  // the history only.
  const retried = change.status === "processed" && r.attempts > 0;
  if (kind && !retried) {
    publishEvent(sqlite, queue, { teamId: r.team_id, routeId: r.route_id, messageId: r.message_id, kind, data: eventData }, now);
  }
  if (change.status === "soft_bounced" || change.status === "hard_bounced") {
    publishEvent(
      sqlite,
      queue,
      {
        teamId: r.team_id,
        routeId: r.route_id,
        messageId: r.message_id,
        kind: "message.bounced",
        data: { ...eventData, bounce_type: change.status === "hard_bounced" ? "hard" : "soft" },
      },
      now,
    );
  }
  if (change.suppress) addSuppression(sqlite, { teamId: r.team_id, scope: "team", email: r.email, reason: change.suppress }, now);
  return aggregate;
}

export interface SuppressionInput {
  teamId: string;
  scope: "team" | "project" | "route";
  projectId?: string | null;
  routeId?: string | null;
  email: string;
  reason: "hard_bounce" | "spam_complaint" | "unsubscribe" | "manual";
}

export const suppressionScopeKey = (s: Pick<SuppressionInput, "scope" | "projectId" | "routeId">): string =>
  s.scope === "team" ? "team" : s.scope === "project" ? `project:${s.projectId}` : `route:${s.routeId}`;

/** Adds a suppression unless one exists for that scope and address. True when added. */
export function addSuppression(sqlite: Database, s: SuppressionInput, now = Date.now()): boolean {
  const res = stmt(sqlite, `INSERT INTO suppressions (id, team_id, scope, project_id, route_id, scope_key, email, reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team_id, scope_key, email) DO NOTHING`)
    .run(
      newId(),
      s.teamId,
      s.scope,
      s.scope === "project" ? (s.projectId ?? null) : null,
      s.scope === "route" ? (s.routeId ?? null) : null,
      suppressionScopeKey(s),
      s.email.toLowerCase(),
      s.reason,
      now,
    );
  return res.changes === 1;
}

/** The addresses among `emails` suppressed for a message of this team, project and route. */
export function suppressedAmong(
  sqlite: Database,
  scope: { teamId: string; projectId: string; routeId: string },
  emails: readonly string[],
): Set<string> {
  if (emails.length === 0) return new Set();
  const lowered = [...new Set(emails.map((e) => e.toLowerCase()))];
  const keys = ["team", `project:${scope.projectId}`, `route:${scope.routeId}`];
  const rows = sqlite
    .query<{ email: string }, string[]>(
      `SELECT email FROM suppressions WHERE team_id = ? AND scope_key IN (?, ?, ?) AND email IN (${lowered.map(() => "?").join(",")})`)
    .all(scope.teamId, ...keys, ...lowered);
  return new Set(rows.map((r) => r.email));
}
