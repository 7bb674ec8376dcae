/**
 * The HTTPS listener (POSTHORN_HTTPS_PORT): the same handler as the HTTP listener, with the
 * certificate this node serves. It listens once there is a certificate, and takes each new one
 * without a restart.
 *
 * Bun's server cannot change its certificate in place, so a new certificate gets a new server on
 * the same port (SO_REUSEPORT) and the old one stops gracefully: from then on every connection is
 * accepted by the new one, requests in progress on old connections finish with their answer, and
 * the old server's idle keep-alive connections are closed (clients open a new one, as after an
 * nginx reload).
 */
import type { Server } from "bun";
import type { Logger } from "../log.ts";
import type { LiveCertificate, ServedCertificate } from "./certificate.ts";

export interface HttpsListenerOptions {
  host: string;
  /** 0 picks a free port on the first start (tests); later servers reuse the port picked. */
  port: number;
  fetch: (request: Request, server: Server<undefined>) => Response | Promise<Response>;
  maxRequestBodySize: number;
}

export class HttpsListener {
  private server: Server<undefined> | null = null;
  private boundPort: number;
  private unfollow: (() => void) | null = null;
  /** Old servers still finishing their requests. */
  private readonly draining = new Set<Promise<void>>();

  constructor(
    private readonly opts: HttpsListenerOptions,
    private readonly log: Logger,
  ) {
    this.boundPort = opts.port;
  }

  /** The port listened on, or null before the first certificate. */
  get port(): number | null {
    return this.server ? this.boundPort : null;
  }

  start(live: LiveCertificate): void {
    this.unfollow = live.follow((cert) => this.serve(cert));
    if (!live.current) this.log.info("https listener waits for a certificate", { address: `${this.opts.host}:${this.opts.port}` });
  }

  private serve(cert: ServedCertificate): void {
    let next: Server<undefined>;
    try {
      next = Bun.serve({
        hostname: this.opts.host,
        port: this.boundPort,
        reusePort: true,
        tls: { cert: cert.certPem, key: cert.keyPem },
        development: false,
        maxRequestBodySize: this.opts.maxRequestBodySize,
        fetch: this.opts.fetch,
      });
    } catch (err) {
      // Port taken by another program, say: keep serving the previous certificate, if any.
      this.log.error("https listener could not start", { address: `${this.opts.host}:${this.boundPort}`, error: String(err) });
      return;
    }
    const previous = this.server;
    this.server = next;
    this.boundPort = next.port ?? this.boundPort;
    if (previous) {
      const done = previous.stop(false).catch(() => undefined);
      this.draining.add(done);
      void done.finally(() => this.draining.delete(done));
    }
    this.log.info(previous ? "https listener took a new certificate" : "https listener started", {
      address: `${this.opts.host}:${this.boundPort}`,
      names: cert.names,
      not_after: new Date(cert.notAfter).toISOString(),
    });
  }

  async stop(): Promise<void> {
    this.unfollow?.();
    const current = this.server;
    this.server = null;
    await Promise.all([current?.stop(false), ...this.draining]);
  }
}
