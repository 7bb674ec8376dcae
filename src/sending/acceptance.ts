/**
 * Accepting outbound mail: validation, idempotency, suppressions, and the durable write that a
 * 202 (or an SMTP 250) stands for. Free of HTTP: the send controller (src/modules/send) and the
 * SMTP submission listener (src/smtp/submission.ts) both call acceptMessages.
 */
import type { Deps } from "../context.ts";
import type { Repositories } from "../db/store.ts";
import { ConflictError, ValidationError, fieldErrors } from "../errors.ts";
import { changeRecipientStatus, suppressedAmong } from "../events/message-status.ts";
import { rollAccepted, type AcceptedMessage as AcceptedStat } from "../events/stat-rollup.ts";
import type { MessageStatus } from "../db/recipient-status.ts";
import { publishEvent } from "../events/publish.ts";
import { iso, newId, sha256Hex } from "../ids.ts";
import { OUTBOUND_MAX_ATTEMPTS, OUTBOUND_QUEUE, type OutboundJob } from "../mail/outbound-job.ts";
import { isDisposableAddress } from "./disposable.ts";
import { LIMITS } from "./limits.ts";
import { scheduleMessage } from "./scheduled-job.ts";
import { ProjectLookup, type SendPrincipal } from "./project-lookup.ts";
import { addError, LIST_UNSUBSCRIBE_HEADERS, validateEmails, type Errors, type PreparedEmail, type SendInput, type TlsPolicy } from "./validation.ts";

export interface AcceptOptions {
  /** Idempotency-Key (1–255 characters), scoped to the project, kept 24 h. */
  idempotencyKey?: string | null;
  /** Fingerprint of the request; defaults to a hash of `inputs`. Same key + other hash → 409. */
  requestHash?: string | null;
  /** Key validation errors by item index ("3.subject"), as the batch endpoint does. */
  batch?: boolean;
  /**
   * The messages' content (source, text, html) is kept from the team: for mail Posthorn sends on
   * its own behalf with a secret for the recipient only (a report forwarding code). Never set from
   * a client's request.
   */
  sealed?: boolean;
}

export interface AcceptedMessage {
  message_id: string;
  /** pending, scheduled (with scheduled_at), or suppressed when every recipient is suppressed. */
  status: MessageStatus;
  /** A scheduled message's time to send (ISO 8601, UTC). */
  scheduled_at?: string;
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
 * With an idempotency key, the key is taken and answered in the same transaction as the
 * messages: a repeat with the same body gets the first answer (a concurrent repeat waits for the
 * first to commit and gets its answer too, or a ConflictError saying it is still being
 * processed), a repeat with another body is a ConflictError.
 */
export async function acceptMessages(
  deps: Pick<Deps, "store" | "config">,
  principal: SendPrincipal,
  inputs: readonly SendInput[],
  opts: AcceptOptions = {},
): Promise<AcceptedMessage[]> {
  const key = opts.idempotencyKey;
  const prepared = validateEmails(inputs, { idempotencyKey: key, batch: opts.batch, maxMessageBytes: deps.config.maxMessageBytes });
  const requestHash = key ? (opts.requestHash ?? sha256Hex(JSON.stringify(inputs))) : null;

  const result = await deps.store.write(
    async (tx): Promise<WriteResult> => {
      const now = Date.now();
      if (key) {
        const replay = await claimKey(tx, principal.projectId, key, requestHash!, now);
        if (replay) return { replay };
      }
      const accepted = await storeMessages(tx, deps.config, principal, prepared, opts.batch ?? false, opts.sealed ?? false, now);
      if (key) await tx.idempotency.answer(principal.projectId, key, 202, JSON.stringify(accepted));
      return { accepted };
    },
    // Without a key, storeMessages refuses (route, domain) before its first insert, and the
    // answer that follows cannot fail. A key is taken first and can still be refused after.
    { checksBeforeChanges: !key },
  );
  return "replay" in result ? result.replay : result.accepted;
}

let lastPurge = 0;

/**
 * Takes the key for this request (null: go on and accept), or the first answer given under it
 * when the request is the same; a ConflictError when it is another, or when the first is still
 * being processed. The key is taken before anything is stored, so on PostgreSQL a concurrent
 * repeat waits for the first request's transaction and then replays its answer. An expired key
 * is taken over. Expired keys are purged, at most once a minute. Inside the accepting write.
 */
async function claimKey(tx: Repositories, projectId: string, key: string, requestHash: string, now: number): Promise<AcceptedMessage[] | null> {
  if (now - lastPurge >= 60_000) {
    lastPurge = now;
    await tx.idempotency.purgeExpired(now);
  }
  const claim = { project_id: projectId, key, request_hash: requestHash, created_at: now, expires_at: now + LIMITS.idempotencyTtlMs };
  if (await tx.idempotency.claim(claim)) return null;
  const row = await tx.idempotency.find(projectId, key);
  if (row && row.expires_at <= now) {
    if (await tx.idempotency.claimExpired(claim)) return null;
  } else if (row) {
    if (row.request_hash !== requestHash) throw new ConflictError("This Idempotency-Key was already used with a different request body.");
    if (row.response_body !== null) return JSON.parse(row.response_body) as AcceptedMessage[];
  }
  // Taken over or let go by a concurrent request between our statements.
  throw new ConflictError("A request with this Idempotency-Key is still being processed.");
}

/** The database half of acceptance, inside the write: route and domain checks, suppressions, inserts, jobs. */
async function storeMessages(
  tx: Repositories,
  config: Deps["config"],
  principal: SendPrincipal,
  emails: PreparedEmail[],
  batch: boolean,
  sealed: boolean,
  now: number,
): Promise<AcceptedMessage[]> {
  const targets = await resolveTargets(tx, config, principal, emails, batch);
  // A batch's statistics are added up and written after its messages: one stat_accepts upsert per
  // distinct key. A single message's is written with it (on PostgreSQL it rides its outbound job).
  const stats: AcceptedStat[] | null = emails.length > 1 ? [] : null;
  const accepted: AcceptedMessage[] = [];
  for (const [i, e] of emails.entries()) accepted.push(await storeMessage(tx, principal, e, targets[i]!, now, sealed, stats));
  if (stats) await rollAccepted(tx, stats, now);
  return accepted;
}

/** Where an email goes: its route and sending domain, and its tracking (the email's override, else the route's). */
interface SendTarget {
  routeId: string;
  domainId: string;
  trackOpens: boolean;
  trackClicks: boolean;
  /** settings.tls, else the route's tls (docs/sending.md, Per-email settings). */
  tls: TlsPolicy;
  /** The route's suppress_disposable_recipients. */
  suppressDisposable: boolean;
  /** The route's redact_email_content. */
  redact: boolean;
}

/**
 * Step 1: each email's route and domain, looked up and checked; any email that cannot be sent
 * (no such route, an inbound route, a broadcast header, a domain not the project's or unverified)
 * refuses the whole request before the first insert.
 */
async function resolveTargets(tx: Repositories, config: Deps["config"], principal: SendPrincipal, emails: PreparedEmail[], batch: boolean): Promise<SendTarget[]> {
  const lookup = new ProjectLookup(tx, principal);
  const errors: Errors = fieldErrors();
  const resolved: SendTarget[] = [];
  // Every lookup asked at once: on PostgreSQL they travel together (pipelined), on SQLite they are done already.
  const looked = await Promise.all(emails.map((e) => Promise.all([lookup.route(e.route), lookup.domain(e.from.domain)])));
  for (const [i, e] of emails.entries()) {
    const p = batch ? `${e.index}.` : "";
    const [route, domain] = looked[i]!;
    if (!route) {
      addError(errors, `${p}route`, e.route === null ? "The project has no transactional route." : `The route ${e.route} does not exist in this project.`);
    } else if (route.route_type === "inbound") {
      addError(errors, `${p}route`, `The route ${e.route} is an inbound route; send through a transactional or broadcast route.`);
    } else if (route.route_type === "broadcast" && route.disable_hosted_unsubscribe !== 1) {
      for (const name of Object.keys(e.headers)) {
        if (LIST_UNSUBSCRIBE_HEADERS.has(name.toLowerCase())) addError(errors, `${p}headers.${name}`, `The ${name} header is set by broadcast routes.`);
      }
    }
    if (!domain) {
      addError(errors, `${p}from`, `The domain ${e.from.domain} is not a sending domain of this project. Add it to the team and attach it to the project.`);
    } else if (config.requireVerifiedDomain && domain.status !== "active") {
      addError(errors, `${p}from`, `The domain ${e.from.domain} is not verified yet: publish its DNS records and verify it before sending.`);
    }
    resolved.push({
      routeId: route?.id ?? "",
      domainId: domain?.id ?? "",
      trackOpens: e.trackOpens ?? route?.track_opens === 1,
      trackClicks: e.trackClicks ?? route?.track_clicks === 1,
      tls: e.tls ?? (route?.tls === "enforced" ? "enforced" : "opportunistic"),
      suppressDisposable: route?.suppress_disposable_recipients === 1,
      redact: route?.redact_email_content === 1,
    });
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return resolved;
}

/**
 * Step 2, per email: the message row, its attachments and recipients, message.created (history
 * and event), then its suppressed recipients marked and, if anyone is left, the outbound job.
 */
async function storeMessage(
  tx: Repositories,
  principal: SendPrincipal,
  e: PreparedEmail,
  target: SendTarget,
  now: number,
  sealed: boolean,
  /** A batch's acceptances to add up for the statistics; null: written now. */
  stats: AcceptedStat[] | null,
): Promise<AcceptedMessage> {
  const id = newId();
  const { routeId } = target;
  // Asked before the inserts and read after them: on PostgreSQL one wait for all of them.
  const scope = { teamId: principal.teamId, projectId: principal.projectId, routeId };
  const suppressedLookup = suppressedAmong(tx, scope, e.recipients.map((r) => r.email));
  suppressedLookup.catch(() => {}); // awaited below; an insert failing first must not leave it unhandled
  await insertMessage(tx, principal, id, e, target, now, sealed);
  const recipients = e.recipients.map((r) => ({ id: newId(), email: r.email, kind: r.kind }));
  await tx.messages.insertRecipients(id, recipients, now, e.scheduledAt === null ? "pending" : "scheduled");
  await recordCreated(tx, principal.teamId, routeId, id, e, now);
  const rcpts = e.recipients.map((r) => r.email);
  const stat: AcceptedStat = { teamId: principal.teamId, projectId: principal.projectId, routeId, messageId: id, sendingDomain: e.from.domain, tag: e.tag, tags: e.tags, trackOpens: target.trackOpens, trackClicks: target.trackClicks, recipients: rcpts };
  if (stats) stats.push(stat);
  else await rollAccepted(tx, [stat], now);

  const suppressed = await suppressedLookup;
  let status: string = "pending";
  let sendable = 0;
  // The route's suppress_disposable_recipients: suppressed for this message only, no suppression added (docs/sending.md).
  const disposable = target.suppressDisposable ? recipients.filter((r) => isDisposableAddress(r.email)) : [];
  for (const r of disposable) status = await changeRecipientStatus(tx, { recipientId: r.id, status: "suppressed", details: { reason: "disposable_email" } }, now);
  for (const r of disposable.length > 0 ? recipients.filter((r) => !disposable.includes(r)) : recipients) {
    const hit = suppressed.get(r.email.toLowerCase());
    if (hit) {
      // Which suppression stops it: its type, value, scope and reason (docs/sending.md).
      status = await changeRecipientStatus(tx, { recipientId: r.id, status: "suppressed", details: { reason: "suppressed", suppression: hit } }, now);
    } else sendable++;
  }
  if (sendable > 0 && e.scheduledAt !== null) {
    // Waits for its time in the scheduled queue, not the outbound one (scheduled-job.ts).
    await scheduleMessage(tx, { teamId: principal.teamId, routeId, messageId: id, at: e.scheduledAt, tag: e.tag, tags: e.tags, metadata: e.metadata }, now);
    return { message_id: id, status: "scheduled", scheduled_at: iso(e.scheduledAt)! };
  }
  if (sendable > 0) await tx.jobs.enqueue(OUTBOUND_QUEUE, { messageId: id } satisfies OutboundJob, { maxAttempts: OUTBOUND_MAX_ATTEMPTS });
  // Every recipient suppressed: final already, so a redacting route keeps none of the content.
  else if (target.redact) await tx.retention.redactWhenFinal(id, now);
  return { message_id: id, status: (sendable > 0 ? "pending" : status) as MessageStatus };
}

/** The outbound message row and its attachments. */
async function insertMessage(tx: Repositories, principal: SendPrincipal, id: string, e: PreparedEmail, target: SendTarget, now: number, sealed: boolean): Promise<void> {
  await tx.messages.insertOutbound({
    id,
    team_id: principal.teamId,
    project_id: principal.projectId,
    route_id: target.routeId,
    domain_id: target.domainId,
    tag: e.tag,
    tags: JSON.stringify(e.tags),
    from_email: e.from.email,
    from_name: e.from.name,
    subject: e.subject,
    to: JSON.stringify(e.to),
    cc: JSON.stringify(e.cc),
    bcc: JSON.stringify(e.bcc),
    reply_to: JSON.stringify(e.replyTo),
    metadata: JSON.stringify(e.metadata),
    message_id_header: `${id}@${e.from.domain}`,
    html: e.html,
    text: e.text,
    headers: JSON.stringify(e.headers),
    track_opens: target.trackOpens ? 1 : 0,
    track_clicks: target.trackClicks ? 1 : 0,
    tls: target.tls,
    sealed: sealed ? 1 : 0,
    scheduled_at: e.scheduledAt,
    created_at: now,
  });
  if (e.tags.length > 0) await tx.messages.insertTags({ id, team_id: principal.teamId, created_at: now }, e.tags);
  if (e.attachments.length > 0) {
    await tx.messages.insertAttachments(
      id,
      e.attachments.map((a) => ({ id: newId(), filename: a.filename, content_type: a.contentType, content_id: a.contentId, content: a.content })),
    );
  }
}

/** message.created: in the message's history and published to the route's webhooks. */
async function recordCreated(tx: Repositories, teamId: string, routeId: string, id: string, e: PreparedEmail, now: number): Promise<void> {
  // A scheduled message is created scheduled: its history's first entry reads `scheduled`.
  const status = e.scheduledAt === null ? "pending" : "scheduled";
  const data = {
    message_id: id,
    status,
    ...(e.scheduledAt === null ? {} : { scheduled_at: iso(e.scheduledAt) }),
    from: e.from.email,
    to: e.to.map((a) => a.email),
    cc: e.cc.map((a) => a.email),
    bcc: e.bcc.map((a) => a.email),
    subject: e.subject,
    tag: e.tag,
    tags: e.tags,
    metadata: e.metadata,
  };
  await tx.recipients.appendHistory({
    id: newId(),
    message_id: id,
    recipient_id: null,
    kind: "message.created",
    status,
    data: JSON.stringify(data),
    created_at: now,
  });
  await publishEvent(tx, { teamId, routeId, messageId: id, kind: "message.created", data }, now);
}
