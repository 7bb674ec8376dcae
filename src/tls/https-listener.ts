/**
 * The HTTPS listener (POSTHORN_HTTPS_PORT): the same handler as the HTTP listener, with the
 * certificate this node serves. It listens once there is a certificate, and takes each new one
 * without a restart and without dropping a connection.
 *
 * Bun's server cannot change its certificate in place (reload() ignores `tls`), and replacing it
 * by a new server on the same port (SO_REUSEPORT) reset connections: the kernel drops those still
 * queued on, or being accepted by, the listening socket that closes (a renewal under load reset
 * about 3 of the connections then in flight, measured with 8 clients connecting in a loop). So
 * TLS ends in a node:tls server whose listening socket stays open for good: a new certificate
 * replaces its secure context (setSecureContext), used from the next handshake on, and every
 * connection, older ones included, goes on. Each decrypted connection is piped to a plain Bun
 * server on 127.0.0.1 (a port of its own), which runs the handler.
 *
 * The handler is given the client's address: the front records, for each connection it makes to
 * the inner server, its local port → the TLS client's address, before a byte goes through; the
 * inner server finds its peer's port in that map. A connection to the inner port that the front
 * did not make (another process on this host) gets its own peer address, 127.0.0.1, no more than
 * it would get from the HTTP listener on loopback.
 */
import type { Server } from "bun";
import { connect as netConnect, type Socket } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import type { LiveCertificate, ServedCertificate } from "./certificate.ts";

export interface HttpsListenerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** `peerAddress`: the TLS client's address (the TCP peer of the HTTPS port). */
  fetch: (request: Request, peerAddress: string) => Response | Promise<Response>;
  maxRequestBodySize: number;
}

export class HttpsListener {
  /** Ends TLS; listens from the first certificate on. */
  private front: TlsServer | null = null;
  /** Runs the handler for the connections the front pipes to it, on loopback. */
  private inner: Server<undefined> | null = null;
  private boundPort: number | null = null;
  private unfollow: (() => void) | null = null;
  private readonly sockets = new Set<Socket>();
  /** Local port of each open connection from the front to the inner server → the TLS client's address. */
  private readonly clients = new Map<number, { address: string }>();

  constructor(
    private readonly opts: HttpsListenerOptions,
    private readonly log: Logger,
  ) {}

  /** The port listened on, or null before the first certificate. */
  get port(): number | null {
    return this.boundPort;
  }

  /** Follows the certificate; resolves once the one there is now (if any) is served. */
  start(live: LiveCertificate): Promise<void> {
    let listening: Promise<void> | null = null;
    this.unfollow = live.follow((cert) => {
      const served = this.serve(cert);
      listening ??= served;
    });
    if (!live.current) this.log.info("https listener waits for a certificate", { address: `${this.opts.host}:${this.opts.port}` });
    return listening ?? Promise.resolve();
  }

  private async serve(cert: ServedCertificate): Promise<void> {
    const context = { cert: cert.certPem, key: cert.keyPem };
    const details = { names: cert.names, not_after: new Date(cert.notAfter).toISOString() };
    if (this.front) {
      try {
        this.front.setSecureContext(context);
      } catch (err) {
        this.log.error("https listener could not take the new certificate; the previous one stays", { error: String(err) });
        return;
      }
      this.log.info("https listener took a new certificate", { address: `${this.opts.host}:${this.boundPort}`, ...details });
      return;
    }
    let front: TlsServer;
    try {
      this.inner ??= Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        development: false,
        maxRequestBodySize: this.opts.maxRequestBodySize,
        fetch: (request, server) => {
          const peer = server.requestIP(request);
          // A TCP peer always has an address; without one, nothing is answered rather than a request without a client.
          if (!peer) return new Response(null, { status: 500 });
          const client = this.clients.get(peer.port)?.address ?? peer.address;
          // The handler sees the request as it came, over https (secure cookies, links).
          return this.opts.fetch(request.url.startsWith("http:") ? new Request(`https:${request.url.slice(5)}`, request) : request, client);
        },
      });
      front = createTlsServer(context, (socket) => this.pipe(socket));
      // Every connection from its first byte, so that stop() also closes those still in their handshake.
      front.on("connection", (raw: Socket) => {
        this.sockets.add(raw);
        raw.once("close", () => this.sockets.delete(raw));
      });
      this.front = front;
      await new Promise<void>((resolve, reject) => {
        front.once("error", reject);
        front.listen(this.opts.port, this.opts.host, () => {
          front.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      // Port taken by another program, say: nothing is served; the next certificate tries again.
      this.front = null;
      this.log.error("https listener could not start", { address: `${this.opts.host}:${this.opts.port}`, error: String(err) });
      return;
    }
    front.on("error", (err) => this.log.warn("https listener error", { error: String(err) }));
    const address = front.address();
    this.boundPort = typeof address === "object" && address ? address.port : this.opts.port;
    this.log.info("https listener started", { address: `${this.opts.host}:${this.boundPort}`, ...details });
  }

  /** One decrypted connection, both ways, to the handler's server; either side's end ends the other. */
  private pipe(socket: TLSSocket): void {
    const inner = this.inner;
    if (!inner) return void socket.destroy();
    const address = socket.remoteAddress;
    // A client already gone has no address: nothing to answer.
    if (!address) return void socket.destroy();
    const client = { address };
    const upstream = netConnect({ host: "127.0.0.1", port: inner.port! });
    let localPort: number | undefined;
    for (const s of [socket, upstream]) {
      this.sockets.add(s);
      // A client gone mid-request, a handshake that failed: the pair is closed, nothing else.
      s.on("error", () => {
        socket.destroy();
        upstream.destroy();
      });
      s.on("close", () => {
        this.sockets.delete(s);
        // Only this connection's entry, should its port already be another's.
        if (s === upstream && localPort !== undefined && this.clients.get(localPort) === client) this.clients.delete(localPort);
        (s === socket ? upstream : socket).destroy();
      });
    }
    // The client's address is known to the inner server before the first byte of a request reaches it.
    upstream.once("connect", () => {
      localPort = upstream.localPort;
      if (localPort === undefined) return void upstream.destroy();
      this.clients.set(localPort, client);
      socket.pipe(upstream);
    });
    upstream.pipe(socket);
  }

  async stop(): Promise<void> {
    this.unfollow?.();
    const front = this.front;
    this.front = null;
    this.boundPort = null;
    // No new connections; requests in progress finish with their answer, then every pair closes.
    const closed = front ? new Promise<void>((resolve) => front.close(() => resolve())) : Promise.resolve();
    await this.inner?.stop(false);
    this.inner = null;
    for (const s of this.sockets) s.destroy();
    this.clients.clear();
    await closed;
  }
}
