/**
 * Inbound flow control, in the manner of Postfix's `in_flow_delay`: while the oldest accepted
 * message still waiting for its inbound job (parse, checks, webhook event) has waited longer than
 * `maxLagMs`, a new MAIL FROM on the MX is held until it has not, at most `maxDelayMs`, and then
 * goes on either way. A flood is then taken in about as fast as it is processed, instead of piling
 * up messages whose webhooks come minutes late; no client is refused for it.
 *
 * The lag is read from the queue (the due time of its oldest waiting job, every node's on
 * PostgreSQL), at most every `refreshMs`, one read shared by every session that asks. Measured in
 * time rather than in messages, the allowance follows the machine: a faster one takes in more
 * before it holds anyone.
 *
 * Operators see it in /metrics (held since start, held now, the lag last measured) and in the
 * log: a warning when it starts holding, a line when it has let everyone go.
 */
import type { Deps } from "../context.ts";
import type { Logger } from "../log.ts";

export interface InflowGateOptions {
  /** How long the oldest waiting message may have waited before new ones are held. */
  maxLagMs: number;
  /** The longest a MAIL FROM is held (Postfix's in_flow_delay default: 1 s). */
  maxDelayMs?: number;
  /** How stale the measured lag may get. */
  refreshMs?: number;
  /** Told when the gate starts holding and when it has let everyone go. */
  log?: Pick<Logger, "warn" | "info">;
}

interface Held {
  until: number;
  resolve: () => void;
}

export class InflowGate {
  private lagMs = 0;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private measuring: Promise<void> | null = null;
  private readonly held: Held[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly maxDelayMs: number;
  private readonly refreshMs: number;
  /** Sessions held since start. */
  heldTotal = 0;
  /** Held in the current episode (from the first held to the line emptying), for its log line. */
  private heldInEpisode = 0;

  constructor(
    /** When the queue's oldest waiting job became due (epoch ms), or null when none waits. */
    private readonly oldestDue: () => Promise<number | null>,
    private readonly opts: InflowGateOptions,
  ) {
    this.maxDelayMs = opts.maxDelayMs ?? 1000;
    this.refreshMs = opts.refreshMs ?? 50;
  }

  /** Sessions held right now. */
  get holding(): number {
    return this.held.length;
  }

  /** How long the oldest message waiting for its inbound job had waited, when last measured. */
  get lag(): number {
    return this.lagMs;
  }

  /** Resolves when a new message may come in: at once while processing keeps up, else when it has caught up or after maxDelayMs. */
  async admit(): Promise<void> {
    if (performance.now() - this.measuredAt >= this.refreshMs) await this.measure();
    if (this.held.length === 0 && this.lagMs <= this.opts.maxLagMs) return;
    return new Promise<void>((resolve) => {
      if (this.held.length === 0 && this.heldInEpisode === 0) {
        this.opts.log?.warn("inbound processing lags behind: new MAIL FROMs are held (at most a second each)", { lag_ms: this.lagMs, max_lag_ms: this.opts.maxLagMs });
      }
      this.held.push({ until: performance.now() + this.maxDelayMs, resolve });
      this.heldTotal++;
      this.heldInEpisode++;
      if (!this.timer) this.schedule(this.refreshMs);
    });
  }

  /** Measures again; lets every held session go once processing has caught up, else those held long enough. */
  private async release(): Promise<void> {
    await this.measure();
    const now = performance.now();
    const caughtUp = this.lagMs <= this.opts.maxLagMs;
    // The line is in arrival order, so the first held is the first whose time is up.
    while (this.held.length > 0 && (caughtUp || this.held[0]!.until <= now)) this.held.shift()!.resolve();
    if (this.held.length === 0) {
      this.opts.log?.info(caughtUp ? "inbound processing caught up: flow control lets sessions in" : "flow control let the held sessions in", {
        held: this.heldInEpisode,
        lag_ms: this.lagMs,
      });
      this.heldInEpisode = 0;
    }
    this.timer = null;
    if (this.held.length > 0) this.schedule(Math.min(this.refreshMs, this.held[0]!.until - now));
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => void this.release(), Math.max(0, ms));
    this.timer.unref?.();
  }

  /** A failed read keeps the last lag: the gate neither holds everyone nor opens because the database hiccuped. */
  private measure(): Promise<void> {
    this.measuring ??= this.oldestDue()
      .then(
        (due) => void (this.lagMs = due === null ? 0 : Math.max(0, Date.now() - due)),
        () => undefined,
      )
      .finally(() => {
        this.measuredAt = performance.now();
        this.measuring = null;
      });
    return this.measuring;
  }
}

const gates = new WeakMap<Pick<Deps, "config">, InflowGate>();

/** The MX's gate, for /metrics; none while no MX runs or flow control is off. */
export function inflowGateOf(deps: Pick<Deps, "config">): InflowGate | undefined {
  return gates.get(deps);
}

/** Makes `gate` the one inflowGateOf(deps) answers. */
export function registerInflowGate(deps: Pick<Deps, "config">, gate: InflowGate): void {
  gates.set(deps, gate);
}
