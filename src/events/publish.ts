import type { Repositories } from "../db/store.ts";
import { iso, newId } from "../ids.ts";

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
 * its kind. Call it with the transaction (`store.write`) that makes the change the event
 * describes, so the change and its notifications commit together or not at all.
 * The body is serialized here, once; those bytes are what is signed and sent.
 */
export async function publishEvent(tx: Repositories, input: EventInput, now = Date.now()): Promise<string> {
  const id = newId();
  const body = JSON.stringify({ id, event: input.kind, timestamp: iso(now), data: input.data });
  const hooks = await tx.events.record({ id, team_id: input.teamId, route_id: input.routeId, message_id: input.messageId ?? null, kind: input.kind, body, created_at: now });
  for (const hook of hooks) {
    const kinds = JSON.parse(hook.events) as string[];
    if (kinds.includes(input.kind)) {
      await tx.jobs.enqueue(WEBHOOK_QUEUE, { eventId: id, webhookId: hook.id } satisfies WebhookJob, { maxAttempts: 11, runAt: now });
    }
  }
  return id;
}
