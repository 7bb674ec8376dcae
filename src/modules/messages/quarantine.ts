/**
 * Releasing quarantined inbound mail (POST /v1/messages/{id}/process, the service's
 * messages.process). A message at or above its route's spam threshold is held by the inbound job
 * as `quarantined`: stored with its content, published to no webhook. Releasing it puts it back
 * to `pending` and queues the inbound job again, marked `release`: the job analyses it anew and
 * hands it to the route's webhooks as `message.inbound`, whatever its score. All of it in one
 * write, with the Idempotency-Key when one is given: a repeat with the same key gets the first
 * answer and releases nothing again.
 */
import type { Deps } from "../../context.ts";
import type { Repositories } from "../../db/store.ts";
import { ConflictError, NotFoundError, ValidationError } from "../../errors.ts";
import { newId, sha256Hex } from "../../ids.ts";
import { LIMITS } from "../../sending/limits.ts";
import { INBOUND_QUEUE } from "../../smtp/accept.ts";
import { RELEASED_KIND, releaseJobOf, SPAM_BLOCKED_KIND, type HeldEnvelope } from "../../smtp/inbound-job.ts";

/** The service's ProcessInboundMessageResponse. */
export type ProcessInboundResult = { data: { message_id: string; status: "queued"; webhook_target_count: number } };

/** The service's codes of a 409 (ProcessInboundMessageConflictErrorCode), the body's `error`. */
export const NOT_QUARANTINED = "INBOUND_MESSAGE_NOT_QUARANTINED";
export const NO_INBOUND_WEBHOOK = "INBOUND_WEBHOOK_NOT_CONFIGURED";
export const SOURCE_UNAVAILABLE = "MESSAGE_SOURCE_UNAVAILABLE";

/** Same attempts as a message arriving (src/smtp/accept.ts). */
const RELEASE_MAX_ATTEMPTS = 10;

/**
 * Releases one of the team's quarantined inbound messages to its route's webhooks. 404 for an
 * unknown message or another team's; 422 for an outbound message or a malformed key; 409 (with
 * the service's code as `error`) when it is not quarantined, its source is gone (retention), or
 * no enabled webhook of its route receives message.inbound. Nothing is changed by a refusal.
 */
export async function releaseQuarantined(deps: Pick<Deps, "store">, teamId: string, messageId: string, idempotencyKey?: string | null): Promise<ProcessInboundResult> {
  const key = idempotencyKey ?? null;
  if (key !== null && (key.length < 1 || key.length > LIMITS.idempotencyKey)) {
    throw ValidationError.field("Idempotency-Key", `The Idempotency-Key header must be 1 to ${LIMITS.idempotencyKey} characters.`);
  }
  const target = await deps.store.read.messages.findReleaseTarget(messageId, teamId);
  if (!target) throw new NotFoundError("Message");
  if (target.type !== "inbound") {
    throw ValidationError.field("messageId", "Only inbound messages can be processed: this message is outbound, and outbound mail is never quarantined.");
  }
  const requestHash = sha256Hex(`POST /v1/messages/${target.id}/process`);
  return deps.store.write(async (tx) => {
    const now = Date.now();
    // Keys live in a project; a message without one has no route either, so release() refuses it.
    if (key !== null && target.project_id) {
      const replay = await claimKey(tx, target.project_id, key, requestHash, now);
      if (replay) return replay;
    }
    const answer = await release(tx, target.id, target.status, now);
    if (key !== null && target.project_id) await tx.idempotency.answer(target.project_id, key, 202, JSON.stringify(answer));
    return answer;
  });
}

/** The release itself, inside the write: the checks, the status, the history entry and the job. */
async function release(tx: Repositories, messageId: string, statusRead: string, now: number): Promise<ProcessInboundResult> {
  // No source row once retention purged the contents: the status read before stands then.
  const source = await tx.messages.findInboundSource(messageId);
  const status = source?.status ?? statusRead;
  if (status !== "quarantined") throw new ConflictError(`Only a quarantined message can be processed; this one is ${status}.`, NOT_QUARANTINED);
  const held = await tx.messages.latestHistoryData(messageId, SPAM_BLOCKED_KIND);
  const envelope = held ? (JSON.parse(held) as { envelope?: HeldEnvelope }).envelope : undefined;
  if (!source?.raw || !envelope) {
    throw new ConflictError("The message's source is no longer stored (retention purged it, POSTHORN_RETENTION_DAYS): it cannot be processed.", SOURCE_UNAVAILABLE);
  }
  const targets = source.route_id ? await tx.events.subscribedCount(source.route_id, "message.inbound") : 0;
  if (targets === 0) {
    throw new ConflictError("No enabled webhook of the message's route receives message.inbound: there is nobody to release it to.", NO_INBOUND_WEBHOOK);
  }
  // Conditional on the status: of two releases at once, one changes it and the other is a 409.
  if (!(await tx.messages.releaseQuarantined(messageId, now))) throw new ConflictError("Only a quarantined message can be processed; this one was just released.", NOT_QUARANTINED);
  await tx.recipients.appendHistory({
    id: newId(),
    message_id: messageId,
    recipient_id: null,
    kind: RELEASED_KIND,
    status: "pending",
    data: JSON.stringify({ webhook_target_count: targets }),
    created_at: now,
  });
  await tx.jobs.enqueue(INBOUND_QUEUE, releaseJobOf(messageId, envelope, source.raw.length), { maxAttempts: RELEASE_MAX_ATTEMPTS });
  return { data: { message_id: messageId, status: "queued", webhook_target_count: targets } };
}

/**
 * The send endpoints' idempotency (src/db/idempotency.ts), keyed in the message's project: null to
 * go on, the first answer for a repeat of the same request, a 409 for a key used with another
 * request or whose first request is still running. An expired key is taken over.
 */
async function claimKey(tx: Repositories, projectId: string, key: string, requestHash: string, now: number): Promise<ProcessInboundResult | null> {
  const claim = { project_id: projectId, key, request_hash: requestHash, created_at: now, expires_at: now + LIMITS.idempotencyTtlMs };
  if (await tx.idempotency.claim(claim)) return null;
  const row = await tx.idempotency.find(projectId, key);
  if (row && row.expires_at <= now) {
    if (await tx.idempotency.claimExpired(claim)) return null;
  } else if (row) {
    if (row.request_hash !== requestHash) throw new ConflictError("This Idempotency-Key was already used with a different request.");
    if (row.response_body !== null) return JSON.parse(row.response_body) as ProcessInboundResult;
  }
  throw new ConflictError("A request with this Idempotency-Key is still being processed.");
}
