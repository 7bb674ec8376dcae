import { isIP } from "node:net";
import type { Deps } from "../context.ts";
import type { RemoteReply } from "../events/message-status.ts";
import { MtaStsPolicies, mxMatches, type KnownPolicy } from "./mta-sts.ts";
import { resolveMx, type MxResult } from "./mx.ts";
import { verdictOf, type Verdict } from "./reply.ts";
import { TLS_REQUIRED_CODE, type SendOutcome, type SmtpSender, type SmtpTarget, type TlsUsed } from "./smtp-pool.ts";
import { noteSendingAddress } from "./sending-addresses.ts";

export interface OutboundRecipient {
  id: string;
  email: string;
  /** The VERP return path for this recipient. */
  envelopeFrom: string;
  /** The signed message as this recipient gets it (its own copy when tracking names it). */
  raw: Buffer;
}

export interface RecipientOutcome {
  recipientId: string;
  email: string;
  verdict: Verdict;
  reply: RemoteReply;
  /** The host that answered (MX name or relay), when one did. */
  host: string | null;
  /** Whether a hard bounce says the address cannot receive mail (→ suppression). */
  suppress: boolean;
  /** The TLS of the session that answered, and the MTA-STS mode applied; absent in sink mode. */
  tls?: DeliveryTls | null;
}

/**
 * What a delivery's events record about its transport: the TLS session (protocol and cipher null
 * when the session was plaintext or no server answered), whether the certificate verified for the
 * MX name, and the recipient domain's MTA-STS mode that applied (null: no policy, or mode none).
 */
export interface DeliveryTls extends TlsUsed {
  mta_sts: "enforce" | "testing" | null;
}

const tlsDetails = (tls: TlsUsed | null, policy: KnownPolicy | null): DeliveryTls => ({
  protocol: tls?.protocol ?? null,
  cipher: tls?.cipher ?? null,
  verified: tls?.verified ?? false,
  mta_sts: policy ? (policy.mode as "enforce" | "testing") : null,
});

const local = (message: string, enhanced: string | null = null): RemoteReply => ({ code: null, enhanced_code: enhanced, message });

/** What the message asks of its delivery (docs/sending.md, Per-email settings). */
export interface DeliveryPolicy {
  /**
   * tls: enforced: STARTTLS (or the relay's TLS) and a certificate valid for the host name are
   * required, as under an MTA-STS policy in enforce mode; a host that cannot is skipped like an
   * unreachable one, and never tried in plaintext.
   */
  requireTls: boolean;
}

const OPPORTUNISTIC: DeliveryPolicy = { requireTls: false };
/** A verified TLS session, or no transaction at all. */
const VERIFIED_TLS: Partial<SmtpTarget> = { verifyCertificate: true, requireTLS: true };
const SENDER_TLS = "TLS required by the sender (tls: enforced): ";

const isLoopback = (host: string) => host === "localhost" || host.startsWith("127.") || host === "::1";

/** The relay of POSTHORN_DELIVERY=relay: smtp(s)://user:pass@host:port. */
export function relayTargetOf(relayUrl: string): SmtpTarget {
  const url = new URL(relayUrl);
  const secure = url.protocol === "smtps:";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const auth = url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : null;
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    servername: isIP(host) ? null : host,
    secure,
    auth,
    // A relay is a fixed, configured host that receives our credentials: its certificate must
    // verify (private CAs via NODE_EXTRA_CA_CERTS), and credentials never travel unencrypted
    // except over loopback.
    verifyCertificate: true,
    requireTLS: auth !== null && !isLoopback(host),
  };
}

/**
 * Delivers one message to the recipients of one destination domain. Direct mode follows the
 * domain's MX hosts in preference order, each host's addresses in turn, moving on only when a
 * host cannot be reached or talked to; the first SMTP answer about a recipient is its outcome.
 * Every recipient is its own transaction (its own VERP MAIL FROM) over pooled connections.
 */
export class Deliverer {
  private readonly mxCache = new Map<string, { at: number; result: MxResult }>();
  private readonly relay: SmtpTarget | null;
  private readonly mtaSts: MtaStsPolicies;

  constructor(
    private readonly deps: Deps,
    private readonly pools: SmtpSender,
    private readonly opts: {
      mxCacheMs: number;
      /**
       * Called the moment a server accepts a recipient (2xx after DATA), before deliver()
       * returns and long before the outcome commits with the job: where a crash-proof record of
       * the acceptance is made.
       */
      onAccepted?: (outcome: RecipientOutcome) => void;
      /** The MTA-STS policy cache; by default one of this Deliverer's own. */
      mtaSts?: MtaStsPolicies;
    },
  ) {
    this.relay = deps.config.delivery === "relay" && deps.config.relayUrl ? relayTargetOf(deps.config.relayUrl) : null;
    this.mtaSts = opts.mtaSts ?? new MtaStsPolicies({ dns: deps.dns, port: deps.config.mtaStsPort, log: deps.log });
  }

  async deliver(domain: string, recipients: OutboundRecipient[], message: DeliveryPolicy = OPPORTUNISTIC): Promise<RecipientOutcome[]> {
    if (this.relay) return this.viaRelay(message.requireTls ? { ...this.relay, ...VERIFIED_TLS } : this.relay, recipients, message.requireTls ? SENDER_TLS : "");
    const [mx, policy] = await Promise.all([this.lookupMx(domain), this.mtaSts.policyFor(domain)]);
    if (mx.kind !== "hosts") {
      return recipients.map((r) => ({
        recipientId: r.id,
        email: r.email,
        verdict: mx.kind === "hard" ? "hard" : "soft",
        reply: mx.reply,
        host: null,
        suppress: mx.kind === "hard",
        tls: null,
      }));
    }
    const enforce = policy?.mode === "enforce";
    const outside = policy ? mx.hosts.filter((h) => !policy.mx.some((p) => mxMatches(p, h.name))) : [];
    const hosts = enforce ? mx.hosts.filter((h) => !outside.includes(h)) : mx.hosts;
    if (policy && outside.length > 0) {
      this.deps.log.warn(`MTA-STS ${policy.mode}: MX hosts not in the policy${enforce ? " are skipped" : ""}`, {
        domain,
        policy_id: policy.id,
        hosts: outside.map((h) => h.name),
        policy_mx: policy.mx,
      });
    }
    if (hosts.length === 0) {
      const reply = local(
        `MTA-STS policy of ${domain} (enforce, id ${policy!.id}) allows none of its MX hosts (${mx.hosts.map((h) => h.name).join(", ")}; the policy allows ${policy!.mx.join(", ")}); not sent`,
        TLS_REQUIRED_CODE,
      );
      return recipients.map((r) => ({ recipientId: r.id, email: r.email, verdict: "soft", reply, host: null, suppress: false, tls: tlsDetails(null, policy) }));
    }
    const addresses = new Map<string, Promise<string[] | Error>>();
    const addressesOf = (host: string) => {
      let p = addresses.get(host);
      if (!p) {
        p = this.deps.dns.addresses(host).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        addresses.set(host, p);
      }
      return p;
    };
    // Under enforce, or for a message whose tls is enforced, STARTTLS and a certificate valid for
    // the MX name are required: a host that fails either is skipped like an unreachable one, and
    // never tried in plaintext.
    const tlsRequired: Partial<SmtpTarget> = enforce || message.requireTls ? VERIFIED_TLS : {};
    const why = enforce ? `MTA-STS policy of ${domain} (enforce, id ${policy!.id}): ` : message.requireTls ? SENDER_TLS : "";
    return Promise.all(
      recipients.map(async (r): Promise<RecipientOutcome> => {
        let last: RemoteReply = local(`${why}No mail host of ${domain} could be reached.`, "4.4.1");
        for (const host of hosts) {
          const ips = await addressesOf(host.name);
          if (ips instanceof Error) {
            last = local(`${why}Address lookup of ${host.name} failed: ${ips.message}`, "4.4.3");
            continue;
          }
          if (ips.length === 0) {
            last = local(`${why}The mail host ${host.name} has no address.`, "4.4.3");
            continue;
          }
          for (const ip of ips) {
            const target: SmtpTarget = { host: ip, port: this.deps.config.mxPort, servername: host.name, ...tlsRequired };
            const outcome = await this.pools.send(target, { from: r.envelopeFrom, to: r.email }, r.raw, { recipientId: r.id, host: host.name });
            if (outcome.kind === "reply") {
              if (policy?.mode === "testing" && !outcome.tls?.verified) {
                this.deps.log.warn("MTA-STS testing: delivered without the verified TLS enforce would require", {
                  domain,
                  policy_id: policy.id,
                  mx: host.name,
                  tls: outcome.tls ? "certificate not verified" : "plaintext",
                });
              }
              return this.answered(this.fromReply(r, outcome, host.name, false, policy));
            }
            last = { ...outcome.reply, message: `${why}${host.name} [${ip}]: ${outcome.reply.message}` };
          }
        }
        return { recipientId: r.id, email: r.email, verdict: "soft", reply: last, host: null, suppress: false, tls: tlsDetails(null, policy) };
      }),
    );
  }

  /**
   * The destination `domain`'s mail goes to, for shaping: the relay, or the sorted set of its MX
   * hosts (a domain without a usable MX answer is a destination of its own).
   */
  async destinationOf(domain: string): Promise<{ name: string; hosts: string[] }> {
    if (this.relay) return { name: `relay:${this.relay.host}`, hosts: [] };
    const mx = await this.lookupMx(domain);
    if (mx.kind !== "hosts") return { name: domain, hosts: [] };
    const hosts = [...new Set(mx.hosts.map((h) => h.name))].sort();
    return { name: hosts.join(","), hosts };
  }

  private async viaRelay(relay: SmtpTarget, recipients: OutboundRecipient[], why: string): Promise<RecipientOutcome[]> {
    let target = relay;
    if (!isIP(relay.host)) {
      // The relay's name is resolved like every other name (POSTHORN_DNS_SERVERS); "localhost"
      // is the one name taken as is.
      try {
        const ips = relay.host === "localhost" ? ["127.0.0.1"] : await this.deps.dns.addresses(relay.host);
        if (ips.length === 0) throw new Error(`${relay.host} has no address`);
        target = { ...relay, host: ips[0]!, servername: relay.host };
      } catch (err) {
        const reply = local(`${why}The relay ${relay.host} could not be resolved: ${err instanceof Error ? err.message : String(err)}`, "4.4.3");
        return recipients.map((r) => ({ recipientId: r.id, email: r.email, verdict: "soft" as const, reply, host: null, suppress: false }));
      }
    }
    return Promise.all(
      recipients.map(async (r) => {
        const outcome = await this.pools.send(target, { from: r.envelopeFrom, to: r.email }, r.raw, { recipientId: r.id, host: relay.host });
        if (outcome.kind === "reply") return this.answered(this.fromReply(r, outcome, relay.host, true, null));
        return {
          recipientId: r.id,
          email: r.email,
          verdict: "soft" as const,
          reply: { ...outcome.reply, message: `${why}relay ${relay.host}: ${outcome.reply.message}` },
          host: null,
          suppress: false,
          tls: tlsDetails(null, null),
        };
      }),
    );
  }

  private answered(outcome: RecipientOutcome): RecipientOutcome {
    if (outcome.verdict === "delivered") this.opts.onAccepted?.(outcome);
    return outcome;
  }

  /**
   * A refusal of our envelope sender (MAIL FROM) says nothing about the recipient, so it bounces
   * without a suppression; so does a relay's refusal unless it is about the address (5.1.x/5.2.x).
   */
  private fromReply(
    r: OutboundRecipient,
    outcome: Extract<SendOutcome, { kind: "reply" }>,
    host: string,
    viaRelay: boolean,
    policy: KnownPolicy | null,
  ): RecipientOutcome {
    if (!viaRelay && outcome.local) noteSendingAddress(this.deps, outcome.local);
    const verdict = verdictOf(outcome.reply);
    const aboutAddress = !viaRelay || !outcome.reply.enhanced_code || /^5\.[12]\./.test(outcome.reply.enhanced_code);
    return {
      recipientId: r.id,
      email: r.email,
      verdict,
      reply: outcome.reply,
      host,
      suppress: verdict === "hard" && outcome.stage !== "MAIL FROM" && aboutAddress,
      tls: tlsDetails(outcome.tls, policy),
    };
  }

  private async lookupMx(domain: string): Promise<MxResult> {
    const cached = this.mxCache.get(domain);
    if (cached && Date.now() - cached.at < this.opts.mxCacheMs) return cached.result;
    const result = await resolveMx(this.deps.dns, domain);
    if (result.kind === "hosts" && this.opts.mxCacheMs > 0) {
      if (this.mxCache.size > 10_000) this.mxCache.clear();
      this.mxCache.set(domain, { at: Date.now(), result });
    }
    return result;
  }
}
