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
import { clientKey } from "../auth/throttle.ts";

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
let connectionsPatched = false;

/** Options of ours that the patched connection reads from the server's options. */
interface ConnectionOptions {
  maxClients?: number;
  greetDelayMs?: number;
  /** Connections one client (clientKey: address, or /64 for IPv6) may hold at once; 0 or absent: no limit. */
  maxConnectionsPerClient?: number;
  /** Time a session may go without a command that does something (see PROGRESS_COMMANDS); 0 or absent: off. */
  idleTimeoutMs?: number;
}

/**
 * Commands that move a session forward. Anything else (NOOP, RSET, HELP, VRFY, EXPN, HELO/EHLO,
 * an unknown command) is idling: a client that only sends those is closed once idleTimeoutMs has
 * passed since the session's start or its last progress. Lines that answer the server (AUTH's
 * continuation lines) are progress too.
 */
const PROGRESS_COMMANDS = new Set(["MAIL", "RCPT", "DATA", "BDAT", "AUTH", "STARTTLS"]);

type PatchedConnection = {
  _server: { options: ConnectionOptions; connections: Set<unknown>; perClient?: Map<string, number> };
  _socket?: Socket;
  _ready?: boolean;
  _nextHandler?: unknown;
  name: string;
  remoteAddress: string;
  /** The key this connection is counted under in _server.perClient, until it closes. */
  countedAs?: string;
  /** When the session last made progress (epoch ms). */
  activeAt?: number;
  _setListeners(callback: () => void): void;
  connectionReady(): void;
  send(code: number, data: string, context?: unknown): void;
};

/**
 * Three things smtp-server does not do, on its connection class (which only our listeners use):
 *
 * - The greeting's pause is a setting. smtp-server holds every new connection's greeting for a
 *   fixed 100 ms and refuses a client that talks first ("You talk too soon": a spambot that does
 *   not wait). The pause costs every connection a tenth of a second and a session slot (a
 *   connection per message is capped at about sessions / 0.1 s), so the MX makes it a setting,
 *   POSTHORN_SMTP_GREET_DELAY_MS, passed as the server option greetDelayMs: 0 by default, greeting
 *   at once as Postfix's smtpd, Exim and Haraka do (spam is left to the scoring).
 * - One client holds at most maxConnectionsPerClient connections (POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT,
 *   Postfix's anvil and smtpd_client_connection_count_limit): the next is answered 421 4.7.0 and
 *   closed, so that one address (or IPv6 /64) cannot take every one of maxClients' slots.
 * - A session that only idles (NOOP, RSET, … every few seconds, which keeps the socket timeout
 *   from ever firing) is answered 421 4.4.2 and closed at its first command past idleTimeoutMs
 *   (POSTHORN_SMTP_IDLE_TIMEOUT_SECONDS).
 *
 * Same library code otherwise; refuses to run on a version whose init() looks different.
 */
function patchConnections(): void {
  if (connectionsPatched) return;
  const proto = SMTPConnection.prototype as unknown as PatchedConnection & {
    init(this: PatchedConnection): void;
    _onClose(this: PatchedConnection, ...args: unknown[]): void;
    _onCommand(this: PatchedConnection, command: Buffer | string, callback?: () => void): void;
  };
  // Compared without whitespace: the binary's bundle is minified (`this.connectionReady(),100)`).
  if (!String(proto.init).replace(/\s+/g, "").includes(`this.connectionReady(),${LIBRARY_GREET_DELAY_MS})`)) {
    throw new Error("smtp-server's connection init() changed; review patchConnections in src/smtp/listener.ts");
  }
  if (typeof proto._onClose !== "function" || typeof proto._onCommand !== "function") {
    throw new Error("smtp-server's connection has no _onClose or _onCommand; review patchConnections in src/smtp/listener.ts");
  }
  connectionsPatched = true;
  proto.init = function (this: PatchedConnection) {
    this._setListeners(() => {
      const options = this._server.options;
      if (options.maxClients && this._server.connections.size > options.maxClients) {
        return this.send(421, this.name + " Too many connected clients, try again in a moment", false);
      }
      const perClientLimit = options.maxConnectionsPerClient ?? 0;
      if (perClientLimit > 0) {
        const key = clientKey(this.remoteAddress);
        const counts = (this._server.perClient ??= new Map());
        const held = counts.get(key) ?? 0;
        if (held >= perClientLimit) return this.send(421, `4.7.0 ${this.name} Too many connections from your address, try again later`);
        counts.set(key, held + 1);
        this.countedAs = key;
      }
      this.activeAt = Date.now();
      const delay = options.greetDelayMs ?? LIBRARY_GREET_DELAY_MS;
      if (delay === 0) return this.connectionReady();
      setTimeout(() => this.connectionReady(), delay).unref();
    });
  };
  const onClose = proto._onClose;
  proto._onClose = function (this: PatchedConnection, ...args: unknown[]) {
    const key = this.countedAs;
    if (key !== undefined) {
      this.countedAs = undefined;
      const counts = this._server.perClient!;
      const held = (counts.get(key) ?? 1) - 1;
      if (held > 0) counts.set(key, held);
      else counts.delete(key);
    }
    return onClose.apply(this, args);
  };
  const onCommand = proto._onCommand;
  proto._onCommand = function (this: PatchedConnection, command: Buffer | string, callback?: () => void) {
    const idleMs = this._server.options.idleTimeoutMs ?? 0;
    if (idleMs > 0 && this._ready) {
      const now = Date.now();
      const name = (command || "").toString().split(" ", 1)[0]!.toUpperCase();
      if (this._nextHandler || PROGRESS_COMMANDS.has(name)) this.activeAt = now;
      else if (name !== "QUIT" && now - (this.activeAt ?? now) > idleMs) {
        return this.send(421, `4.4.2 ${this.name} Idle for too long (only ${name || "empty"} commands), closing connection`);
      }
    }
    return onCommand.call(this, command, callback);
  };
}

/** The options of a listener whose greeting waits `ms` (see patchConnections). */
export function greetDelayOption(ms: number): { greetDelayMs: number } {
  patchConnections();
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
  patchConnections();
  const ours: ConnectionOptions = { maxConnectionsPerClient: config.smtpMaxConnectionsPerClient, idleTimeoutMs: config.smtpIdleTimeoutSeconds * 1000 };
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
    ...ours,
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
