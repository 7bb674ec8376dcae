import type { TLSSocket } from "node:tls";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { RemoteReply } from "../events/message-status.ts";
import type { Logger } from "../log.ts";
import { parseReply } from "./reply.ts";
import { sendPipelined } from "./smtp-pipelining.ts";

/** Where to connect: an IP address (or a relay host name), a port, and the name for TLS SNI. */
export interface SmtpTarget {
  host: string;
  port: number;
  /** Host name presented for TLS (the MX name); null for none. */
  servername: string | null;
  /** Implicit TLS (smtps:// relays). Otherwise STARTTLS is used whenever offered. */
  secure?: boolean;
  auth?: { user: string; pass: string } | null;
  /**
   * Refuse a certificate that does not verify for `servername`: relays, and MX hosts under an
   * MTA-STS policy in enforce mode. Other MX hosts get opportunistic TLS.
   */
  verifyCertificate?: boolean;
  /** Refuse to continue without STARTTLS (credentials to a non-loopback relay; MTA-STS enforce). */
  requireTLS?: boolean;
}

/** The TLS session a transaction ran over; null in a SendOutcome means plaintext. */
export interface TlsUsed {
  /** "TLSv1.3", "TLSv1.2", … */
  protocol: string | null;
  /** OpenSSL/IANA name of the cipher, e.g. "TLS_AES_256_GCM_SHA384". */
  cipher: string | null;
  /** The certificate chains to a trusted root and is valid for the name asked for (SNI). */
  verified: boolean;
}

/**
 * One SMTP transaction's outcome. "reply" means the server answered the transaction (2xx, 4xx or
 * 5xx); "connection" means no answer about this message was obtained (refused, timeout, TLS or
 * protocol failure, connection lost), so another host may be tried.
 */
export type SendOutcome =
  | {
      kind: "reply";
      reply: RemoteReply;
      /** MAIL FROM, RCPT TO, DATA (the message) */ stage: string;
      tls: TlsUsed | null;
      /** The local address the connection was made from (our sending address, as the receiver saw it unless NATed). */
      local?: string | null;
    }
  | { kind: "connection"; reply: RemoteReply; code: string };

/** Who a transaction is for: enough to write its delivery receipt (receipts.ts). */
export interface ReceiptTag {
  recipientId: string;
  /** The host name recorded with the delivery (MX name or relay). */
  host: string | null;
}

/** Runs SMTP transactions: SmtpPools in this process, or SmtpAgent in a child process. */
export interface SmtpSender {
  send(target: SmtpTarget, envelope: { from: string; to: string }, raw: Buffer, receipt?: ReceiptTag): Promise<SendOutcome>;
  readonly stats: { connections: number; messages: number };
  close(): void;
}

export interface SmtpPoolOptions {
  /** EHLO name: POSTHORN_HOSTNAME. */
  heloName: string;
  /** Connections kept per destination host (RFC 5321 senders should be gentle; receivers limit this). */
  maxConnectionsPerHost: number;
  /** Transactions per connection before it is renewed. */
  maxMessagesPerConnection: number;
  /** An idle connection is closed (QUIT) after this long. */
  idleMs: number;
  /** After a failed connect, the host counts as down for this long: no new attempts, fail fast. */
  hostDownMs: number;
  connectTimeoutMs: number;
  greetingTimeoutMs: number;
  socketTimeoutMs: number;
  log: Logger;
}

export const DEFAULT_POOL_OPTIONS: Omit<SmtpPoolOptions, "heloName" | "log"> = {
  maxConnectionsPerHost: 10,
  maxMessagesPerConnection: 1000,
  idleMs: 15_000,
  hostDownMs: 30_000,
  connectTimeoutMs: 30_000,
  greetingTimeoutMs: 30_000,
  socketTimeoutMs: 120_000,
};

type Pending = (err: (Error & { code?: string; response?: string; responseCode?: number }) | null, info?: unknown) => void;

/** One live SMTP session. */
class Session {
  messages = 0;
  dead = false;
  idleTimer: Timer | null = null;
  /** The callback of the transaction in progress, failed if the connection dies under it. */
  pending: Pending | null = null;
  /** Read once the session is ready (after STARTTLS and EHLO). */
  tls: TlsUsed | null = null;
  /** The connection's local address, read once it is ready. */
  local: string | null = null;

  constructor(readonly conn: SMTPConnection) {}
}

/**
 * The TLS state of a ready connection. nodemailer keeps its socket private (`_socket`); after
 * STARTTLS or on implicit TLS it is a TLSSocket, whose `authorized` covers both the chain and the
 * name check against the servername (checked on Bun as on Node).
 */
function tlsOf(conn: SMTPConnection): TlsUsed | null {
  const socket = (conn as unknown as { _socket?: Partial<TLSSocket> })._socket;
  if (!conn.secure || typeof socket?.getProtocol !== "function") return null;
  return { protocol: socket.getProtocol() ?? null, cipher: socket.getCipher?.()?.name ?? null, verified: socket.authorized === true };
}

/** The local address of a connection (an IPv4-mapped IPv6 address as plain IPv4); null when unknown. */
function localAddressOf(conn: SMTPConnection): string | null {
  const socket = (conn as unknown as { _socket?: { localAddress?: string } })._socket;
  const a = socket?.localAddress;
  return typeof a === "string" && a !== "" ? a.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "").toLowerCase() : null;
}

/**
 * A connection that required TLS and failed at STARTTLS (refused, not offered) or in the handshake
 * (certificate not trusted or not valid for the name): said in those words, so that the reason
 * reads as a TLS policy failure rather than as an unreachable host.
 */
function tlsRequiredFailure(conn: SMTPConnection, err: Error & { code?: string; response?: string }): Error & { code?: string; tlsRequired?: boolean } {
  const upgrading = (conn as unknown as { upgrading?: boolean }).upgrading === true;
  if (conn.secure || (err.code !== "ETLS" && !upgrading)) return err;
  const why = upgrading
    ? `TLS handshake failed: ${err.message}`
    : `the server does not offer STARTTLS or refused it${err.response ? ` (${err.response.trim().slice(0, 300)})` : ""}`;
  return Object.assign(new Error(`TLS required, ${why}`), { code: "ETLS", tlsRequired: true });
}

/** The enhanced status code of a delivery held back for want of (verified) TLS (RFC 3463 X.7.5). */
export const TLS_REQUIRED_CODE = "4.7.5";

/** A failure before any answer about the message; keeps the server's reply when there was one. */
const connectionFailure = (code: string, err: { message: string; response?: string }): SendOutcome => ({
  kind: "connection",
  code,
  reply: err.response ? parseReply(err.response) : { code: null, enhanced_code: null, message: err.message },
});

/** Connections to one destination (host:port), reused across messages and jobs. */
class HostPool {
  private readonly idle: Session[] = [];
  private open = 0;
  private readonly waiters: { resolve: (s: Session) => void; reject: (e: Error & { code?: string }) => void }[] = [];
  private downUntil = 0;
  private downError: (Error & { code?: string }) | null = null;
  lastUsed = Date.now();

  constructor(
    readonly key: string,
    private readonly target: SmtpTarget,
    private readonly opts: SmtpPoolOptions,
    private readonly stats: SmtpPools["stats"],
  ) {}

  get size(): number {
    return this.open;
  }

  /** Sends one message in one transaction. Never throws. */
  async send(envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> {
    this.lastUsed = Date.now();
    for (let round = 0; round < 2; round++) {
      let session: Session;
      try {
        session = await this.acquire();
      } catch (err) {
        const e = err as Error & { code?: string; response?: string; tlsRequired?: boolean };
        if (e.tlsRequired) return { kind: "connection", code: e.code ?? "ETLS", reply: { code: null, enhanced_code: TLS_REQUIRED_CODE, message: e.message } };
        return connectionFailure(e.code ?? "ECONNECTION", e);
      }
      const reused = session.messages > 0;
      const outcome = await this.transact(session, envelope, raw);
      // A reused connection may have been closed by the server while idle: try once more on a
      // fresh one before calling the host unreachable.
      if (outcome.kind === "connection" && reused && round === 0) continue;
      return outcome;
    }
    return connectionFailure("ECONNECTION", { message: "connection lost" });
  }

  private transact(session: Session, envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> {
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const done: Pending = (err, info) => {
        if (settled) return;
        settled = true;
        session.pending = null;
        session.messages++;
        if (!err) {
          this.stats.messages++;
          const response = (info as { response?: string } | undefined)?.response ?? "250";
          resolve({ kind: "reply", reply: parseReply(response), stage: "DATA", tls: session.tls, local: session.local });
          this.release(session, false);
          return;
        }
        const code = err.code ?? "ECONNECTION";
        if ((code === "EENVELOPE" || code === "EMESSAGE") && err.response && err.responseCode) {
          const reply = parseReply(err.response);
          resolve({ kind: "reply", reply, stage: (err as { command?: string }).command ?? "DATA", tls: session.tls, local: session.local });
          // A 421 means the server is closing; after a refused MAIL/RCPT/DATA the transaction
          // must be reset; after a refused message body it is already over.
          this.release(session, code === "EENVELOPE", err.responseCode === 421);
          return;
        }
        if (code === "EMESSAGE" && !err.response) {
          // Refused before sending: larger than the SIZE the server advertised (RFC 1870), a
          // permanent limit of that server. Nothing was sent, so the session stays usable.
          resolve({ kind: "reply", reply: { code: 552, enhanced_code: "5.3.4", message: err.message }, stage: "MAIL FROM", tls: session.tls, local: session.local });
          this.release(session, false);
          return;
        }
        resolve(connectionFailure(code, err));
        this.discard(session);
      };
      session.pending = done;
      try {
        const pipelined = sendPipelined(session.conn, envelope, raw, done);
        // Lost mid-transaction after a refusal (a 421 and the server hangs up): that reply is the answer.
        if (pipelined) session.pending = (err, info) => done(err && pipelined.failure ? pipelined.failure : err, info);
        else session.conn.send({ from: envelope.from, to: [envelope.to], size: raw.length } as SMTPConnection.Envelope, raw, done);
      } catch (err) {
        done(Object.assign(err as Error, { code: "ECONNECTION" }));
      }
    });
  }

  private acquire(): Promise<Session> {
    while (this.idle.length > 0) {
      const s = this.idle.pop()!;
      if (s.idleTimer) clearTimeout(s.idleTimer);
      s.idleTimer = null;
      if (!s.dead) return Promise.resolve(s);
    }
    if (Date.now() < this.downUntil && this.downError) return Promise.reject(this.downError);
    if (this.open < this.opts.maxConnectionsPerHost) return this.connect();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private connect(): Promise<Session> {
    this.open++;
    this.stats.connections++;
    const t = this.target;
    const conn = new SMTPConnection({
      host: t.host,
      port: t.port,
      secure: t.secure ?? false,
      name: this.opts.heloName,
      // Opportunistic TLS as MTAs do it (Postfix "may"): encrypt whenever STARTTLS is offered,
      // without requiring a certificate that validates, since MX names rarely match certificates.
      tls: { rejectUnauthorized: t.verifyCertificate ?? false, ...(t.servername ? { servername: t.servername } : {}) },
      opportunisticTLS: !t.requireTLS,
      requireTLS: t.requireTLS ?? false,
      connectionTimeout: this.opts.connectTimeoutMs,
      greetingTimeout: this.opts.greetingTimeoutMs,
      socketTimeout: this.opts.socketTimeoutMs,
      logger: false,
      debug: false,
    } as SMTPConnection.Options);
    const session = new Session(conn);
    return new Promise<Session>((resolve, reject) => {
      let connected = false;
      const fail = (failure: Error & { code?: string }) => {
        if (connected) return;
        connected = true;
        const err = t.requireTLS ? tlsRequiredFailure(conn, failure) : failure;
        this.downUntil = Date.now() + this.opts.hostDownMs;
        this.downError = err;
        this.markDead(session);
        reject(err);
      };
      conn.on("error", (err: Error & { code?: string }) => {
        if (!connected) return fail(err);
        session.pending?.(err);
        this.markDead(session);
      });
      conn.on("end", () => {
        if (!connected) return fail(Object.assign(new Error("connection closed before the greeting"), { code: "ECONNECTION" }));
        session.pending?.(Object.assign(new Error("connection closed"), { code: "ECONNECTION" }));
        this.markDead(session);
      });
      conn.connect(() => {
        session.tls = tlsOf(conn);
        session.local = localAddressOf(conn);
        if (!t.auth) {
          connected = true;
          this.downUntil = 0;
          return resolve(session);
        }
        conn.login({ user: t.auth.user, pass: t.auth.pass }, (err) => {
          if (err) {
            fail(err as Error & { code?: string });
            conn.close();
            return;
          }
          connected = true;
          this.downUntil = 0;
          resolve(session);
        });
      });
    });
  }

  private markDead(session: Session): void {
    if (session.dead) return;
    session.dead = true;
    this.open--;
    if (session.idleTimer) clearTimeout(session.idleTimer);
    const i = this.idle.indexOf(session);
    if (i !== -1) this.idle.splice(i, 1);
    this.serveWaiters();
  }

  /** A slot opened: a waiter connects anew, or learns at once that the host is down. */
  private serveWaiters(): void {
    if (Date.now() < this.downUntil && this.downError) {
      for (const w of this.waiters.splice(0)) w.reject(this.downError);
      return;
    }
    while (this.waiters.length > 0 && this.open < this.opts.maxConnectionsPerHost) {
      const w = this.waiters.shift()!;
      this.connect().then(w.resolve, w.reject);
    }
  }

  private discard(session: Session): void {
    if (!session.dead) {
      try {
        session.conn.close();
      } catch {
        // already closed
      }
      this.markDead(session);
    }
  }

  private release(session: Session, needsReset: boolean, closing = false): void {
    if (session.dead) return;
    if (closing || session.messages >= this.opts.maxMessagesPerConnection) {
      session.conn.quit();
      this.markDead(session);
      return;
    }
    if (needsReset) {
      session.conn.reset((err) => (err ? this.discard(session) : this.handOver(session)));
      return;
    }
    this.handOver(session);
  }

  private handOver(session: Session): void {
    if (session.dead) return;
    const w = this.waiters.shift();
    if (w) return w.resolve(session);
    session.idleTimer = setTimeout(() => {
      const i = this.idle.indexOf(session);
      if (i !== -1) this.idle.splice(i, 1);
      session.conn.quit();
      this.markDead(session);
    }, this.opts.idleMs);
    session.idleTimer.unref?.();
    this.idle.push(session);
  }

  close(): void {
    for (const w of this.waiters.splice(0)) w.reject(Object.assign(new Error("pool closed"), { code: "ECONNECTION" }));
    for (const s of this.idle.splice(0)) {
      if (s.idleTimer) clearTimeout(s.idleTimer);
      s.conn.quit();
      this.markDead(s);
    }
  }
}

/**
 * Outbound SMTP connections, pooled per destination host and port. A fresh connection costs
 * ~100 ms (connect, greeting, EHLO, STARTTLS); a reused one a few ms per message (measured on loopback, Node and Bun alike).
 * Each message is its own transaction (MAIL FROM carries a per-recipient VERP address).
 */
export class SmtpPools implements SmtpSender {
  private readonly pools = new Map<string, HostPool>();
  private readonly opts: SmtpPoolOptions;
  private readonly sweeper: Timer;
  readonly stats = { connections: 0, messages: 0 };

  constructor(opts: Partial<SmtpPoolOptions> & Pick<SmtpPoolOptions, "heloName" | "log">) {
    this.opts = { ...DEFAULT_POOL_OPTIONS, ...opts };
    // Drop pools of hosts not used for a while (their connections are already idle-closed).
    this.sweeper = setInterval(() => {
      const cutoff = Date.now() - Math.max(this.opts.idleMs, this.opts.hostDownMs) * 2;
      for (const [key, pool] of this.pools) {
        if (pool.size === 0 && pool.lastUsed < cutoff) this.pools.delete(key);
      }
    }, 60_000);
    this.sweeper.unref?.();
  }

  send(target: SmtpTarget, envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> {
    // A connection made without verifying the certificate never serves a target that requires it.
    const tlsPolicy = `${target.secure ? "s" : ""}${target.verifyCertificate ? "v" : ""}${target.requireTLS ? "r" : ""}`;
    const key = `${target.host}|${target.port}|${target.servername ?? ""}|${target.auth?.user ?? ""}|${tlsPolicy}`;
    let pool = this.pools.get(key);
    if (!pool) this.pools.set(key, (pool = new HostPool(key, target, this.opts, this.stats)));
    return pool.send(envelope, raw);
  }

  /** Open connections across all hosts. */
  openConnections(): number {
    let n = 0;
    for (const p of this.pools.values()) n += p.size;
    return n;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const p of this.pools.values()) p.close();
    this.pools.clear();
  }
}
