/**
 * The hand-off of one outbound attempt to SMTP: the recipients already marked processed, grouped
 * by destination domain, each domain in parallel through the deliverer (direct to MX, the relay,
 * or the sink), at most `copies.inFlight` transactions holding a copy at once. Returns each
 * recipient's result; outbound-outcome.ts puts them on record.
 */
import type { DueRecipientRow } from "../db/recipients.ts";
import type { RemoteReply } from "../events/message-status.ts";
import type { DeliveryPolicy, OutboundRecipient, RecipientOutcome } from "./smtp-delivery.ts";
import { domainOf, type OutboundContext } from "./outbound-context.ts";
import type { Copies } from "./outbound-copies.ts";
import type { Admission } from "./shaping.ts";
import { bounceDomainOf, verpAddress } from "./verp.ts";

/** The message's fields a delivery needs: its sending domain, return-path host and TLS policy. */
export interface MessageInfo {
  domain: string;
  return_path_host: string;
  /** enforced: only over TLS with a verified certificate (settings.tls, or the route's). */
  tls: string;
}

/** Delivers `due` (all processed), each destination domain in parallel; shaping hears how each domain went. */
export async function deliverAttempt(ctx: OutboundContext, due: DueRecipientRow[], msg: MessageInfo, copies: Copies, admission: Admission | null): Promise<RecipientOutcome[]> {
  if (ctx.deps.config.delivery === "sink") return sinkOutcomes(due);
  const bounceDomain = bounceDomainOf({ domain: msg.domain, returnPathHost: msg.return_path_host });
  const verpSecret = await ctx.secret();
  const envelope = (r: DueRecipientRow, raw: Buffer): OutboundRecipient => ({ id: r.id, email: r.email, envelopeFrom: verpAddress(verpSecret, r.id, bounceDomain), raw });
  const policy: DeliveryPolicy = { requireTls: msg.tls === "enforced" };
  // One shared copy and room for every transaction: all at once, as always for small mail.
  const shared = copies.shared;
  const deliverDomain =
    shared && copies.inFlight >= due.length
      ? (domain: string, rs: DueRecipientRow[]) => ctx.deliverer.deliver(domain, rs.map((r) => envelope(r, shared)), policy)
      : // Otherwise each recipient's transaction takes a turn, holding its copy until the remote answers.
        turnTaking(ctx, copies, envelope, policy);
  const outcomes = await Promise.all(
    [...byDomain(due)].map(async ([domain, rs]) => {
      const got = await deliverDomain(domain, rs);
      admission?.done(domain, got);
      return got;
    }),
  );
  return outcomes.flat();
}

/** In sink mode (POSTHORN_DELIVERY=sink) every recipient is accepted and nothing leaves. */
function sinkOutcomes(due: DueRecipientRow[]): RecipientOutcome[] {
  const reply: RemoteReply = { code: 250, enhanced_code: "2.0.0", message: "Accepted by the sink (POSTHORN_DELIVERY=sink); not sent" };
  return due.map((r) => ({ recipientId: r.id, email: r.email, verdict: "delivered", reply, host: null, suppress: false }));
}

function byDomain(due: DueRecipientRow[]): Map<string, DueRecipientRow[]> {
  const groups = new Map<string, DueRecipientRow[]>();
  for (const r of due) {
    const d = domainOf(r.email);
    groups.set(d, [...(groups.get(d) ?? []), r]);
  }
  return groups;
}

/**
 * Delivery one transaction per recipient, each taking a turn among `copies.inFlight`: its copy
 * is made (or composed) in its turn and dropped when the remote has answered.
 */
function turnTaking(ctx: OutboundContext, copies: Copies, envelope: (r: DueRecipientRow, raw: Buffer) => OutboundRecipient, policy: DeliveryPolicy) {
  const turns = new Turns(copies.inFlight);
  const one = (domain: string, r: DueRecipientRow) =>
    turns.take(async (): Promise<RecipientOutcome> => {
      let raw: Buffer;
      try {
        raw = await copies.of(r);
      } catch (err) {
        // The first copy composed, so this one's failure is taken as passing: tried again later.
        const message = `The message could not be composed: ${err instanceof Error ? err.message : String(err)}`;
        ctx.deps.log.error("compose failed", { message: r.id, error: message });
        return { recipientId: r.id, email: r.email, verdict: "soft", reply: { code: null, enhanced_code: null, message }, host: null, suppress: false };
      }
      try {
        return (await ctx.deliverer.deliver(domain, [envelope(r, raw)], policy))[0]!;
      } finally {
        if (!copies.shared) ctx.collected(raw.length);
      }
    });
  return (domain: string, rs: DueRecipientRow[]) => Promise.all(rs.map((r) => one(domain, r)));
}

/** At most `limit` pieces of work at once; the others wait in order for a turn. */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async take<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
