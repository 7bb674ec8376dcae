/**
 * SMTP submission (POSTHORN_SUBMISSION_PORT) for projects with smtp_enabled: an application or a
 * mail client hands over a finished message; it is parsed and goes through the very acceptance
 * of POST /v1/send (acceptMessages: From domain rules, suppressions, idempotency, the durable
 * write, then compose, DKIM and delivery). The 250 comes after that commit.
 *
 *   AUTH PLAIN/LOGIN: any user name (the project id is a good choice), the project token as
 *   password. Only over TLS (STARTTLS) unless the client connects from loopback. Wrong tokens
 *   count against the client's IP with every other failed authentication (src/auth/throttle.ts):
 *   beyond the limit AUTH, and any new connection from that IP, get 421 4.7.0 until the window ends.
 *   X-Posthorn-Route: <route slug or id>   picks the route (default: the transactional one)
 *   X-Posthorn-Tag: <tag>                  sets the tag
 *   Idempotency-Key: <key>                 same key and same message → accepted once
 *   X-Posthorn-Track-Opens: true|false     overrides the route's open tracking
 *   X-Posthorn-Track-Clicks: true|false    overrides the route's click tracking
 * These headers are removed from the message that is sent.
 */
import { isIP } from "node:net";
import type { AddressObject, ParsedMail } from "mailparser";
import { loadMailparser } from "../mail/libraries.ts";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import type { Deps } from "../context.ts";
import { AppError, ConflictError, RateLimitedError, UnauthenticatedError, ValidationError } from "../errors.ts";
import { sha256Hex } from "../ids.ts";
import { formatAddress, parseEmail } from "../mail/address.ts";
import { tokenAuthenticator, type TokenAuthenticator } from "../auth/tokens.ts";
import { authThrottle, type AuthThrottle } from "../auth/throttle.ts";
import { acceptMessages } from "../sending/acceptance.ts";
import { blockedAttachment } from "../sending/blocked-file-types.ts";
import { RESERVED_HEADERS, type SendInput } from "../sending/validation.ts";
import { baseServerOptions, DEFAULT_LIMITS, greetDelayOption, readMessage, smtpError, starvedError, startListening, type ListenerLimits, type RunningListener } from "./listener.ts";
import { ByteGate } from "./byte-gate.ts";
import { emptyDict } from "../untrusted/dict.ts";

export const ROUTE_HEADER = "x-posthorn-route";
export const TAG_HEADER = "x-posthorn-tag";
export const IDEMPOTENCY_HEADER = "idempotency-key";
export const TRACK_OPENS_HEADER = "x-posthorn-track-opens";
export const TRACK_CLICKS_HEADER = "x-posthorn-track-clicks";

/** Headers of a submitted message that are not passed on as custom headers. */
const DROPPED_HEADERS = new Set([
  ...RESERVED_HEADERS,
  ROUTE_HEADER,
  TAG_HEADER,
  IDEMPOTENCY_HEADER,
  TRACK_OPENS_HEADER,
  TRACK_CLICKS_HEADER,
  "bcc",
  "return-path",
  "received",
  "authentication-results",
  "delivered-to",
  "x-original-to",
  "content-disposition",
  "content-id",
  "content-description",
]);
const MAX_CUSTOM_HEADERS = 100;
const MAX_HEADER_VALUE = 2000;

interface SubmissionUser {
  teamId: string;
  projectId: string;
}

export const isLoopback = (ip: string): boolean => {
  const v = ip.replace(/^::ffff:/i, "");
  return v === "::1" || (isIP(v) === 4 && v.startsWith("127."));
};

function addressesOf(a: AddressObject | AddressObject[] | undefined): { email: string; name: string }[] {
  const out: { email: string; name: string }[] = [];
  const walk = (list: AddressObject["value"]) => {
    for (const v of list) {
      if (v.group) walk(v.group);
      else if (v.address) out.push({ email: v.address, name: v.name ?? "" });
    }
  };
  for (const o of a ? (Array.isArray(a) ? a : [a]) : []) walk(o.value);
  return out;
}

const headerValue = (parsed: ParsedMail, name: string): string | null => {
  const line = parsed.headerLines.find((h) => h.key === name)?.line;
  if (!line) return null;
  const v = line.slice(line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim();
  return v || null;
};

/** A tracking override header: true or false (any case), absent for the route's setting; anything else is refused. */
function trackingHeader(parsed: ParsedMail, name: string, display: string): boolean | null {
  const v = headerValue(parsed, name)?.toLowerCase() ?? null;
  if (v === null) return null;
  if (v !== "true" && v !== "false") throw smtpError(554, `5.6.0 The ${display} header must be true or false`);
  return v === "true";
}

/** The API's minimum body length is 3; a shorter plain-text body is padded with line breaks. */
const atLeast3 = (s: string) => (s.length >= 3 ? s : s + "\n".repeat(3 - s.length));

/**
 * Turns a submitted message into /v1/send inputs. Recipients are the envelope's: To and Cc keep
 * the header addresses that are envelope recipients, the other envelope recipients are Bcc.
 * When no To address is an envelope recipient (all Bcc), each recipient gets its own copy with
 * only itself in To, so no one learns the others' addresses.
 */
export function submissionInputs(parsed: ParsedMail, envelope: { mailFrom: string; recipients: string[] }): { inputs: SendInput[]; idempotencyKey: string | null } {
  const rcpts = envelope.recipients.map((r) => r.toLowerCase());
  const inEnvelope = (a: { email: string }) => rcpts.includes(a.email.toLowerCase());
  const to = addressesOf(parsed.to).filter(inEnvelope);
  const cc = addressesOf(parsed.cc).filter(inEnvelope).filter((a) => !to.some((t) => t.email.toLowerCase() === a.email.toLowerCase()));
  const shown = new Set([...to, ...cc].map((a) => a.email.toLowerCase()));
  const bcc = envelope.recipients.filter((r) => !shown.has(r.toLowerCase()));

  const fromHeader = addressesOf(parsed.from)[0];
  const headers = emptyDict<string>();
  let count = 0;
  for (const { key, line } of parsed.headerLines) {
    if (DROPPED_HEADERS.has(key) || key.startsWith("arc-") || key.startsWith("content-")) continue;
    const name = line.slice(0, line.indexOf(":")).trim();
    const value = line.slice(line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim();
    if (!value || value.length > MAX_HEADER_VALUE || Object.keys(headers).some((k) => k.toLowerCase() === key)) continue;
    if (++count > MAX_CUSTOM_HEADERS) break;
    headers[name] = value;
  }
  const html = typeof parsed.html === "string" && parsed.html.length >= 3 ? parsed.html : null;
  const text = parsed.text !== undefined && (parsed.text.trim() !== "" || !html) ? atLeast3(parsed.text) : null;
  const base: SendInput = {
    from: fromHeader ? formatAddress(fromHeader) : envelope.mailFrom,
    subject: (parsed.subject ?? "").replace(/[\r\n]+/g, " "),
    to: [],
    route: headerValue(parsed, ROUTE_HEADER),
    tag: headerValue(parsed, TAG_HEADER),
    track_opens: trackingHeader(parsed, TRACK_OPENS_HEADER, "X-Posthorn-Track-Opens"),
    track_clicks: trackingHeader(parsed, TRACK_CLICKS_HEADER, "X-Posthorn-Track-Clicks"),
    html,
    text: text ?? (html ? null : "\n\n\n"),
    reply_to: addressesOf(parsed.replyTo).map(formatAddress),
    headers,
    attachments: parsed.attachments.map((a, i) => ({
      filename: a.filename || `attachment-${i + 1}`,
      content: a.content.toString("base64"),
      content_id: a.contentId ? a.contentId.replace(/^<|>$/g, "") : null,
      content_type: a.contentType || null,
    })),
  };
  const inputs: SendInput[] =
    to.length > 0
      ? [{ ...base, to: to.map(formatAddress), cc: cc.map(formatAddress), bcc }]
      : envelope.recipients.map((r) => ({ ...base, to: [r] }));
  return { inputs, idempotencyKey: headerValue(parsed, IDEMPOTENCY_HEADER) };
}

/**
 * The reply refusing a message with an attachment of a blocked type, as /v1/send refuses it with a
 * 422 (src/sending/blocked-file-types.ts): a permanent 554 5.7.1 naming the part and why, or null.
 * Inline parts count, and the name is the part's own (a client's default name cannot hide .exe).
 */
export function blockedAttachmentReply(attachments: readonly { filename?: string; contentType?: string }[]): Error | null {
  for (const [i, a] of attachments.entries()) {
    const blocked = blockedAttachment(a.filename, a.contentType);
    if (!blocked) continue;
    // The sender's file name, on one line and bounded, inside our reply.
    const name = a.filename ? ` (${a.filename.replace(/[\x00-\x1f\x7f]+/g, " ").slice(0, 100)})` : "";
    return smtpError(554, `5.7.1 Attachment ${i + 1}${name} refused: ${blocked.message}`);
  }
  return null;
}

/** An acceptance error as an SMTP reply. */
function smtpReplyFor(err: unknown): Error {
  if (err instanceof ValidationError) {
    const fields = Object.keys(err.errors);
    const policy = fields.some((f) => /(^|\.)(from|route)$/.test(f));
    return smtpError(policy ? 550 : 554, `${policy ? "5.7.1" : "5.6.0"} ${err.message}`.slice(0, 500));
  }
  if (err instanceof ConflictError) {
    return /still being processed/.test(err.message) ? smtpError(451, `4.3.0 ${err.message}`) : smtpError(554, `5.7.0 ${err.message}`);
  }
  if (err instanceof AppError) return smtpError(554, `5.6.0 ${err.message}`);
  return smtpError(451, "4.3.0 Temporary local problem, try again later");
}

/** 421 closes the connection: a client that failed too often may come back after the window. */
const throttledReply = (err: RateLimitedError) => smtpError(421, `4.7.0 Too many failed authentications from your address, try again in ${err.retryAfterSeconds} seconds`);

export interface SubmissionOptions {
  /** Allow AUTH without TLS from loopback clients (default true; tests turn it off). */
  plainAuthFromLoopback?: boolean;
  /** The pause before each greeting (default smtp-server's 100 ms); a test opening thousands of connections sets 0. */
  greetDelayMs?: number;
}

/**
 * What the submission listener's sessions share, made once by createSubmissionServer and passed
 * to each step: the token check, the failed-authentication throttle and the byte budget.
 */
interface Submission {
  deps: Deps;
  tokens: TokenAuthenticator;
  throttle: AuthThrottle;
  budget: ByteGate;
  plainFromLoopback: boolean;
}

export function createSubmissionServer(deps: Deps, limits: ListenerLimits, opts: SubmissionOptions = {}): SMTPServer {
  const sub: Submission = {
    deps,
    tokens: tokenAuthenticator(deps),
    throttle: authThrottle(deps),
    budget: new ByteGate(Math.max(limits.maxBufferedBytes, deps.config.maxMessageBytes)),
    plainFromLoopback: opts.plainAuthFromLoopback ?? true,
  };
  return new SMTPServer({
    ...baseServerOptions(deps.config, limits),
    ...(opts.greetDelayMs === undefined ? {} : greetDelayOption(opts.greetDelayMs)),
    authMethods: ["PLAIN", "LOGIN"],
    // The TLS requirement is enforced in onAuth, where the client's address is known.
    allowInsecureAuth: true,
    onConnect(session, callback) {
      try {
        sub.throttle.checkIp(session.remoteAddress);
      } catch (err) {
        if (err instanceof RateLimitedError) return callback(throttledReply(err));
        throw err;
      }
      callback();
    },
    onAuth(auth, session, callback) {
      authenticate(sub, auth.password ?? "", session, callback);
    },
    onMailFrom(address, session, callback) {
      checkSender(deps, session.user as SubmissionUser, address.address).then(
        () => callback(),
        (err: Error & { responseCode?: number }) => {
          if (err.responseCode) return callback(err);
          deps.log.error("submission sender check failed", { error: String(err), session: session.id });
          callback(smtpError(451, "4.3.0 Temporary local problem, try again later"));
        },
      );
    },
    onRcptTo(address, _session, callback) {
      if (!parseEmail(address.address)) return callback(smtpError(553, "5.1.3 Not a valid recipient address"));
      callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      void submit(sub, stream, session).then(
        (reply) => callback(null, reply),
        (err: Error) => callback(err),
      );
    },
  });
}

/** AUTH: over TLS (or plain from loopback when allowed), with a project token of a project that takes submission. */
function authenticate(sub: Submission, password: string, session: SMTPServerSession, callback: (err: Error | null | undefined, response?: { user: SubmissionUser }) => void): void {
  if (!session.secure && !(sub.plainFromLoopback && isLoopback(session.remoteAddress))) {
    return callback(smtpError(538, "5.7.11 Encryption required: use STARTTLS before AUTH"));
  }
  sub.tokens.authenticateProject(password, session.remoteAddress).then(
    (principal) => {
      if (!principal.smtpEnabled) return callback(smtpError(535, "5.7.8 SMTP submission is disabled for this project"));
      const user: SubmissionUser = { teamId: principal.teamId, projectId: principal.projectId };
      callback(null, { user });
    },
    (err: unknown) => {
      if (err instanceof UnauthenticatedError) return callback(smtpError(535, "5.7.8 Authentication credentials invalid"));
      if (err instanceof RateLimitedError) return callback(throttledReply(err));
      sub.deps.log.error("submission auth failed", { error: String(err) });
      callback(smtpError(454, "4.7.0 Temporary authentication failure"));
    },
  );
}

/** MAIL FROM: the project still takes submission, and the sender's domain is one it may send from. Throws the SMTP reply. */
async function checkSender(deps: Deps, user: SubmissionUser, address: string): Promise<void> {
  const read = deps.store.read;
  // Checked again per message: the switch may have been turned off since AUTH.
  if (!(await read.projects.smtpEnabled(user.projectId))) throw smtpError(550, "5.7.1 SMTP submission is disabled for this project");
  const sender = parseEmail(address);
  if (!sender) throw smtpError(553, "5.1.7 A sender address is required");
  const domain = await read.domains.sendingDomainOf(user.teamId, user.projectId, sender.domain);
  if (!domain) throw smtpError(553, `5.7.1 ${sender.domain} is not a sending domain of this project`);
  if (deps.config.requireVerifiedDomain && domain.status !== "active") {
    throw smtpError(553, `5.7.1 ${sender.domain} is not verified yet: publish its DNS records and verify it`);
  }
}

/** DATA: read within the byte budget, parsed, its attachments checked, then accepted as /v1/send accepts (acceptMessages). */
async function submit(sub: Submission, stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
  const { deps } = sub;
  const { raw, oversized, starved, release } = await readMessage(stream, deps.config.maxMessageBytes, sub.budget);
  try {
    if (oversized) throw smtpError(552, `5.3.4 Message exceeds the size limit of ${deps.config.maxMessageBytes} bytes`);
    if (starved) throw starvedError();
    const user = session.user as SubmissionUser;
    let parsed: ParsedMail;
    try {
      parsed = await (await loadMailparser()).simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true, keepCidLinks: true });
    } catch {
      throw smtpError(554, "5.6.0 The message could not be parsed as MIME");
    }
    const blocked = blockedAttachmentReply(parsed.attachments);
    if (blocked) throw blocked;
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
    const { inputs, idempotencyKey } = submissionInputs(parsed, { mailFrom, recipients: session.envelope.rcptTo.map((r) => r.address) });
    try {
      const accepted = await acceptMessages(deps, user, inputs, {
        batch: inputs.length > 1,
        idempotencyKey,
        requestHash: idempotencyKey ? sha256Hex(`smtp\n${JSON.stringify(inputs)}`) : null,
      });
      const suppressed = accepted.every((a) => a.status === "suppressed") ? " (all recipients suppressed)" : "";
      const more = accepted.length > 1 ? ` and ${accepted.length - 1} more` : "";
      return `Queued as ${accepted[0]!.message_id}${more}${suppressed}`;
    } catch (err) {
      if (!(err instanceof AppError)) deps.log.error("submission could not be stored", { error: String(err), session: session.id });
      throw smtpReplyFor(err);
    }
  } finally {
    release();
  }
}

export interface SubmissionListenerOptions extends Partial<ListenerLimits>, SubmissionOptions {
  host?: string;
  /** Default config.submissionPort; 0 picks a free port (tests). */
  port?: number;
}

export function startSubmissionListener(deps: Deps, opts: SubmissionListenerOptions = {}): Promise<RunningListener> {
  const limits: ListenerLimits = { ...DEFAULT_LIMITS };
  for (const k of ["socketTimeoutMs", "closeTimeoutMs", "maxClients", "maxRecipients", "maxBufferedBytes"] as const) if (opts[k] !== undefined) limits[k] = opts[k];
  return startListening("submission", createSubmissionServer(deps, limits, opts), opts.host ?? deps.config.smtpHost, opts.port ?? deps.config.submissionPort, deps.log);
}
