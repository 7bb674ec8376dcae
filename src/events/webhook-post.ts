import type { Deps } from "../context.ts";
import { DnsError, type DnsResolver } from "../dns/resolver.ts";
import { readUpTo } from "../untrusted/bounded-read.ts";
import { storable } from "../untrusted/bounds.ts";
import { signatureHeader } from "./signature.ts";
import { forbiddenKind, inNetworks, parseCidr, parseIp, type Cidr } from "../net/ip.ts";

/** A receiver has 30 s to answer (the spec; docs/webhooks.md). */
export const WEBHOOK_TIMEOUT_MS = 30_000;
/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_EXCERPT_BYTES = 2048;
export const WEBHOOK_USER_AGENT = "Posthorn-Webhooks/0.1 (+https://github.com/posthorn)";
/** Longest Retry-After honoured; the schedule's last step. */
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

/** Thrown when a webhook target is refused by policy; the message says why. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TargetRefusedError";
  }
}

/**
 * Throws TargetRefusedError unless `ip` is a public address or lies inside one of the allowed
 * networks (POSTHORN_WEBHOOK_ALLOWED_NETWORKS).
 */
export function assertAllowedAddress(ip: string, allowed: readonly Cidr[], host = ip): void {
  if (inNetworks(ip, allowed)) return;
  const kind = forbiddenKind(ip);
  if (kind) {
    const via = host === ip ? `${ip}` : `${host} resolves to ${ip}, which`;
    throw new TargetRefusedError(
      `refused: ${via} is a ${kind} address; webhooks may only target public addresses unless POSTHORN_WEBHOOK_ALLOWED_NETWORKS includes it`,
    );
  }
}

export interface DeliveryRequest {
  url: string;
  secret: string;
  /** Event kind, for X-Service-Event. */
  event: string;
  /** The event body exactly as stored; these bytes are signed and sent. */
  body: string;
  /** 1 for the first attempt; X-Service-Attempt. */
  attempt: number;
}

export interface AttemptResult {
  outcome: "succeeded" | "failed";
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The start of the receiver's answer (up to RESPONSE_EXCERPT_BYTES). */
  responseExcerpt: string | null;
  /** Delay the receiver asked for with Retry-After, in ms. */
  retryAfterMs: number | null;
  /** The receiver answered 410 Gone: the webhook is to be disabled, nothing retried. */
  gone: boolean;
  /** The request was refused by the SSRF policy before anything was sent. */
  refused: boolean;
  /** The signature's t (also X-Service-Delivery), unix seconds. */
  signedAt: number;
  /** The vetted address the request went to, when one was chosen. */
  address: string | null;
}

export interface WebhookSenderOptions {
  dns: Pick<DnsResolver, "addresses">;
  /** CIDRs that may be targeted although private/loopback (POSTHORN_WEBHOOK_ALLOWED_NETWORKS). */
  allowedNetworks?: readonly string[];
  timeoutMs?: number;
  /**
   * Certificates to trust instead of the default store. Production leaves this unset and trusts
   * the system store plus NODE_EXTRA_CA_CERTS; tests pass the CA of their receiver.
   */
  ca?: string | string[];
  responseLimitBytes?: number;
  /** How long a host's resolved addresses are reused. 0 resolves on every attempt. */
  dnsCacheMs?: number;
  userAgent?: string;
}

type Resolved = { addresses: string[]; expires: number };

/**
 * Sends signed webhook requests. Each attempt: parse the URL (HTTPS only), resolve the host
 * through the configured DNS servers, refuse forbidden addresses, then connect to that very
 * address while the hostname is kept for SNI, certificate verification and Host — so a DNS
 * answer that changes between the check and the connection (rebinding) cannot redirect it.
 * Connections are kept alive and reused. Redirects are not followed.
 * No HTTP framework here: this is plain fetch.
 */
export class WebhookSender {
  readonly timeoutMs: number;
  private readonly allowed: Cidr[];
  private readonly responseLimit: number;
  private readonly dnsCacheMs: number;
  private readonly userAgent: string;
  private readonly cache = new Map<string, Resolved>();
  private readonly lookups = new Map<string, Promise<string[]>>();
  private readonly tlsByHost = new Map<string, Record<string, unknown>>();
  private readonly session = new Bun.FetchSession({ keepAlive: { idleTimeout: 60 } });

  constructor(private readonly opts: WebhookSenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.allowed = (opts.allowedNetworks ?? []).map(parseCidr);
    this.responseLimit = opts.responseLimitBytes ?? RESPONSE_EXCERPT_BYTES;
    this.dnsCacheMs = opts.dnsCacheMs ?? 30_000;
    this.userAgent = opts.userAgent ?? WEBHOOK_USER_AGENT;
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.session.close();
  }

  /** One signed attempt. Never throws: every failure is described in the result. */
  async send(req: DeliveryRequest): Promise<AttemptResult> {
    const started = performance.now();
    const signedAt = Math.floor(Date.now() / 1000);
    const result = (r: Partial<AttemptResult>): AttemptResult => ({
      outcome: "failed",
      statusCode: null,
      error: null,
      responseExcerpt: null,
      retryAfterMs: null,
      gone: false,
      refused: false,
      address: null,
      ...r,
      signedAt,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
    });

    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return result({ error: "refused: the webhook URL is not a valid URL", refused: true });
    }
    if (url.protocol !== "https:") return result({ error: "refused: webhooks are only delivered over https://", refused: true });

    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    let address: string;
    try {
      address = await this.vettedAddress(host);
    } catch (err) {
      if (err instanceof TargetRefusedError) return result({ error: err.message, refused: true });
      return result({ error: err instanceof Error ? err.message : String(err) });
    }

    const headers: Record<string, string> = {
      host: url.host,
      "content-type": "application/json",
      "user-agent": this.userAgent,
    };
    // The spec's X-Service-* family and, with identical values, the X-Lettermint-* family that
    // Lettermint's SDKs read (Webhook.verifyHeaders), so receivers written for either verify.
    const signature = signatureHeader(req.secret, req.body, signedAt);
    for (const family of ["x-service", "x-lettermint"]) {
      headers[`${family}-signature`] = signature;
      headers[`${family}-event`] = req.event;
      headers[`${family}-delivery`] = String(signedAt);
      headers[`${family}-attempt`] = String(req.attempt);
    }
    if (url.username || url.password) {
      const user = decodeURIComponent(url.username);
      const pass = decodeURIComponent(url.password);
      headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    }
    const literal = address.includes(":") ? `[${address}]` : address;
    const target = `https://${literal}${url.port ? `:${url.port}` : ""}${url.pathname}${url.search}`;
    const signal = AbortSignal.timeout(this.timeoutMs);

    try {
      const res = await this.session.fetch(target, {
        method: "POST",
        body: req.body,
        headers,
        redirect: "manual",
        signal,
        tls: this.tlsFor(host),
      });
      const excerpt = await this.readExcerpt(res);
      const status = res.status;
      if (status >= 200 && status < 300) return result({ outcome: "succeeded", statusCode: status, responseExcerpt: excerpt, address });
      let error = `the receiver answered HTTP ${status}`;
      if (status >= 300 && status < 400) {
        const location = res.headers.get("location");
        error += `; redirects are not followed${location ? ` (Location: ${location.slice(0, 300)})` : ""}`;
      }
      if (status === 410) error += " (Gone); the webhook is disabled";
      return result({
        statusCode: status,
        error,
        responseExcerpt: excerpt,
        retryAfterMs: parseRetryAfter(res.headers.get("retry-after")),
        gone: status === 410,
        address,
      });
    } catch (err) {
      if (signal.aborted) return result({ error: `timed out after ${this.timeoutMs} ms without a complete answer`, address });
      const e = err as { code?: string; message?: string };
      const code = e.code && !String(e.message).includes(e.code) ? ` (${e.code})` : "";
      const to = host === address ? host : `${host} (${address})`;
      return result({ error: `request to ${to} failed: ${e.message ?? String(err)}${code}`, address });
    }
  }

  /** Reads at most the response limit; a longer answer is cut (and its connection dropped). */
  private async readExcerpt(res: Response): Promise<string | null> {
    if (!res.body) return null;
    const { bytes: read } = await readUpTo(res.body, this.responseLimit);
    if (read.byteLength === 0) return null;
    const bytes = read.subarray(0, this.responseLimit);
    // A cut may split a UTF-8 sequence; the decoder replaces the fragment instead of throwing.
    // A NUL, which PostgreSQL's text refuses (failing the attempt's record), becomes U+FFFD too.
    return storable(new TextDecoder().decode(bytes));
  }

  private tlsFor(host: string): Record<string, unknown> {
    let tls = this.tlsByHost.get(host);
    if (!tls) {
      tls = {};
      // SNI and the certificate check use the hostname, while the socket goes to the vetted IP.
      if (!parseIp(host)) tls.serverName = host;
      if (this.opts.ca) tls.ca = this.opts.ca;
      if (this.tlsByHost.size > 10_000) this.tlsByHost.clear();
      this.tlsByHost.set(host, tls);
    }
    return tls;
  }

  /** The address to connect to: an allowed IP literal, or an allowed address the host resolves to. */
  private async vettedAddress(host: string): Promise<string> {
    if (parseIp(host)) {
      assertAllowedAddress(host, this.allowed);
      return host;
    }
    const addresses = await this.resolve(host);
    if (addresses.length === 0) throw new Error(`${host} has no A or AAAA record`);
    // Every address is checked: a name that mixes a public and a private address is refused.
    for (const a of addresses) assertAllowedAddress(a, this.allowed, host);
    return addresses.find((a) => !a.includes(":")) ?? addresses[0]!;
  }

  private async resolve(host: string): Promise<string[]> {
    const now = Date.now();
    const hit = this.cache.get(host);
    if (hit && hit.expires > now) return hit.addresses;
    let pending = this.lookups.get(host);
    if (!pending) {
      pending = this.opts.dns.addresses(host).then(
        (addresses) => {
          if (this.dnsCacheMs > 0 && addresses.length > 0) {
            if (this.cache.size > 10_000) this.cache.clear();
            this.cache.set(host, { addresses, expires: Date.now() + this.dnsCacheMs });
          }
          return addresses;
        },
        (err: unknown) => {
          throw err instanceof DnsError ? new Error(`DNS lookup failed: ${err.message}`) : err;
        },
      );
      pending.finally(() => this.lookups.delete(host)).catch(() => {});
      this.lookups.set(host, pending);
    }
    return pending;
  }
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unusable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null;
}

const senders = new WeakMap<Deps, WebhookSender>();

/** The sender of an app instance (job handler and the test endpoint share its connections). */
export function webhookSenderFor(deps: Deps): WebhookSender {
  let sender = senders.get(deps);
  if (!sender) {
    sender = new WebhookSender({ dns: deps.dns, allowedNetworks: deps.config.webhookAllowedNetworks });
    senders.set(deps, sender);
  }
  return sender;
}

/** Installs a sender for `deps` (tests trust their receiver's CA or shorten the timeout this way). */
export function useWebhookSender(deps: Deps, sender: WebhookSender): void {
  senders.set(deps, sender);
}
