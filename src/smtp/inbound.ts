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
import { RecipientResolver, splitAddress, type InboundTarget, type RecipientVerdict } from "./recipients.ts";

export interface InboundListenerOptions extends Partial<ListenerLimits> {
  host?: string;
  /** Default config.smtpPort; 0 picks a free port (tests). */
  port?: number;
}

const throttledReply = () => smtpError(421, "4.7.0 Too many refused recipients from your address, try again later");

export async function createInboundServer(deps: Deps, limits: ListenerLimits): Promise<SMTPServer> {
  const secret = await serverSecretOf(deps.store);
  const resolver = new RecipientResolver(deps.store.read, secret, deps.config.inboundDomain);
  const cutover = await verpCutoverOf(deps.store);
  // Clients whose RCPTs keep being refused are guessing addresses or VERP signatures.
  const limit = deps.config.smtpRcptFailureLimit;
  const throttle = limit > 0 ? new RcptFailureThrottle(limit) : null;
  // What each accepted RCPT resolved to, per transaction (smtp-server makes a new envelope each time).
  const targets = new WeakMap<SMTPServerEnvelope, Map<string, InboundTarget>>();
  const budget = new ByteGate(Math.max(limits.maxBufferedBytes, deps.config.maxMessageBytes));
  const maxLagMs = deps.config.smtpInflowLagMs;
  const inflow = maxLagMs > 0 ? new InflowGate(() => deps.store.read.jobs.nextDue(INBOUND_QUEUE), { maxLagMs, log: deps.log }) : null;
  if (inflow) registerInflowGate(deps, inflow);

  return new SMTPServer({
    ...baseServerOptions(deps.config, limits),
    ...greetDelayOption(deps.config.smtpGreetDelayMs),
    authOptional: true,
    disabledCommands: ["AUTH"],
    onMailFrom(_address, _session, callback) {
      if (!inflow) return callback();
      void inflow.admit().then(
        () => callback(),
        () => callback(),
      );
    },
    onRcptTo(address, session, callback) {
      const client = clientKey(session.remoteAddress);
      // A place before the lookup (see rcpt-throttle.ts): a throttled client gets this reply for
      // right and wrong addresses alike, as fast, so it learns nothing more; and however many
      // RCPTs it sends at once, no more are looked up than it has refusals left.
      const place = throttle ? throttle.acquire(client) : true;
      if (place === false) return callback(throttledReply());
      if (place === true) return lookUp(address.address, session, client, callback);
      void place.then((go) => (go ? lookUp(address.address, session, client, callback) : callback(throttledReply())));
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      void receive(stream, session).then(
        (reply) => callback(null, reply),
        (err: Error & { responseCode?: number }) => callback(err),
      );
    },
  });

  /** RCPT's lookup, with a place taken (`acquire`); the refusal is counted and the place given back in the turn the verdict arrives. */
  function lookUp(rcpt: string, session: SMTPServerSession, client: string, callback: (err?: Error | null) => void): void {
    resolve(rcpt).then(
      (verdict) => {
        if (!verdict.ok) {
          if (throttle?.refused(client)) {
            deps.log.warn("smtp client throttled: too many refused recipients", { client, limit, window_ms: RCPT_FAILURE_WINDOW_MS, session: session.id });
          }
          throttle?.release(client);
          return callback(
            verdict.local
              ? smtpError(550, "5.1.1 No such mailbox here")
              : smtpError(550, "5.7.1 Relaying denied: this server only accepts mail for its own addresses"),
          );
        }
        throttle?.release(client);
        let map = targets.get(session.envelope);
        if (!map) targets.set(session.envelope, (map = new Map()));
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
  async function resolve(address: string): Promise<RecipientVerdict> {
    const verdict = await resolver.resolve(address);
    if (verdict.ok || Date.now() > cutover + LEGACY_VERP_MS) return verdict;
    const parts = splitAddress(address);
    const recipientId = parts && parseLegacyVerpLocalPart(secret, parts.local, cutover);
    if (!parts || !recipientId) return verdict;
    const current = await resolver.resolve(`${verpLocalPart(secret, recipientId)}@${parts.domain}`);
    return current.ok ? { ok: true, target: { ...current.target, address: `${parts.local}@${parts.domain}` } } : verdict;
  }

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const { raw, oversized, starved, release } = await readMessage(stream, deps.config.maxMessageBytes, budget);
    try {
      if (oversized) throw smtpError(552, `5.3.4 Message exceeds the size limit of ${deps.config.maxMessageBytes} bytes`);
      if (starved) throw starvedError();
      const map = targets.get(session.envelope);
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
