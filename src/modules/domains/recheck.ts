import type { Deps } from "../../context.ts";
import { BoundedLookup, type DnsLookup } from "../../dns/bounded.ts";
import { verifyContext } from "../../dns/verify.ts";
import type { JobHandler, JobRunner } from "../../jobs/runner.ts";
import type { RecordCheck } from "../../dns/verify.ts";
import { applyDomainCheck, runDomainChecks, type DomainCheckSummary } from "./check.ts";
import { dropRetiredDkimKeys } from "./rotation.ts";

/** One job in this queue at a time: it re-checks the domains that are due, then re-enqueues itself. */
export const DOMAIN_RECHECK_QUEUE = "domain-recheck";

export interface RecheckOptions {
  /** Most DNS queries outstanding at once, over all domains of a sweep. */
  dnsConcurrency: number;
  /** Domains with a record not yet verified (DMARC aside) are checked this often. */
  unverifiedIntervalMs: number;
  /** Fully verified domains are checked this often, so a broken record is noticed. */
  verifiedIntervalMs: number;
  /** How often the sweep runs. */
  sweepIntervalMs: number;
  /** Most domains checked by one sweep; when full, the next sweep follows at once. */
  batch: number;
  /** The sweep's clock: which domains are due, which retiring DKIM keys are over their 7 days (tests move it). */
  now?: () => number;
}

export const DEFAULT_RECHECK: RecheckOptions = {
  dnsConcurrency: 8,
  unverifiedIntervalMs: 10 * 60_000,
  verifiedIntervalMs: 24 * 3600_000,
  sweepIntervalMs: 60_000,
  batch: 200,
};

/** Ids of the domains due for a re-check at `now`, least recently checked first. */
export function dueDomainIds(
  deps: Pick<Deps, "store">,
  opts: Pick<RecheckOptions, "unverifiedIntervalMs" | "verifiedIntervalMs" | "batch">,
  now = Date.now(),
): Promise<string[]> {
  return deps.store.read.domains.dueForCheck(now, opts.verifiedIntervalMs, opts.unverifiedIntervalMs, opts.batch);
}

/**
 * Checks the given domains, all at once, with at most `dnsConcurrency` DNS queries outstanding.
 * The lookups go through a fresh resolver: answers are shared within the sweep (our own host,
 * common include targets) but not kept from the previous one. Results are written in groups
 * (up to `flushEvery` domains, or what finished within `flushMs`) issued in one turn, so the
 * group-commit writer makes one transaction and one fsync of each group rather than one per
 * domain; each domain's write keeps its own savepoint.
 */
export async function recheckDomains(
  deps: Deps,
  ids: string[],
  dnsConcurrency: number,
  inner: DnsLookup = deps.dns.fresh(),
  opts: { flushEvery?: number; flushMs?: number } = {},
) {
  const flushEvery = opts.flushEvery ?? 100;
  const flushMs = opts.flushMs ?? 200;
  const lookup = new BoundedLookup(inner, dnsConcurrency);
  const ctx = verifyContext(lookup, deps.config.hostname);
  let buffer: { id: string; checks: Map<string, RecordCheck> }[] = [];
  let lastFlush = Date.now();
  const writes: Promise<DomainCheckSummary | null>[] = [];
  const flush = () => {
    const now = Date.now();
    for (const b of buffer) {
      writes.push(
        deps.store.write((tx) => applyDomainCheck(tx, b.id, b.checks, now)).catch((err: unknown) => {
          deps.log.error("domain re-check write failed", { domain_id: b.id, error: String(err) });
          return null;
        }),
      );
    }
    buffer = [];
    lastFlush = now;
  };
  await Promise.all(
    ids.map(async (id) => {
      let checks: Map<string, RecordCheck>;
      try {
        checks = await runDomainChecks(deps, ctx, id);
      } catch (err) {
        deps.log.error("domain re-check failed", { domain_id: id, error: String(err) });
        return;
      }
      // Pushed after the await: `buffer` is replaced by each flush.
      buffer.push({ id, checks });
      if (buffer.length >= flushEvery || Date.now() - lastFlush >= flushMs) flush();
    }),
  );
  flush();
  const results = await Promise.all(writes);
  return {
    checked: results.filter((r) => r !== null).length,
    broken: results.reduce((n, r) => n + (r?.broken.length ?? 0), 0),
    dkimSwitched: results.filter((r) => r?.dkimSwitched).length,
    dns: lookup.stats,
  };
}

/** The sweep: checks what is due and schedules the next sweep in the same commit as its own end. */
export function domainRecheckHandler(deps: Deps, opts: RecheckOptions = DEFAULT_RECHECK): JobHandler {
  return async () => {
    let full = false;
    const now = (opts.now ?? Date.now)();
    try {
      const dropped = await dropRetiredDkimKeys(deps, now);
      if (dropped > 0) deps.log.info("retired DKIM keys dropped", { keys: dropped });
    } catch (err) {
      deps.log.error("dropping retired DKIM keys failed", { error: String(err) });
    }
    try {
      const ids = await dueDomainIds(deps, opts, now);
      full = ids.length >= opts.batch;
      if (ids.length > 0) {
        const r = await recheckDomains(deps, ids, opts.dnsConcurrency);
        deps.log.info("domains re-checked", { checked: r.checked, broken: r.broken, dkim_keys_switched: r.dkimSwitched, dns_queries: r.dns.queries, dns_inflight_max: r.dns.inflightMax });
      }
    } catch (err) {
      deps.log.error("domain re-check sweep failed", { error: String(err) });
    }
    const runAt = Date.now() + (full ? 1000 : opts.sweepIntervalMs);
    return { type: "done", write: async (tx) => void (await tx.jobs.enqueue(DOMAIN_RECHECK_QUEUE, {}, { runAt, maxAttempts: 100 })) };
  };
}

export function registerDomainRecheck(runner: JobRunner, deps: Deps, opts: RecheckOptions = DEFAULT_RECHECK): void {
  // One sweep at a time; the lease covers a full batch even when every lookup times out.
  runner.register(DOMAIN_RECHECK_QUEUE, domainRecheckHandler(deps, opts), { concurrency: 1, leaseMs: 15 * 60_000 });
}

/** Makes sure one sweep job is queued (first start, or after it died); call once at start. */
export async function ensureDomainRecheckScheduled(deps: Deps): Promise<void> {
  await deps.store.write(async (tx) => {
    // Several nodes start at once: one sweep job across the cluster.
    await tx.locks.take(`jobs:${DOMAIN_RECHECK_QUEUE}`);
    await tx.jobs.enqueueOnce(DOMAIN_RECHECK_QUEUE, {}, { maxAttempts: 100 });
  });
}
