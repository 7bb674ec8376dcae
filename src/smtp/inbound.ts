/**
 * The MX listener (POSTHORN_SMTP_PORT): mail for inbound routes, and bounces, complaints and
 * automatic replies to the VERP addresses of mail we sent. Recipients are checked at RCPT, so
 * nothing else is ever accepted (no open relay); the 250 after DATA comes only once the message
 * is committed to disk. A client IP whose RCPTs are refused too often is throttled
 * (POSTHORN_SMTP_RCPT_FAILURE_LIMIT, see rcpt-throttle.ts), so addresses and VERP signatures
 * cannot be found by trying.
 */
import { SMTPServer, type SMTPServerDataStream, type SMTPServerEnvelope, type SMTPServerSession } from "smtp-server";
import { clientKey } from "../auth/throttle.ts";
import type { Deps } from "../context.ts";
import { LEGACY_VERP_MS, parseLegacyVerpLocalPart, verpCutoverOf, verpLocalPart } from "../mail/verp.ts";
import { serverSecretOf } from "../secrets.ts";
import { acceptInbound, INBOUND_QUEUE } from "./accept.ts";
import { baseServerOptions, DEFAULT_LIMITS, greetDelayOption, readMessage, smtpError, starvedError, startListening, type ListenerLimits, type RunningListener } from "./listener.ts";
import { ByteGate } from "./byte-gate.ts";
import { InflowGate, registerInflowGate } from "./inflow-gate.ts";
import { RCPT_FAILURE_WINDOW_MS, RcptFailureThrottle } from "./rcpt-throttle.ts";
import { RecipientResolver, splitAddress, type InboundTarget, type RecipientVerdict } from "./rcpt-resolver.ts";

export interface InboundListenerOptions extends Partial<ListenerLimits> {
  host?: string;
  /** Default config.smtpPort; 0 picks a free port (tests). */
  port?: number;
}

const throttledReply = () => smtpError(421, "4.7.0 Too many refused recipients from your address, try again later");

/**
 * What the MX's sessions share, made once by createInboundServer and passed to each step: the
 * recipient lookup and its VERP secret, the RCPT throttle, each transaction's resolved
 * recipients, the byte budget for messages in transit and the inflow gate.
 */
interface Mx {
  deps: Deps;
  secret: string;
  resolver: RecipientResolver;
  /** When 80-bit VERP signatures began (mail/verp.ts): legacy ones stay valid LEGACY_VERP_MS after. */
  cutover: number;
  throttle: RcptFailureThrottle | null;
  /** What each accepted RCPT resolved to, per transaction (smtp-server makes a new envelope each time). */
  targets: WeakMap<SMTPServerEnvelope, Map<string, InboundTarget>>;
  budget: ByteGate;
  inflow: InflowGate | null;
}

async function mxState(deps: Deps, limits: ListenerLimits): Promise<Mx> {
  const secret = await serverSecretOf(deps.store);
  const cutover = await verpCutoverOf(deps.store);
  // Clients whose RCPTs keep being refused are guessing addresses or VERP signatures.
  const limit = deps.config.smtpRcptFailureLimit;
  const maxLagMs = deps.config.smtpInflowLagMs;
  const inflow = maxLagMs > 0 ? new InflowGate(() => deps.store.read.jobs.nextDue(INBOUND_QUEUE), { maxLagMs, log: deps.log }) : null;
  if (inflow) registerInflowGate(deps, inflow);
  return {
    deps,
    secret,
    resolver: new RecipientResolver(deps.store.read, secret, deps.config.inboundDomain),
    cutover,
    throttle: limit > 0 ? new RcptFailureThrottle(limit) : null,
    targets: new WeakMap(),
    budget: new ByteGate(Math.max(limits.maxBufferedBytes, deps.config.maxMessageBytes)),
    inflow,
  };
}

export async function createInboundServer(deps: Deps, limits: ListenerLimits): Promise<SMTPServer> {
  const mx = await mxState(deps, limits);
  return new SMTPServer({
    ...baseServerOptions(deps.config, limits),
    ...greetDelayOption(deps.config.smtpGreetDelayMs),
    authOptional: true,
    disabledCommands: ["AUTH"],
    onMailFrom(_address, _session, callback) {
      if (!mx.inflow) return callback();
      void mx.inflow.admit().then(
        () => callback(),
        () => callback(),
      );
    },
    onRcptTo(address, session, callback) {
      checkRecipient(mx, address.address, session, callback);
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      void receive(mx, stream, session).then(
        (reply) => callback(null, reply),
        (err: Error & { responseCode?: number }) => callback(err),
      );
    },
  });
}

/** RCPT: through the throttle, then the lookup. */
function checkRecipient(mx: Mx, rcpt: string, session: SMTPServerSession, callback: (err?: Error | null) => void): void {
  const client = clientKey(session.remoteAddress);
  // A place before the lookup (see rcpt-throttle.ts): a throttled client gets this reply for
  // right and wrong addresses alike, as fast, so it learns nothing more; and however many
  // RCPTs it sends at once, no more are looked up than it has refusals left.
  const place = mx.throttle ? mx.throttle.acquire(client) : true;
  if (place === false) return callback(throttledReply());
  if (place === true) return lookUp(mx, rcpt, session, client, callback);
  void place.then((go) => (go ? lookUp(mx, rcpt, session, client, callback) : callback(throttledReply())));
}

/** RCPT's lookup, with a place taken (`acquire`); the refusal is counted and the place given back in the turn the verdict arrives. */
function lookUp(mx: Mx, rcpt: string, session: SMTPServerSession, client: string, callback: (err?: Error | null) => void): void {
  const { deps, throttle } = mx;
  resolve(mx, rcpt).then(
    (verdict) => {
      if (!verdict.ok) {
        if (throttle?.refused(client)) {
          deps.log.warn("smtp client throttled: too many refused recipients", { client, limit: deps.config.smtpRcptFailureLimit, window_ms: RCPT_FAILURE_WINDOW_MS, session: session.id });
        }
        throttle?.release(client);
        return callback(
          verdict.local
            ? smtpError(550, "5.1.1 No such mailbox here")
            : smtpError(550, "5.7.1 Relaying denied: this server only accepts mail for its own addresses"),
        );
      }
      throttle?.release(client);
      let map = mx.targets.get(session.envelope);
      if (!map) mx.targets.set(session.envelope, (map = new Map()));
      map.set(rcpt.toLowerCase(), verdict.target);
      callback();
    },
    (err: unknown) => {
      throttle?.release(client);
      deps.log.error("recipient lookup failed", { error: String(err) });
      callback(smtpError(451, "4.3.0 Temporary lookup failure, try again later"));
    },
  );
}

/**
 * The resolver's verdict, or for a legacy 40-bit VERP address (mail sent before the upgrade to
 * 80-bit signatures, see mail/verp.ts) that is still acceptable, the verdict on its current form.
 */
async function resolve(mx: Mx, address: string): Promise<RecipientVerdict> {
  const verdict = await mx.resolver.resolve(address);
  if (verdict.ok || Date.now() > mx.cutover + LEGACY_VERP_MS) return verdict;
  const parts = splitAddress(address);
  const recipientId = parts && parseLegacyVerpLocalPart(mx.secret, parts.local, mx.cutover);
  if (!parts || !recipientId) return verdict;
  const current = await mx.resolver.resolve(`${verpLocalPart(mx.secret, recipientId)}@${parts.domain}`);
  return current.ok ? { ok: true, target: { ...current.target, address: `${parts.local}@${parts.domain}` } } : verdict;
}

/** DATA: read within the byte budget, then stored with its resolved recipients (acceptInbound) before the 250. */
async function receive(mx: Mx, stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
  const { deps } = mx;
  const { raw, oversized, starved, release } = await readMessage(stream, deps.config.maxMessageBytes, mx.budget);
  try {
    if (oversized) throw smtpError(552, `5.3.4 Message exceeds the size limit of ${deps.config.maxMessageBytes} bytes`);
    if (starved) throw starvedError();
    const map = mx.targets.get(session.envelope);
    const list = session.envelope.rcptTo.map((r) => map?.get(r.address.toLowerCase())).filter((t): t is InboundTarget => t !== undefined);
    if (list.length === 0) throw smtpError(554, "5.5.1 No valid recipients");
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
    const envelope = { mailFrom, ip: session.remoteAddress, helo: session.hostNameAppearsAs ?? "", secure: session.secure, targets: list };
    let result;
    try {
      result = await acceptInbound(deps, envelope, raw);
    } catch (err) {
      // Not stored, so not accepted: the client keeps the message and retries.
      deps.log.error("inbound message could not be stored", { error: String(err), session: session.id });
      throw smtpError(451, "4.3.0 Temporary local problem, try again later");
    }
    return `Queued as ${result.queueId}`;
  } finally {
    release();
  }
}

/** Starts the MX listener on config.smtpHost:smtpPort (or the given host/port). */
export async function startInboundListener(deps: Deps, opts: InboundListenerOptions = {}): Promise<RunningListener> {
  const limits: ListenerLimits = { ...DEFAULT_LIMITS, ...stripUndefined(opts) };
  const server = await createInboundServer(deps, limits);
  return startListening("smtp", server, opts.host ?? deps.config.smtpHost, opts.port ?? deps.config.smtpPort, deps.log);
}

function stripUndefined(o: InboundListenerOptions): Partial<ListenerLimits> {
  const out: Partial<ListenerLimits> = {};
  for (const k of ["socketTimeoutMs", "closeTimeoutMs", "maxClients", "maxRecipients", "maxBufferedBytes"] as const) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
