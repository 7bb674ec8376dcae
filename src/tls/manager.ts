/**
 * Which certificate this node serves, and keeping it current without a restart.
 *
 * - Files (POSTHORN_TLS_CERT/KEY) win: they are read at start and re-read on every check; a
 *   changed pair that parses and matches is served from then on, a broken one is logged and the
 *   previous pair stays. ACME is not used on a node given files.
 * - ACME (POSTHORN_ACME_EMAIL): the certificate lives in the database (tls_certificates), so every
 *   node serves the same one. Each check loads a certificate another node stored, and orders a new
 *   one when none exists, a name is missing, the renewal time has come (renewalTime) or
 *   `posthorn tls renew` asked for one; failures back off. Only the node holding the row's lease
 *   orders; a node that dies mid-order lets the lease run out and another one takes over.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Deps } from "../context.ts";
import { scheduledBackoff } from "../pacing/backoff.ts";
import type { ChallengePublisher } from "./acme.ts";
import { LiveCertificate, parseCertificate, renewalTime, type ServedCertificate } from "./certificate.ts";

/** The row of the one certificate ordered today (POSTHORN_HOSTNAME and the tracking host). */
export const ACME_CERTIFICATE = "acme";
/**
 * The ACME client, loaded on a node's first order: acme-client and what it brings (axios,
 * node-forge, @peculiar's X.509 and ASN.1 schemas: ~310 modules) are ~5 MB of heap and more of
 * RSS that a node without POSTHORN_ACME_EMAIL never needs.
 */
const loadAcme = () => import("./acme.ts");
const accountKeySetting = (directoryUrl: string) => `acme_account_key ${directoryUrl}`;

const M = 60_000;
const H = 60 * M;
/** After a failed order: 5 m, 15 m, 1 h, 3 h, then every 12 h (±10%); Let's Encrypt allows 5 failed validations per name an hour. */
export const ACME_RETRY_SCHEDULE_MS = [5 * M, 15 * M, 1 * H, 3 * H, 12 * H] as const;

export interface CertificateManagerOptions {
  /** How often each node checks for a new certificate (files, or one another node stored) and for a due order (POSTHORN_TLS_CHECK_INTERVAL_MS). */
  checkIntervalMs: number;
  /** How long a node may hold an order before another may take over. */
  leaseMs: number;
  /** An order running longer fails (and is retried later). */
  orderTimeoutMs: number;
  /** How long the names to order for (the tracking host's DNS check) are reused. */
  namesTtlMs: number;
}

export const DEFAULT_CERTIFICATE_OPTIONS: Omit<CertificateManagerOptions, "checkIntervalMs"> = {
  leaseMs: 10 * M,
  orderTimeoutMs: 5 * M,
  namesTtlMs: 15 * M,
};

export type CertificateMode = "file" | "acme" | "none";

export function certificateMode(config: Deps["config"]): CertificateMode {
  if (config.tlsCert && config.tlsKey) return "file";
  return config.acmeEmail ? "acme" : "none";
}

/** A name a public CA can issue for: a DNS name with a dot, not an IP address or localhost. */
export function orderableName(name: string): boolean {
  const n = name.toLowerCase();
  if (!n.includes(".") || /^[\d.]+$/.test(n) || n.includes(":")) return false;
  return n !== "localhost" && !n.endsWith(".localhost");
}

/** Why an order is due now, or null. */
export function orderDue(
  row: { certPem: string | null; domains: string[]; notBefore: number | null; notAfter: number | null; renewRequestedAt: number | null; nextAttemptAt: number | null } | null,
  names: string[],
  now: number,
): string | null {
  if (row?.nextAttemptAt && now < row.nextAttemptAt) return null;
  if (!row?.certPem || row.notBefore === null || row.notAfter === null) return "no certificate yet";
  if (row.renewRequestedAt !== null) return "renewal requested";
  const missing = names.filter((n) => !row.domains.includes(n));
  if (missing.length > 0) return `not valid for ${missing.join(", ")}`;
  if (now >= renewalTime(row.notBefore, row.notAfter)) return `expires ${new Date(row.notAfter).toISOString()}`;
  return null;
}

export class CertificateManager {
  readonly live = new LiveCertificate();
  readonly mode: CertificateMode;
  /** This process, as the holder of an order's lease (a restarted node is another holder). */
  private readonly owner: string;
  private timer: Timer | null = null;
  private stopped = false;
  private checking: Promise<void> | null = null;
  private ordering = false;
  private names: { list: string[]; at: number } | null = null;
  /** The last problem logged by the file or order path, so a check every few seconds logs it once. */
  private lastProblem: string | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly opts: CertificateManagerOptions = { ...DEFAULT_CERTIFICATE_OPTIONS, checkIntervalMs: deps.config.tlsCheckIntervalMs },
  ) {
    this.mode = certificateMode(deps.config);
    this.owner = `${deps.config.nodeName}:${randomUUID()}`;
  }

  /**
   * Loads what there is to serve before the listeners start: the files (an unreadable or broken
   * pair fails the start, as it always did) or the certificate stored in the database.
   */
  async load(): Promise<void> {
    const { config, log } = this.deps;
    if (this.mode === "file") {
      this.live.set(await this.readFiles());
      if (config.acmeEmail) log.warn("POSTHORN_TLS_CERT is set: certificates given by file win, ACME is not used on this node");
    } else if (this.mode === "acme") {
      if (!orderableName(config.hostname)) {
        log.error("ACME cannot issue a certificate for POSTHORN_HOSTNAME: set it to this server's public DNS name", { hostname: config.hostname });
      }
      await this.loadStored();
    }
    this.logServed();
  }

  /** Starts the periodic check (the first one at once); the HTTP listener must already answer. */
  start(): void {
    if (this.mode === "none" || this.stopped) return;
    const loop = async () => {
      await this.check();
      if (!this.stopped) this.timer = setTimeout(loop, this.opts.checkIntervalMs);
    };
    void loop();
  }

  /** Stops checking. An order in flight is abandoned: its lease is handed back so another node (or the next start) can order at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.ordering) {
      await this.deps.store.write((tx) => tx.tlsCertificates.releaseLease(ACME_CERTIFICATE, this.owner)).catch(() => undefined);
    } else if (this.checking) {
      await this.checking;
    }
  }

  /** One check: files re-read, or the stored certificate loaded and an order placed when due. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        if (this.mode === "file") await this.refreshFiles();
        else if (this.mode === "acme") await this.refreshAcme();
      } catch (err) {
        this.problem("certificate check failed", String(err));
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }

  private async readFiles(): Promise<ServedCertificate> {
    const { tlsCert, tlsKey } = this.deps.config;
    const [cert, key] = await Promise.all([readFile(tlsCert!, "utf8"), readFile(tlsKey!, "utf8")]);
    return parseCertificate(cert, key, "file");
  }

  private async refreshFiles(): Promise<void> {
    let cert: ServedCertificate;
    try {
      cert = await this.readFiles();
    } catch (err) {
      // Mid-rotation (the certificate written, the key not yet) or broken: keep serving the last good pair.
      return this.problem("POSTHORN_TLS_CERT/KEY could not be loaded; the previous certificate stays", (err as Error).message);
    }
    this.lastProblem = null;
    if (cert.fingerprint === this.live.current?.fingerprint && cert.keyPem === this.live.current.keyPem) return;
    this.live.set(cert);
    this.logServed("certificate files changed; now served");
  }

  private async loadStored(): Promise<void> {
    const row = await this.deps.store.read.tlsCertificates.get(ACME_CERTIFICATE);
    if (!row?.certPem || !row.keyPem || row.fingerprint === this.live.current?.fingerprint) return;
    this.live.set(parseCertificate(row.certPem, row.keyPem, "acme"));
  }

  private async refreshAcme(): Promise<void> {
    const { store } = this.deps;
    const before = this.live.current?.fingerprint;
    const row = await store.read.tlsCertificates.get(ACME_CERTIFICATE);
    if (row?.certPem && row.keyPem && row.fingerprint !== before) {
      this.live.set(parseCertificate(row.certPem, row.keyPem, "acme"));
      this.logServed("new certificate loaded from the database");
    }
    if (this.ordering || this.stopped || !orderableName(this.deps.config.hostname)) return;
    const now = Date.now();
    const names = await this.orderNames(now);
    const reason = orderDue(row, names, now);
    if (!reason) return;
    await store.write((tx) => tx.tlsCertificates.ensure(ACME_CERTIFICATE, now));
    if (!(await store.write((tx) => tx.tlsCertificates.claim(ACME_CERTIFICATE, this.owner, now, this.opts.leaseMs, row)))) return;
    await this.order(names, reason, now, row?.failures ?? 0);
  }

  /** POSTHORN_HOSTNAME, and the tracking host when it differs and points where the hostname does. */
  private async orderNames(now: number): Promise<string[]> {
    if (this.names && now - this.names.at < this.opts.namesTtlMs) return this.names.list;
    const { config, dns, log } = this.deps;
    const list = [config.hostname];
    const tracking = trackingHost(config);
    if (tracking && tracking !== config.hostname && orderableName(tracking)) {
      // A tracking host whose DNS points elsewhere would fail the whole order; it joins once it points here.
      const addresses = (name: string) => dns.addresses(name).catch((): string[] => []);
      const [ours, theirs] = await Promise.all([addresses(config.hostname), addresses(tracking)]);
      if (theirs.some((a) => ours.includes(a))) list.push(tracking);
      else log.warn("the tracking host is left off the certificate: it does not resolve to an address of POSTHORN_HOSTNAME", { tracking_host: tracking, hostname: config.hostname });
    }
    this.names = { list, at: now };
    return list;
  }

  private async order(names: string[], reason: string, startedAt: number, failures: number): Promise<void> {
    const { config, store, log } = this.deps;
    this.ordering = true;
    log.info("acme order started", { names, reason, directory: config.acmeDirectory });
    try {
      const { orderCertificate } = await loadAcme();
      const ordered = await orderCertificate({
        directoryUrl: config.acmeDirectory,
        email: config.acmeEmail!,
        accountKeyPem: await this.accountKey(),
        domains: names,
        challenges: this.challengePublisher(),
        timeoutMs: this.opts.orderTimeoutMs,
        pollMs: config.acmePollMs,
      });
      const cert = parseCertificate(ordered.certPem, ordered.keyPem, "acme");
      if (this.stopped) return;
      const issued = { domains: names, certPem: cert.certPem, keyPem: cert.keyPem, fingerprint: cert.fingerprint, notBefore: cert.notBefore, notAfter: cert.notAfter };
      const kept = await store.write((tx) => tx.tlsCertificates.store(ACME_CERTIFICATE, this.owner, issued, startedAt, Date.now()));
      if (!kept) return void log.warn("acme certificate issued after this node's lease ran out; another node's order wins", { names });
      this.lastProblem = null;
      this.live.set(cert);
      log.info("acme certificate issued", { names, not_after: new Date(cert.notAfter).toISOString(), ms: Date.now() - startedAt });
    } catch (err) {
      if (this.stopped) return;
      const error = (err as Error).message || String(err);
      const delay = scheduledBackoff(failures + 1, ACME_RETRY_SCHEDULE_MS);
      const nextAt = Date.now() + delay;
      await store.write((tx) => tx.tlsCertificates.recordFailure(ACME_CERTIFICATE, this.owner, error.slice(0, 2000), nextAt, Date.now()));
      log.warn("acme order failed", { names, error, failures: failures + 1, next_attempt: new Date(nextAt).toISOString() });
    } finally {
      this.ordering = false;
    }
  }

  /** The account's key for this directory: made once, shared by every node (the first one made wins). */
  private async accountKey(): Promise<string> {
    const { store } = this.deps;
    const name = accountKeySetting(this.deps.config.acmeDirectory);
    const stored = await store.read.settings.get(name);
    if (stored) return stored;
    const fresh = await (await loadAcme()).newAccountKey();
    return await store.write(async (tx) => {
      await tx.settings.addIfAbsent(name, fresh, Date.now());
      return (await tx.settings.get(name))!;
    });
  }

  private challengePublisher(): ChallengePublisher {
    const { store } = this.deps;
    return {
      put: (token, keyAuthorization) => store.write((tx) => tx.tlsCertificates.putChallenge(token, keyAuthorization, Date.now() + this.opts.leaseMs, Date.now())),
      remove: (token) => store.write((tx) => tx.tlsCertificates.removeChallenge(token)),
    };
  }

  private problem(message: string, error: string): void {
    if (this.lastProblem === error) return;
    this.lastProblem = error;
    this.deps.log.error(message, { error });
  }

  private logServed(message = "certificate loaded"): void {
    const c = this.live.current;
    if (!c) return;
    this.deps.log.info(message, { source: c.source, names: c.names, issuer: c.issuer, not_after: new Date(c.notAfter).toISOString() });
  }
}

/** The host of tracking and unsubscribe links (POSTHORN_TRACKING_URL, default POSTHORN_PUBLIC_URL). */
function trackingHost(config: Deps["config"]): string | null {
  try {
    return new URL(config.trackingUrl).hostname.toLowerCase();
  } catch {
    return null;
  }
}
