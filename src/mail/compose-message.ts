import type Mail from "nodemailer/lib/mailer";
import MailComposer from "nodemailer/lib/mail-composer";
import { convert as htmlToText } from "html-to-text";
import { trackingToken } from "../auth/tracking-tokens.ts";
import type { Address } from "../db/schema.ts";
import { formatAddress } from "./address.ts";
import { dkimSign, type DkimKey } from "./dkim.ts";
import { writeMimeTree } from "./mime-write.ts";
import { rewriteHtml } from "./tracking-rewrite.ts";

export interface ComposeAttachment {
  filename: string;
  contentType: string;
  /** Set for inline parts referenced from the HTML as cid:<contentId>. */
  contentId: string | null;
  content: Buffer;
}

export interface ComposeInput {
  /** Message-ID header value without angle brackets. */
  messageId: string;
  date: Date;
  from: Address;
  to: Address[];
  cc: Address[];
  replyTo: string[];
  subject: string;
  html: string | null;
  text: string | null;
  /** Custom headers, already validated (no CR/LF, no reserved names). */
  headers: Record<string, string>;
  attachments: ComposeAttachment[];
  /** Broadcast mail: RFC 8058 one-click unsubscribe URL. */
  listUnsubscribeUrl?: string | null;
  /** The Received header this server adds, as an MTA does: POSTHORN_HOSTNAME and the message's id in the API. */
  received: { by: string; id: string };
  /** Open and click tracking of the HTML part for one recipient (its tokens name it); absent: none. */
  tracking?: TrackingInput | null;
  /** The route's generate_plaintext_fallback: a message with HTML and no text gets a text part made from the HTML. */
  plaintextFallback?: boolean;
}

/** What the tracking URLs of one recipient's copy are made of (docs/tracking.md, Tokens). */
export interface TrackingInput {
  opens: boolean;
  clicks: boolean;
  /** POSTHORN_TRACKING_URL, without a trailing slash. */
  baseUrl: string;
  /** The server secret that signs the tokens. */
  secret: string;
  /** The message's and the recipient's ids in the API. */
  messageId: string;
  recipientId: string;
}

/** A composed, DKIM-signed message and the original URLs of the links its tracking rewrote, by index. */
export interface ComposedMessage {
  raw: Buffer;
  links: string[];
}

/**
 * Composes and signs one copy: the HTML part rewritten for the recipient's tracking first (so
 * DKIM signs the bytes that are sent), then MIME, then the signature.
 */
export async function composeSigned(input: ComposeInput, key: DkimKey): Promise<ComposedMessage> {
  // Made from the HTML as sent, before tracking rewrites its links.
  if (input.plaintextFallback && input.text === null && input.html !== null) input = { ...input, text: plaintextOf(input.html) };
  let links: string[] = [];
  const t = input.tracking;
  if (t && input.html !== null) {
    const ids = { messageId: t.messageId, recipientId: t.recipientId };
    const rewritten = rewriteHtml(input.html, {
      clicks: t.clicks,
      opens: t.opens,
      clickUrl: (link) => `${t.baseUrl}/t/c/${trackingToken(t.secret, { kind: "click", ...ids, link })}`,
      openUrl: `${t.baseUrl}/t/o/${trackingToken(t.secret, { kind: "open", ...ids })}`,
      unsubscribeUrl: input.listUnsubscribeUrl ?? null,
    });
    input = { ...input, html: rewritten.html };
    links = rewritten.links;
  }
  return { raw: await dkimSign(composeMessage(input), key), links };
}

/**
 * The text part made from an HTML body (generate_plaintext_fallback): html-to-text's reading of it,
 * links as "text [url]", images left out, lines wrapped at 78 characters (RFC 5322's advice).
 */
export function plaintextOf(html: string): string {
  return htmlToText(html, { wordwrap: 78, selectors: [{ selector: "img", format: "skip" }] });
}

/**
 * Quoted-printable keeps mostly-ASCII text readable and small; base64 is smaller for text that is
 * mostly non-Latin. Deciding here spares nodemailer its per-part scan, which builds an array of
 * every letter of the body (a measurable share of composing time).
 */
function mostlyAscii(...parts: (string | null)[]): boolean {
  let total = 0;
  let high = 0;
  for (const p of parts) {
    if (!p) continue;
    total += p.length;
    for (let i = 0; i < p.length; i++) if (p.charCodeAt(i) > 0x7e) high++;
  }
  return high * 3 < total || total === 0;
}

/**
 * Builds the RFC 5322 message with nodemailer's MIME composer: multipart/alternative for html +
 * text, multipart/related for inline images (attachments with a content id), multipart/mixed
 * for the rest. Bcc never appears in the headers. File and URL access are disabled so that no
 * input can make the composer read a local file or fetch a URL. The compiled tree is written out
 * by mime-write.ts, to the bytes the composer's own build() would stream.
 */
export function composeMessage(input: ComposeInput): Buffer {
  // A trace field opens the header block (RFC 5322 §3.6.7), and the composer puts custom headers
  // after its own. Like mail a local program hands to Postfix, it names no client: the message
  // came in over the API, not from another mail server.
  const received = Buffer.from(`Received: by ${input.received.by} (Posthorn) id ${input.received.id};\r\n\t${rfc5322Date(input.date)}\r\n`);
  return writeMimeTree(new MailComposer(mailOptions(input)).compile(), received);
}

/** What nodemailer's MailComposer is given for a message (exported for the test that holds mime-write to build()). */
export function mailOptions(input: ComposeInput): Mail.Options {
  const headers: Record<string, string> = { ...input.headers };
  if (input.listUnsubscribeUrl) {
    headers["List-Unsubscribe"] = `<${input.listUnsubscribeUrl}>`;
    headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
  }
  return {
    from: formatAddress(input.from),
    to: input.to.map(formatAddress),
    cc: input.cc.length ? input.cc.map(formatAddress) : undefined,
    replyTo: input.replyTo.length ? input.replyTo : undefined,
    subject: input.subject,
    html: input.html ?? undefined,
    text: input.text ?? undefined,
    headers,
    messageId: `<${input.messageId}>`,
    date: input.date,
    attachments: input.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      ...(a.contentId ? { cid: a.contentId, contentDisposition: "inline" as const } : {}),
    })),
    textEncoding: mostlyAscii(input.html, input.text) ? "quoted-printable" : "base64",
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/** "Tue, 24 Nov 2026 02:00:00 +0000": RFC 5322's date-time, with a numeric zone rather than the obsolete "GMT". */
const rfc5322Date = (d: Date): string => d.toUTCString().replace(/GMT$/, "+0000");
