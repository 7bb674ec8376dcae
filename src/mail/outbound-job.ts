/**
 * The outbound pipeline: one job per accepted message. Its first run composes and DKIM-signs the
 * message (stored as its raw source), marks the recipients queued and processed, and delivers to
 * every destination domain over SMTP (direct to MX, through the relay, or to the sink), all with
 * the composed bytes in hand. Soft failures retry the same job on DELIVERY_SCHEDULE_MS until the
 * queue lifetime; a retry finds the raw source stored and only delivers. Every status change goes
 * through changeDueRecipientStatus (a recipient cancelled meanwhile is left alone) and commits
 * together with the job's fate.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Config } from "../config.ts";
import type { Deps } from "../context.ts";
import { databasePath } from "../db/connection.ts";
import type { DeliveryReceiptRow, OutboundMessageRow } from "../db/deliveries.ts";
import type { DatabaseLocation } from "../db/receipt-writer.ts";
import type { DueRecipientRow } from "../db/recipients.ts";
import type { Repositories, Store } from "../db/store.ts";
import type { Address } from "../db/schema.ts";
import { changeDueRecipientStatus, type RemoteReply } from "../events/message-status.ts";
import { iso } from "../ids.ts";
import { DELIVERY_SCHEDULE_MS, scheduledBackoff } from "../backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { serverSecretOf } from "../secrets.ts";
import { recipientUnsubscribeToken } from "../auth/unsubscribe-tokens.ts";
import type { ComposedMessage, ComposeInput } from "./compose.ts";
import { Composer, ComposerUnavailableError } from "./composer.ts";
import { collectAfterBytes, DeliveryMemory, estimateCopyBytes } from "./delivery-memory.ts";
import type { DkimKey } from "./dkim.ts";
import { Deliverer, type RecipientOutcome } from "./deliver.ts";
import { isRateReply, requestedRetryMs } from "./reply.ts";
import { Shaper, type Admission, type ShapingOptions } from "./shaping.ts";
import { receiptRow } from "./receipts.ts";
import { SmtpAgent } from "./smtp-agent.ts";
import type { SmtpPoolOptions, SmtpSender } from "./smtp-pool.ts";
import { bounceDomainOf, verpAddress, verpCutoverOf } from "./verp.ts";

export const OUTBOUND_QUEUE = "outbound";

/** One job per accepted message, from composing to a final status for every recipient. */
export interface OutboundJob {
  messageId: string;
}
/** Claims of one message's job, crashes included; the queue lifetime ends it long before. */
export const OUTBOUND_MAX_ATTEMPTS = 1000;
/** How long a claimed job is held by default (renewed while it runs); queue control leaves a job due within it alone. */
export const OUTBOUND_LEASE_MS = 10_000;

export interface OutboundOptions {
  /** Delays between delivery attempts; default DESIGN.md §5 (tests shorten them). */
  retryScheduleMs?: readonly number[];
  /** How long a claimed job is held; renewed while it runs, so a crash frees it this soon. */
  leaseMs?: number;
  /** Messages in progress at once (composing or delivering); default POSTHORN_DELIVERY_CONCURRENCY. */
  concurrency?: number;
  pool?: Partial<Omit<SmtpPoolOptions, "log" | "heloName">>;
  /** How long MX answers are reused; 0 looks up every time. */
  mxCacheMs?: number;
  /** Worker threads composing and signing; 0 composes on the main thread. */
  composeThreads?: number;
  /** Per-destination shaping's timings (tests shorten them), or false for none at all. */
  shaping?: Partial<ShapingOptions> | false;
}

type MessageInfo = { created_at: number; domain: string; return_path_host: string };
/**
 * The signed copies of one attempt: one for all (`shared`), or one per recipient (tracking, or a
 * broadcast's own unsubscribe link), composed when its transaction's turn comes; and how many
 * transactions may hold a copy at once (what the attempt was given of POSTHORN_DELIVERY_MEMORY_MB).
 */
type Copies = { shared: Buffer | null; of(r: DueRecipientRow): Promise<Buffer>; inFlight: number };

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/** What the composer needs for one message: the MIME input and the signing key. */
async function composeRequest(deps: Deps, row: OutboundMessageRow): Promise<{ input: ComposeInput; key: DkimKey }> {
  // A part too large to come with the row is read now, in the attempt's turn for delivery memory.
  const large = (row.html === null && row.html_bytes !== null) || (row.text === null && row.text_bytes !== null);
  const parts = large ? await deps.store.read.deliveries.partsToCompose(row.id) : row;
  const attachments = (await deps.store.read.deliveries.attachmentsToCompose(row.id)).map((a) => ({
    filename: a.filename,
    contentType: a.content_type,
    contentId: a.content_id,
    content: Buffer.from(a.content),
  }));
  const input: ComposeInput = {
    messageId: row.message_id_header ?? `${row.id}@${row.domain}`,
    date: new Date(row.created_at),
    from: { email: row.from_email, name: row.from_name },
    to: JSON.parse(row.to) as Address[],
    cc: JSON.parse(row.cc) as Address[],
    replyTo: JSON.parse(row.reply_to) as string[],
    subject: row.subject,
    html: parts.html,
    text: parts.text,
    headers: JSON.parse(row.headers) as Record<string, string>,
    attachments,
    // A broadcast copy's own link is set for each recipient (copyFor): none names the message's others.
    listUnsubscribeUrl: null,
    received: { by: deps.config.hostname, id: row.id },
  };
  const ed25519 = row.dkim_ed25519_selector && row.dkim_ed25519_private_key ? { selector: row.dkim_ed25519_selector, privateKeyPem: row.dkim_ed25519_private_key } : null;
  return { input, key: { domain: row.domain!, selector: row.dkim_selector!, privateKeyPem: row.dkim_private_key!, ed25519 } };
}

/**
 * Where an orphaned SMTP agent writes its receipts: the PostgreSQL database, or the SQLite file
 * in the data directory. A test's in-memory database has no file there; its agent writes none.
 */
function receiptDatabase(config: Config): DatabaseLocation | null {
  if (config.databaseUrl) return { postgres: config.databaseUrl };
  const path = databasePath(config.dataDir);
  return existsSync(path) ? { sqlite: path } : null;
}

/**
 * The server secret and the 80-bit VERP cutover (see verp.ts), both settled before the first
 * return path is made; asked once, again only after a failure.
 */
function signingSecret(store: Store): () => Promise<string> {
  let secret: Promise<string> | null = null;
  return () =>
    (secret ??= Promise.all([serverSecretOf(store), verpCutoverOf(store)]).then(
      ([s]) => s,
      (err: unknown) => {
        secret = null;
        throw err;
      },
    ));
}

/** Outbound SMTP pools and compose workers per Deps, closed at shutdown by closeOutbound. */
const resources = new WeakMap<Deps, { pools: SmtpSender; composer: Composer; shaper: Shaper | null; stop(): Promise<void> }>();

/**
 * Shutdown: stops starting deliveries, lets those under way finish (up to 15 s) so that no
 * accepted reply goes unrecorded, then closes the SMTP connections and compose workers.
 */
export async function closeOutbound(deps: Deps): Promise<void> {
  const r = resources.get(deps);
  if (!r) return;
  resources.delete(deps);
  await r.stop();
  r.pools.close();
  r.composer.close();
  r.shaper?.close();
}

/** Registers the outbound queue. Returns the pools (tests read their stats). */
export function registerOutboundJobs(runner: JobRunner, deps: Deps, opts: OutboundOptions = {}): SmtpSender {
  const { store, config, log } = deps;
  const leaseMs = opts.leaseMs ?? OUTBOUND_LEASE_MS;
  const schedule = opts.retryScheduleMs ?? DELIVERY_SCHEDULE_MS;
  const pools = new SmtpAgent({ heloName: config.hostname, logLevel: config.logLevel, database: receiptDatabase(config), ...opts.pool }, log);
  // Workers only where cores are left beside the event loop and the SMTP agent: on 2 cores a
  // compose worker took as much CPU from them as it saved, and a heap of its own (~16 MB RSS).
  const composer = new Composer(opts.composeThreads ?? Math.max(0, Math.min(2, availableParallelism() - 2)), log);
  void closeOutbound(deps);
  // A 250 is on record within the turn of the event loop it arrives in, so that a crash before
  // the job's outcome commits does not send the message again (see send()). The 250s of one turn
  // share one commit (the agent's reports arrive in bursts under load; a commit each was ~60 µs of
  // the event loop per message). A receipt that lands after its outcome's commit is not written
  // (writeReceipt). Best effort: the outcome write records the delivery anyway.
  let receipts: DeliveryReceiptRow[] = [];
  const writeReceipts = () => {
    const rows = receipts;
    receipts = [];
    store.writeNow((tx) => tx.deliveries.writeReceipts(rows)).catch((err: unknown) => {
      log.warn("delivery receipts not written", { recipients: rows.map((r) => r.recipient_id), error: err instanceof Error ? err.message : String(err) });
    });
  };
  const receive = (o: RecipientOutcome) => {
    if (receipts.push(receiptRow(o, Date.now())) === 1) setImmediate(writeReceipts);
  };
  const deliverer = new Deliverer(deps, pools, { mxCacheMs: opts.mxCacheMs ?? 60_000, onAccepted: receive });
  // Nothing leaves in sink mode: nothing to shape.
  const shaper =
    config.delivery === "sink" || opts.shaping === false
      ? null
      : new Shaper({ store, log, policies: config.destinationPolicies }, (domain) => deliverer.destinationOf(domain), opts.shaping);
  const secret = signingSecret(store);
  void secret().catch(() => {}); // recorded at start, as the MX listener does; a failure is asked again
  const memory = new DeliveryMemory(config.deliveryMemoryMb * 1024 * 1024);
  // The copies composed here are garbage once answered: collected every 64 MB of them.
  const collected = collectAfterBytes(64 * 1024 * 1024);

  /** Keeps a job leased while `work` runs, so that a short lease is safe for slow SMTP servers. */
  const runLeased = async <T>(job: Job<unknown>, work: () => Promise<T>): Promise<T> => {
    const timer = setInterval(() => {
      store.write((tx) => tx.jobs.extend(job, leaseMs)).catch(() => {});
    }, leaseMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  };
  /** Work in progress, so that shutdown can let it finish before the connections close. */
  let closing = false;
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p)).catch(() => {});
    return p;
  };
  const leased =
    <P>(handler: (job: Job<P>) => Promise<JobOutcome>) =>
    (job: Job<P>): Promise<JobOutcome> =>
      // While shutting down, claimed jobs are put back untouched rather than started.
      closing ? Promise.resolve({ type: "retry", delayMs: 1000, error: "server shutting down" }) : track(runLeased(job, () => handler(job)));
  resources.set(deps, {
    pools,
    composer,
    shaper,
    async stop() {
      closing = true;
      const deadline = Date.now() + 15_000;
      while (inflight.size > 0 && Date.now() < deadline) await Promise.race([Promise.allSettled([...inflight]), Bun.sleep(100)]);
    },
  });

  const failAll = (ids: string[], reason: string): JobOutcome => ({
    type: "done",
    write: async (tx) => {
      const now = Date.now();
      for (const id of ids) {
        await changeDueRecipientStatus(tx, { recipientId: id, status: "failed", response: null, details: { reason } }, now);
      }
    },
  });

  /**
   * One attempt at a message: compose and sign it the first time (stored as its raw source), put
   * the attempt on record, then deliver to every destination domain of the recipients still
   * without a final status. A retry or a re-run after a crash finds the raw source stored and
   * goes straight to delivery.
   */
  const send = async (job: Job<OutboundJob>, held: { admission: Admission | null }): Promise<JobOutcome> => {
    const { messageId } = job.payload;
    const row = await store.read.deliveries.outboundMessage(messageId);
    if (!row) return { type: "done" };
    let due = await store.read.recipients.dueOf(messageId);
    if (due.length === 0) return { type: "done" };
    // Recipients a server accepted just before a crash cut the last run short: recorded, not sent
    // again. Only a message already composed (and so sent before) can have any.
    const receipts = row.raw_bytes !== null ? await store.read.deliveries.receiptsOf(messageId) : [];
    if (receipts.length > 0) {
      const receiptOf = new Map(receipts.map((rc) => [rc.recipient_id, rc]));
      await store.write(async (tx) => {
        const at = Date.now();
        for (const r of due) {
          const rc = receiptOf.get(r.id);
          if (rc) await recordDelivered(tx, { recipientId: r.id, email: r.email, verdict: "delivered", reply: JSON.parse(rc.reply) as RemoteReply, host: rc.host, suppress: false }, at);
        }
      });
      due = due.filter((r) => !receiptOf.has(r.id));
      if (due.length === 0) return { type: "done" };
    }
    if (!row.domain || !row.dkim_private_key || !row.return_path_host) {
      return failAll(due.map((r) => r.id), "The sending domain was removed before the message was sent.");
    }
    // Per-destination shaping: a recipient whose destination is paused or at its limits is not
    // attempted; the job comes back at the slot reserved for it, with no attempt on record.
    const admission = shaper ? await shaper.admit(messageId, due.map((r) => domainOf(r.email))) : null;
    held.admission = admission;
    if (admission && admission.retryAt !== null) {
      if (!admission.admitted.includes(true)) return { type: "defer", delayMs: admission.retryAt - Date.now() };
      due = due.filter((_, i) => admission.admitted[i]);
    }
    const composed = row.raw_bytes === null;
    // With tracking, each recipient's copy carries tokens that name it, and a broadcast's copy its
    // own unsubscribe link: composed for each, on every attempt (the tokens come out the same);
    // the first copy is stored as the source.
    const tracked = (row.track_opens === 1 || row.track_clicks === 1) && row.html_bytes !== null;
    const broadcast = row.route_type === "broadcast";
    const perRecipient = tracked || broadcast;
    // Delivery memory: the content while composing, the shared copy if there is one, and a copy
    // per transaction in flight, as much of it as the limit gives; the rest wait their turn.
    const composing = composed || perRecipient;
    const contentBytes = composing ? (row.html_bytes ?? 0) + (row.text_bytes ?? 0) + row.attachment_bytes : 0;
    const copyBytes = composing ? estimateCopyBytes({ html: row.html, htmlBytes: row.html_bytes ?? 0, textBytes: row.text_bytes ?? 0, attachmentBytes: row.attachment_bytes }) : row.raw_bytes!;
    const fixed = contentBytes + (perRecipient ? 0 : copyBytes);
    const given = await memory.enter(memory.ask(fixed, copyBytes, due.length));
    try {
      const inFlight = Math.max(1, Math.min(due.length, Math.floor((given.bytes - fixed) / copyBytes)));
      let copies: Copies;
      let first: ComposedMessage | null = null; // stored as the source on the first attempt
      if (!composing) {
        const raw = await store.read.messages.rawSource(messageId);
        if (!raw) return { type: "retry", delayMs: 1000, error: "the composed source is not readable yet" };
        const shared = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
        copies = { shared, of: async () => shared, inFlight };
      } else {
        try {
          const { input, key } = await composeRequest(deps, row);
          const tracking = tracked
            ? { opens: row.track_opens === 1, clicks: row.track_clicks === 1, baseUrl: config.trackingUrl, secret: await secret(), messageId }
            : null;
          const unsubscribeSecret = broadcast ? await secret() : null;
          const copyFor = (r: DueRecipientRow): ComposeInput => ({
            ...input,
            ...(tracking ? { tracking: { ...tracking, recipientId: r.id } } : {}),
            ...(unsubscribeSecret !== null ? { listUnsubscribeUrl: `${config.publicUrl}/v1/unsubscribe/${recipientUnsubscribeToken(unsubscribeSecret, r.id)}` } : {}),
          });
          if (!perRecipient) {
            first = await composer.compose(input, key);
            const shared = first.raw;
            copies = { shared, of: async () => shared, inFlight };
          } else {
            // The first recipient's copy now (the source, and proof the message composes); each
            // other's when its transaction's turn comes, after a turn of the event loop, so that
            // composing many large copies never holds the loop (and the job's lease) for long.
            if (composed) first = await composer.compose(copyFor(due[0]!), key);
            let ready: { id: string; raw: Buffer } | null = first ? { id: due[0]!.id, raw: first.raw } : null;
            copies = {
              shared: null,
              inFlight,
              of: async (r) => {
                if (ready?.id === r.id) {
                  const raw = ready.raw;
                  ready = null;
                  return raw;
                }
                await new Promise((resolve) => setImmediate(resolve));
                return (await composer.compose(copyFor(r), key)).raw;
              },
            };
          }
        } catch (err) {
          if (err instanceof ComposerUnavailableError) throw err; // the runner retries the job
          log.error("compose failed", { message: messageId, error: err instanceof Error ? err.message : String(err) });
          return failAll(due.map((r) => r.id), `The message could not be composed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      // The attempt is on record before the first byte goes out: after a crash these recipients
      // are attempted again (at-least-once), never forgotten. A recipient cancelled meanwhile is not attempted.
      const started: DueRecipientRow[] = [];
      await store.write(async (tx) => {
        const now = Date.now();
        if (composed && first) {
          await tx.deliveries.storeComposed(messageId, first.raw);
          if (first.links.length > 0) await tx.tracking.addLinks(messageId, first.links);
        }
        for (const r of due) {
          const processed = { recipientId: r.id, status: "processed", attempted: true } as const;
          if (await changeDueRecipientStatus(tx, r.status === "pending" ? [{ recipientId: r.id, status: "queued" }, processed] : processed, now)) started.push(r);
        }
      });
      first = null;
      if (started.length === 0) return { type: "done" };
      return await attempt(started.map((r) => ({ ...r, attempts: r.attempts + 1 })), { created_at: row.created_at, domain: row.domain, return_path_host: row.return_path_host }, copies, admission);
    } finally {
      given.leave();
      if (composing) collected(contentBytes + copyBytes);
    }
  };

  /**
   * One delivery attempt for recipients already marked processed: each destination domain in
   * parallel, at most `copies.inFlight` transactions holding a copy at once.
   */
  const attempt = async (due: DueRecipientRow[], msg: MessageInfo, copies: Copies, admission: Admission | null): Promise<JobOutcome> => {
    const deadline = msg.created_at + config.queueLifetimeSeconds * 1000;
    // The n-th attempt of a recipient waits the n-th step of the schedule.
    const attemptNo = Math.max(1, ...due.map((r) => r.attempts));
    if (config.delivery === "sink") {
      const reply: RemoteReply = { code: 250, enhanced_code: "2.0.0", message: "Accepted by the sink (POSTHORN_DELIVERY=sink); not sent" };
      return outcomeOf(attemptNo, due.map((r) => ({ recipientId: r.id, email: r.email, verdict: "delivered", reply, host: null, suppress: false })), deadline);
    }
    const bounceDomain = bounceDomainOf({ domain: msg.domain, returnPathHost: msg.return_path_host });
    const byDomain = new Map<string, DueRecipientRow[]>();
    for (const r of due) {
      const d = domainOf(r.email);
      byDomain.set(d, [...(byDomain.get(d) ?? []), r]);
    }
    const verpSecret = await secret();
    const recipient = (r: DueRecipientRow, raw: Buffer) => ({ id: r.id, email: r.email, envelopeFrom: verpAddress(verpSecret, r.id, bounceDomain), raw });
    // One shared copy and room for every transaction: all at once, as always for small mail.
    const shared = copies.shared;
    if (shared && copies.inFlight >= due.length) {
      const outcomes = await Promise.all(
        [...byDomain].map(async ([domain, rs]) => {
          const got = await deliverer.deliver(domain, rs.map((r) => recipient(r, shared)));
          admission?.done(domain, got);
          return got;
        }),
      );
      return outcomeOf(attemptNo, outcomes.flat(), deadline, admission);
    }
    // Otherwise each recipient's transaction takes a turn, holding its copy until the remote answers.
    let running = 0;
    const turns: (() => void)[] = [];
    const turn = async <T>(work: () => Promise<T>): Promise<T> => {
      if (running >= copies.inFlight) await new Promise<void>((resolve) => turns.push(resolve));
      else running++;
      try {
        return await work();
      } finally {
        const next = turns.shift();
        if (next) next();
        else running--;
      }
    };
    const one = (domain: string, r: DueRecipientRow) =>
      turn(async (): Promise<RecipientOutcome> => {
        let raw: Buffer;
        try {
          raw = await copies.of(r);
        } catch (err) {
          // The first copy composed, so this one's failure is taken as passing: tried again later.
          const message = `The message could not be composed: ${err instanceof Error ? err.message : String(err)}`;
          log.error("compose failed", { message: r.id, error: message });
          return { recipientId: r.id, email: r.email, verdict: "soft", reply: { code: null, enhanced_code: null, message }, host: null, suppress: false };
        }
        try {
          return (await deliverer.deliver(domain, [recipient(r, raw)]))[0]!;
        } finally {
          if (!copies.shared) collected(raw.length);
        }
      });
    const outcomes = await Promise.all(
      [...byDomain].map(async ([domain, rs]) => {
        const got = await Promise.all(rs.map((r) => one(domain, r)));
        admission?.done(domain, got);
        return got;
      }),
    );
    return outcomeOf(attemptNo, outcomes.flat(), deadline, admission);
  };

  /**
   * When every soft failure is a rate reply, the retry waits for the destination to reopen, not
   * for the next step of the schedule: the reply was about our pace, not about the message.
   */
  const rateReplyDelay = (outcomes: RecipientOutcome[], admission: Admission | null): number | null => {
    const soft = outcomes.filter((o) => o.verdict === "soft");
    if (!admission || soft.length === 0 || !soft.every((o) => isRateReply(o.reply))) return null;
    const reopens = Math.max(0, ...soft.map((o) => admission.reopensAt(domainOf(o.email)) ?? 0));
    return reopens > Date.now() ? reopens - Date.now() + Math.floor(Math.random() * 1000) : null;
  };

  /** A job whose attempted recipients are all settled still comes back for those shaping held. (A retry already does: see outcomeOf.) */
  const shaped = (outcome: JobOutcome, admission: Admission | null): JobOutcome => {
    if (!admission || admission.retryAt === null || outcome.type !== "done") return outcome;
    return { type: "defer", delayMs: Math.max(0, admission.retryAt - Date.now()), ...(outcome.write ? { write: outcome.write } : {}) };
  };

  /** A recipient's delivery, on record: its receipt, if one was written, has served its purpose. */
  const recordDelivered = async (tx: Repositories, o: RecipientOutcome, at: number) => {
    await changeDueRecipientStatus(tx, { recipientId: o.recipientId, status: "delivered", response: o.reply, details: { mx: o.host ?? null, tls: o.tls ?? null } }, at);
    await tx.deliveries.removeReceipt(o.recipientId);
  };

  /**
   * Records each recipient's result; schedules another attempt for the soft failures. Recipients
   * shaping held back bring the job back at their slot if it is sooner, and the soft failures are
   * attempted again then too: that is the next attempt their status says.
   */
  const outcomeOf = (attemptNo: number, outcomes: RecipientOutcome[], deadline: number, admission: Admission | null = null): JobOutcome => {
    const now = Date.now();
    const soft = outcomes.filter((o) => o.verdict === "soft");
    const requested = Math.max(0, ...soft.map((o) => requestedRetryMs(o.reply.message) ?? 0));
    const scheduled = rateReplyDelay(outcomes, admission) ?? scheduledBackoff(attemptNo, schedule, { requestedMs: requested || null });
    const delayMs = !admission || admission.retryAt === null ? scheduled : Math.min(scheduled, Math.max(0, admission.retryAt - now));
    const expired = now + delayMs > deadline;
    const write = async (tx: Repositories) => {
      const at = Date.now();
      for (const o of outcomes) {
        const base = { recipientId: o.recipientId, response: o.reply, details: { mx: o.host ?? null, tls: o.tls ?? null } };
        if (o.verdict === "delivered") await recordDelivered(tx, o, at);
        else if (o.verdict === "hard") {
          await changeDueRecipientStatus(tx, { ...base, status: "hard_bounced", suppress: o.suppress ? "hard_bounce" : null }, at);
        } else if (expired) {
          await changeDueRecipientStatus(
            tx,
            { ...base, status: "failed", details: { ...base.details, reason: `Not delivered within the queue lifetime of ${config.queueLifetimeSeconds} s.` } },
            at,
          );
        } else {
          await changeDueRecipientStatus(tx, { ...base, status: "soft_bounced", details: { ...base.details, next_attempt_at: iso(at + delayMs) } }, at);
        }
      }
    };
    if (soft.length === 0 || expired) return { type: "done", write };
    const summary = soft.map((o) => `${o.email}: ${o.reply.code ?? ""} ${o.reply.message}`.trim()).join("; ");
    return { type: "retry", delayMs, error: summary.slice(0, 1000), write };
  };

  /**
   * A job's run. Recipients held back by shaping bring the job back at their slot, whatever
   * became of the others; the destination slots it was given are freed however it ends.
   */
  const run = async (job: Job<OutboundJob>): Promise<JobOutcome> => {
    const held: { admission: Admission | null } = { admission: null };
    try {
      return shaped(await send(job, held), held.admission);
    } finally {
      held.admission?.close();
    }
  };

  runner.register<OutboundJob>(OUTBOUND_QUEUE, leased(run), { concurrency: opts.concurrency ?? config.deliveryConcurrency, leaseMs });
  return pools;
}
