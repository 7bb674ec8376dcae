import type { Database } from "bun:sqlite";
import { stmt } from "../db/statements.ts";
import { iso, newId } from "../ids.ts";
import type { JobQueue } from "../db/job-queue.ts";

export const WEBHOOK_QUEUE = "webhook";

/** Every event kind a webhook may subscribe to (DESIGN.md §7). */
export const EVENT_KINDS = [
  "message.created",
  "message.sent",
  "message.delivered",
  "message.soft_bounced",
  "message.hard_bounced",
  "message.bounced",
  "message.failed",
  "message.suppressed",
  "message.opened",
  "message.clicked",
  "message.spam_complaint",
  "message.unsubscribed",
  "message.auto_replied",
  "message.inbound",
  "message.policy_rejected",
  "domain.dns_record_failed",
  "webhook.test",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface EventInput {
  teamId: string;
  routeId: string | null;
  messageId?: string | null;
  kind: EventKind;
  data: Record<string, unknown>;
}

export interface WebhookJob {
  eventId: string;
  webhookId: string;
}

/**
 * Records an event and queues one delivery job per enabled webhook of its route subscribed to
 * its kind. Synchronous: call it inside the Writer transaction that makes the change the event
 * describes, so the change and its notifications commit together or not at all.
 * The body is serialized here, once; those bytes are what is signed and sent.
 */
export function publishEvent(sqlite: Database, queue: JobQueue, input: EventInput, now = Date.now()): string {
  const id = newId();
  const body = JSON.stringify({ id, event: input.kind, timestamp: iso(now), data: input.data });
  stmt(sqlite, "INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .run(id, input.teamId, input.routeId, input.messageId ?? null, input.kind, body, now);
  if (input.routeId) {
    const hooks = stmt<{ id: string; events: string }, [string]>(sqlite, "SELECT id, events FROM webhooks WHERE route_id = ? AND enabled = 1")
      .all(input.routeId);
    for (const hook of hooks) {
      const kinds = JSON.parse(hook.events) as string[];
      if (kinds.includes(input.kind)) {
        queue.enqueue(WEBHOOK_QUEUE, { eventId: id, webhookId: hook.id } satisfies WebhookJob, { maxAttempts: 11, runAt: now });
      }
    }
  }
  return id;
}
