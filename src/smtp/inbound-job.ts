/**
 * The "inbound" job: turns an accepted, stored message into a parsed inbound message and its
 * webhook event. Parse (mailparser), check SPF/DKIM/DMARC/ARC (mailauth) and content, score;
 * at or above the route's threshold the message is held as quarantined (stored with its content,
 * published to no webhook, `message.inbound_spam_blocked` in its history), otherwise processed
 * (message.inbound with the full payload). A quarantined message released through the API
 * (src/modules/messages/quarantine.ts) comes back as a job with `release` set: analysed again and
 * processed whatever its score. The message row is only finished while it is still pending, so a
 * job that runs twice publishes once.
 */
import { availableParallelism } from "node:os";
import type { Deps } from "../context.ts";
import type { Repositories } from "../db/store.ts";
import { publishEvent } from "../events/publish.ts";
import { rollInbound } from "../events/stat-rollup.ts";
import { iso, newId } from "../ids.ts";
import { exponentialBackoff } from "../pacing/backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { attachmentDownloadUrl } from "../auth/attachment-links.ts";
import { serverSecretOf } from "../secrets.ts";
import { INBOUND_QUEUE, type InboundJob } from "./accept.ts";
import { boundedParseView, unparsedAnalysis, type Address, type InboundAnalysis } from "./analyze-inbound.ts";
import { AnalysisPool, type Analyzed } from "./analysis-pool.ts";
import { AUTH_DNS_CACHE_MS, createAuthResolver, type AuthResolver } from "./auth-resolver.ts";
import { checkWithRspamd, RspamdError, rspamdHealthOf } from "./rspamd.ts";
import { authSymbols, sumScore, type SpamSymbol, type SpamVerdict } from "./spam.ts";
import { emptyDict } from "../untrusted/dict.ts";
import { ByteGate } from "./byte-gate.ts";
import type { RouteRow } from "../db/routes.ts";
import { clip, FIELD_BOUNDS } from "../untrusted/bounds.ts";

/** Spam symbols as kept: at most FIELD_BOUNDS.symbols, each with bounded name, options and description. */
export function boundSymbols(symbols: readonly SpamSymbol[]): SpamSymbol[] {
  return symbols.slice(0, FIELD_BOUNDS.symbols).map((s) => ({
    name: clip(s.name, FIELD_BOUNDS.short),
    score: s.score,
    options: s.options.slice(0, FIELD_BOUNDS.symbolOptions).map((o) => clip(o, FIELD_BOUNDS.symbolOption)),
    description: clip(s.description, FIELD_BOUNDS.short),
  }));
}

/** Status of an inbound message once parsed, scored and handed to the webhooks. */
export const INBOUND_PROCESSED = "processed";
/** Status while it waits for the job (accepted and stored, not yet parsed). */
export const INBOUND_PENDING = "pending";
/** Status of a message held at or above its route's spam threshold until someone releases it. */
export const INBOUND_QUARANTINED = "quarantined";
/** History kinds of the hold and of the release (the service's inbound_spam_blocked, inbound_released). */
export const SPAM_BLOCKED_KIND = "message.inbound_spam_blocked";
export const RELEASED_KIND = "message.inbound_released";

/** The SMTP envelope of a quarantined message, kept in its history so that a release can run the job again. */
export interface HeldEnvelope {
  mail_from: string;
  recipients: string[];
  subaddress: string | null;
  client_ip: string;
  helo: string;
  tls: boolean;
  transaction_recipients: number;
}

export const heldEnvelopeOf = (p: InboundJob): HeldEnvelope => ({
  mail_from: p.mailFrom,
  recipients: p.recipients,
  subaddress: p.subaddress,
  client_ip: p.ip,
  helo: p.helo,
  tls: p.secure,
  transaction_recipients: p.envelopeRecipientCount,
});

/** The job that releases a quarantined message: the one it arrived with, marked `release`. */
export const releaseJobOf = (messageId: string, e: HeldEnvelope, bytes: number): InboundJob => ({
  messageId,
  recipients: e.recipients,
  subaddress: e.subaddress,
  mailFrom: e.mail_from,
  ip: e.client_ip,
  helo: e.helo,
  secure: e.tls,
  envelopeRecipientCount: e.transaction_recipients,
  bytes,
  release: true,
});

export interface InboundJobOptions {
  concurrency?: number;
  /** mailauth's DNS; default: deps.dns behind a TTL cache. */
  resolver?: AuthResolver;
  /** Analysis worker threads; default: the cores but one (at least one, at most four). */
  threads?: number;
  /** Delay before retrying after rspamd failed (default 5 s; tests shorten it); within POSTHORN_RSPAMD_FALLBACK_SECONDS. */
  rspamdRetryMs?: (attempt: number) => number;
  /** Attempts at analyzing a message (a worker crash or timeout) before publishing it unparsed. */
  analysisAttempts?: number;
  /** Message bytes in progress at once across jobs (default DEFAULT_ANALYSIS_BUDGET_BYTES). */
  analysisBudgetBytes?: number;
}

/** Inbound jobs at once: enough that outcomes of many small messages share a commit. */
export const DEFAULT_INBOUND_CONCURRENCY = 64;
/** About what 16 jobs of 200 KB messages hold: large mail runs as few at once as before. */
export const DEFAULT_ANALYSIS_BUDGET_BYTES = 4 * 1024 * 1024;

const analysisPools = new WeakMap<Deps, AnalysisPool>();

/** Stops the analysis workers of `deps` (at shutdown). */
export function stopInboundAnalysis(deps: Deps): void {
  analysisPools.get(deps)?.close();
  analysisPools.delete(deps);
}

/**
 * What every job of one handler shares, made once by inboundJobHandler and passed to each step:
 * the DNS for the authentication checks, the analysis workers, rspamd's health and the settings.
 */
interface InboundStage {
  deps: Deps;
  resolver: AuthResolver;
  pool: AnalysisPool;
  rspamd: ReturnType<typeof rspamdHealthOf>;
  rspamdRetryMs: (attempt: number) => number;
  /** How long a message waits for rspamd at most since it was received. */
  fallbackMs: number;
  analysisAttempts: number;
  /** The attachment links' secret, read once when first needed. */
  linkSecret: () => Promise<string>;
}

/** A pending message with its route and source: what the steps after loading work on. */
interface PendingInbound {
  row: { id: string; team_id: string };
  route: RouteRow;
  raw: Uint8Array;
}

export function inboundJobHandler(deps: Deps, opts: InboundJobOptions = {}) {
  const stage = createStage(deps, opts);
  // Message bytes between reading their source and their outcome, for all jobs together: many
  // small messages run at once (their outcomes share commits), few large ones (each holds its
  // source, the worker's copy and its parts until the outcome is written).
  const gate = new ByteGate(opts.analysisBudgetBytes ?? DEFAULT_ANALYSIS_BUDGET_BYTES);
  return async (job: Job<InboundJob>): Promise<JobOutcome> => {
    // Before the source is read: what a job holds from here on grows with the message.
    const leave = await gate.enter(job.payload.bytes ?? 0);
    try {
      return await processInbound(stage, job);
    } finally {
      leave();
    }
  };
}

function createStage(deps: Deps, opts: InboundJobOptions): InboundStage {
  const resolver = opts.resolver ?? createAuthResolver(deps.dns);
  const threads = opts.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  analysisPools.get(deps)?.close();
  // Workers cache answers as long as the default resolver does; a given resolver caches as it likes.
  const pool = new AnalysisPool({ threads, dnsCacheMs: opts.resolver ? 0 : AUTH_DNS_CACHE_MS }, resolver, deps.log);
  analysisPools.set(deps, pool);
  // Read once, when attachment links are first made: the secret never changes.
  let secret: Promise<string> | undefined;
  const linkSecret = () =>
    (secret ??= serverSecretOf(deps.store).catch((err: unknown) => {
      secret = undefined;
      throw err;
    }));
  return {
    deps,
    resolver,
    pool,
    rspamd: rspamdHealthOf(deps),
    rspamdRetryMs: opts.rspamdRetryMs ?? (() => 5_000),
    fallbackMs: deps.config.rspamdFallbackSeconds * 1000,
    analysisAttempts: opts.analysisAttempts ?? 3,
    linkSecret,
  };
}

/** One job, step by step: load, analyse, score, then the outcome (stored and published in its write). */
async function processInbound(stage: InboundStage, job: Job<InboundJob>): Promise<JobOutcome> {
  const loaded = await loadPending(stage.deps, job.payload.messageId);
  if ("outcome" in loaded) return loaded.outcome;
  const analyzed = await analyzeSource(stage, job, loaded.raw);
  if ("outcome" in analyzed) return analyzed.outcome;
  const verdict = await spamVerdict(stage, job, analyzed.raw, analyzed.analysis);
  if ("retryMs" in verdict) return { type: "retry", delayMs: verdict.retryMs, error: verdict.error };
  const finish = await inboundOutcome(stage, job.payload, loaded, analyzed.analysis, verdict);
  return { type: "done", write: (tx) => finishInbound(tx, finish) };
}

/** Step 1: the message, if still pending, with its route and source; otherwise the job's outcome. */
async function loadPending(deps: Deps, messageId: string): Promise<PendingInbound | { outcome: JobOutcome }> {
  const row = await deps.store.read.messages.findInboundSource(messageId);
  if (!row || row.status !== INBOUND_PENDING) return { outcome: { type: "done" } };
  const route = row.route_id ? await deps.store.read.routes.find(row.route_id) : null;
  const now = Date.now();
  if (!route || !row.raw) {
    // The route was deleted after the message was accepted: nobody to hand it to.
    return { outcome: { type: "done", write: (tx) => tx.messages.failPendingInbound(row.id, now) } };
  }
  return { row, route, raw: row.raw };
}

/**
 * Step 2: parse and check the message on an analysis worker. A failure retries; on the last
 * attempt the message goes on unparsed (headers only), flagged.
 */
async function analyzeSource(stage: InboundStage, job: Job<InboundJob>, raw: Uint8Array): Promise<Analyzed | { outcome: JobOutcome }> {
  const { deps, analysisAttempts } = stage;
  const p = job.payload;
  // Lent to the worker (moved, not copied) unless this is the last attempt, whose failure
  // publishes the message unparsed and so needs the bytes after a failed analysis.
  const lend = job.attempt < analysisAttempts;
  const input = {
    ip: p.ip,
    helo: p.helo,
    mailFrom: p.mailFrom,
    hostname: deps.config.hostname,
    envelopeRecipientCount: p.envelopeRecipientCount,
    checkAuth: !deps.config.rspamdUrl,
  };
  try {
    return await stage.pool.analyze(raw, input, { lend });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    if (job.attempt < analysisAttempts) return { outcome: { type: "retry", delayMs: exponentialBackoff(job.attempt, { baseMs: 5_000, capMs: 300_000 }), error } };
    // Accepted mail is never lost: after repeated failures it is published with what the
    // header block says, flagged so that the receiver knows.
    deps.log.error("inbound analysis kept failing; publishing unparsed", { message: p.messageId, error });
    const failed = { name: "ANALYSIS_FAILED", score: 0, options: [error.slice(0, 200)], description: "The message could not be analyzed; headers only" };
    return { analysis: unparsedAnalysis(raw, [failed]), raw };
  }
}

/**
 * Step 3: the spam verdict: the built-in rules' sum, or rspamd's. While rspamd is unreachable a
 * message waits for it (a retry) within POSTHORN_RSPAMD_FALLBACK_SECONDS, then falls back.
 */
async function spamVerdict(stage: InboundStage, job: Job<InboundJob>, raw: Uint8Array, analysis: InboundAnalysis): Promise<SpamVerdict | { retryMs: number; error: string }> {
  const { deps, rspamd } = stage;
  const p = job.payload;
  if (!deps.config.rspamdUrl) return { score: sumScore(analysis.symbols), symbols: analysis.symbols, engine: "builtin" };
  try {
    const verdict = await checkWithRspamd(deps.config.rspamdUrl, Buffer.from(raw), {
      ip: p.ip,
      helo: p.helo,
      mailFrom: p.mailFrom,
      recipients: p.recipients,
      queueId: p.messageId,
      hostname: deps.config.hostname,
    });
    rspamd.succeeded(deps.log);
    return verdict;
  } catch (err) {
    if (!(err instanceof RspamdError)) throw err;
    rspamd.failed(deps.log, err, deps.config.rspamdFallbackSeconds);
    // A message waits for rspamd at most fallbackMs since it was received (and never into the
    // job's last attempt); once rspamd has been down that long, later messages do not wait at all.
    const now = Date.now();
    const retryMs = stage.rspamdRetryMs(job.attempt);
    const wait = rspamd.downForMs(now) < stage.fallbackMs && now - job.createdAt + retryMs < stage.fallbackMs && job.attempt < job.maxAttempts - 1;
    if (wait) return { retryMs, error: err.message };
    deps.log.info("scoring with built-in rules: rspamd unreachable", { message: p.messageId, error: err.message });
    return builtinInsteadOfRspamd(stage, p, raw, analysis, err);
  }
}

/** The built-in verdict when rspamd cannot be reached, with the authentication checks the analysis left to rspamd. */
async function builtinInsteadOfRspamd(stage: InboundStage, p: InboundJob, raw: Uint8Array, analysis: InboundAnalysis, err: RspamdError): Promise<SpamVerdict> {
  let auth: SpamSymbol[];
  try {
    const view = boundedParseView(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
    auth = await authSymbols(view, { ip: p.ip, helo: p.helo, mailFrom: p.mailFrom, hostname: stage.deps.config.hostname, resolver: stage.resolver });
  } catch (authErr) {
    auth = [{ name: "AUTH_CHECK_ERROR", score: 0, options: [String(authErr).slice(0, 200)], description: "SPF/DKIM/DMARC checks could not run" }];
  }
  const note = { name: "RSPAMD_UNAVAILABLE", score: 0, options: [err.message], description: "rspamd could not be reached; built-in rules were used" };
  const symbols = [...auth, ...analysis.symbols, note];
  return { score: sumScore(symbols), symbols, engine: "builtin" };
}

/**
 * Step 4: the route's decision (at or above its spam threshold: quarantined, unless this run
 * releases it; else processed), the attachments as the route hands them out, and the row and
 * event that finishInbound writes.
 */
async function inboundOutcome(stage: InboundStage, p: InboundJob, msg: PendingInbound, analysis: InboundAnalysis, verdict: SpamVerdict): Promise<Finish> {
  const { row, route } = msg;
  const now = Date.now();
  const envelopeFrom = clip(p.mailFrom, FIELD_BOUNDS.address);
  const from: Address = analysis.from ?? { email: envelopeFrom, name: "" };
  // rspamd's options (and the built-in ones naming a DKIM or SPF domain) come from the message too.
  const spamSymbols = boundSymbols(verdict.symbols);
  const threshold = route.inbound_spam_threshold;
  const held = p.release !== true && threshold !== null && verdict.score >= threshold;
  const status = held ? INBOUND_QUARANTINED : INBOUND_PROCESSED;
  const { files, payload } = await attachmentsFor(stage, route, analysis, now);
  const eventData = inboundEventData({ p, row, route, analysis, from, envelopeFrom, verdict, spamSymbols, status, attachments: payload, now });
  return {
    messageId: row.id,
    teamId: row.team_id,
    routeId: route.id,
    status,
    from,
    to: analysis.to,
    cc: analysis.cc,
    replyTo: analysis.replyTo,
    subject: analysis.subject,
    messageIdHeader: analysis.messageIdHeader,
    verdict: { ...verdict, symbols: spamSymbols },
    html: analysis.html,
    text: analysis.text,
    headers: headerDict(analysis.headers),
    files,
    held: held ? { threshold: threshold!, envelope: heldEnvelopeOf(p) } : null,
    release: p.release === true,
    eventData,
    now,
  };
}

/** The attachments to store (each with its id) and as the event gives them: inline base64, or a signed link when the route says "url". */
async function attachmentsFor(stage: InboundStage, route: RouteRow, analysis: InboundAnalysis, now: number): Promise<{ files: Finish["files"]; payload: Record<string, unknown>[] }> {
  const byUrl = route.attachment_delivery === "url";
  const files = analysis.attachments.map((a) => ({ ...a, id: newId(), content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) }));
  const secret = byUrl && files.length > 0 ? await stage.linkSecret() : "";
  const payload = files.map((f) => {
    const base = { id: f.id, filename: f.filename, content_type: f.contentType, content_id: f.contentId, disposition: f.disposition, size: f.content.length };
    if (!byUrl) return { ...base, content: f.content.toString("base64") };
    const link = attachmentDownloadUrl(secret, stage.deps.config.publicUrl, f.id, now);
    return { ...base, url: link.url, expires_at: iso(link.expiresAt) };
  });
  return { files, payload };
}

/** The message.inbound webhook payload: the whole message. */
function inboundEventData(e: {
  p: InboundJob;
  row: { id: string };
  route: RouteRow;
  analysis: InboundAnalysis;
  from: Address;
  envelopeFrom: string;
  verdict: SpamVerdict;
  spamSymbols: SpamSymbol[];
  status: string;
  attachments: Record<string, unknown>[];
  now: number;
}): Record<string, unknown> {
  const { p, route, analysis } = e;
  const common = {
    message_id: e.row.id,
    route: { id: route.id, slug: route.slug, name: route.name, project_id: route.project_id },
    from: e.from,
    to: analysis.to,
    cc: analysis.cc,
    reply_to: analysis.replyTo,
    recipient: p.recipients[0] ?? null,
    recipients: p.recipients,
    subaddress: p.subaddress,
    envelope_from: e.envelopeFrom || null,
    subject: analysis.subject,
    date: analysis.date,
    message_id_header: analysis.messageIdHeader,
    spam_score: e.verdict.score,
    spam_symbols: e.spamSymbols,
  };
  return {
    ...common,
    status: e.status,
    in_reply_to: analysis.inReplyTo,
    references: analysis.references,
    body: { text: analysis.text, html: analysis.html },
    headers: analysis.headers,
    attachments: e.attachments,
    received_at: iso(e.now),
  };
}

/** Header lines as stored: by lower-case name, repeated ones joined by newlines. */
function headerDict(headers: readonly { name: string; value: string }[]): Record<string, string> {
  const stored = emptyDict<string>();
  for (const h of headers) {
    const k = h.name.toLowerCase();
    stored[k] = k in stored ? `${stored[k]}\n${h.value}` : h.value;
  }
  return stored;
}

interface Finish {
  messageId: string;
  teamId: string;
  routeId: string;
  status: string;
  from: Address;
  to: Address[];
  cc: Address[];
  replyTo: string[];
  subject: string;
  messageIdHeader: string | null;
  verdict: SpamVerdict;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  files: { id: string; filename: string; contentType: string; contentId: string | null; content: Buffer }[];
  /** Set when the message is held: the threshold it reached and its envelope (for a release). */
  held: { threshold: number; envelope: HeldEnvelope } | null;
  /** This run releases a quarantined message: the attachments of its first analysis go. */
  release: boolean;
  eventData: Record<string, unknown>;
  now: number;
}

/**
 * The job's outcome write. Does nothing unless the message is still pending. A held message is
 * stored with its content and history and published to nobody.
 */
async function finishInbound(tx: Repositories, f: Finish): Promise<void> {
  const completed = await tx.messages.completeInbound(f.messageId, {
    status: f.status,
    from_email: f.from.email,
    from_name: f.from.name,
    subject: f.subject,
    to: JSON.stringify(f.to),
    cc: JSON.stringify(f.cc),
    reply_to: JSON.stringify(f.replyTo),
    message_id_header: f.messageIdHeader,
    spam_score: f.verdict.score,
    spam_symbols: JSON.stringify(f.verdict.symbols),
    html: f.html,
    text: f.text,
    headers: JSON.stringify(f.headers),
    now: f.now,
  });
  if (!completed) return;
  // A release's run finishes a message counted when it was held: received once, not twice.
  if (!f.release) await rollInbound(tx, { teamId: f.teamId, routeId: f.routeId, messageId: f.messageId, status: f.status }, f.now);
  if (f.release) await tx.messages.deleteAttachments(f.messageId);
  await tx.messages.insertAttachments(
    f.messageId,
    f.files.map((a) => ({ id: a.id, filename: a.filename, content_type: a.contentType, content_id: a.contentId, content: a.content })),
  );
  await tx.recipients.appendHistory({
    id: newId(),
    message_id: f.messageId,
    recipient_id: null,
    kind: f.held ? SPAM_BLOCKED_KIND : "message.inbound",
    status: f.status,
    data: JSON.stringify({
      spam_score: f.verdict.score,
      engine: f.verdict.engine,
      ...(f.held ? { spam_threshold: f.held.threshold, envelope: f.held.envelope } : {}),
      ...(f.release ? { released: true } : {}),
    }),
    created_at: f.now,
  });
  if (f.held) return;
  await publishEvent(tx, { teamId: f.teamId, routeId: f.routeId, messageId: f.messageId, kind: "message.inbound", data: f.eventData }, f.now);
}

export function registerInboundJobs(runner: JobRunner, deps: Deps, opts: InboundJobOptions = {}): void {
  runner.register(INBOUND_QUEUE, inboundJobHandler(deps, opts), { concurrency: opts.concurrency ?? DEFAULT_INBOUND_CONCURRENCY, leaseMs: 5 * 60_000 });
}
