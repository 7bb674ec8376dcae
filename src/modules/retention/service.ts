/**
 * Retention (POSTHORN_RETENTION_DAYS): a message final for longer than the window loses its
 * bodies, raw source, attachment contents, published events and their webhook delivery logs; its
 * row, recipients and history stay, so statistics still count it. Mail not final is never touched.
 *
 * One job in the "retention" queue at a time, across the cluster: it walks the messages in id
 * (acceptance) order up to the window, purges in short transactions with a pause after each, so
 * that sends keep the writer, and re-enqueues itself with where it stopped.
 */
import type { Deps } from "../../context.ts";
import { PurgedError, RedactedError } from "../../errors.ts";
import { iso } from "../../ids.ts";
import type { JobHandler, JobRunner } from "../../jobs/runner.ts";
import type { Job } from "../../db/job-queue.ts";
import { statsRetentionDays } from "../../db/stats.ts";
import { AUDIT_RETENTION_DAYS } from "../../auth/audit.ts";

export const RETENTION_QUEUE = "retention";

const DAY_MS = 24 * 3600_000;

export interface RetentionOptions {
  /** Messages per purge transaction (and per step of the walk). */
  batch: number;
  /** Pause after each transaction, at least as long as the transaction took (the purge takes at most half the writer). */
  pauseMs: number;
  /** Longest a job run works before it re-enqueues itself (shutdown waits for a run). */
  sliceMs: number;
  /** Pause between two passes once a pass reached the window. */
  sweepIntervalMs: number;
  /** Free pages given back to the file system per transaction (SQLite). */
  reclaimPages: number;
}

export const DEFAULT_RETENTION: RetentionOptions = {
  batch: 200,
  pauseMs: 5,
  sliceMs: 5_000,
  sweepIntervalMs: 3600_000,
  reclaimPages: 2_000,
};

/**
 * Where a pass is. `after`: the last message id walked (exclusive start of the next step).
 * `resumeAfter`: the id just before the first message of this pass that was kept (not final yet);
 * the next pass starts there rather than at `after`, so mail that turns final later is purged too.
 */
export type RetentionCursor = { after?: string; resumeAfter?: string | null };

export type RetentionRun = { walked: number; purged: number; transactions: number; reclaimedPages: number; passDone: boolean; cursor: RetentionCursor };

/** The smallest UUIDv7-shaped id of the millisecond `ms`: every id made before `ms` sorts below it. */
export function idAt(ms: number): string {
  const hex = Math.max(0, Math.trunc(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

export const retentionCutoff = (days: number, now = Date.now()) => now - days * DAY_MS;

/**
 * One slice of a pass: walks from `cursor` towards the cutoff, purging in batches, until the
 * window is reached or `sliceMs` has passed; then gives freed pages back. Safe to repeat: a
 * purged message is skipped, a message that does not qualify is left as it is.
 */
export async function runRetentionSlice(
  deps: Pick<Deps, "store" | "log">,
  cutoff: number,
  cursor: RetentionCursor = {},
  opts: RetentionOptions = DEFAULT_RETENTION,
): Promise<RetentionRun> {
  const started = Date.now();
  const before = idAt(cutoff);
  let after = cursor.after ?? "";
  let resumeAfter = cursor.resumeAfter ?? null;
  const run: RetentionRun = { walked: 0, purged: 0, transactions: 0, reclaimedPages: 0, passDone: false, cursor: {} };
  while (Date.now() - started < opts.sliceMs) {
    const rows = await deps.store.read.retention.walk(after, before, opts.batch);
    if (rows.length === 0) {
      run.passDone = true;
      break;
    }
    run.walked += rows.length;
    const open = rows.filter((r) => !r.purged).map((r) => r.id);
    if (open.length > 0) {
      const t0 = performance.now();
      const purged = new Set(await deps.store.write((tx) => tx.retention.purge(open, cutoff, Date.now())));
      run.purged += purged.size;
      run.transactions++;
      if (resumeAfter === null && purged.size < open.length) {
        // The first message kept: the next pass starts right before it.
        const i = rows.findIndex((r) => !r.purged && !purged.has(r.id));
        resumeAfter = i === 0 ? after : rows[i - 1]!.id;
      }
      await Bun.sleep(Math.max(opts.pauseMs, performance.now() - t0));
    }
    after = rows.at(-1)!.id;
  }
  if (run.purged > 0 || run.passDone) run.reclaimedPages = await reclaimSpace(deps, opts, started + opts.sliceMs * 2);
  run.cursor = run.passDone ? { after: resumeAfter ?? after } : { after, resumeAfter };
  return run;
}

/**
 * Gives the file's free pages back to the file system (SQLite), a few thousand per transaction
 * with a pause after each, until none is left or `deadline` passes. PostgreSQL reports no pages:
 * its autovacuum makes the space of deleted rows reusable on its own.
 */
async function reclaimSpace(deps: Pick<Deps, "store">, opts: RetentionOptions, deadline: number): Promise<number> {
  let reclaimed = 0;
  for (;;) {
    const { freePages, autoVacuum } = await deps.store.read.retention.footprint();
    // Without incremental auto-vacuum (a file not switched yet, an in-memory database) SQLite keeps free pages for reuse only.
    if (!freePages || autoVacuum !== "incremental" || Date.now() > deadline) return reclaimed;
    const step = Math.min(freePages, opts.reclaimPages);
    const t0 = performance.now();
    await deps.store.write((tx) => tx.retention.reclaim(step));
    reclaimed += step;
    await Bun.sleep(Math.max(opts.pauseMs, performance.now() - t0));
  }
}

/**
 * Throws PurgedError (a 404 that says why) when retention purged the message, RedactedError (a
 * 410) when its route's redact_email_content dropped its content; for readers of what they drop.
 */
export async function throwIfPurged(deps: Pick<Deps, "store">, messageId: string, resource: string): Promise<void> {
  throwWhenDropped(await deps.store.read.retention.contentDroppedAt(messageId), resource);
}

/** The same for an attachment's file, by the attachment's id. */
export async function throwIfAttachmentPurged(deps: Pick<Deps, "store">, attachmentId: string): Promise<void> {
  throwWhenDropped(await deps.store.read.retention.attachmentContentDroppedAt(attachmentId), "Attachment");
}

function throwWhenDropped(dropped: { purged_at: number | null; redacted_at: number | null } | null, resource: string): void {
  if (dropped?.purged_at != null) throw new PurgedError(resource, iso(dropped.purged_at)!);
  if (dropped?.redacted_at != null) throw new RedactedError(resource, iso(dropped.redacted_at)!);
}

/**
 * The statistics rollups older than their retention (statsRetentionDays: 400 days, or a month
 * more than the messages'), dropped once per pass. Rows are by hour and day: the hour rows go
 * first from the whole hours before the cutoff, the day rows from the whole days.
 */
export async function purgeStatRollups(deps: Pick<Deps, "store" | "config" | "log">, now = Date.now()): Promise<number> {
  const cutoff = now - statsRetentionDays(deps.config.retentionDays) * DAY_MS;
  const dropped = await deps.store.write((tx) => tx.stats.purgeBefore(cutoff - (cutoff % 3600_000), cutoff - (cutoff % DAY_MS)));
  if (dropped > 0) deps.log.info("retention dropped statistics rollup rows", { rows: dropped });
  return dropped;
}

/**
 * The audit log's rows older than AUDIT_RETENTION_DAYS (400 days, whatever POSTHORN_RETENTION_DAYS
 * says of messages), dropped once per pass in transactions of at most 1,000 rows, at most 100 of
 * them a pass (the rest goes in the next pass).
 */
export async function purgeAuditLog(deps: Pick<Deps, "store" | "log">, now = Date.now()): Promise<number> {
  const cutoff = now - AUDIT_RETENTION_DAYS * DAY_MS;
  let dropped = 0;
  for (let i = 0; i < 100; i++) {
    const n = await deps.store.write((tx) => tx.auditLog.deleteBefore(cutoff, 1000));
    dropped += n;
    if (n < 1000) break;
  }
  if (dropped > 0) deps.log.info("retention dropped audit log rows", { rows: dropped });
  return dropped;
}

/** DMARC aggregate and TLS reports are kept this long (by the day they report on): beyond the API's longest period of 366 days. */
export const REPORT_RETENTION_DAYS = 400;

/**
 * The DMARC aggregate and TLS reports about days more than REPORT_RETENTION_DAYS ago, with their
 * records, dropped once per pass in transactions of at most 500 reports of each kind, at most
 * 100 transactions a pass (the rest goes in the next pass).
 */
export async function purgeDeliverabilityReports(deps: Pick<Deps, "store" | "log">, now = Date.now()): Promise<number> {
  const before = new Date(now - REPORT_RETENTION_DAYS * DAY_MS).toISOString().slice(0, 10);
  let dropped = 0;
  for (let i = 0; i < 100; i++) {
    const n = await deps.store.write((tx) => tx.retention.deleteReportsBefore(before, 500));
    dropped += n;
    if (n === 0) break;
  }
  if (dropped > 0) deps.log.info("retention dropped DMARC and TLS reports", { reports: dropped, before });
  return dropped;
}

/** The job: one slice, then the next slice at once, or the next pass after `sweepIntervalMs`. */
export function retentionHandler(deps: Deps, opts: RetentionOptions = DEFAULT_RETENTION): JobHandler<RetentionCursor> {
  return async (job: Job<RetentionCursor>) => {
    // Retention turned off since this job was queued: it ends, and nothing is purged.
    if (deps.config.retentionDays === 0) return { type: "done" };
    let next: { cursor: RetentionCursor; runAt: number } = { cursor: job.payload, runAt: Date.now() + opts.sweepIntervalMs };
    try {
      const run = await runRetentionSlice(deps, retentionCutoff(deps.config.retentionDays), job.payload, opts);
      if (run.purged > 0 || run.reclaimedPages > 0) {
        deps.log.info("retention purged messages", { purged: run.purged, walked: run.walked, transactions: run.transactions, reclaimed_pages: run.reclaimedPages, pass_done: run.passDone });
      }
      next = { cursor: run.cursor, runAt: Date.now() + (run.passDone ? opts.sweepIntervalMs : 0) };
      if (run.passDone) {
        await purgeStatRollups(deps);
        await purgeAuditLog(deps);
        await purgeDeliverabilityReports(deps);
      }
    } catch (err) {
      deps.log.error("retention run failed", { error: String(err) });
    }
    return { type: "done", write: async (tx) => void (await tx.jobs.enqueue(RETENTION_QUEUE, next.cursor, { runAt: next.runAt, maxAttempts: 100 })) };
  };
}

export function registerRetention(runner: JobRunner, deps: Deps, opts: RetentionOptions = DEFAULT_RETENTION): void {
  runner.register(RETENTION_QUEUE, retentionHandler(deps, opts), { concurrency: 1, leaseMs: 15 * 60_000 });
}

/**
 * At start, with retention on: switches an SQLite file to incremental auto-vacuum (once, a full
 * VACUUM for an existing file) and makes sure one retention job is queued across the cluster.
 */
export async function startRetention(deps: Deps): Promise<void> {
  if (deps.config.retentionDays === 0) return;
  const t0 = Date.now();
  // Said before it starts: on a large file the one-time VACUUM holds the start for a while.
  const announce = (bytes: number) =>
    deps.log.warn("switching the database file to incremental auto-vacuum: a one-time VACUUM rewrites it before the server listens", { bytes });
  if (deps.store.read.retention.useIncrementalVacuum(announce).vacuumed) {
    deps.log.info("switched the database file to incremental auto-vacuum (one-time VACUUM)", { ms: Date.now() - t0 });
  }
  await deps.store.write(async (tx) => {
    await tx.locks.take(`jobs:${RETENTION_QUEUE}`);
    await tx.jobs.enqueueOnce(RETENTION_QUEUE, {}, { maxAttempts: 100 });
  });
}
