import type { Deps } from "../../context.ts";
import { MESSAGE_EVENT_SORT, messageListSql, type MessageListFilter } from "../../db/messages.ts";
import { fieldErrors, NotFoundError, SealedContentError, ValidationError } from "../../errors.ts";
import { LIMITS } from "../../sending/limits.ts";
import { TAG_NAME, TAG_VALUE } from "../../sending/validation.ts";
import { parsePage, parseSort } from "../../http/pagination.ts";
import { iso } from "../../ids.ts";
import { parseDateFilter } from "../../http/schemas.ts";
import { throwIfPurged } from "../retention/service.ts";
import { serializeListItem, type MessageData, type MessageListQuery } from "./model.ts";

type Ctx = Pick<Deps, "store">;

/** Sort key → column. Every list is keyed on (sort…, id), so pages hold still while mail arrives. */
const MESSAGE_SORT: Record<string, string> = {
  type: "type",
  status: "status",
  from_email: "from_email",
  subject: "subject",
  created_at: "created_at",
  status_changed_at: "status_changed_at",
  // Messages sent at once have none: they sort as the earliest (src/db/messages.ts, sortColumn).
  scheduled_at: "scheduled_at",
};

/** The list query's filters, sort and page, checked (422 on a bad value). */
function parseMessageList(q: MessageListQuery) {
  const sort = parseSort(q.sort, MESSAGE_SORT, "-created_at");
  const page = parsePage(q, sort.length);
  const from = parseDateFilter("filter[from_date]", q["filter[from_date]"]);
  const to = parseDateFilter("filter[to_date]", q["filter[to_date]"], true);
  if (from !== null && to !== null && from > to) {
    throw ValidationError.field("filter[to_date]", "The filter[to_date] field must be a date on or after filter[from_date].");
  }
  const filter: MessageListFilter = {
    type: q["filter[type]"],
    status: q["filter[status]"],
    routeId: q["filter[route_id]"]?.toLowerCase(),
    domainId: q["filter[domain_id]"]?.toLowerCase(),
    tag: q["filter[tag]"],
    tags: tagPairs(q),
    fromEmailContains: q["filter[from_email]"],
    subjectContains: q["filter[subject]"],
    createdFrom: from,
    createdTo: to,
  };
  return { filter, sort, page };
}

/** At most this many name-value pairs in a list's tag filter (filter[tags][0] to [19]). */
const MAX_TAG_PAIRS = LIMITS.tags;

/**
 * filter[tags][n][name] and filter[tags][n][value] (n from 0 to 19), the pairs in the order of n;
 * a value needs its name. A name or value no tag can have is a 422, as other filters' are.
 */
function tagPairs(q: Record<string, unknown>): { name: string; value?: string }[] | undefined {
  const byIndex = new Map<number, { name?: string; value?: string }>();
  const errors = fieldErrors();
  for (const [key, raw] of Object.entries(q)) {
    const m = /^filter\[tags\]\[(\d+)\]\[(name|value)\]$/.exec(key);
    if (!m) continue;
    const n = Number(m[1]);
    if (m[1]!.length > 2 || n >= MAX_TAG_PAIRS) {
      errors[key] = [`At most ${MAX_TAG_PAIRS} tag pairs can be filtered on: filter[tags][0] to filter[tags][${MAX_TAG_PAIRS - 1}].`];
      continue;
    }
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    const pattern = m[2] === "name" ? TAG_NAME : TAG_VALUE;
    if (typeof value !== "string" || !pattern.test(value)) {
      errors[key] = [`The ${key} field must be 1 to ${m[2] === "name" ? 32 : 64} ASCII letters, digits, underscores or hyphens.`];
      continue;
    }
    byIndex.set(n, { ...byIndex.get(n), [m[2]!]: value });
  }
  for (const [n, pair] of byIndex) {
    if (pair.name === undefined) errors[`filter[tags][${n}][name]`] = [`filter[tags][${n}][value] needs filter[tags][${n}][name].`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (byIndex.size === 0) return undefined;
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, p]) => (p.value === undefined ? { name: p.name! } : { name: p.name!, value: p.value }));
}

/** The SQL behind one page of the team's messages, for the benchmark's and a test's EXPLAIN. */
export function messageListQuery(teamId: string, q: MessageListQuery) {
  const { filter, sort, page } = parseMessageList(q);
  return { ...messageListSql(teamId, filter, "sqlite", sort), page };
}

/** One page of the team's messages (MessageListData), with the spec's filters and sort keys. */
export async function listMessages(deps: Ctx, teamId: string, q: MessageListQuery) {
  const { filter, sort, page } = parseMessageList(q);
  const result = await deps.store.read.messages.list(teamId, filter, { sort, size: page.size, cursor: page.cursor });
  return { page: result, data: result.rows.map(serializeListItem), size: page.size };
}

/** MessageData of one of the team's messages, with its attachments' metadata (not their content). */
export async function getMessage(deps: Ctx, teamId: string, messageId: string): Promise<MessageData> {
  const r = await deps.store.read.messages.findOfTeam(messageId, teamId);
  if (!r) throw new NotFoundError("Message");
  const attachments = await deps.store.read.messages.attachmentsOf(messageId);
  const item = serializeListItem(r);
  return {
    id: item.id,
    type: item.type,
    status: item.status,
    status_changed_at: iso(r.status_changed_at)!,
    scheduled_at: item.scheduled_at,
    tag: item.tag,
    tags: item.tags,
    from_email: item.from_email,
    from_name: item.from_name,
    reply_to: item.reply_to,
    subject: item.subject,
    to: item.to,
    cc: item.cc,
    bcc: item.bcc,
    attachments: attachments.map((a) => ({ size: a.size, filename: a.filename, content_id: a.content_id, content_type: a.content_type })),
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    route_id: r.route_id,
    created_at: item.created_at,
    spam_score: r.spam_score,
    spam_symbols: r.spam_symbols ? (JSON.parse(r.spam_symbols) as MessageData["spam_symbols"]) : [],
  };
}

async function assertMessage(deps: Ctx, teamId: string, messageId: string): Promise<void> {
  if (!(await deps.store.read.messages.existsOfTeam(messageId, teamId))) throw new NotFoundError("Message");
}

/** The team's message, whose content it may read: a 410 for a sealed one (a report forwarding code's mail). */
async function assertReadableContent(deps: Ctx, teamId: string, messageId: string, resource: string): Promise<void> {
  await assertMessage(deps, teamId, messageId);
  if (await deps.store.read.messageContents.sealed(messageId)) throw new SealedContentError(resource);
}

/**
 * Posthorn's history kinds as the service names a message event (Lettermint's MessageEventType):
 * the kind without its `message.` prefix where the names agree, else the nearest. Posthorn's own
 * kind stays beside it as `kind`.
 */
const SERVICE_EVENT: Readonly<Record<string, string>> = {
  "message.created": "queued", // accepted: waiting for its first attempt
  "message.queued": "queued",
  "message.sent": "processed", // handed to the first attempt
  "message.report_received": "processed", // a report (DSN, ARF, …) that changed no status
  "message.bounced": "soft_bounced",
  "message.inbound": "inbound_received",
};
const SERVICE_EVENT_TYPES: ReadonlySet<string> = new Set([
  "scheduled", "rescheduled", "canceled", "released", "queued", "processed", "suppressed", "delivered", "auto_replied",
  "soft_bounced", "hard_bounced", "spam_complaint", "failed", "blocked", "policy_rejected", "unsubscribed", "opened", "clicked",
  "inbound_received", "inbound_queued", "inbound_spam_blocked", "inbound_released", "inbound_processed", "inbound_retry",
]);

/** The service's event type for a history entry of Posthorn's `kind` (with `status`, when it set one). */
export function serviceEventType(kind: string, status: string | null): string {
  // A message sent with scheduled_at is created scheduled (src/sending/scheduled-job.ts).
  if (kind === "message.created" && status === "scheduled") return "scheduled";
  const mapped = SERVICE_EVENT[kind];
  if (mapped) return mapped;
  const bare = kind.startsWith("message.") ? kind.slice("message.".length) : kind;
  if (SERVICE_EVENT_TYPES.has(bare)) return bare;
  if (status && SERVICE_EVENT_TYPES.has(status)) return status;
  return "processed";
}

/** The message's history (status changes and engagement), oldest first. */
export async function listMessageEvents(deps: Ctx, teamId: string, messageId: string, query: Record<string, unknown>) {
  const message = await deps.store.read.messages.findOfTeam(messageId, teamId);
  if (!message) throw new NotFoundError("Message");
  const page = parsePage(query, MESSAGE_EVENT_SORT.length);
  const result = await deps.store.read.messages.events(messageId, page);
  const metadata = JSON.parse(message.metadata) as Record<string, string>;
  const tags = JSON.parse(message.tags) as { name: string; value: string }[];
  const data = result.rows.map((e) => ({
    id: e.id,
    event: serviceEventType(e.kind, e.status),
    kind: e.kind,
    status: e.status,
    recipient: e.recipient,
    data: JSON.parse(e.data) as Record<string, unknown>,
    created_at: iso(e.created_at)!,
    // Lettermint's MessageEventData beside Posthorn's fields (event is the service's type, kind Posthorn's).
    message_id: messageId,
    tag: message.tag,
    tags,
    metadata,
    timestamp: iso(e.created_at)!,
  }));
  return { page: result, data, size: page.size };
}

/** The exact MIME as sent or received; 404 while none is stored (e.g. not composed yet). */
export async function getMessageSource(deps: Ctx, teamId: string, messageId: string): Promise<Uint8Array> {
  await assertReadableContent(deps, teamId, messageId, "Message source");
  const raw = await deps.store.read.messages.rawSource(messageId);
  if (!raw) {
    await throwIfPurged(deps, messageId, "Message source");
    throw new NotFoundError("Message source");
  }
  return raw;
}

/** Each recipient's own status (the message's is their aggregate). */
export async function listMessageRecipients(deps: Ctx, teamId: string, messageId: string): Promise<{ email: string; status: string }[]> {
  await assertMessage(deps, teamId, messageId);
  return (await deps.store.read.messages.recipientsOf(messageId)).map((r) => ({ email: r.email, status: r.status }));
}

/** The message's plain-text part; 404 when it has none. */
export async function getMessageText(deps: Ctx, teamId: string, messageId: string): Promise<string> {
  await assertReadableContent(deps, teamId, messageId, "Message text");
  const text = await deps.store.read.messageContents.text(messageId);
  if (text === null) {
    await throwIfPurged(deps, messageId, "Message text");
    throw new NotFoundError("Message text");
  }
  return text;
}

/** The message's HTML part; 404 when it has none. */
export async function getMessageHtml(deps: Ctx, teamId: string, messageId: string): Promise<string> {
  await assertReadableContent(deps, teamId, messageId, "Message HTML");
  const html = await deps.store.read.messageContents.html(messageId);
  if (html === null) {
    await throwIfPurged(deps, messageId, "Message HTML");
    throw new NotFoundError("Message HTML");
  }
  return html;
}
