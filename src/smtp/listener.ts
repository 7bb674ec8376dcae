/**
 * What both SMTP listeners (the MX and submission) share: TLS, limits, timeouts, replies with
 * enhanced status codes, reading a DATA stream into memory with a size bound.
 */
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { SMTPServer, type SMTPServerError, type SMTPServerOptions } from "smtp-server";
import { SMTPConnection } from "smtp-server/lib/smtp-connection.js";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { LiveCertificate } from "../tls/certificate.ts";
import type { ByteGate } from "./byte-gate.ts";

/** Limits of a listener. Defaults suit production; tests shorten the timeouts. */
export interface ListenerLimits {
  /** Idle time allowed between client commands or DATA chunks before the connection is dropped. */
  socketTimeoutMs: number;
  /** How long close() waits for open sessions before cutting them. */
  closeTimeoutMs: number;
  /** Concurrent connections; the next one is answered 421. */
  maxClients: number;
  /** Recipients per message; further RCPTs are answered 452 4.5.3. */
  maxRecipients: number;
  /**
   * Message bytes held in memory by all sessions together. A message that would go over is
   * drained and answered 452 4.3.1 (try again later), so many large messages at once cannot
   * exhaust memory. At least one message of the largest size is always allowed.
   */
  maxBufferedBytes: number;
}

export const DEFAULT_LIMITS: ListenerLimits = {
  socketTimeoutMs: 120_000,
  closeTimeoutMs: 10_000,
  maxClients: 500,
  maxRecipients: 100,
  maxBufferedBytes: 512 * 1024 * 1024,
};

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
let patched = false;

/**
 * smtp-server puts its own enhanced status code in front of a handler's error text, chosen from
 * the reply code alone (550 → 5.1.1), so "550 5.7.1 relaying denied" cannot be said. This lets a
 * reply whose text already starts with an enhanced code go out as written. Applied once, to the
 * library's connection class, which only our listeners use.
 */
function letRepliesCarryTheirOwnEnhancedCode(): void {
  if (patched) return;
  patched = true;
  type Connection = { _socket?: Socket; _upgrading?: boolean };
  const proto = SMTPConnection.prototype as unknown as {
    send(this: Connection, code: number, data?: unknown, context?: unknown): void;
    upgrade(this: Connection, ...args: unknown[]): void;
  };
  const send = proto.send;
  proto.send = function (code, data, context) {
    batchRepliesOfThisTurn(this);
    if (context === undefined && typeof data === "string" && ENHANCED.test(data)) return send.call(this, code, data, false);
    return send.call(this, code, data, context);
  };
  // STARTTLS: its 220 leaves before the socket is handed to TLS.
  const upgrade = proto.upgrade;
  proto.upgrade = function (...args) {
    if (this._socket?.writableCorked) this._socket.uncork();
    return upgrade.apply(this, args);
  };
}

/**
 * Replies written in one turn of the event loop leave in one write: a pipelining client's MAIL,
 * RCPT and DATA (RFC 2920) get their three replies in one segment instead of one system call and
 * one segment each. The socket is corked at the turn's first reply and uncorked after the turn's
 * I/O callbacks; end() (QUIT, close) flushes what is corked, and upgrade() above does for STARTTLS.
 */
function batchRepliesOfThisTurn(connection: { _socket?: Socket; _upgrading?: boolean }): void {
  const socket = connection._socket;
  if (!socket || connection._upgrading || socket.destroyed || socket.writableCorked) return;
  socket.cork();
  setImmediate(() => {
    if (socket.writableCorked) socket.uncork();
  });
}

/** smtp-server's own pause before the greeting, used by a listener that does not set greetDelayMs. */
const LIBRARY_GREET_DELAY_MS = 100;
let greetPatched = false;

/**
 * smtp-server holds every new connection's greeting for a fixed 100 ms and refuses a client that
 * talks first ("You talk too soon": a spambot that does not wait). The pause costs every
 * connection a tenth of a second and a session slot (a connection per message is capped at about
 * sessions / 0.1 s), so the MX makes it a setting, POSTHORN_SMTP_GREET_DELAY_MS, passed as the
 * server option greetDelayMs: 0 by default, greeting at once as Postfix's smtpd, Exim and Haraka
 * do (spam is left to the scoring). Same library code otherwise; refuses to run on a version
 * whose init() looks different.
 */
function letTheGreetingDelayBeASetting(): void {
  if (greetPatched) return;
  type Connection = {
    _server: { options: { maxClients?: number; greetDelayMs?: number }; connections: Set<unknown> };
    name: string;
    _setListeners(callback: () => void): void;
    connectionReady(): void;
    send(code: number, data: string, context: boolean): void;
  };
  const proto = SMTPConnection.prototype as unknown as Connection & { init(this: Connection): void };
  // Compared without whitespace: the binary's bundle is minified (`this.connectionReady(),100)`).
  if (!String(proto.init).replace(/\s+/g, "").includes(`this.connectionReady(),${LIBRARY_GREET_DELAY_MS})`)) {
    throw new Error("smtp-server's connection init() changed; review letTheGreetingDelayBeASetting in src/smtp/listener.ts");
  }
  greetPatched = true;
  proto.init = function (this: Connection) {
    this._setListeners(() => {
      const options = this._server.options;
      if (options.maxClients && this._server.connections.size > options.maxClients) {
        return this.send(421, this.name + " Too many connected clients, try again in a moment", false);
      }
      const delay = options.greetDelayMs ?? LIBRARY_GREET_DELAY_MS;
      if (delay === 0) return this.connectionReady();
      setTimeout(() => this.connectionReady(), delay).unref();
    });
  };
}

/** The options of a listener whose greeting waits `ms` (see letTheGreetingDelayBeASetting). */
export function greetDelayOption(ms: number): { greetDelayMs: number } {
  letTheGreetingDelayBeASetting();
  return { greetDelayMs: ms };
}

/** An error for a handler callback: `smtpError(550, "5.7.1 Relaying denied")`. */
export function smtpError(code: number, text: string): SMTPServerError {
  const err = new Error(text) as SMTPServerError;
  err.responseCode = code;
  return err;
}

/** Options both listeners use; the caller adds its handlers and AUTH settings. */
export function baseServerOptions(config: Config, limits: ListenerLimits): SMTPServerOptions {
  letRepliesCarryTheirOwnEnhancedCode();
  const tls = config.tlsCert && config.tlsKey ? { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } : null;
  return {
    name: config.hostname,
    banner: "Posthorn",
    logger: false,
    // A PTR lookup per connection would send every client's address to the system resolver.
    disableReverseLookup: true,
    size: config.maxMessageBytes,
    rejectOversized: true,
    hideENHANCEDSTATUSCODES: false,
    socketTimeout: limits.socketTimeoutMs,
    closeTimeout: limits.closeTimeoutMs,
    maxClients: limits.maxClients,
    maxRecipients: limits.maxRecipients,
    ...(tls ? { key: tls.key, cert: tls.cert } : { hideSTARTTLS: true }),
  };
}

export interface RunningListener {
  name: string;
  port: number;
  server: SMTPServer;
  stop(): Promise<void>;
}

/** Starts `server` on host:port (0 picks a free port) and resolves once it listens. */
export function startListening(name: string, server: SMTPServer, host: string, port: number, log: Logger): Promise<RunningListener> {
  // Socket-level errors (resets, TLS failures) arrive here; they concern one client only.
  server.on("error", (err: Error) => log.warn("smtp listener error", { listener: name, error: err.message }));
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.server.once("error", onError);
    server.listen(port, host, () => {
      server.server.off("error", onError);
      const address = server.server.address();
      const actual = typeof address === "object" && address ? address.port : port;
      log.info("smtp listener started", { listener: name, address: `${host}:${actual}` });
      resolve({
        name,
        port: actual,
        server,
        stop: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * STARTTLS with the certificate this node serves (files or ACME), kept current: the first one
 * turns STARTTLS on, each later one is used from the next STARTTLS on, and sessions already in
 * TLS keep the certificate they started with.
 */
export function followCertificate(listener: RunningListener, live: LiveCertificate): RunningListener {
  const unfollow = live.follow((cert) => {
    listener.server.updateSecureContext({ key: cert.keyPem, cert: cert.certPem });
    listener.server.options.hideSTARTTLS = false;
  });
  return {
    ...listener,
    stop: async () => {
      unfollow();
      await listener.stop();
    },
  };
}

/**
 * Reads a DATA stream into memory, keeping at most `limit` bytes (smtp-server already answers
 * 552 to anything larger; the rest is drained so the session can go on) and taking what it
 * keeps from `budget` (maxBufferedBytes, shared by the listener's sessions). `starved` means the
 * budget ran out: the message was drained, not kept. Call `release()` once the message is stored
 * or refused.
 */
export function readMessage(
  stream: Readable & { sizeExceeded?: boolean },
  limit: number,
  budget: ByteGate,
): Promise<{ raw: Buffer; oversized: boolean; starved: boolean; release: () => void }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let starved = false;
    const release = () => {
      budget.give(held);
      held = 0;
    };
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit || starved) return;
      if (budget.take(chunk.length)) {
        held += chunk.length;
        chunks.push(chunk);
      } else {
        starved = true;
        chunks.length = 0;
        release();
      }
    });
    stream.once("error", (err) => {
      release();
      reject(err);
    });
    stream.once("end", () =>
      resolve({ raw: starved ? Buffer.alloc(0) : Buffer.concat(chunks), oversized: size > limit || stream.sizeExceeded === true, starved, release }),
    );
  });
}

export const starvedError = () => smtpError(452, "4.3.1 Too much mail in progress, try again later");

/** A header-safe token from something a client sent (HELO name, address): printable ASCII only. */
export const headerSafe = (value: string, max = 200): string => value.replace(/[^\x21-\x7e]/g, "").slice(0, max);

/** A Received trace header (RFC 5321 §4.4) for mail accepted by this host. */
export function receivedHeader(opts: {
  helo: string;
  ip: string;
  hostname: string;
  secure: boolean;
  authenticated?: boolean;
  id: string;
  recipient: string | null;
  date?: Date;
}): string {
  const protocol = `ESMTP${opts.secure ? "S" : ""}${opts.authenticated ? "A" : ""}`;
  const forPart = opts.recipient ? `\r\n\tfor <${headerSafe(opts.recipient, 254)}>` : "";
  const date = (opts.date ?? new Date()).toUTCString().replace(/GMT$/, "+0000");
  return `Received: from ${headerSafe(opts.helo) || "unknown"} ([${headerSafe(opts.ip, 64)}])\r\n\tby ${opts.hostname} (Posthorn) with ${protocol} id ${opts.id}${forPart};\r\n\t${date}\r\n`;
}
