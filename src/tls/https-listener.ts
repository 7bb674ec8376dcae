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
 * server on a unix socket in a directory of this process's own, which runs the handler.
 */
import type { Server } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import type { LiveCertificate, ServedCertificate } from "./certificate.ts";

export interface HttpsListenerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>;
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
  /** A directory of this process's own (0700) for the handler server's socket. */
  private socketDir: string | null = null;

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
      this.socketDir ??= mkdtempSync(join(tmpdir(), "posthorn-https-"));
      this.inner ??= Bun.serve({
        unix: join(this.socketDir, "handler.sock"),
        development: false,
        maxRequestBodySize: this.opts.maxRequestBodySize,
        // The handler sees the request as it came, over https (secure cookies, links).
        fetch: (request, server) => this.opts.fetch(request.url.startsWith("http:") ? new Request(`https:${request.url.slice(5)}`, request) : request, server),
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
    const upstream = netConnect({ path: join(this.socketDir!, "handler.sock") });
    for (const s of [socket, upstream]) {
      this.sockets.add(s);
      // A client gone mid-request, a handshake that failed: the pair is closed, nothing else.
      s.on("error", () => {
        socket.destroy();
        upstream.destroy();
      });
      s.on("close", () => {
        this.sockets.delete(s);
        (s === socket ? upstream : socket).destroy();
      });
    }
    socket.pipe(upstream);
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
    await closed;
    if (this.socketDir) rmSync(this.socketDir, { recursive: true, force: true });
    this.socketDir = null;
  }
}
