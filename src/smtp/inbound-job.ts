/**
 * The "inbound" job: turns an accepted, stored message into a parsed inbound message and its
 * webhook event. Parse (mailparser), check SPF/DKIM/DMARC/ARC (mailauth) and content, score;
 * at or above the route's threshold the message becomes policy_rejected (message.policy_rejected),
 * otherwise processed (message.inbound with the full payload). The message row is only finished
 * while it is still pending, so a job that runs twice publishes once.
 */
import type { Database } from "bun:sqlite";
import { simpleParser, type AddressObject, type ParsedMail, type SimpleParserOptions } from "mailparser";
import type { Deps } from "../context.ts";
import { publishEvent } from "../events/publish.ts";
import { iso, newId } from "../ids.ts";
import { exponentialBackoff } from "../jobs/backoff.ts";
import type { Job } from "../jobs/queue.ts";
import type { JobOutcome, JobRunner } from "../jobs/runner.ts";
import { attachmentDownloadUrl } from "../modules/attachments/service.ts";
import { serverSecret } from "../secrets.ts";
import { INBOUND_QUEUE, type InboundJob } from "./accept.ts";
import { createAuthResolver, type AuthResolver } from "./auth-resolver.ts";
import { checkWithRspamd, RspamdError } from "./rspamd.ts";
import { authSymbols, contentSymbols, sumScore, type SpamSymbol, type SpamVerdict } from "./spam.ts";

/** Status of an inbound message once parsed, scored and handed to the webhooks. */
export const INBOUND_PROCESSED = "processed";
/** Status while it waits for the job (accepted and stored, not yet parsed). */
export const INBOUND_PENDING = "pending";

type Address = { email: string; name: string };
type RouteRow = { id: string; slug: string; name: string; project_id: string; inbound_spam_threshold: number | null; attachment_delivery: string };

export interface InboundJobOptions {
  concurrency?: number;
  /** mailauth's DNS; default: deps.dns behind a TTL cache. */
  resolver?: AuthResolver;
  /** Attempts at reaching rspamd before scoring with the built-in rules instead. */
  rspamdAttempts?: number;
  /** Delay before retrying after rspamd failed (tests shorten it). */
  rspamdRetryMs?: (attempt: number) => number;
}

const PARSE_OPTIONS: SimpleParserOptions = { skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true };

function addresses(a: AddressObject | AddressObject[] | undefined): Address[] {
  if (!a) return [];
  const out: Address[] = [];
  const walk = (list: AddressObject["value"]) => {
    for (const v of list) {
      if (v.group) walk(v.group);
      else if (v.address) out.push({ email: v.address, name: v.name ?? "" });
    }
  };
  for (const obj of Array.isArray(a) ? a : [a]) walk(obj.value);
  return out;
}

/** Header lines as received (unfolded), in order, duplicates kept. */
function headerList(parsed: ParsedMail | null, raw: Buffer): { name: string; value: string }[] {
  const lines = parsed?.headerLines ?? fallbackHeaderLines(raw);
  return lines.map(({ line }) => {
    const colon = line.indexOf(":");
    return { name: line.slice(0, colon).trim(), value: line.slice(colon + 1).replace(/\r?\n[ \t]+/g, " ").trim() };
  });
}

function fallbackHeaderLines(raw: Buffer): { key: string; line: string }[] {
  const text = raw.toString("utf8");
  const end = text.search(/\r?\n\r?\n/);
  const head = end >= 0 ? text.slice(0, end) : text;
  return head
    .split(/\r?\n(?![ \t])/)
    .filter((l) => l.includes(":"))
    .map((line) => ({ key: line.slice(0, line.indexOf(":")).trim().toLowerCase(), line }));
}

/** What the message's body is when MIME parsing failed: the text after the header block. */
function fallbackText(raw: Buffer): string {
  const text = raw.toString("utf8");
  const end = text.search(/\r?\n\r?\n/);
  return end >= 0 ? text.slice(end).trim() : "";
}

const unbracket = (id: string | undefined | null) => (id ? id.trim().replace(/^<|>$/g, "") || null : null);

export function inboundJobHandler(deps: Deps, opts: InboundJobOptions = {}) {
  const resolver = opts.resolver ?? createAuthResolver(deps.dns);
  const rspamdAttempts = opts.rspamdAttempts ?? 5;
  const rspamdRetryMs = opts.rspamdRetryMs ?? ((attempt: number) => exponentialBackoff(attempt, { baseMs: 30_000, capMs: 600_000 }));
  const secret = serverSecret(deps.sqlite);
  const messageStmt = deps.sqlite.prepare<{ id: string; status: string; team_id: string; route_id: string | null; raw: Uint8Array | null }, [string]>(
    `SELECT m.id, m.status, m.team_id, m.route_id, c.raw FROM messages m JOIN message_contents c ON c.message_id = m.id WHERE m.id = ?`,
  );
  const routeStmt = deps.sqlite.prepare<RouteRow, [string]>(
    "SELECT id, slug, name, project_id, inbound_spam_threshold, attachment_delivery FROM routes WHERE id = ?",
  );

  async function score(job: Job<InboundJob>, raw: Buffer, parsed: ParsedMail | null): Promise<SpamVerdict | { retryMs: number; error: string }> {
    const p = job.payload;
    const fallbackNote: SpamSymbol[] = [];
    if (deps.config.rspamdUrl) {
      try {
        return await checkWithRspamd(deps.config.rspamdUrl, raw, {
          ip: p.ip,
          helo: p.helo,
          mailFrom: p.mailFrom,
          recipients: p.recipients,
          queueId: p.messageId,
          hostname: deps.config.hostname,
        });
      } catch (err) {
        if (!(err instanceof RspamdError)) throw err;
        if (job.attempt < rspamdAttempts) return { retryMs: rspamdRetryMs(job.attempt), error: err.message };
        deps.log.warn("rspamd unavailable; scoring with built-in rules", { message: p.messageId, error: err.message });
        fallbackNote.push({ name: "RSPAMD_UNAVAILABLE", score: 0, options: [err.message], description: "rspamd could not be reached; built-in rules were used" });
      }
    }
    let auth: SpamSymbol[];
    try {
      auth = await authSymbols(raw, { ip: p.ip, helo: p.helo, mailFrom: p.mailFrom, hostname: deps.config.hostname, resolver });
    } catch (err) {
      auth = [{ name: "AUTH_CHECK_ERROR", score: 0, options: [String((err as Error).message ?? err).slice(0, 200)], description: "SPF/DKIM/DMARC checks could not run" }];
    }
    const symbols = [...auth, ...contentSymbols({ parsed, raw, envelopeRecipientCount: p.envelopeRecipientCount }), ...fallbackNote];
    return { score: sumScore(symbols), symbols, engine: "builtin" };
  }

  return async (job: Job<InboundJob>): Promise<JobOutcome> => {
    const p = job.payload;
    const row = messageStmt.get(p.messageId);
    if (!row || row.status !== INBOUND_PENDING) return { type: "done" };
    const route = row.route_id ? routeStmt.get(row.route_id) : null;
    const now0 = Date.now();
    if (!route || !row.raw) {
      // The route was deleted after the message was accepted: nobody to hand it to.
      return {
        type: "done",
        write: () =>
          void deps.sqlite
            .query("UPDATE messages SET status = 'failed', status_changed_at = ?, updated_at = ? WHERE id = ? AND status = 'pending'")
            .run(now0, now0, row.id),
      };
    }
    const raw = Buffer.from(row.raw);
    let parsed: ParsedMail | null = null;
    try {
      parsed = await simpleParser(raw, PARSE_OPTIONS);
    } catch (err) {
      deps.log.warn("inbound message could not be parsed", { message: p.messageId, error: String(err) });
    }
    const verdict = await score(job, raw, parsed);
    if ("retryMs" in verdict) return { type: "retry", delayMs: verdict.retryMs, error: verdict.error };

    const now = Date.now();
    const from = addresses(parsed?.from)[0] ?? { email: p.mailFrom, name: "" };
    const to = addresses(parsed?.to);
    const cc = addresses(parsed?.cc);
    const replyTo = addresses(parsed?.replyTo).map((a) => a.email);
    const subject = parsed?.subject ?? "";
    const date = parsed?.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.toISOString() : null;
    const headers = headerList(parsed, raw);
    const text = parsed ? (parsed.text ?? null) : fallbackText(raw);
    const html = parsed && typeof parsed.html === "string" ? parsed.html : null;
    const threshold = route.inbound_spam_threshold;
    const rejected = threshold !== null && verdict.score >= threshold;
    const status = rejected ? "policy_rejected" : INBOUND_PROCESSED;
    const byUrl = route.attachment_delivery === "url";

    const files = (parsed?.attachments ?? []).map((a, i) => ({
      id: newId(),
      filename: a.filename || `attachment-${i + 1}`,
      contentType: (a.contentType || "application/octet-stream").toLowerCase(),
      contentId: unbracket(a.contentId) ?? unbracket(a.cid),
      disposition: a.contentDisposition === "inline" || a.related ? "inline" : "attachment",
      content: a.content,
    }));
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
      to,
      cc,
      reply_to: replyTo,
      recipient: p.recipients[0] ?? null,
      recipients: p.recipients,
      subaddress: p.subaddress,
      envelope_from: p.mailFrom || null,
      subject,
      date,
      message_id_header: unbracket(parsed?.messageId),
      spam_score: verdict.score,
      spam_symbols: verdict.symbols,
    };
    const data = rejected
      ? { ...common, status, spam_threshold: threshold }
      : {
          ...common,
          status,
          in_reply_to: unbracket(parsed?.inReplyTo),
          references: (Array.isArray(parsed?.references) ? parsed.references : parsed?.references ? [parsed.references] : []).map((r) => unbracket(r)!),
          body: { text, html },
          headers,
          attachments: attachmentPayload,
          received_at: iso(now),
        };
    const storedHeaders: Record<string, string> = {};
    for (const h of headers) {
      const k = h.name.toLowerCase();
      storedHeaders[k] = k in storedHeaders ? `${storedHeaders[k]}\n${h.value}` : h.value;
    }

    return {
      type: "done",
      write: () =>
        finishInbound(deps, {
          messageId: row.id,
          teamId: row.team_id,
          routeId: route.id,
          status,
          from,
          to,
          cc,
          replyTo,
          subject,
          messageIdHeader: common.message_id_header,
          verdict,
          html,
          text,
          headers: storedHeaders,
          files,
          eventKind: rejected ? "message.policy_rejected" : "message.inbound",
          eventData: data,
          now,
        }),
    };
  };
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

/** Synchronous: the job's outcome write. Does nothing unless the message is still pending. */
function finishInbound(deps: Deps, f: Finish): void {
  const sqlite: Database = deps.sqlite;
  const res = sqlite
    .query(
      `UPDATE messages SET status = ?, status_changed_at = ?, from_email = ?, from_name = ?, subject = ?, "to" = ?, cc = ?, reply_to = ?,
         message_id_header = ?, spam_score = ?, spam_symbols = ?, updated_at = ?
       WHERE id = ? AND status = 'pending'`,
    )
    .run(
      f.status,
      f.now,
      f.from.email,
      f.from.name,
      f.subject,
      JSON.stringify(f.to),
      JSON.stringify(f.cc),
      JSON.stringify(f.replyTo),
      f.messageIdHeader,
      f.verdict.score,
      JSON.stringify(f.verdict.symbols),
      f.now,
      f.messageId,
    );
  if (res.changes === 0) return;
  sqlite.query("UPDATE message_contents SET html = ?, text = ?, headers = ? WHERE message_id = ?").run(f.html, f.text, JSON.stringify(f.headers), f.messageId);
  const insertAttachment = sqlite.query(
    "INSERT INTO attachments (id, message_id, filename, content_type, content_id, size, content) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  for (const a of f.files) insertAttachment.run(a.id, f.messageId, a.filename, a.contentType, a.contentId, a.content.length, a.content);
  sqlite
    .query("INSERT INTO message_events (id, message_id, recipient_id, kind, status, data, created_at) VALUES (?, ?, NULL, ?, ?, ?, ?)")
    .run(
      newId(),
      f.messageId,
      f.eventKind,
      f.status,
      JSON.stringify({ spam_score: f.verdict.score, engine: f.verdict.engine, ...(f.eventKind === "message.policy_rejected" ? { spam_threshold: f.eventData.spam_threshold } : {}) }),
      f.now,
    );
  publishEvent(sqlite, deps.queue, { teamId: f.teamId, routeId: f.routeId, messageId: f.messageId, kind: f.eventKind, data: f.eventData }, f.now);
}

export function registerInboundJobs(runner: JobRunner, deps: Deps, opts: InboundJobOptions = {}): void {
  runner.register(INBOUND_QUEUE, inboundJobHandler(deps, opts), { concurrency: opts.concurrency ?? 16, leaseMs: 5 * 60_000 });
}
