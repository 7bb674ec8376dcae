/**
 * Accepting outbound mail: validation, idempotency, suppressions, and the durable write that a
 * 202 (or an SMTP 250) stands for. Free of HTTP: the send controller and the SMTP submission
 * listener both call acceptMessages.
 */
import type { Database } from "bun:sqlite";
import { extname } from "node:path";
import { detectMimeType } from "nodemailer/lib/mime-funcs";
import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import type { Address } from "../../db/schema.ts";
import { ConflictError, ValidationError, fieldErrors } from "../../errors.ts";
import { changeRecipientStatus, suppressedAmong, type MessageStatus } from "../../events/message-status.ts";
import { publishEvent } from "../../events/publish.ts";
import { isUuid, newId, sha256Hex } from "../../ids.ts";
import { parseAddress, type ParsedAddress } from "../../mail/address.ts";
import { OUTBOUND_MAX_ATTEMPTS, OUTBOUND_QUEUE, type OutboundJob } from "../../mail/outbound-job.ts";
import { stmt } from "../../db/statements.ts";
import { LIMITS } from "./limits.ts";
import { emptyDict } from "../../dict.ts";

/** One email as the send endpoints take it (the spec's single-send body). */
export interface SendInput {
  from: string;
  subject: string;
  to: string[];
  route?: string | null;
  tag?: string | null;
  html?: string | null;
  text?: string | null;
  cc?: string[] | null;
  bcc?: string[] | null;
  reply_to?: string[] | null;
  headers?: Record<string, string> | null;
  metadata?: Record<string, string> | null;
  attachments?: { filename: string; content: string; content_id?: string | null; content_type?: string | null }[] | null;
}

export interface SendPrincipal {
  teamId: string;
  projectId: string;
}

export interface AcceptOptions {
  /** Idempotency-Key (1–255 characters), scoped to the project, kept 24 h. */
  idempotencyKey?: string | null;
  /** Fingerprint of the request; defaults to a hash of `inputs`. Same key + other hash → 409. */
  requestHash?: string | null;
  /** Key validation errors by item index ("3.subject"), as the batch endpoint does. */
  batch?: boolean;
}

export interface AcceptedMessage {
  message_id: string;
  /** pending, or suppressed when every recipient is suppressed. */
  status: MessageStatus;
}

/**
 * Headers a caller may not set: the ones the service writes itself (addresses, subject, date,
 * ids, signature, envelope) and the MIME structure headers the composer owns.
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "dkim-signature",
  "return-path",
  "received",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
]);
const LIST_UNSUBSCRIBE_HEADERS: ReadonlySet<string> = new Set(["list-unsubscribe", "list-unsubscribe-post"]);

const HEADER_NAME = /^[!-9;-~]+$/;
const CONTENT_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const LINE_BREAK = /[\r\n\0]/;

/** A validated email, ready to store. */
interface PreparedEmail {
  index: number;
  from: ParsedAddress;
  subject: string;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: string[];
  route: string | null;
  tag: string | null;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  attachments: { filename: string; contentType: string; contentId: string | null; content: Buffer }[];
  /** Distinct recipients, first mention wins: to, then cc, then bcc. */
  recipients: { email: string; kind: "to" | "cc" | "bcc" }[];
}

type Errors = Record<string, string[]>;
const add = (errors: Errors, path: string, message: string) => void (errors[path] ??= []).push(message);

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string");

function addressList(errors: Errors, path: string, value: unknown, opts: { required?: boolean; max: number }): ParsedAddress[] {
  if (value === undefined || value === null) {
    if (opts.required) add(errors, path, `The ${path.split(".").pop()} field is required.`);
    return [];
  }
  if (!isStringArray(value)) {
    add(errors, path, `The ${path.split(".").pop()} field must be an array of email addresses.`);
    return [];
  }
  if (opts.required && value.length === 0) add(errors, path, `The ${path.split(".").pop()} field must contain at least one address.`);
  if (value.length > opts.max) {
    add(errors, path, `The ${path.split(".").pop()} field may contain at most ${opts.max} addresses.`);
    return [];
  }
  const out: ParsedAddress[] = [];
  value.forEach((raw, i) => {
    const a = parseAddress(raw);
    if (a) out.push(a);
    else add(errors, `${path}.${i}`, `${JSON.stringify(String(raw).slice(0, 100))} is not a valid email address.`);
  });
  return out;
}

/** Everything that can be checked without the database. Errors are keyed under `p` ("" or "3."). */
function prepareEmail(input: SendInput, index: number, p: string, maxBytes: number, errors: Errors): PreparedEmail | null {
  const before = Object.keys(errors).length;
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    add(errors, p ? p.slice(0, -1) : "body", "Each email must be an object.");
    return null;
  }
  const from = parseAddress(input.from);
  if (!from) add(errors, `${p}from`, 'The from field must be an email address, optionally with a name: "Name <user@example.com>".');

  let subject = "";
  if (typeof input.subject !== "string") add(errors, `${p}subject`, "The subject field is required.");
  else if (input.subject.length > LIMITS.subject) add(errors, `${p}subject`, `The subject may not be longer than ${LIMITS.subject} characters.`);
  else if (LINE_BREAK.test(input.subject)) add(errors, `${p}subject`, "The subject may not contain line breaks.");
  else subject = input.subject;

  const to = addressList(errors, `${p}to`, input.to, { required: true, max: LIMITS.recipients });
  const cc = addressList(errors, `${p}cc`, input.cc, { max: LIMITS.recipients });
  const bcc = addressList(errors, `${p}bcc`, input.bcc, { max: LIMITS.recipients });
  const replyTo = addressList(errors, `${p}reply_to`, input.reply_to, { max: LIMITS.replyTo });

  let tag: string | null = null;
  if (input.tag !== undefined && input.tag !== null) {
    if (typeof input.tag !== "string" || input.tag.length > LIMITS.tag || !/^[A-Za-z0-9_ -]*$/.test(input.tag)) {
      add(errors, `${p}tag`, `The tag may contain letters, digits, underscores, hyphens and spaces, at most ${LIMITS.tag} characters.`);
    } else tag = input.tag || null;
  }

  let route: string | null = null;
  if (input.route !== undefined && input.route !== null) {
    if (typeof input.route !== "string" || !input.route || input.route.length > 255) add(errors, `${p}route`, "The route field must be a route slug or id.");
    else route = input.route;
  }

  const body = (field: "html" | "text"): string | null => {
    const v = input[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== "string" || v.length < LIMITS.bodyMin) {
      add(errors, `${p}${field}`, `The ${field} field must be at least ${LIMITS.bodyMin} characters.`);
      return null;
    }
    return v;
  };
  const html = body("html");
  const text = body("text");
  if ((input.html === undefined || input.html === null) && (input.text === undefined || input.text === null)) {
    add(errors, `${p}html`, "Either html or text is required.");
  }

  const headers = emptyDict<string>();
  if (input.headers !== undefined && input.headers !== null) {
    if (!isStringRecord(input.headers)) add(errors, `${p}headers`, "The headers field must be an object of string values.");
    else {
      const entries = Object.entries(input.headers);
      // Past the limit nothing else is looked at: the answer is the same, and it stays O(limit).
      if (entries.length > LIMITS.headers) add(errors, `${p}headers`, `At most ${LIMITS.headers} custom headers are allowed.`);
      const seen = new Set<string>();
      for (const [name, value] of entries.length > LIMITS.headers ? [] : entries) {
        const path = `${p}headers.${name}`;
        if (!HEADER_NAME.test(name) || name.length > LIMITS.headerName) {
          add(errors, path, `${JSON.stringify(name.slice(0, 100))} is not a valid header name (printable ASCII without spaces or colons).`);
        } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
          add(errors, path, `The ${name} header is set by the service and cannot be overridden.`);
        } else if (LINE_BREAK.test(value)) {
          add(errors, path, `The ${name} header value may not contain line breaks.`);
        } else if (value.length > LIMITS.headerValue) {
          add(errors, path, `The ${name} header value may not be longer than ${LIMITS.headerValue} characters.`);
        } else if (seen.has(name.toLowerCase())) {
          add(errors, path, `The ${name} header is given twice.`);
        } else {
          seen.add(name.toLowerCase());
          headers[name] = value;
        }
      }
    }
  }

  const metadata = emptyDict<string>();
  if (input.metadata !== undefined && input.metadata !== null) {
    if (!isStringRecord(input.metadata)) add(errors, `${p}metadata`, "The metadata field must be an object of string values.");
    else {
      const entries = Object.entries(input.metadata);
      if (entries.length > LIMITS.metadataKeys) add(errors, `${p}metadata`, `At most ${LIMITS.metadataKeys} metadata keys are allowed.`);
      for (const [k, v] of entries.length > LIMITS.metadataKeys ? [] : entries) {
        if (!k || k.length > LIMITS.metadataKey) add(errors, `${p}metadata`, `Metadata keys must be 1 to ${LIMITS.metadataKey} characters.`);
        else if (v.length > LIMITS.metadataValue) add(errors, `${p}metadata.${k}`, `Metadata values may not be longer than ${LIMITS.metadataValue} characters.`);
        else metadata[k] = v;
      }
    }
  }

  const attachments: PreparedEmail["attachments"] = [];
  let bytes = Buffer.byteLength(html ?? "") + Buffer.byteLength(text ?? "");
  if (input.attachments !== undefined && input.attachments !== null) {
    if (!Array.isArray(input.attachments)) add(errors, `${p}attachments`, "The attachments field must be an array.");
    else if (input.attachments.length > LIMITS.attachments) add(errors, `${p}attachments`, `At most ${LIMITS.attachments} attachments are allowed.`);
    else {
      const cids = new Set<string>();
      input.attachments.forEach((a, i) => {
        const ap = `${p}attachments.${i}`;
        if (typeof a !== "object" || a === null) return add(errors, ap, "Each attachment must be an object.");
        const ok = Object.keys(errors).length;
        if (typeof a.filename !== "string" || !a.filename || a.filename.length > 255 || /[\0-\x1f\x7f]/.test(a.filename)) {
          add(errors, `${ap}.filename`, "The filename must be 1 to 255 characters without control characters.");
        }
        let content: Buffer | null = null;
        if (typeof a.content !== "string") add(errors, `${ap}.content`, "The content must be a base64 string.");
        else {
          const b64 = a.content.replace(/\s+/g, "");
          if (!BASE64.test(b64) || b64.length % 4 === 1) add(errors, `${ap}.content`, "The content must be valid base64.");
          else content = Buffer.from(b64, "base64");
        }
        let contentId: string | null = null;
        if (a.content_id !== undefined && a.content_id !== null) {
          const cid = typeof a.content_id === "string" ? a.content_id.replace(/^<(.*)>$/, "$1") : "";
          if (!cid || cid.length > 255 || !/^[\x21-\x7e]+$/.test(cid) || /[<>"]/.test(cid)) {
            add(errors, `${ap}.content_id`, "The content_id must be 1 to 255 printable characters without spaces, quotes or angle brackets.");
          } else if (cids.has(cid)) add(errors, `${ap}.content_id`, `The content_id ${cid} is used twice.`);
          else {
            cids.add(cid);
            contentId = cid;
          }
        }
        let contentType = "";
        if (a.content_type !== undefined && a.content_type !== null) {
          if (typeof a.content_type !== "string" || !CONTENT_TYPE.test(a.content_type) || a.content_type.length > 255) {
            add(errors, `${ap}.content_type`, "The content_type must be a MIME type such as image/png.");
          } else contentType = a.content_type.toLowerCase();
        }
        if (Object.keys(errors).length !== ok || !content) return;
        contentType ||= detectMimeType(extname(a.filename).slice(1).toLowerCase() || "bin");
        bytes += content.length;
        attachments.push({ filename: a.filename, contentType, contentId, content });
      });
    }
  }
  if (bytes > maxBytes) add(errors, `${p}attachments`, `The email is larger than the limit of ${maxBytes} bytes (html, text and decoded attachments).`);

  const seen = new Set<string>();
  const recipients: PreparedEmail["recipients"] = [];
  for (const [list, kind] of [
    [to, "to"],
    [cc, "cc"],
    [bcc, "bcc"],
  ] as const) {
    for (const a of list) {
      const key = a.email.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      recipients.push({ email: a.email, kind });
    }
  }
  if (recipients.length > LIMITS.recipients) add(errors, `${p}to`, `An email may have at most ${LIMITS.recipients} distinct recipients (to, cc and bcc together).`);

  if (Object.keys(errors).length !== before || !from) return null;
  const addr = (a: ParsedAddress): Address => ({ email: a.email, name: a.name });
  return {
    index,
    from,
    subject,
    to: to.map(addr),
    cc: cc.map(addr),
    bcc: bcc.map(addr),
    replyTo: replyTo.map((a) => (a.name ? `${JSON.stringify(a.name)} <${a.email}>` : a.email)),
    route,
    tag,
    html,
    text,
    headers,
    metadata,
    attachments,
    recipients,
  };
}

type RouteRow = { id: string; route_type: string };
type DomainRow = { id: string; status: string };

/** What the database says about a project's routes and domains, cached for one request. */
class ProjectLookup {
  private readonly routes = new Map<string, RouteRow | null>();
  private readonly domains = new Map<string, DomainRow | null>();

  constructor(
    private readonly sqlite: Database,
    private readonly principal: SendPrincipal,
  ) {}

  route(slugOrId: string | null): RouteRow | null {
    const key = slugOrId ?? "";
    if (this.routes.has(key)) return this.routes.get(key)!;
    // The project's default transactional route; an ORDER BY (a sort on every request) only if it
    // has none.
    const row =
      slugOrId === null
        ? (stmt<RouteRow, [string]>(
            this.sqlite,
            "SELECT id, route_type FROM routes WHERE project_id = ? AND route_type = 'transactional' AND is_default = 1 LIMIT 1",
          ).get(this.principal.projectId) ??
          stmt<RouteRow, [string]>(
            this.sqlite,
            "SELECT id, route_type FROM routes WHERE project_id = ? AND route_type = 'transactional' ORDER BY created_at LIMIT 1",
          ).get(this.principal.projectId))
        : stmt<RouteRow, [string, string, string]>(
            this.sqlite,
            "SELECT id, route_type FROM routes WHERE project_id = ? AND (slug = ? OR id = ?) LIMIT 1",
          ).get(this.principal.projectId, slugOrId, isUuid(slugOrId) ? slugOrId.toLowerCase() : "");
    this.routes.set(key, row ?? null);
    return row ?? null;
  }

  domain(name: string): DomainRow | null {
    if (this.domains.has(name)) return this.domains.get(name)!;
    // Two lookups by unique key rather than a join, which Bun's SQLite runs several times slower
    // (see recipientWithMessage in events/message-status.ts).
    const domain = stmt<DomainRow, [string, string]>(this.sqlite, "SELECT id, status FROM domains WHERE team_id = ? AND domain = ?")
      .get(this.principal.teamId, name);
    const attached =
      domain && stmt<{ x: number }, [string, string]>(this.sqlite, "SELECT 1 AS x FROM project_domains WHERE project_id = ? AND domain_id = ?")
        .get(this.principal.projectId, domain.id);
    const row = domain && attached ? domain : null;
    this.domains.set(name, row);
    return row;
  }
}

let lastPurge = 0;

/** Drops expired idempotency keys, at most once a minute. Inside a write. */
function purgeExpiredKeys(sqlite: Database, now: number): void {
  if (now - lastPurge < 60_000) return;
  lastPurge = now;
  stmt(sqlite, "DELETE FROM idempotency_keys WHERE expires_at < ?").run(now);
}

type WriteResult = { replay: AcceptedMessage[] } | { accepted: AcceptedMessage[] };

/**
 * Validates and accepts emails for delivery. All of them or none: any invalid email throws a
 * ValidationError (keys prefixed by the item index when `opts.batch`) and nothing is stored.
 *
 * When the returned promise resolves, the messages, their recipients, the message.created
 * events and their outbound jobs are committed (synchronous=FULL, one group commit shared with
 * concurrent requests). Recipients suppressed for the team, project or route are recorded as
 * suppressed and not sent to; a message with no one left is `suppressed`.
 *
 * With an idempotency key, the key is checked and recorded in the same transaction as the
 * messages: a repeat with the same body gets the first answer (a concurrent repeat waits for the
 * first to commit and gets its answer too), a repeat with another body is a ConflictError.
 */
export async function acceptMessages(
  deps: Deps,
  principal: SendPrincipal,
  inputs: readonly SendInput[],
  opts: AcceptOptions = {},
): Promise<AcceptedMessage[]> {
  const key = opts.idempotencyKey;
  if (key !== undefined && key !== null && (typeof key !== "string" || key.length < 1 || key.length > LIMITS.idempotencyKey)) {
    throw ValidationError.field("Idempotency-Key", `The Idempotency-Key header must be 1 to ${LIMITS.idempotencyKey} characters.`);
  }
  if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > LIMITS.batch) {
    throw ValidationError.field("body", `Between 1 and ${LIMITS.batch} emails can be sent at once.`);
  }
  const errors: Errors = fieldErrors();
  const prepared: PreparedEmail[] = [];
  inputs.forEach((input, i) => {
    const email = prepareEmail(input, i, opts.batch ? `${i}.` : "", deps.config.maxMessageBytes, errors);
    if (email) prepared.push(email);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const requestHash = key ? (opts.requestHash ?? sha256Hex(JSON.stringify(inputs))) : null;

  const result = await deps.store.write(async (tx): Promise<WriteResult> => {
    const now = Date.now();
    if (key) {
      purgeExpiredKeys(deps.sqlite, now);
      const row = stmt<{ request_hash: string; response_body: string | null; expires_at: number }, [string, string]>(
        deps.sqlite,
        "SELECT request_hash, response_body, expires_at FROM idempotency_keys WHERE project_id = ? AND key = ?",
      ).get(principal.projectId, key);
      if (row && row.expires_at > now) {
        if (row.request_hash !== requestHash) {
          throw new ConflictError("This Idempotency-Key was already used with a different request body.");
        }
        if (row.response_body === null) throw new ConflictError("A request with this Idempotency-Key is still being processed.");
        return { replay: JSON.parse(row.response_body) as AcceptedMessage[] };
      }
      if (row) stmt(deps.sqlite, "DELETE FROM idempotency_keys WHERE project_id = ? AND key = ?").run(principal.projectId, key);
    }
    const accepted = await storeMessages(deps, tx, principal, prepared, opts.batch ?? false, now);
    if (key) {
      stmt(
        deps.sqlite,
        `INSERT INTO idempotency_keys (project_id, key, request_hash, response_status, response_body, created_at, expires_at)
         VALUES (?, ?, ?, 202, ?, ?, ?)`,
      ).run(principal.projectId, key, requestHash, JSON.stringify(accepted), now, now + LIMITS.idempotencyTtlMs);
    }
    return { accepted };
  });
  return "replay" in result ? result.replay : result.accepted;
}

/** The database half of acceptance: route and domain checks, suppressions, inserts. Synchronous. */
async function storeMessages(deps: Deps, tx: Repositories, principal: SendPrincipal, emails: PreparedEmail[], batch: boolean, now: number): Promise<AcceptedMessage[]> {
  const { sqlite, config } = deps;
  const lookup = new ProjectLookup(sqlite, principal);
  const errors: Errors = fieldErrors();
  const resolved = emails.map((e) => {
    const p = batch ? `${e.index}.` : "";
    const route = lookup.route(e.route);
    if (!route) {
      add(errors, `${p}route`, e.route === null ? "The project has no transactional route." : `The route ${e.route} does not exist in this project.`);
    } else if (route.route_type === "inbound") {
      add(errors, `${p}route`, `The route ${e.route} is an inbound route; send through a transactional or broadcast route.`);
    } else if (route.route_type === "broadcast") {
      for (const name of Object.keys(e.headers)) {
        if (LIST_UNSUBSCRIBE_HEADERS.has(name.toLowerCase())) add(errors, `${p}headers.${name}`, `The ${name} header is set by broadcast routes.`);
      }
    }
    const domain = lookup.domain(e.from.domain);
    if (!domain) {
      add(errors, `${p}from`, `The domain ${e.from.domain} is not a sending domain of this project. Add it to the team and attach it to the project.`);
    } else if (config.requireVerifiedDomain && domain.status !== "active") {
      add(errors, `${p}from`, `The domain ${e.from.domain} is not verified yet: publish its DNS records and verify it before sending.`);
    }
    return { route, domain };
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  const insertMessage = stmt(
    sqlite,
    `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, status_changed_at, tag, from_email, from_name, subject,
     "to", cc, bcc, reply_to, metadata, message_id_header, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'outbound', 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertContents = stmt(sqlite, "INSERT INTO message_contents (message_id, html, text, headers, raw) VALUES (?, ?, ?, ?, NULL)");
  const insertAttachment = stmt(
    sqlite,
    "INSERT INTO attachments (id, message_id, filename, content_type, content_id, size, content) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertRecipient = stmt(
    sqlite,
    "INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, attempts, created_at) VALUES (?, ?, ?, ?, 'pending', ?, 0, ?)",
  );
  const insertHistory = stmt(
    sqlite,
    "INSERT INTO message_events (id, message_id, recipient_id, kind, status, data, created_at) VALUES (?, ?, NULL, 'message.created', 'pending', ?, ?)",
  );

  const accepted: AcceptedMessage[] = [];
  for (const [i, e] of emails.entries()) {
    const { route, domain } = resolved[i]!;
    const id = newId();
    const messageIdHeader = `${id}@${e.from.domain}`;
    insertMessage.run(
      id,
      principal.teamId,
      principal.projectId,
      route!.id,
      domain!.id,
      now,
      e.tag,
      e.from.email,
      e.from.name,
      e.subject,
      JSON.stringify(e.to),
      JSON.stringify(e.cc),
      JSON.stringify(e.bcc),
      JSON.stringify(e.replyTo),
      JSON.stringify(e.metadata),
      messageIdHeader,
      now,
      now,
    );
    insertContents.run(id, e.html, e.text, JSON.stringify(e.headers));
    for (const a of e.attachments) insertAttachment.run(newId(), id, a.filename, a.contentType, a.contentId, a.content.length, a.content);

    const suppressed = await suppressedAmong(tx, { teamId: principal.teamId, projectId: principal.projectId, routeId: route!.id }, e.recipients.map((r) => r.email));
    const recipientIds = e.recipients.map((r) => {
      const rid = newId();
      insertRecipient.run(rid, id, r.email, r.kind, now, now);
      return rid;
    });
    const data = {
      message_id: id,
      status: "pending",
      from: e.from.email,
      to: e.to.map((a) => a.email),
      cc: e.cc.map((a) => a.email),
      bcc: e.bcc.map((a) => a.email),
      subject: e.subject,
      tag: e.tag,
      metadata: e.metadata,
    };
    insertHistory.run(newId(), id, JSON.stringify(data), now);
    await publishEvent(tx, { teamId: principal.teamId, routeId: route!.id, messageId: id, kind: "message.created", data }, now);

    let status: string = "pending";
    let sendable = 0;
    for (const [j, r] of e.recipients.entries()) {
      if (suppressed.has(r.email.toLowerCase())) {
        status = await changeRecipientStatus(tx, { recipientId: recipientIds[j]!, status: "suppressed", details: { reason: "suppressed" } }, now);
      } else sendable++;
    }
    if (sendable > 0) await tx.jobs.enqueue(OUTBOUND_QUEUE, { messageId: id } satisfies OutboundJob, { maxAttempts: OUTBOUND_MAX_ATTEMPTS });
    accepted.push({ message_id: id, status: (sendable > 0 ? "pending" : status) as MessageStatus });
  }
  return accepted;
}
