import type { Database } from "bun:sqlite";
import { Value } from "@sinclair/typebox/value";
import type { Deps } from "../../context.ts";
import { keysetPage } from "../../db/keyset.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { webhookSenderFor } from "../../events/deliver.ts";
import { recordAttempt } from "../../events/webhook-job.ts";
import { forbiddenKind, inNetworks, parseCidr, parseIp } from "../../events/ssrf.ts";
import { iso, newId, newToken, TOKEN_PREFIX } from "../../ids.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import {
  serializeDelivery,
  serializeWebhook,
  serializeWebhookWithSecret,
  type CreateWebhookBody,
  type DeliveryRow,
  type TestResultData,
  type UpdateWebhookBody,
  type WebhookData,
  type WebhookRow,
  type WebhookWithSecret,
  WEBHOOK_URL_MAX,
  WebhookUrl,
} from "./model.ts";

type Ctx = Pick<Deps, "sqlite" | "writer" | "config">;

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

function findWebhook(sqlite: Database, teamId: string, id: string): WebhookRow {
  const row = sqlite.query<WebhookRow, [string, string]>("SELECT * FROM webhooks WHERE id = ? AND team_id = ?").get(id, teamId);
  if (!row) throw new NotFoundError("Webhook");
  return row;
}

export async function createWebhook(deps: Ctx, teamId: string, body: CreateWebhookBody): Promise<WebhookWithSecret> {
  const route = deps.sqlite.query<{ id: string }, [string, string]>("SELECT id FROM routes WHERE id = ? AND team_id = ?").get(body.route_id, teamId);
  if (!route) throw ValidationError.field("route_id", "The selected route_id is invalid: this team has no route with that ID.");
  const name = body.name.trim();
  if (!name) throw ValidationError.field("name", "The name field must not be blank.");
  const url = normalizeWebhookUrl(body.url, deps.config.webhookAllowedNetworks);

  const now = Date.now();
  const row: WebhookRow = {
    id: newId(),
    team_id: teamId,
    route_id: route.id,
    name,
    url,
    events: JSON.stringify(uniqueKinds(body.events)),
    enabled: body.enabled === false ? 0 : 1,
    secret: newSecret(),
    disabled_reason: null,
    last_called_at: null,
    created_at: now,
    updated_at: now,
  };
  await deps.writer.write(() =>
    deps.sqlite
      .query(
        `INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, secret, disabled_reason, last_called_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?)`,
      )
      .run(row.id, row.team_id, row.route_id, row.name, row.url, row.events, row.enabled, row.secret, now, now),
  );
  return serializeWebhookWithSecret(row);
}

const WEBHOOK_SORT = { created_at: "created_at", updated_at: "updated_at", name: "name" };

export function listWebhooks(sqlite: Database, teamId: string, query: Record<string, unknown>) {
  const sort = parseSort(query.sort as string | undefined, WEBHOOK_SORT, "-created_at");
  const page = parsePage(query, sort.length);
  const where = ["team_id = ?"];
  const params: (string | number)[] = [teamId];
  const routeId = query["filter[route_id]"] as string | undefined;
  if (routeId) {
    where.push("route_id = ?");
    params.push(routeId);
  }
  const enabled = query["filter[enabled]"] as string | undefined;
  if (enabled) {
    where.push("enabled = ?");
    params.push(enabled === "true" ? 1 : 0);
  }
  const columns = sort.map((k) => k.column);
  const result = keysetPage<WebhookRow>(sqlite, {
    select: "SELECT * FROM webhooks",
    where,
    params,
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => columns.map((c) => (row as unknown as Record<string, string | number>)[c]!),
  });
  return { page: result, data: result.rows.map(serializeWebhook), size: page.size };
}

export function getWebhook(sqlite: Database, teamId: string, id: string): WebhookData {
  return serializeWebhook(findWebhook(sqlite, teamId, id));
}

export async function updateWebhook(deps: Ctx, teamId: string, id: string, body: UpdateWebhookBody): Promise<WebhookData> {
  const current = findWebhook(deps.sqlite, teamId, id);
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
  next.updated_at = Date.now();
  const updated = await deps.writer.write(() =>
    deps.sqlite
      .query<WebhookRow, (string | number | null)[]>(
        `UPDATE webhooks SET name = ?, url = ?, events = ?, enabled = ?, disabled_reason = ?, updated_at = ?
         WHERE id = ? AND team_id = ? RETURNING *`,
      )
      .get(next.name, next.url, next.events, next.enabled, next.disabled_reason, next.updated_at, id, teamId),
  );
  if (!updated) throw new NotFoundError("Webhook");
  return serializeWebhook(updated);
}

export async function deleteWebhook(deps: Ctx, teamId: string, id: string): Promise<void> {
  // Queued deliveries for it are dropped when their job finds the webhook gone.
  const changes = await deps.writer.write(() => deps.sqlite.query("DELETE FROM webhooks WHERE id = ? AND team_id = ?").run(id, teamId).changes);
  if (changes === 0) throw new NotFoundError("Webhook");
}

/** A new secret, effective at once: every later attempt, including queued retries, signs with it. */
export async function regenerateSecret(deps: Ctx, teamId: string, id: string): Promise<WebhookWithSecret> {
  findWebhook(deps.sqlite, teamId, id);
  const secret = newSecret();
  const now = Date.now();
  const row = await deps.writer.write(() =>
    deps.sqlite
      .query<WebhookRow, [string, number, string, string]>("UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ? AND team_id = ? RETURNING *")
      .get(secret, now, id, teamId),
  );
  if (!row) throw new NotFoundError("Webhook");
  return serializeWebhookWithSecret(row);
}

/**
 * Sends a signed webhook.test event to the webhook now (enabled or not) and records the attempt.
 * The event goes to this webhook only, not to the route's other webhooks.
 */
export async function testWebhook(deps: Deps, teamId: string, id: string): Promise<TestResultData> {
  const hook = findWebhook(deps.sqlite, teamId, id);
  const eventId = newId();
  const createdAt = Date.now();
  const body = JSON.stringify({
    id: eventId,
    event: "webhook.test",
    timestamp: iso(createdAt),
    data: { webhook_id: hook.id, route_id: hook.route_id, message: "This is a test event from Posthorn." },
  });
  const result = await webhookSenderFor(deps).send({ url: hook.url, secret: hook.secret, event: "webhook.test", body, attempt: 1 });
  const deliveryId = await deps.writer.write(() => {
    deps.sqlite
      .query("INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, NULL, 'webhook.test', ?, ?)")
      .run(eventId, teamId, hook.route_id, body, createdAt);
    return recordAttempt(deps.sqlite, { webhookId: hook.id, eventId, event: "webhook.test", attempt: 1, result, nextAttemptAt: null });
  });
  return {
    success: result.outcome === "succeeded",
    status_code: result.statusCode,
    duration_ms: result.durationMs,
    error: result.error,
    response_excerpt: result.responseExcerpt,
    event_id: eventId,
    delivery_id: deliveryId,
  };
}

/** A webhook's attempts, newest first, with filters. */
export function listDeliveries(sqlite: Database, teamId: string, webhookId: string, query: Record<string, unknown>) {
  findWebhook(sqlite, teamId, webhookId);
  const sort = parseSort(undefined, { created_at: "created_at" }, "-created_at");
  const page = parsePage(query, sort.length);
  const where = ["webhook_id = ?"];
  const params: string[] = [webhookId];
  for (const [filter, column] of [
    ["filter[event]", "event"],
    ["filter[outcome]", "outcome"],
    ["filter[event_id]", "event_id"],
  ] as const) {
    const v = query[filter] as string | undefined;
    if (v) {
      where.push(`${column} = ?`);
      params.push(v);
    }
  }
  const result = keysetPage<DeliveryRow>(sqlite, {
    select: "SELECT * FROM webhook_deliveries",
    where,
    params,
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => [row.created_at, row.id],
  });
  return { page: result, data: result.rows.map(serializeDelivery), size: page.size };
}
