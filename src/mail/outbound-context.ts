/**
 * The outbound stage's state, built once per server by registerOutboundJobs and handed to every
 * step of a job's run as an argument (no step reaches state through a closure): the SMTP agent,
 * the compose workers, the deliverer, per-destination shaping, delivery memory, the signing
 * secret and the retry schedule. A step reads what it needs from it; only the objects named here
 * hold state between jobs.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Config } from "../config.ts";
import type { Deps } from "../context.ts";
import { databasePath } from "../db/connection.ts";
import type { DatabaseLocation } from "../db/receipt-writer.ts";
import type { Store } from "../db/store.ts";
import { DELIVERY_SCHEDULE_MS } from "../pacing/backoff.ts";
import { serverSecretOf } from "../secrets.ts";
import { Composer } from "./compose-pool.ts";
import { collectAfterBytes, DeliveryMemory } from "./delivery-memory.ts";
import { Deliverer } from "./smtp-delivery.ts";
import { ReceiptBatch } from "./receipts.ts";
import { Shaper, type ShapingOptions } from "./shaping.ts";
import { SmtpAgent } from "./smtp-agent.ts";
import type { SmtpPoolOptions, SmtpSender } from "./smtp-pool.ts";
import { verpCutoverOf } from "./verp.ts";

export interface OutboundOptions {
  /** Delays between delivery attempts; default in src/pacing/backoff.ts (docs/sending.md, Delivery) (tests shorten them). */
  retryScheduleMs?: readonly number[];
  /** How long a claimed job is held; renewed while it runs, so a crash frees it this soon. */
  leaseMs?: number;
  /** Messages in progress at once (composing or delivering); default POSTHORN_DELIVERY_CONCURRENCY. */
  concurrency?: number;
  pool?: Partial<Omit<SmtpPoolOptions, "log" | "heloName">>;
  /** How long MX answers are reused; 0 looks up every time. */
  mxCacheMs?: number;
  /** Worker threads composing and signing; 0 composes on the main thread. */
  composeThreads?: number;
  /** Per-destination shaping's timings (tests shorten them), or false for none at all. */
  shaping?: Partial<ShapingOptions> | false;
  /** The clock of warm-up days (mail/warmup.ts); Date.now by default, moved by tests. */
  now?: () => number;
  /** How long after midnight held broadcast mail follows held transactional mail (default 60 s; tests shorten it). */
  broadcastReleaseDelayMs?: number;
}

export interface OutboundContext {
  readonly deps: Deps;
  /** Delays between delivery attempts (OutboundOptions.retryScheduleMs). */
  readonly schedule: readonly number[];
  /** The SMTP agent that holds the connections (tests read its stats). */
  readonly pools: SmtpSender;
  /** Composes and DKIM-signs, on worker threads where cores allow. */
  readonly composer: Composer;
  readonly deliverer: Deliverer;
  /** Per-destination shaping; null in sink mode or when turned off. */
  readonly shaper: Shaper | null;
  /** POSTHORN_DELIVERY_MEMORY_MB, shared by the attempts under way. */
  readonly memory: DeliveryMemory;
  /** Counts the bytes of copies dropped; collects garbage every 64 MB of them. */
  readonly collected: (bytes: number) => void;
  /** The server secret (tracking tokens, unsubscribe links, VERP), settled before first use. */
  readonly secret: () => Promise<string>;
  /** The clock of warm-up days (OutboundOptions.now). */
  readonly now: () => number;
  /** OutboundOptions.broadcastReleaseDelayMs. */
  readonly broadcastReleaseDelayMs: number;
  /**
   * Called as a job is claimed: the first call starts the SMTP agent and loads the composer, which
   * the first message would otherwise wait for one after the other (started lazily, so that a
   * server or test app that sends nothing starts no agent).
   */
  readonly warm: () => void;
}

/** Builds the stage's state: opens the SMTP agent and the compose workers (closeOutbound closes them). */
export function openOutboundContext(deps: Deps, opts: OutboundOptions): OutboundContext {
  const { store, config, log } = deps;
  const pools = new SmtpAgent({ heloName: config.hostname, logLevel: config.logLevel, database: receiptDatabase(config), ...opts.pool }, log);
  // Workers only where cores are left beside the event loop and the SMTP agent: on 2 cores a
  // compose worker took as much CPU from them as it saved, and a heap of its own (~16 MB RSS).
  const composer = new Composer(opts.composeThreads ?? Math.max(0, Math.min(2, availableParallelism() - 2)), log);
  const receipts = new ReceiptBatch(store, log);
  const deliverer = new Deliverer(deps, pools, { mxCacheMs: opts.mxCacheMs ?? 60_000, onAccepted: (o) => receipts.add(o) });
  // Nothing leaves in sink mode: nothing to shape.
  const shaper =
    config.delivery === "sink" || opts.shaping === false
      ? null
      : new Shaper({ store, log, policies: config.destinationPolicies }, (domain) => deliverer.destinationOf(domain), opts.shaping);
  let warmed = false;
  const secret = signingSecret(store);
  void secret().catch(() => {}); // recorded at start, as the MX listener does; a failure is asked again
  return {
    deps,
    schedule: opts.retryScheduleMs ?? DELIVERY_SCHEDULE_MS,
    pools,
    composer,
    deliverer,
    shaper,
    memory: new DeliveryMemory(config.deliveryMemoryMb * 1024 * 1024),
    // The copies composed here are garbage once answered: collected every 64 MB of them.
    collected: collectAfterBytes(64 * 1024 * 1024),
    secret,
    now: opts.now ?? Date.now,
    broadcastReleaseDelayMs: opts.broadcastReleaseDelayMs ?? 60_000,
    warm: () => {
      if (warmed) return;
      warmed = true;
      composer.warm();
      if (config.delivery !== "sink") pools.warm();
    },
  };
}

/**
 * Where an orphaned SMTP agent writes its receipts: the PostgreSQL database, or the SQLite file
 * in the data directory. A test's in-memory database has no file there; its agent writes none.
 */
function receiptDatabase(config: Config): DatabaseLocation | null {
  if (config.databaseUrl) return { postgres: config.databaseUrl };
  const path = databasePath(config.dataDir);
  return existsSync(path) ? { sqlite: path } : null;
}

/**
 * The server secret and the 80-bit VERP cutover (see verp.ts), both settled before the first
 * return path is made; asked once, again only after a failure.
 */
function signingSecret(store: Store): () => Promise<string> {
  let secret: Promise<string> | null = null;
  return () =>
    (secret ??= Promise.all([serverSecretOf(store), verpCutoverOf(store)]).then(
      ([s]) => s,
      (err: unknown) => {
        secret = null;
        throw err;
      },
    ));
}

/** A recipient's domain, lower-cased: what shaping and delivery group by. */
export const domainOf = (email: string): string => email.slice(email.lastIndexOf("@") + 1).toLowerCase();
