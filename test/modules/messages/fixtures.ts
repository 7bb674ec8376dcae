/**
 * Rows a test needs without going through sending or SMTP (built by other modules): messages
 * with their recipients, contents, attachments and history, plus webhooks and jobs hanging off
 * routes.
 */
import type { Deps } from "../../../src/context.ts";
import type { Address } from "../../../src/db/schema.ts";
import { newId } from "../../../src/ids.ts";
import { sqlNowOf, sqlOf } from "../../helpers.ts";

export interface MessageFixture {
  teamId: string;
  projectId?: string | null;
  routeId?: string | null;
  domainId?: string | null;
  type?: "inbound" | "outbound";
  status?: string;
  statusChangedAt?: number;
  tag?: string | null;
  fromEmail?: string;
  fromName?: string;
  subject?: string;
  to?: Address[];
  cc?: Address[];
  bcc?: Address[];
  replyTo?: string[];
  metadata?: Record<string, string>;
  spamScore?: number | null;
  spamSymbols?: { name: string; score: number; options: string[]; description: string }[] | null;
  createdAt?: number;
  /** Stored as message_contents.raw when given. */
  raw?: string;
  attachments?: { filename: string; contentType: string; contentId?: string | null; content: string }[];
}

export function insertMessage(deps: Deps, m: MessageFixture): string {
  const id = newId();
  const created = m.createdAt ?? Date.now();
  const to = m.to ?? [{ email: "rcpt@example.net", name: "" }];
  const sql = sqlNowOf(deps);
  sql.run(
    `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, status_changed_at, tag, from_email, from_name, subject,
       "to", cc, bcc, reply_to, metadata, spam_score, spam_symbols, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      m.teamId,
      m.projectId ?? null,
      m.routeId ?? null,
      m.domainId ?? null,
      m.type ?? "outbound",
      m.status ?? "pending",
      m.statusChangedAt ?? created,
      m.tag ?? null,
      m.fromEmail ?? "sender@example.com",
      m.fromName ?? "",
      m.subject ?? "Hello",
      JSON.stringify(to),
      JSON.stringify(m.cc ?? []),
      JSON.stringify(m.bcc ?? []),
      JSON.stringify(m.replyTo ?? []),
      JSON.stringify(m.metadata ?? {}),
      m.spamScore ?? null,
      m.spamSymbols ? JSON.stringify(m.spamSymbols) : null,
      created,
      created,
    ],
  );
  if (m.raw !== undefined) {
    sql.run("INSERT INTO message_contents (message_id, html, text, headers, raw) VALUES (?, NULL, NULL, '{}', ?)", [id, Buffer.from(m.raw)]);
  }
  for (const a of m.attachments ?? []) {
    const content = Buffer.from(a.content);
    sql.run("INSERT INTO attachments (id, message_id, filename, content_type, content_id, size, content) VALUES (?, ?, ?, ?, ?, ?, ?)", [
      newId(),
      id,
      a.filename,
      a.contentType,
      a.contentId ?? null,
      content.length,
      content,
    ]);
  }
  return id;
}

export function insertRecipient(deps: Deps, messageId: string, email: string, status = "pending"): string {
  const id = newId();
  const now = Date.now();
  sqlNowOf(deps).run("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, created_at) VALUES (?, ?, ?, 'to', ?, ?, ?)", [
    id,
    messageId,
    email,
    status,
    now,
    now,
  ]);
  return id;
}

export function insertMessageEvent(
  deps: Deps,
  e: { messageId: string; recipientId?: string | null; kind: string; status?: string | null; data?: Record<string, unknown>; createdAt: number },
): string {
  const id = newId();
  sqlNowOf(deps).run("INSERT INTO message_events (id, message_id, recipient_id, kind, status, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
    id,
    e.messageId,
    e.recipientId ?? null,
    e.kind,
    e.status ?? null,
    JSON.stringify(e.data ?? {}),
    e.createdAt,
  ]);
  return id;
}

/** A webhook row on a route, with one recorded delivery and one queued delivery job. */
export async function insertWebhook(deps: Deps, teamId: string, routeId: string): Promise<{ webhookId: string; jobId: number }> {
  const id = newId();
  const now = Date.now();
  const sql = sqlOf(deps);
  await sql.run(
    `INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, secret, created_at, updated_at)
     VALUES (?, ?, ?, 'hook', 'https://hooks.example.com/x', '["message.delivered"]', 1, 'whsec_test', ?, ?)`,
    [id, teamId, routeId, now, now],
  );
  await sql.run(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, attempt, outcome, status_code, duration_ms, created_at)
     VALUES (?, ?, ?, 'message.delivered', 1, 'failed', 500, 10, ?)`,
    [newId(), id, newId(), now],
  );
  await deps.queue.enqueue("webhook", { eventId: newId(), webhookId: id }, { runAt: now + 60_000 });
  const jobId = (await sql.get<{ id: number }>("SELECT max(id) AS id FROM jobs"))!.id;
  return { webhookId: id, jobId };
}

export const routeIdOf = (deps: Deps, projectId: string, slug: string): string =>
  sqlNowOf(deps).get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND slug = ?", [projectId, slug])!.id;

export const DAY = 86_400_000;
