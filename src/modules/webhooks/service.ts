import { Value } from "@sinclair/typebox/value";
import type { Deps } from "../../context.ts";
import type { WebhookRow } from "../../db/webhooks.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { webhookSenderFor, type AttemptResult } from "../../events/webhook-post.ts";
import { forbiddenKind, inNetworks, parseCidr, parseIp } from "../../net/ip.ts";
import { reserveWebhookAttempt } from "../../events/webhook-job.ts";
import { iso, newId, newToken, TOKEN_PREFIX } from "../../ids.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import {
  serializeDelivery,
  serializeDeliveryDetail,
  serializeWebhook,
  serializeWebhookWithSecret,
  type CreateWebhookBody,
  type DeliveryDetail,
  type TestResultData,
  type UpdateWebhookBody,
  type WebhookData,
  type WebhookWithSecret,
  WEBHOOK_URL_MAX,
  WebhookUrl,
} from "./model.ts";

type Ctx = Pick<Deps, "store" | "config">;

const newSecret = () => newToken(TOKEN_PREFIX.webhookSecret);

/**
 * Checks a target URL and returns the form that is stored and shown: https only, not an IP
 * literal in a refused range (hostnames are checked again on every delivery, against what they
 * resolve to then), normalised by the URL parser (IDN host as punycode, path percent-encoded) and
 * valid under the response's own schema, so what is stored is exactly what every answer shows.
 */
export function normalizeWebhookUrl(raw: string, allowedNetworks: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw ValidationError.field("url", "The url field must be a valid absolute https:// URL.");
  }
  if (url.protocol !== "https:") {
    throw ValidationError.field("url", "The url field must use https://; webhooks are only delivered over HTTPS.");
  }
  if (!url.hostname) throw ValidationError.field("url", "The url field must name a host.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (parseIp(host) && !inNetworks(host, allowedNetworks.map(parseCidr))) {
    const kind = forbiddenKind(host);
    if (kind) {
      throw ValidationError.field(
        "url",
        `The url field points to a ${kind} address; webhooks may only target public addresses unless POSTHORN_WEBHOOK_ALLOWED_NETWORKS includes it.`,
      );
    }
  }
  const href = url.href;
  if (href.length > WEBHOOK_URL_MAX) {
    throw ValidationError.field("url", `The url field must be at most ${WEBHOOK_URL_MAX} characters once normalised (it is ${href.length}: ${href.slice(0, 80)}…).`);
  }
  if (!Value.Check(WebhookUrl, href)) throw ValidationError.field("url", "The url field must be a valid absolute https:// URL.");
  return href;
}

const uniqueKinds = (events: readonly string[]) => [...new Set(events)];

async function findWebhook(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<WebhookRow> {
  const row = await deps.store.read.webhooks.findOfTeam(id, teamId);
  if (!row) throw new NotFoundError("Webhook");
  return row;
}

const unknownRoute = () => ValidationError.field("route_id", "The selected route_id is invalid: this team has no route with that ID.");

export async function createWebhook(deps: Ctx, teamId: string, body: CreateWebhookBody): Promise<WebhookWithSecret> {
  const routeId = await deps.store.read.routes.idOfTeam(body.route_id, teamId);
  if (!routeId) throw unknownRoute();
  const name = body.name.trim();
  if (!name) throw ValidationError.field("name", "The name field must not be blank.");
  const url = normalizeWebhookUrl(body.url, deps.config.webhookAllowedNetworks);

  const now = Date.now();
  const row: WebhookRow = {
    id: newId(),
    team_id: teamId,
    route_id: routeId,
    name,
    url,
    events: JSON.stringify(uniqueKinds(body.events)),
    enabled: body.enabled === false ? 0 : 1,
    include_machine_events: body.include_machine_events === true ? 1 : 0,
    secret: newSecret(),
    disabled_reason: null,
    last_called_at: null,
    created_at: now,
    updated_at: now,
  };
  await deps.store.write(async (tx) => {
    // Again inside the transaction: the route may have been deleted since.
    if (!(await tx.routes.idOfTeam(routeId, teamId))) throw unknownRoute();
    await tx.webhooks.insert(row);
  });
  return serializeWebhookWithSecret(row);
}

const WEBHOOK_SORT = { created_at: "created_at", updated_at: "updated_at", name: "name" };

export async function listWebhooks(deps: Pick<Deps, "store">, teamId: string, query: Record<string, unknown>) {
  const sort = parseSort(query.sort as string | undefined, WEBHOOK_SORT, "-created_at");
  const page = parsePage(query, sort.length);
  const enabled = query["filter[enabled]"] as string | undefined;
  const result = await deps.store.read.webhooks.list(
    teamId,
    { routeId: (query["filter[route_id]"] as string | undefined) || undefined, enabled: enabled ? enabled === "true" : undefined },
    { sort, size: page.size, cursor: page.cursor },
  );
  return { page: result, data: result.rows.map(serializeWebhook), size: page.size };
}

export async function getWebhook(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<WebhookData> {
  return serializeWebhook(await findWebhook(deps, teamId, id));
}

export async function updateWebhook(deps: Ctx, teamId: string, id: string, body: UpdateWebhookBody): Promise<WebhookData> {
  const current = await findWebhook(deps, teamId, id);
  const next = { ...current };
  if (body.name !== undefined) {
    next.name = body.name.trim();
    if (!next.name) throw ValidationError.field("name", "The name field must not be blank.");
  }
  if (body.url !== undefined) {
    next.url = normalizeWebhookUrl(body.url, deps.config.webhookAllowedNetworks); // the secret stays: only regenerate-secret changes it
  }
  if (body.events !== undefined) next.events = JSON.stringify(uniqueKinds(body.events));
  if (body.enabled !== undefined && body.enabled !== null) {
    next.enabled = body.enabled ? 1 : 0;
    // Re-enabling clears the service's reason; disabling an already disabled webhook keeps it.
    if (body.enabled || current.enabled) next.disabled_reason = null;
  }
  if (body.include_machine_events !== undefined && body.include_machine_events !== null) next.include_machine_events = body.include_machine_events ? 1 : 0;
  next.updated_at = Date.now();
  const updated = await deps.store.write((tx) => tx.webhooks.update(id, teamId, next));
  if (!updated) throw new NotFoundError("Webhook");
  return serializeWebhook(updated);
}

export async function deleteWebhook(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<void> {
  // Queued deliveries for it are dropped when their job finds the webhook gone.
  if (!(await deps.store.write((tx) => tx.webhooks.delete(id, teamId)))) throw new NotFoundError("Webhook");
}

/** A new secret, effective at once: every later attempt, including queued retries, signs with it. */
export async function regenerateSecret(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<WebhookWithSecret> {
  const row = await deps.store.write((tx) => tx.webhooks.setSecret(id, teamId, newSecret(), Date.now()));
  if (!row) throw new NotFoundError("Webhook");
  return serializeWebhookWithSecret(row);
}

/**
 * Sends a signed webhook.test event to the webhook now (enabled or not) and records the attempt.
 * The event goes to this webhook only, not to the route's other webhooks.
 */
export async function testWebhook(deps: Deps, teamId: string, id: string): Promise<TestResultData> {
  const hook = await findWebhook(deps, teamId, id);
  const eventId = newId();
  const createdAt = Date.now();
  const body = JSON.stringify({
    id: eventId,
    event: "webhook.test",
    timestamp: iso(createdAt),
    data: { webhook_id: hook.id, route_id: hook.route_id, message: "This is a test event from Posthorn." },
  });
  const result = await webhookSenderFor(deps).send({ url: hook.url, secret: hook.secret, event: "webhook.test", body, attempt: 1 });
  const deliveryId = await deps.store.write(async (tx) => {
    await tx.events.insert({ id: eventId, team_id: teamId, route_id: hook.route_id, message_id: null, kind: "webhook.test", body, created_at: createdAt });
    return tx.webhooks.recordAttempt({ webhookId: hook.id, eventId, event: "webhook.test", attempt: 1, result, nextAttemptAt: null });
  });
  return attemptData(result, eventId, deliveryId);
}

const attemptData = (result: AttemptResult, eventId: string, deliveryId: string | null): TestResultData => ({
  success: result.outcome === "succeeded",
  status_code: result.statusCode,
  duration_ms: result.durationMs,
  error: result.error,
  response_excerpt: result.responseExcerpt,
  event_id: eventId,
  delivery_id: deliveryId,
});

/**
 * Sends the event of one of the webhook's delivery attempts again, now: the stored body (same
 * event id, same bytes) signed afresh (new t), with the next attempt number, recorded as a new
 * attempt in the log. Like the test send it goes out whether the webhook is enabled or not (it
 * is asked for by hand); a 410 disables the webhook as any attempt's would. Queued retries of the
 * event are left to their schedule, with the numbers after it.
 */
export async function redeliver(deps: Deps, teamId: string, webhookId: string, deliveryId: string): Promise<TestResultData> {
  const hook = await findWebhook(deps, teamId, webhookId);
  const delivery = await deps.store.read.webhooks.findDelivery(deliveryId, hook.id);
  if (!delivery) throw new NotFoundError("Webhook delivery");
  // The event's body may have been purged by retention since.
  const eventId = delivery.event_id;
  const event = await deps.store.read.events.find(eventId);
  if (!event?.body) throw new NotFoundError("Event");
  // Redeliveries made at once, and the event's queued retries, each get their own number.
  const reserved = await reserveWebhookAttempt(deps.store, { webhookId: hook.id, eventId, event: event.kind });
  if (!reserved) throw new NotFoundError("Webhook");
  const result = await webhookSenderFor(deps).send({ url: hook.url, secret: hook.secret, event: event.kind, body: event.body, attempt: reserved.attempt });
  const recorded = await deps.store.write((tx) => tx.webhooks.completeAttempt(reserved.id, hook.id, result));
  return attemptData(result, eventId, recorded ? reserved.id : null);
}

/** One of the webhook's attempts, with the body it sent (from the event, while retention keeps it). */
export async function getDelivery(deps: Pick<Deps, "store">, teamId: string, webhookId: string, deliveryId: string): Promise<DeliveryDetail> {
  const hook = await findWebhook(deps, teamId, webhookId);
  const delivery = await deps.store.read.webhooks.findDelivery(deliveryId, hook.id);
  if (!delivery) throw new NotFoundError("Webhook delivery");
  const event = await deps.store.read.events.find(delivery.event_id);
  return serializeDeliveryDetail(delivery, event?.body ?? null);
}

/** A webhook's attempts, newest first, with filters. */
export async function listDeliveries(deps: Pick<Deps, "store">, teamId: string, webhookId: string, query: Record<string, unknown>) {
  await findWebhook(deps, teamId, webhookId);
  const sort = parseSort(undefined, { created_at: "created_at" }, "-created_at");
  const page = parsePage(query, sort.length);
  const result = await deps.store.read.webhooks.listDeliveries(
    webhookId,
    {
      event: (query["filter[event]"] as string | undefined) || undefined,
      outcome: (query["filter[outcome]"] as string | undefined) || undefined,
      eventId: (query["filter[event_id]"] as string | undefined) || undefined,
    },
    { sort, size: page.size, cursor: page.cursor },
  );
  return { page: result, data: result.rows.map(serializeDelivery), size: page.size };
}
