import type { Audience } from "../db/events.ts";
import type { Repositories } from "../db/store.ts";
import { iso, newId } from "../ids.ts";

export const WEBHOOK_QUEUE = "webhook";
/** Attempts of a webhook delivery (the first and ten retries; docs/webhooks.md). */
export const WEBHOOK_MAX_ATTEMPTS = 11;

/** Every event kind a webhook may subscribe to (docs/webhooks.md, Event kinds). */
export const EVENT_KINDS = [
  "message.created",
  "message.scheduled",
  "message.rescheduled",
  "message.canceled",
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
  "deliverability.listed",
  "deliverability.delisted",
  "suppression.added",
  "suppression.removed",
  "webhook.test",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface EventInput {
  teamId: string;
  routeId: string | null;
  messageId?: string | null;
  kind: EventKind;
  data: Record<string, unknown>;
  /** A tracking hit classified as a machine: sent only to webhooks with include_machine_events. */
  machine?: boolean;
  /** Without a route: whose webhooks get it (src/db/events.ts Audience); absent, the route's. */
  audience?: Audience;
}

export interface WebhookJob {
  eventId: string;
  webhookId: string;
}

/**
 * Queues one delivery job per enabled webhook of the event's route subscribed to its kind, and
 * records the event for them (none subscribed: nothing is stored; the id names no row). Call it
 * with the transaction (`store.write`) that makes the change the event describes, so the change
 * and its notifications commit together or not at all.
 * The body is serialized here, once; those bytes are what is signed and sent.
 */
export async function publishEvent(tx: Repositories, input: EventInput, now = Date.now()): Promise<string> {
  const id = newId();
  const body = JSON.stringify({ id, event: input.kind, timestamp: iso(now), data: input.data });
  const event = { id, team_id: input.teamId, route_id: input.routeId, message_id: input.messageId ?? null, kind: input.kind, body, created_at: now };
  await tx.events.record(event, { queue: WEBHOOK_QUEUE, maxAttempts: WEBHOOK_MAX_ATTEMPTS, machine: input.machine === true, audience: input.audience });
  return id;
}
