import { isIP } from "node:net";
import type { Deps } from "../context.ts";
import type { RemoteReply } from "../events/message-status.ts";
import { resolveMx, type MxResult } from "./mx.ts";
import { verdictOf, type Verdict } from "./reply.ts";
import type { SendOutcome, SmtpSender, SmtpTarget } from "./smtp-pool.ts";

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
}

const local = (message: string, enhanced: string | null = null): RemoteReply => ({ code: null, enhanced_code: enhanced, message });

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
    },
  ) {
    this.relay = deps.config.delivery === "relay" && deps.config.relayUrl ? relayTargetOf(deps.config.relayUrl) : null;
  }

  async deliver(domain: string, recipients: OutboundRecipient[]): Promise<RecipientOutcome[]> {
    if (this.relay) return this.viaRelay(this.relay, recipients);
    const mx = await this.lookupMx(domain);
    if (mx.kind !== "hosts") {
      return recipients.map((r) => ({
        recipientId: r.id,
        email: r.email,
        verdict: mx.kind === "hard" ? "hard" : "soft",
        reply: mx.reply,
        host: null,
        suppress: mx.kind === "hard",
      }));
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
    return Promise.all(
      recipients.map(async (r): Promise<RecipientOutcome> => {
        let last: RemoteReply = local(`No mail host of ${domain} could be reached.`, "4.4.1");
        for (const host of mx.hosts) {
          const ips = await addressesOf(host.name);
          if (ips instanceof Error) {
            last = local(`Address lookup of ${host.name} failed: ${ips.message}`, "4.4.3");
            continue;
          }
          if (ips.length === 0) {
            last = local(`The mail host ${host.name} has no address.`, "4.4.3");
            continue;
          }
          for (const ip of ips) {
            const target: SmtpTarget = { host: ip, port: this.deps.config.mxPort, servername: host.name };
            const outcome = await this.pools.send(target, { from: r.envelopeFrom, to: r.email }, r.raw, { recipientId: r.id, host: host.name });
            if (outcome.kind === "reply") return this.answered(this.fromReply(r, outcome, host.name, false));
            last = { ...outcome.reply, message: `${host.name} [${ip}]: ${outcome.reply.message}` };
          }
        }
        return { recipientId: r.id, email: r.email, verdict: "soft", reply: last, host: null, suppress: false };
      }),
    );
  }

  private async viaRelay(relay: SmtpTarget, recipients: OutboundRecipient[]): Promise<RecipientOutcome[]> {
    let target = relay;
    if (!isIP(relay.host)) {
      // The relay's name is resolved like every other name (POSTHORN_DNS_SERVERS); "localhost"
      // is the one name taken as is.
      try {
        const ips = relay.host === "localhost" ? ["127.0.0.1"] : await this.deps.dns.addresses(relay.host);
        if (ips.length === 0) throw new Error(`${relay.host} has no address`);
        target = { ...relay, host: ips[0]!, servername: relay.host };
      } catch (err) {
        const reply = local(`The relay ${relay.host} could not be resolved: ${err instanceof Error ? err.message : String(err)}`, "4.4.3");
        return recipients.map((r) => ({ recipientId: r.id, email: r.email, verdict: "soft" as const, reply, host: null, suppress: false }));
      }
    }
    return Promise.all(
      recipients.map(async (r) => {
        const outcome = await this.pools.send(target, { from: r.envelopeFrom, to: r.email }, r.raw, { recipientId: r.id, host: relay.host });
        if (outcome.kind === "reply") return this.answered(this.fromReply(r, outcome, relay.host, true));
        return {
          recipientId: r.id,
          email: r.email,
          verdict: "soft" as const,
          reply: { ...outcome.reply, message: `relay ${relay.host}: ${outcome.reply.message}` },
          host: null,
          suppress: false,
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
  private fromReply(r: OutboundRecipient, outcome: Extract<SendOutcome, { kind: "reply" }>, host: string, viaRelay: boolean): RecipientOutcome {
    const verdict = verdictOf(outcome.reply);
    const aboutAddress = !viaRelay || !outcome.reply.enhanced_code || /^5\.[12]\./.test(outcome.reply.enhanced_code);
    return {
      recipientId: r.id,
      email: r.email,
      verdict,
      reply: outcome.reply,
      host,
      suppress: verdict === "hard" && outcome.stage !== "MAIL FROM" && aboutAddress,
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
