/**
 * The last steps of an outbound job's run: each recipient's result put on record (with the job's
 * fate, in one commit) and, for soft failures, when the job comes back. Pure functions of what
 * they are given; the write they return runs in the runner's outcome transaction.
 */
import type { Repositories } from "../db/store.ts";
import { changeDueRecipientStatus } from "../events/message-status.ts";
import { iso } from "../ids.ts";
import { scheduledBackoff } from "../pacing/backoff.ts";
import type { JobOutcome } from "../jobs/runner.ts";
import type { RecipientOutcome } from "./smtp-delivery.ts";
import { domainOf } from "./outbound-context.ts";
import { isRateReply, requestedRetryMs } from "./reply.ts";
import type { Admission } from "./shaping.ts";

/** What the outcome of one attempt depends on besides the recipients' results. */
export interface AttemptTerms {
  /** The highest attempt number among the recipients: the n-th attempt waits the n-th step. */
  attemptNo: number;
  /** The end of the queue lifetime (ms since the epoch). */
  deadline: number;
  queueLifetimeSeconds: number;
  schedule: readonly number[];
  admission: Admission | null;
}

/** Every recipient failed for good, with the reason given (the job is done). */
export const failAll = (ids: string[], reason: string): JobOutcome => ({
  type: "done",
  write: async (tx) => {
    const now = Date.now();
    for (const id of ids) {
      await changeDueRecipientStatus(tx, { recipientId: id, status: "failed", response: null, details: { reason } }, now);
    }
  },
});

/** A recipient's delivery, on record: its receipt, if one was written, has served its purpose. */
export async function recordDelivered(tx: Repositories, o: RecipientOutcome, at: number): Promise<void> {
  await changeDueRecipientStatus(tx, { recipientId: o.recipientId, status: "delivered", response: o.reply, details: { mx: o.host ?? null, tls: o.tls ?? null } }, at);
  await tx.deliveries.removeReceipt(o.recipientId);
}

/**
 * When every soft failure is a rate reply, the retry waits for the destination to reopen, not
 * for the next step of the schedule: the reply was about our pace, not about the message.
 */
function rateReplyDelay(outcomes: RecipientOutcome[], admission: Admission | null): number | null {
  const soft = outcomes.filter((o) => o.verdict === "soft");
  if (!admission || soft.length === 0 || !soft.every((o) => isRateReply(o.reply))) return null;
  const reopens = Math.max(0, ...soft.map((o) => admission.reopensAt(domainOf(o.email)) ?? 0));
  return reopens > Date.now() ? reopens - Date.now() + Math.floor(Math.random() * 1000) : null;
}

/** A job whose attempted recipients are all settled still comes back for those shaping held. (A retry already does: see outcomeOf.) */
export function shaped(outcome: JobOutcome, admission: Admission | null): JobOutcome {
  if (!admission || admission.retryAt === null || outcome.type !== "done") return outcome;
  return { type: "defer", delayMs: Math.max(0, admission.retryAt - Date.now()), ...(outcome.write ? { write: outcome.write } : {}) };
}

/**
 * Records each recipient's result; schedules another attempt for the soft failures. Recipients
 * shaping held back bring the job back at their slot if it is sooner, and the soft failures are
 * attempted again then too: that is the next attempt their status says.
 */
export function outcomeOf(outcomes: RecipientOutcome[], terms: AttemptTerms): JobOutcome {
  const { admission } = terms;
  const now = Date.now();
  const soft = outcomes.filter((o) => o.verdict === "soft");
  const requested = Math.max(0, ...soft.map((o) => requestedRetryMs(o.reply.message) ?? 0));
  const scheduled = rateReplyDelay(outcomes, admission) ?? scheduledBackoff(terms.attemptNo, terms.schedule, { requestedMs: requested || null });
  const delayMs = !admission || admission.retryAt === null ? scheduled : Math.min(scheduled, Math.max(0, admission.retryAt - now));
  const expired = now + delayMs > terms.deadline;
  const write = (tx: Repositories) => recordResults(tx, outcomes, { expired, delayMs, queueLifetimeSeconds: terms.queueLifetimeSeconds });
  if (soft.length === 0 || expired) return { type: "done", write };
  const summary = soft.map((o) => `${o.email}: ${o.reply.code ?? ""} ${o.reply.message}`.trim()).join("; ");
  return { type: "retry", delayMs, error: summary.slice(0, 1000), write };
}

/** Each recipient's new status: delivered, hard bounced, failed at the end of its queue lifetime, or soft bounced with its next attempt. */
async function recordResults(tx: Repositories, outcomes: RecipientOutcome[], fate: { expired: boolean; delayMs: number; queueLifetimeSeconds: number }): Promise<void> {
  const at = Date.now();
  for (const o of outcomes) {
    const base = { recipientId: o.recipientId, response: o.reply, details: { mx: o.host ?? null, tls: o.tls ?? null } };
    if (o.verdict === "delivered") await recordDelivered(tx, o, at);
    else if (o.verdict === "hard") {
      await changeDueRecipientStatus(tx, { ...base, status: "hard_bounced", suppress: o.suppress ? "hard_bounce" : null }, at);
    } else if (fate.expired) {
      await changeDueRecipientStatus(
        tx,
        { ...base, status: "failed", details: { ...base.details, reason: `Not delivered within the queue lifetime of ${fate.queueLifetimeSeconds} s.` } },
        at,
      );
    } else {
      await changeDueRecipientStatus(tx, { ...base, status: "soft_bounced", details: { ...base.details, next_attempt_at: iso(at + fate.delayMs) } }, at);
    }
  }
}
