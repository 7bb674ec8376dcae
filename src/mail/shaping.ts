/**
 * Per-destination traffic shaping, in the spirit of Postfix's destination concurrency feedback.
 *
 * A destination is the MX host set of a recipient domain (every domain hosted at Google is one
 * destination), or the relay. Each has limits in force: concurrency (transactions at once) and
 * pace (messages per minute), none by default, a policy's from POSTHORN_DESTINATION_POLICIES.
 * A rate reply (isRateReply: any 421, 4.7.28, a 4xx speaking of rate / too many / try later)
 * pauses the destination (30 s, doubling on repeats up to 10 min, longer when the reply asks) and
 * halves both limits (multiplicative decrease; the pace from the rate actually seen); once it is
 * open again, every `rampEveryMs` with successes adds one to the concurrency and a tenth of the
 * lowered pace (additive increase) up to the policy, and 10 min without a rate reply lifts what
 * is left.
 *
 * A recipient held back (paused, concurrency full, pace used up) is not attempted at all: its
 * job is put off to a slot reserved for it, without a status change or an attempt on record.
 *
 * Across nodes: the state (limits, pause, strikes, last reply) is in the destinations table,
 * written when it changes (a rate reply, a ramp step, at most once per `rampEveryMs`) and read
 * by every node once a second, so every node honours a pause within a second. Transactions in
 * flight and the pace's slots are counted per node: each node applies the limits in force to
 * what it sends itself. Nothing here touches the database per message.
 */
import type { Logger } from "../log.ts";
import type { Store } from "../db/store.ts";
import type { DestinationRow } from "../db/destinations.ts";
import type { RemoteReply } from "../events/message-status.ts";
import { isRateReply, requestedRetryMs, type Verdict } from "./reply.ts";
import { policyFor, type DestinationPolicies, type DestinationPolicy } from "../pacing/destination-policy.ts";

/** The MX hosts a destination's name lists (none for a relay or a domain without MX). */
export const mxHostsOf = (name: string): string[] => (name.startsWith("relay:") || !name.includes(".") ? [] : name.split(","));

export interface ShapingOptions {
  /** The first pause after a rate reply; each repeat within `quietMs` doubles it. */
  firstPauseMs: number;
  maxPauseMs: number;
  /** How often limits lowered by a rate reply are raised a step while deliveries succeed. */
  rampEveryMs: number;
  /** A rate reply this long ago is forgotten: strikes reset, limits back to the policy. */
  quietMs: number;
  /** How often each node reads the other nodes' changes. */
  refreshMs: number;
  /**
   * The lowest pace a rate reply lowers to (unless a policy's is lower): at a trickle a 421 says
   * little about the rate, and repeated replies still lengthen the pauses.
   */
  minPerMinute: number;
}

export const DEFAULT_SHAPING: ShapingOptions = {
  firstPauseMs: 30_000,
  maxPauseMs: 600_000,
  rampEveryMs: 5_000,
  quietMs: 600_000,
  refreshMs: 1_000,
  minPerMinute: 60,
};

/** How many reserved slots a destination keeps at most (older ones are simply re-reserved). */
const MAX_RESERVATIONS = 100_000;
/** Recipient domains listed per destination. */
const MAX_DOMAINS = 20;

class Destination {
  readonly domains = new Set<string>();
  policy: DestinationPolicy | null = null;
  /** Limits lowered by rate replies; null: the policy's apply. */
  concurrency: number | null = null;
  perMinute: number | null = null;
  pausedUntil = 0;
  strikes = 0;
  throttledAt: number | null = null;
  lastReply: RemoteReply | null = null;
  /** Pace added per ramp step, set when the pace is lowered. */
  paceStep = 1;
  lastRamp = 0;
  /** The version of the shared row last taken in (its updated_at). */
  appliedAt = 0;
  // Per node:
  inflight = 0;
  /** When the pace lets the next message start (the earliest free slot). */
  nextSlot = 0;
  /** Slots given to held-back messages: message id → when it may start. */
  readonly reservations = new Map<string, number>();
  /** Average transaction time (ms), to space slots when only the concurrency limits. */
  avgTxnMs = 200;
  /** Starts per second over the last 10 s (ring), for the rate seen at a rate reply. */
  private readonly startSec = new Float64Array(10);
  private readonly startCount = new Float64Array(10);

  constructor(readonly name: string) {}

  concurrencyLimit(): number | null {
    return this.concurrency ?? this.policy?.concurrency ?? null;
  }

  paceLimit(): number | null {
    return this.perMinute ?? this.policy?.per_minute ?? null;
  }

  countStarts(now: number, n: number): void {
    const sec = Math.floor(now / 1000);
    const i = sec % 10;
    if (this.startSec[i] !== sec) {
      this.startSec[i] = sec;
      this.startCount[i] = 0;
    }
    this.startCount[i]! += n;
  }

  /** Messages started per minute, from the last 10 s. */
  observedPerMinute(now: number): number {
    const sec = Math.floor(now / 1000);
    let n = 0;
    for (let i = 0; i < 10; i++) if (sec - this.startSec[i]! < 10) n += this.startCount[i]!;
    return n * 6;
  }
}

/** What one message may do now: which of its recipients go, and when the others come back. */
export interface Admission {
  /** Index-aligned with the domains asked about. */
  admitted: boolean[];
  /** When the recipients held back may be tried again (epoch ms); null when none is. */
  retryAt: number | null;
  /** Feeds back one domain's outcomes and frees its slots. */
  done(domain: string, outcomes: readonly { verdict: Verdict; reply: RemoteReply }[]): void;
  /** Frees whatever slots done() did not (the attempt ended early). */
  close(): void;
  /** After a rate reply from `domain`'s destination: when it opens again. */
  reopensAt(domain: string): number | null;
}

export class Shaper {
  private readonly destinations = new Map<string, Destination>();
  /** Recipient domain → destination name, as the MX lookup last said. */
  private readonly nameOf = new Map<string, { name: string; hosts: string[]; at: number }>();
  private readonly node = `${Math.random().toString(36).slice(2, 10)}`;
  private lastRefresh = 0;
  private timer: Timer | null = null;
  private readonly opts: ShapingOptions;

  constructor(
    private readonly deps: { store: Store; log: Logger; policies: DestinationPolicies },
    /** The destination of a recipient domain: its name and MX hosts. */
    private readonly resolve: (domain: string) => Promise<{ name: string; hosts: string[] }>,
    opts: Partial<ShapingOptions> = {},
  ) {
    this.opts = { ...DEFAULT_SHAPING, ...opts };
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.opts.refreshMs);
    this.timer.unref?.();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Admits the recipients of one message (their domains, in order) where their destinations
   * allow, holding a slot for each admitted one until done()/close().
   */
  async admit(messageId: string, domains: readonly string[], now = Date.now()): Promise<Admission> {
    const unique = [...new Set(domains)];
    const dests = new Map<string, Destination>();
    await Promise.all(unique.map(async (d) => dests.set(d, await this.destinationOf(d, now))));
    const admittedPer = new Map<Destination, number>();
    const wanted = new Map<Destination, number>();
    for (const d of domains) wanted.set(dests.get(d)!, (wanted.get(dests.get(d)!) ?? 0) + 1);
    let retryAt: number | null = null;
    for (const [dest, n] of wanted) {
      const { admitted, retryAt: at } = this.take(dest, messageId, n, now);
      admittedPer.set(dest, admitted);
      if (at !== null) retryAt = retryAt === null ? at : Math.min(retryAt, at);
    }
    const left = new Map(admittedPer);
    const admitted = domains.map((d) => {
      const dest = dests.get(d)!;
      const n = left.get(dest)!;
      if (n <= 0) return false;
      left.set(dest, n - 1);
      return true;
    });
    const held = new Map(admittedPer);
    const started = now;
    const free = (dest: Destination, n: number) => {
      const h = held.get(dest) ?? 0;
      const k = Math.min(h, n);
      if (k <= 0) return;
      held.set(dest, h - k);
      dest.inflight -= k;
    };
    return {
      admitted,
      retryAt,
      done: (domain, outcomes) => {
        const dest = dests.get(domain);
        if (!dest) return;
        const at = Date.now();
        free(dest, outcomes.length);
        dest.avgTxnMs = dest.avgTxnMs * 0.9 + (at - started) * 0.1;
        for (const o of outcomes) {
          if (isRateReply(o.reply)) this.throttle(dest, o.reply, at);
          else if (o.verdict === "delivered") this.ramp(dest, at);
        }
      },
      close: () => {
        for (const [dest, n] of held) free(dest, n);
      },
      reopensAt: (domain) => {
        const dest = dests.get(domain);
        return dest && dest.pausedUntil > Date.now() ? dest.pausedUntil : null;
      },
    };
  }

  /** Admits up to `n` recipients of one message to `dest`; otherwise reserves it a later slot. */
  private take(dest: Destination, messageId: string, n: number, now: number): { admitted: number; retryAt: number | null } {
    const reserved = dest.reservations.get(messageId);
    if (reserved !== undefined) dest.reservations.delete(messageId);
    // A message coming back at its slot has had its share of the pace already.
    const hasSlot = reserved !== undefined && reserved <= now + 50;
    if (dest.pausedUntil > now) return { admitted: 0, retryAt: this.reserve(dest, messageId, now) };
    const limitC = dest.concurrencyLimit();
    const limitP = dest.paceLimit();
    if (limitC === null && limitP === null) {
      dest.inflight += n;
      dest.countStarts(now, n);
      return { admitted: n, retryAt: null };
    }
    if ((limitC !== null && dest.inflight >= limitC) || (!hasSlot && limitP !== null && dest.nextSlot > now)) {
      return { admitted: 0, retryAt: this.reserve(dest, messageId, now) };
    }
    const admitted = limitC === null ? n : Math.min(n, limitC - dest.inflight);
    if (!hasSlot && limitP !== null) dest.nextSlot = Math.max(dest.nextSlot, now) + admitted * (60_000 / limitP);
    dest.inflight += admitted;
    dest.countStarts(now, admitted);
    return { admitted, retryAt: admitted < n ? this.reserve(dest, messageId, now) : null };
  }

  /** The next free slot of `dest`, given to `messageId`: the pace's spacing, or the concurrency's. */
  private reserve(dest: Destination, messageId: string, now: number): number {
    const limitP = dest.paceLimit();
    const limitC = dest.concurrencyLimit();
    const spacing = Math.max(limitP !== null ? 60_000 / limitP : 0, limitC !== null ? dest.avgTxnMs / limitC : 0, 1);
    // With every transaction slot taken, none frees before about one spacing from now.
    const full = limitC !== null && dest.inflight >= limitC;
    const slot = Math.max(full ? now + spacing : now, dest.pausedUntil, dest.nextSlot);
    dest.nextSlot = slot + spacing;
    if (dest.reservations.size >= MAX_RESERVATIONS) dest.reservations.clear();
    dest.reservations.set(messageId, slot);
    return slot;
  }

  /** A rate reply: pause, halve the limits. Replies to transactions under way when it paused count once. */
  private throttle(dest: Destination, reply: RemoteReply, now: number): void {
    dest.lastReply = reply;
    if (dest.pausedUntil > now) return;
    dest.strikes = dest.throttledAt !== null && now - dest.throttledAt < this.opts.quietMs ? dest.strikes + 1 : 1;
    let pause = Math.min(this.opts.maxPauseMs, this.opts.firstPauseMs * 2 ** (dest.strikes - 1));
    const asked = requestedRetryMs(reply.message);
    if (asked !== null && asked > pause) pause = asked;
    dest.pausedUntil = now + pause;
    dest.concurrency = Math.max(1, Math.floor((dest.concurrencyLimit() ?? dest.inflight + 1) / 2));
    const seen = dest.observedPerMinute(now);
    const base = Math.min(dest.paceLimit() ?? Infinity, seen > 0 ? seen : Infinity);
    const floor = Math.min(this.opts.minPerMinute, dest.policy?.per_minute ?? Infinity);
    if (Number.isFinite(base)) dest.perMinute = Math.max(1, floor, Math.floor(base / 2));
    dest.paceStep = Math.max(1, Math.ceil((dest.perMinute ?? 10) / 10));
    dest.throttledAt = now;
    dest.lastRamp = dest.pausedUntil;
    dest.nextSlot = Math.max(dest.nextSlot, dest.pausedUntil);
    dest.reservations.clear();
    this.deps.log.warn("destination paused after a rate reply", {
      destination: dest.name,
      until: new Date(dest.pausedUntil).toISOString(),
      concurrency: dest.concurrency,
      per_minute: dest.perMinute,
      reply: `${reply.code ?? ""} ${reply.enhanced_code ?? ""} ${reply.message}`.trim().slice(0, 300),
    });
    this.save(dest, now);
  }

  /** A success after a rate reply: one step back up (at most one per rampEveryMs), or everything lifted once quiet. */
  private ramp(dest: Destination, now: number): void {
    if (dest.throttledAt === null || now < dest.pausedUntil || now - dest.lastRamp < this.opts.rampEveryMs) return;
    dest.lastRamp = now;
    if (now - dest.throttledAt >= this.opts.quietMs) {
      dest.concurrency = null;
      dest.perMinute = null;
      dest.strikes = 0;
      dest.throttledAt = null;
    } else {
      const maxC = dest.policy?.concurrency ?? null;
      const maxP = dest.policy?.per_minute ?? null;
      if (dest.concurrency !== null) dest.concurrency = maxC !== null && dest.concurrency + 1 >= maxC ? null : dest.concurrency + 1;
      if (dest.perMinute !== null) dest.perMinute = maxP !== null && dest.perMinute + dest.paceStep >= maxP ? null : dest.perMinute + dest.paceStep;
    }
    this.save(dest, now);
  }

  private rowOf(dest: Destination, now: number): DestinationRow {
    return {
      name: dest.name,
      domains: JSON.stringify([...dest.domains]),
      concurrency: dest.concurrency,
      per_minute: dest.perMinute,
      paused_until: dest.pausedUntil || null,
      strikes: dest.strikes,
      last_reply: dest.lastReply ? JSON.stringify(dest.lastReply) : null,
      throttled_at: dest.throttledAt,
      updated_by: this.node,
      updated_at: now,
    };
  }

  private save(dest: Destination, now: number): void {
    const row = this.rowOf(dest, now);
    dest.appliedAt = now;
    this.deps.store.write((tx) => tx.destinations.save(row)).catch((err: unknown) => {
      this.deps.log.warn("destination state not saved", { destination: dest.name, error: err instanceof Error ? err.message : String(err) });
    });
  }

  /** The destination of a recipient domain, created (and recorded) on first sight. */
  private async destinationOf(domain: string, now: number): Promise<Destination> {
    let named = this.nameOf.get(domain);
    if (!named || now - named.at > 60_000) {
      const r = await this.resolve(domain);
      named = { ...r, at: now };
      if (this.nameOf.size > 100_000) this.nameOf.clear();
      this.nameOf.set(domain, named);
    }
    let dest = this.destinations.get(named.name);
    if (!dest) {
      dest = new Destination(named.name);
      this.destinations.set(named.name, dest);
    }
    if (!dest.domains.has(domain) && dest.domains.size < MAX_DOMAINS) {
      dest.domains.add(domain);
      dest.policy = policyFor(this.deps.policies, dest.domains, named.hosts);
      const domains = [...dest.domains];
      const name = dest.name;
      this.deps.store.write((tx) => tx.destinations.seen(name, domains, this.node, now)).catch((err: unknown) => {
        this.deps.log.warn("destination not recorded", { destination: name, error: err instanceof Error ? err.message : String(err) });
      });
    }
    return dest;
  }

  /** Takes in what other nodes changed since the last look (a pause, lowered or raised limits). */
  private async refresh(): Promise<void> {
    const since = this.lastRefresh;
    this.lastRefresh = Date.now();
    let rows: DestinationRow[];
    try {
      // A margin for clocks and commits that land just after a read.
      rows = await this.deps.store.read.destinations.changedSince(Math.max(0, since - 5_000));
    } catch {
      this.lastRefresh = since;
      return;
    }
    for (const row of rows) {
      if (row.updated_by === this.node) continue;
      let dest = this.destinations.get(row.name);
      if (!dest) {
        dest = new Destination(row.name);
        for (const d of JSON.parse(row.domains) as string[]) dest.domains.add(d);
        dest.policy = policyFor(this.deps.policies, dest.domains, mxHostsOf(row.name));
        this.destinations.set(row.name, dest);
      }
      // Two versions can share a millisecond (a node records a destination, then pauses it): only
      // an older one is skipped; taking in the same version again changes nothing.
      if (row.updated_at < dest.appliedAt) continue;
      dest.appliedAt = row.updated_at;
      dest.concurrency = row.concurrency;
      dest.perMinute = row.per_minute;
      dest.strikes = row.strikes;
      dest.throttledAt = row.throttled_at;
      if (row.last_reply) dest.lastReply = JSON.parse(row.last_reply) as RemoteReply;
      if ((row.paused_until ?? 0) > dest.pausedUntil) {
        dest.pausedUntil = row.paused_until!;
        dest.lastRamp = dest.pausedUntil;
        dest.nextSlot = Math.max(dest.nextSlot, dest.pausedUntil);
        dest.reservations.clear();
      }
      if (dest.perMinute !== null) dest.paceStep = Math.max(1, Math.ceil(dest.perMinute / 10));
    }
  }
}
