/**
 * One run of a message's outbound job, as named steps with their state passed as arguments:
 *
 *   loadMessage      the message and its recipients still due; those a server accepted just
 *                    before a crash (receipts) recorded delivered, not sent again
 *   warm-up          a first attempt past its domain's warm-up cap for the day waits for the
 *                    next day (warmup.ts); the count is taken in recordAttempt's transaction
 *   admit            per-destination shaping: recipients whose destination is paused or at its
 *                    limits wait for their slot
 *   sendWithin…      the attempt's share of delivery memory, then:
 *     prepareCopies    compose and DKIM-sign (first attempt, or a copy per recipient), or read
 *                      the stored source (outbound-copies.ts)
 *     recordAttempt    the attempt on record (and the source stored) before a byte goes out
 *     deliverAttempt   the hand-off to SMTP, per destination domain (outbound-delivery.ts)
 *     outcomeOf        each result on record, a retry for the soft failures (outbound-outcome.ts)
 *
 * A retry or a re-run after a crash finds the raw source stored and goes straight to delivery.
 * Every status change goes through changeDueRecipientStatus (a recipient cancelled meanwhile is
 * left alone) and the results commit together with the job's fate.
 */
import type { OutboundMessageRow } from "../db/deliveries.ts";
import type { DueRecipientRow } from "../db/recipients.ts";
import { changeDueRecipientStatus, type RemoteReply } from "../events/message-status.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome } from "../jobs/runner.ts";
import type { ComposedMessage } from "./compose-message.ts";
import { domainOf, type OutboundContext } from "./outbound-context.ts";
import { planCopies, prepareCopies } from "./outbound-copies.ts";
import { deliverAttempt } from "./outbound-delivery.ts";
import { failAll, outcomeOf, recordDelivered, shaped } from "./outbound-outcome.ts";
import type { Admission } from "./shaping.ts";
import { holdDelayMs, warmupTicket, type WarmupTicket } from "./warmup.ts";

/** One job per accepted message, from composing to a final status for every recipient. */
export interface OutboundJob {
  messageId: string;
}

/** A message whose sending domain is still there: it can be signed and given a return path. */
type SendableRow = OutboundMessageRow & { domain: string; dkim_private_key: string; return_path_host: string };
const sendable = (row: OutboundMessageRow): row is SendableRow => !!row.domain && !!row.dkim_private_key && !!row.return_path_host;

/**
 * A job's run. Recipients held back by shaping bring the job back at their slot, whatever
 * became of the others; the destination slots it was given are freed however it ends.
 */
export async function runOutboundJob(ctx: OutboundContext, job: Job<OutboundJob>): Promise<JobOutcome> {
  const held: Held = { admission: null, redact: false };
  try {
    return redacting(shaped(await attemptMessage(ctx, job.payload.messageId, held), held.admission), job.payload.messageId, held.redact);
  } finally {
    held.admission?.close();
  }
}

/** What a run learns along the way and its end needs: the destination slots it holds, whether the route redacts content. */
type Held = { admission: Admission | null; redact: boolean };

/**
 * The route's redact_email_content: when the job is done, the message's content goes in the same
 * commit as the last outcome, if every recipient is final by then (redactWhenFinal checks).
 * Until then every retry still finds it.
 */
function redacting(outcome: JobOutcome, messageId: string, redact: boolean): JobOutcome {
  if (!redact || outcome.type !== "done") return outcome;
  const write = outcome.write;
  return {
    ...outcome,
    write: async (tx) => {
      if (write) await write(tx);
      await tx.retention.redactWhenFinal(messageId, Date.now());
    },
  };
}

/** One attempt at a message: load, admit, then send within its share of delivery memory. */
async function attemptMessage(ctx: OutboundContext, messageId: string, held: Held): Promise<JobOutcome> {
  const loaded = await loadMessage(ctx, messageId, held);
  if ("outcome" in loaded) return loaded.outcome;
  const { row } = loaded;
  if (!sendable(row)) return failAll(loaded.due.map((r) => r.id), "The sending domain was removed before the message was sent.");
  const warm = await warmupTicket(ctx, messageId, loaded.due);
  if (warm?.hold) return holdForWarmup(ctx, warm);
  const admitted = await admit(ctx, messageId, loaded.due);
  held.admission = admitted.admission;
  if ("outcome" in admitted) return admitted.outcome;
  return sendWithinMemory(ctx, row, admitted.due, admitted.admission, warm);
}

/** A message held by its domain's warm-up: back at the next day's release, not counted as an attempt. */
function holdForWarmup(ctx: OutboundContext, t: WarmupTicket): JobOutcome {
  ctx.deps.log.debug("message held by warm-up", { domain_id: t.domainId, day: t.day, reason: t.reason });
  return { type: "defer", delayMs: holdDelayMs(ctx, t) };
}

/**
 * The message and its recipients without a final status. Recipients a server accepted just
 * before a crash cut the last run short are recorded delivered, not sent again; only a message
 * already composed (and so sent before) can have any.
 */
async function loadMessage(ctx: OutboundContext, messageId: string, held: Held): Promise<{ row: OutboundMessageRow; due: DueRecipientRow[] } | { outcome: JobOutcome }> {
  const { store } = ctx.deps;
  const row = await store.read.deliveries.outboundMessage(messageId);
  if (!row) return { outcome: { type: "done" } };
  held.redact = row.redact_email_content === 1;
  const due = await store.read.recipients.dueOf(messageId);
  if (due.length === 0) return { outcome: { type: "done" } };
  const receipts = row.raw_bytes !== null ? await store.read.deliveries.receiptsOf(messageId) : [];
  if (receipts.length === 0) return { row, due };
  const receiptOf = new Map(receipts.map((rc) => [rc.recipient_id, rc]));
  await store.write(async (tx) => {
    const at = Date.now();
    for (const r of due) {
      const rc = receiptOf.get(r.id);
      if (rc) await recordDelivered(tx, { recipientId: r.id, email: r.email, verdict: "delivered", reply: JSON.parse(rc.reply) as RemoteReply, host: rc.host, suppress: false }, at);
    }
  });
  const left = due.filter((r) => !receiptOf.has(r.id));
  return left.length === 0 ? { outcome: { type: "done" } } : { row, due: left };
}

/**
 * Per-destination shaping: a recipient whose destination is paused or at its limits is not
 * attempted; the job comes back at the slot reserved for it, with no attempt on record.
 */
async function admit(
  ctx: OutboundContext,
  messageId: string,
  due: DueRecipientRow[],
): Promise<{ admission: Admission | null; due: DueRecipientRow[] } | { admission: Admission | null; outcome: JobOutcome }> {
  const admission = ctx.shaper ? await ctx.shaper.admit(messageId, due.map((r) => domainOf(r.email))) : null;
  if (!admission || admission.retryAt === null) return { admission, due };
  if (!admission.admitted.includes(true)) return { admission, outcome: { type: "defer", delayMs: admission.retryAt - Date.now() } };
  return { admission, due: due.filter((_, i) => admission.admitted[i]) };
}

/**
 * The attempt inside its share of delivery memory (outbound-copies.ts's CopyPlan): its copies,
 * the attempt on record, the hand-off to SMTP and the outcome. The share is given back, and the
 * composed bytes counted for collection, however it ends.
 */
async function sendWithinMemory(ctx: OutboundContext, row: SendableRow, due: DueRecipientRow[], admission: Admission | null, warm: WarmupTicket | null): Promise<JobOutcome> {
  const plan = planCopies(row);
  const given = await ctx.memory.enter(ctx.memory.ask(plan.fixed, plan.copyBytes, due.length));
  try {
    const inFlight = Math.max(1, Math.min(due.length, Math.floor((given.bytes - plan.fixed) / plan.copyBytes)));
    const prepared = await prepareCopies(ctx, row, due, plan, inFlight);
    if ("outcome" in prepared) return prepared.outcome;
    const started = await recordAttempt(ctx, row.id, plan.composed ? prepared.first : null, due, warm);
    prepared.first = null; // stored: garbage from here on
    if (started === "held") return holdForWarmup(ctx, warm!);
    if (started.length === 0) return { type: "done" };
    const attempted = started.map((r) => ({ ...r, attempts: r.attempts + 1 }));
    const outcomes = await deliverAttempt(ctx, attempted, row, prepared.copies, admission);
    return outcomeOf(outcomes, {
      // The n-th attempt of a recipient waits the n-th step of the schedule.
      attemptNo: Math.max(1, ...attempted.map((r) => r.attempts)),
      // A scheduled message's lifetime counts from its time to send, not from its acceptance.
      deadline: Math.max(Number(row.created_at), Number(row.scheduled_at ?? 0)) + ctx.deps.config.queueLifetimeSeconds * 1000,
      queueLifetimeSeconds: ctx.deps.config.queueLifetimeSeconds,
      schedule: ctx.schedule,
      admission,
    });
  } finally {
    given.leave();
    if (plan.composing) ctx.collected(plan.contentBytes + plan.copyBytes);
  }
}

/**
 * The attempt on record before the first byte goes out: after a crash these recipients are
 * attempted again (at-least-once), never forgotten. On a first attempt the composed source (and
 * its tracked links) is stored in the same commit. A recipient cancelled meanwhile is not
 * attempted: the recipients returned are those marked processed. Under a warm-up the first
 * attempt's recipients are counted toward the domain's day here, in the same commit; when another
 * attempt took the day's last places meanwhile, nothing is written and the message is "held".
 */
async function recordAttempt(ctx: OutboundContext, messageId: string, first: ComposedMessage | null, due: DueRecipientRow[], warm: WarmupTicket | null): Promise<DueRecipientRow[] | "held"> {
  const started: DueRecipientRow[] = [];
  let held = false;
  await ctx.deps.store.write(async (tx) => {
    const firsts = due.filter((r) => r.status === "pending").length;
    if (warm && firsts > 0 && !(await tx.warmups.take(warm.domainId, warm.day, firsts, warm.limit))) {
      held = true;
      return;
    }
    const now = Date.now();
    if (first) {
      await tx.deliveries.storeComposed(messageId, first.raw);
      if (first.links.length > 0) await tx.tracking.addLinks(messageId, first.links);
    }
    for (const r of due) {
      const processed = { recipientId: r.id, status: "processed", attempted: true } as const;
      if (await changeDueRecipientStatus(tx, r.status === "pending" ? [{ recipientId: r.id, status: "queued" }, processed] : processed, now)) started.push(r);
    }
  });
  return held ? "held" : started;
}
