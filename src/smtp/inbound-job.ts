/**
 * The "inbound" job: turns an accepted, stored message into a parsed inbound message and its
 * webhook event. Parse (mailparser), check SPF/DKIM/DMARC/ARC (mailauth) and content, score;
 * at or above the route's threshold the message becomes policy_rejected (message.policy_rejected),
 * otherwise processed (message.inbound with the full payload). The message row is only finished
 * while it is still pending, so a job that runs twice publishes once.
 */
import { availableParallelism } from "node:os";
import type { Deps } from "../context.ts";
import type { Repositories } from "../db/store.ts";
import { publishEvent } from "../events/publish.ts";
import { iso, newId } from "../ids.ts";
import { exponentialBackoff } from "../backoff.ts";
import type { Job } from "../db/job-queue.ts";
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { attachmentDownloadUrl } from "../auth/attachment-links.ts";
import { serverSecretOf } from "../secrets.ts";
import { INBOUND_QUEUE, type InboundJob } from "./accept.ts";
import { boundedParseView, unparsedAnalysis, type Address, type InboundAnalysis } from "./analysis.ts";
import { Analyzer } from "./analyzer.ts";
import { AUTH_DNS_CACHE_MS, createAuthResolver, type AuthResolver } from "./auth-resolver.ts";
import { checkWithRspamd, RspamdError, rspamdHealthOf } from "./rspamd.ts";
import { authSymbols, sumScore, type SpamSymbol, type SpamVerdict } from "./spam.ts";
import { emptyDict } from "../dict.ts";
import { ByteGate } from "./byte-gate.ts";
import type { RouteRow } from "../db/routes.ts";
import { clip, FIELD_BOUNDS } from "../bounds.ts";

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

const analyzers = new WeakMap<Deps, Analyzer>();

/** Stops the analysis workers of `deps` (at shutdown). */
export function stopInboundAnalysis(deps: Deps): void {
  analyzers.get(deps)?.close();
  analyzers.delete(deps);
}

export function inboundJobHandler(deps: Deps, opts: InboundJobOptions = {}) {
  const resolver = opts.resolver ?? createAuthResolver(deps.dns);
  const threads = opts.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  analyzers.get(deps)?.close();
  // Workers cache answers as long as the default resolver does; a given resolver caches as it likes.
  const analyzer = new Analyzer({ threads, dnsCacheMs: opts.resolver ? 0 : AUTH_DNS_CACHE_MS }, resolver, deps.log);
  analyzers.set(deps, analyzer);
  const rspamdRetryMs = opts.rspamdRetryMs ?? (() => 5_000);
  const rspamd = rspamdHealthOf(deps);
  const fallbackMs = deps.config.rspamdFallbackSeconds * 1000;
  const analysisAttempts = opts.analysisAttempts ?? 3;
  // Message bytes between reading their source and their outcome, for all jobs together: many
  // small messages run at once (their outcomes share commits), few large ones (each holds its
  // source, the worker's copy and its parts until the outcome is written).
  const gate = new ByteGate(opts.analysisBudgetBytes ?? DEFAULT_ANALYSIS_BUDGET_BYTES);
  // Read once, when attachment links are first made: the secret never changes.
  let secret: Promise<string> | undefined;
  const linkSecret = () =>
    (secret ??= serverSecretOf(deps.store).catch((err: unknown) => {
      secret = undefined;
      throw err;
    }));

  async function score(job: Job<InboundJob>, raw: Uint8Array, analysis: InboundAnalysis): Promise<SpamVerdict | { retryMs: number; error: string }> {
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
      const retryMs = rspamdRetryMs(job.attempt);
      const wait = rspamd.downForMs(now) < fallbackMs && now - job.createdAt + retryMs < fallbackMs && job.attempt < job.maxAttempts - 1;
      if (wait) return { retryMs, error: err.message };
      deps.log.info("scoring with built-in rules: rspamd unreachable", { message: p.messageId, error: err.message });
      // The analysis skipped the authentication checks for rspamd; run them here instead.
      let auth: SpamSymbol[];
      try {
        auth = await authSymbols(boundedParseView(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)), { ip: p.ip, helo: p.helo, mailFrom: p.mailFrom, hostname: deps.config.hostname, resolver });
      } catch (authErr) {
        auth = [{ name: "AUTH_CHECK_ERROR", score: 0, options: [String(authErr).slice(0, 200)], description: "SPF/DKIM/DMARC checks could not run" }];
      }
      const note = { name: "RSPAMD_UNAVAILABLE", score: 0, options: [err.message], description: "rspamd could not be reached; built-in rules were used" };
      const symbols = [...auth, ...analysis.symbols, note];
      return { score: sumScore(symbols), symbols, engine: "builtin" };
    }
  }

  return async (job: Job<InboundJob>): Promise<JobOutcome> => {
    // Before the source is read: what a job holds from here on grows with the message.
    const leave = await gate.enter(job.payload.bytes ?? 0);
    try {
      return await handle(job);
    } finally {
      leave();
    }
  };

  async function handle(job: Job<InboundJob>): Promise<JobOutcome> {
    const p = job.payload;
    const row = await deps.store.read.messages.findInboundSource(p.messageId);
    if (!row || row.status !== INBOUND_PENDING) return { type: "done" };
    const route = row.route_id ? await deps.store.read.routes.find(row.route_id) : null;
    const now0 = Date.now();
    if (!route || !row.raw) {
      // The route was deleted after the message was accepted: nobody to hand it to.
      return { type: "done", write: (tx) => tx.messages.failPendingInbound(row.id, now0) };
    }
    return analyzeAndPublish(job, row, route, row.raw);
  }

  async function analyzeAndPublish(
    job: Job<InboundJob>,
    row: { id: string; team_id: string },
    route: RouteRow,
    raw: Uint8Array,
  ): Promise<JobOutcome> {
    const p = job.payload;
    let analysis: InboundAnalysis;
    // Lent to the worker (moved, not copied) unless this is the last attempt, whose failure
    // publishes the message unparsed and so needs the bytes after a failed analysis.
    const lend = job.attempt < analysisAttempts;
    try {
      ({ analysis, raw } = await analyzer.analyze(
        raw,
        {
          ip: p.ip,
          helo: p.helo,
          mailFrom: p.mailFrom,
          hostname: deps.config.hostname,
          envelopeRecipientCount: p.envelopeRecipientCount,
          checkAuth: !deps.config.rspamdUrl,
        },
        { lend },
      ));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (job.attempt < analysisAttempts) return { type: "retry", delayMs: exponentialBackoff(job.attempt, { baseMs: 5_000, capMs: 300_000 }), error };
      // Accepted mail is never lost: after repeated failures it is published with what the
      // header block says, flagged so that the receiver knows.
      deps.log.error("inbound analysis kept failing; publishing unparsed", { message: p.messageId, error });
      analysis = unparsedAnalysis(raw, [{ name: "ANALYSIS_FAILED", score: 0, options: [error.slice(0, 200)], description: "The message could not be analyzed; headers only" }]);
    }
    const verdict = await score(job, raw, analysis);
    if ("retryMs" in verdict) return { type: "retry", delayMs: verdict.retryMs, error: verdict.error };

    const now = Date.now();
    const envelopeFrom = clip(p.mailFrom, FIELD_BOUNDS.address);
    const from: Address = analysis.from ?? { email: envelopeFrom, name: "" };
    // rspamd's options (and the built-in ones naming a DKIM or SPF domain) come from the message too.
    const spamSymbols = boundSymbols(verdict.symbols);
    const threshold = route.inbound_spam_threshold;
    const rejected = threshold !== null && verdict.score >= threshold;
    const status = rejected ? "policy_rejected" : INBOUND_PROCESSED;
    const byUrl = route.attachment_delivery === "url";

    const files = analysis.attachments.map((a) => ({ ...a, id: newId(), content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) }));
    const secret = byUrl && files.length > 0 ? await linkSecret() : "";
    const attachmentPayload = files.map((f) => {
      const base = { id: f.id, filename: f.filename, content_type: f.contentType, content_id: f.contentId, disposition: f.disposition, size: f.content.length };
      if (!byUrl) return { ...base, content: f.content.toString("base64") };
      const link = attachmentDownloadUrl(secret, deps.config.publicUrl, f.id, now);
      return { ...base, url: link.url, expires_at: iso(link.expiresAt) };
    });

    const common = {
      message_id: row.id,
      route: { id: route.id, slug: route.slug, name: route.name, project_id: route.project_id },
      from,
      to: analysis.to,
      cc: analysis.cc,
      reply_to: analysis.replyTo,
      recipient: p.recipients[0] ?? null,
      recipients: p.recipients,
      subaddress: p.subaddress,
      envelope_from: envelopeFrom || null,
      subject: analysis.subject,
      date: analysis.date,
      message_id_header: analysis.messageIdHeader,
      spam_score: verdict.score,
      spam_symbols: spamSymbols,
    };
    const data = rejected
      ? { ...common, status, spam_threshold: threshold }
      : {
          ...common,
          status,
          in_reply_to: analysis.inReplyTo,
          references: analysis.references,
          body: { text: analysis.text, html: analysis.html },
          headers: analysis.headers,
          attachments: attachmentPayload,
          received_at: iso(now),
        };
    const storedHeaders = emptyDict<string>();
    for (const h of analysis.headers) {
      const k = h.name.toLowerCase();
      storedHeaders[k] = k in storedHeaders ? `${storedHeaders[k]}\n${h.value}` : h.value;
    }

    return {
      type: "done",
      write: (tx) =>
        finishInbound(tx, {
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
          headers: storedHeaders,
          files,
          eventKind: rejected ? "message.policy_rejected" : "message.inbound",
          eventData: data,
          now,
        }),
    };
  }
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
  eventKind: "message.inbound" | "message.policy_rejected";
  eventData: Record<string, unknown>;
  now: number;
}

/** The job's outcome write. Does nothing unless the message is still pending. */
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
  await tx.messages.insertAttachments(
    f.messageId,
    f.files.map((a) => ({ id: a.id, filename: a.filename, content_type: a.contentType, content_id: a.contentId, content: a.content })),
  );
  await tx.recipients.appendHistory({
    id: newId(),
    message_id: f.messageId,
    recipient_id: null,
    kind: f.eventKind,
    status: f.status,
    data: JSON.stringify({ spam_score: f.verdict.score, engine: f.verdict.engine, ...(f.eventKind === "message.policy_rejected" ? { spam_threshold: f.eventData.spam_threshold } : {}) }),
    created_at: f.now,
  });
  await publishEvent(tx, { teamId: f.teamId, routeId: f.routeId, messageId: f.messageId, kind: f.eventKind, data: f.eventData }, f.now);
}

export function registerInboundJobs(runner: JobRunner, deps: Deps, opts: InboundJobOptions = {}): void {
  runner.register(INBOUND_QUEUE, inboundJobHandler(deps, opts), { concurrency: opts.concurrency ?? DEFAULT_INBOUND_CONCURRENCY, leaseMs: 5 * 60_000 });
}
