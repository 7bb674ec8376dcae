/**
 * The signed copies of one outbound attempt: the stored raw source on a retry, one copy composed
 * for all on a first attempt, or a copy per recipient (tracking tokens that name it, or a
 * broadcast's own unsubscribe link), each composed when its transaction's turn comes. Also what
 * the attempt asks of delivery memory for them (CopyPlan).
 */
import type { OutboundMessageRow } from "../db/deliveries.ts";
import type { DueRecipientRow } from "../db/recipients.ts";
import type { Address } from "../db/schema.ts";
import type { JobOutcome } from "../jobs/runner.ts";
import { recipientUnsubscribeToken } from "../auth/unsubscribe-tokens.ts";
import type { ComposedMessage, ComposeInput } from "./compose-message.ts";
import { ComposerUnavailableError } from "./compose-pool.ts";
import { estimateCopyBytes } from "./delivery-memory.ts";
import type { DkimKey } from "./dkim.ts";
import type { OutboundContext } from "./outbound-context.ts";
import { failAll } from "./outbound-outcome.ts";

/**
 * The signed copies of one attempt: one for all (`shared`), or one per recipient, composed when
 * its transaction's turn comes; and how many transactions may hold a copy at once (what the
 * attempt was given of POSTHORN_DELIVERY_MEMORY_MB).
 */
export interface Copies {
  shared: Buffer | null;
  of(r: DueRecipientRow): Promise<Buffer>;
  inFlight: number;
}

/** How an attempt gets its copies, and the delivery memory they take. */
export interface CopyPlan {
  /** The first attempt: the message is composed now and its first copy stored as the source. */
  composed: boolean;
  /** Tracking: each copy carries tokens that name its recipient. */
  tracked: boolean;
  /** A broadcast (whose route did not disable the hosted unsubscribe): each copy carries its recipient's own unsubscribe link. */
  broadcast: boolean;
  perRecipient: boolean;
  /** Anything is composed on this attempt (a first attempt, or a copy per recipient). */
  composing: boolean;
  /** The content held while composing. */
  contentBytes: number;
  /** One copy, estimated (or the stored source's size). */
  copyBytes: number;
  /** Held for the whole attempt: the content, and the shared copy if there is one. */
  fixed: number;
}

/**
 * Delivery memory: the content while composing, the shared copy if there is one, and a copy per
 * transaction in flight, as much of it as the limit gives; the rest wait their turn.
 */
export function planCopies(row: OutboundMessageRow): CopyPlan {
  const composed = row.raw_bytes === null;
  // With tracking, each recipient's copy carries tokens that name it, and a broadcast's copy its
  // own unsubscribe link: composed for each, on every attempt (the tokens come out the same);
  // the first copy is stored as the source.
  const tracked = (row.track_opens === 1 || row.track_clicks === 1) && row.html_bytes !== null;
  const broadcast = row.route_type === "broadcast" && row.disable_hosted_unsubscribe !== 1;
  const perRecipient = tracked || broadcast;
  const composing = composed || perRecipient;
  const contentBytes = composing ? (row.html_bytes ?? 0) + (row.text_bytes ?? 0) + row.attachment_bytes : 0;
  const copyBytes = composing ? estimateCopyBytes({ html: row.html, htmlBytes: row.html_bytes ?? 0, textBytes: row.text_bytes ?? 0, attachmentBytes: row.attachment_bytes }) : row.raw_bytes!;
  const fixed = contentBytes + (perRecipient ? 0 : copyBytes);
  return { composed, tracked, broadcast, perRecipient, composing, contentBytes, copyBytes, fixed };
}

/** The copies of an attempt, and the first one composed (stored as the source on a first attempt). */
export interface PreparedCopies {
  copies: Copies;
  first: ComposedMessage | null;
}

/**
 * The copies for `due`: the stored source when nothing is composed, else composed (the first
 * now). A message that does not compose fails its recipients; a composer that is gone retries the job.
 */
export async function prepareCopies(ctx: OutboundContext, row: OutboundMessageRow, due: DueRecipientRow[], plan: CopyPlan, inFlight: number): Promise<PreparedCopies | { outcome: JobOutcome }> {
  if (!plan.composing) {
    const raw = await ctx.deps.store.read.messages.rawSource(row.id);
    if (!raw) return { outcome: { type: "retry", delayMs: 1000, error: "the composed source is not readable yet" } };
    const shared = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    return { copies: sharedCopies(shared, inFlight), first: null };
  }
  try {
    const { input, key } = await composeRequest(ctx, row);
    if (!plan.perRecipient) {
      const first = await ctx.composer.compose(input, key);
      return { copies: sharedCopies(first.raw, inFlight), first };
    }
    const copyFor = await copyInputFor(ctx, row, input, plan);
    // The first recipient's copy now (the source, and proof the message composes); each other's
    // when its transaction's turn comes.
    const first = plan.composed ? await ctx.composer.compose(copyFor(due[0]!), key) : null;
    return { copies: new CopyPerRecipient(ctx, copyFor, key, inFlight, first ? { id: due[0]!.id, raw: first.raw } : null), first };
  } catch (err) {
    if (err instanceof ComposerUnavailableError) throw err; // the runner retries the job
    ctx.deps.log.error("compose failed", { message: row.id, error: err instanceof Error ? err.message : String(err) });
    return { outcome: failAll(due.map((r) => r.id), `The message could not be composed: ${err instanceof Error ? err.message : String(err)}`) };
  }
}

const sharedCopies = (shared: Buffer, inFlight: number): Copies => ({ shared, of: async () => shared, inFlight });

/**
 * A copy for each recipient, composed when its transaction asks, after a turn of the event loop,
 * so that composing many large copies never holds the loop (and the job's lease) for long. The
 * first recipient's copy, composed beforehand, is handed over once.
 */
class CopyPerRecipient implements Copies {
  readonly shared = null;

  constructor(
    private readonly ctx: OutboundContext,
    private readonly copyFor: (r: DueRecipientRow) => ComposeInput,
    private readonly key: DkimKey,
    readonly inFlight: number,
    private ready: { id: string; raw: Buffer } | null,
  ) {}

  async of(r: DueRecipientRow): Promise<Buffer> {
    if (this.ready?.id === r.id) {
      const raw = this.ready.raw;
      this.ready = null;
      return raw;
    }
    await new Promise((resolve) => setImmediate(resolve));
    return (await this.ctx.composer.compose(this.copyFor(r), this.key)).raw;
  }
}

/** The composer's input for one recipient's copy: its tracking tokens and its own unsubscribe link. */
async function copyInputFor(ctx: OutboundContext, row: OutboundMessageRow, input: ComposeInput, plan: CopyPlan): Promise<(r: DueRecipientRow) => ComposeInput> {
  const { config } = ctx.deps;
  const tracking = plan.tracked
    ? { opens: row.track_opens === 1, clicks: row.track_clicks === 1, baseUrl: config.trackingUrl, secret: await ctx.secret(), messageId: row.id }
    : null;
  const unsubscribeSecret = plan.broadcast ? await ctx.secret() : null;
  return (r) => ({
    ...input,
    ...(tracking ? { tracking: { ...tracking, recipientId: r.id } } : {}),
    ...(unsubscribeSecret !== null ? { listUnsubscribeUrl: `${config.publicUrl}/v1/unsubscribe/${recipientUnsubscribeToken(unsubscribeSecret, r.id)}` } : {}),
  });
}

/**
 * The headers the route's settings add: suppress_auto_responders asks Exchange and Outlook not to
 * send automatic replies (X-Auto-Response-Suppress: All) unless the sender set that header itself.
 */
function withRouteHeaders(row: OutboundMessageRow, headers: Record<string, string>): Record<string, string> {
  if (row.suppress_auto_responders === 1 && !Object.keys(headers).some((n) => n.toLowerCase() === "x-auto-response-suppress")) {
    return { ...headers, "X-Auto-Response-Suppress": "All" };
  }
  return headers;
}

/** What the composer needs for one message: the MIME input and the signing key. */
async function composeRequest(ctx: OutboundContext, row: OutboundMessageRow): Promise<{ input: ComposeInput; key: DkimKey }> {
  const { store, config } = ctx.deps;
  // A part too large to come with the row is read now, in the attempt's turn for delivery memory.
  const large = (row.html === null && row.html_bytes !== null) || (row.text === null && row.text_bytes !== null);
  const parts = large ? await store.read.deliveries.partsToCompose(row.id) : row;
  const attachments = (await store.read.deliveries.attachmentsToCompose(row.id)).map((a) => ({
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
    headers: withRouteHeaders(row, JSON.parse(row.headers) as Record<string, string>),
    attachments,
    // A broadcast copy's own link is set for each recipient (copyInputFor): none names the message's others.
    listUnsubscribeUrl: null,
    received: { by: config.hostname, id: row.id },
    plaintextFallback: row.generate_plaintext_fallback === 1,
  };
  const ed25519 = row.dkim_ed25519_selector && row.dkim_ed25519_private_key ? { selector: row.dkim_ed25519_selector, privateKeyPem: row.dkim_ed25519_private_key } : null;
  return { input, key: { domain: row.domain!, selector: row.dkim_selector!, privateKeyPem: row.dkim_private_key!, ed25519 } };
}
