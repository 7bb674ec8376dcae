/**
 * Warm-up of a sending domain (docs/deliverability.md, Warm-up): while it is on, the recipients
 * the domain's mail is first attempted for per UTC day are capped by its schedule (day 1 the
 * first cap, day 2 the second …; past the last day the domain is warmed up and uncapped). A
 * message that would pass the day's cap is held in the queue (its job deferred to the next UTC
 * midnight, its recipients still pending), not refused. Broadcast mail may use 90 % of the cap,
 * so transactional mail always finds the rest, and held broadcast mail is released a minute
 * after held transactional mail.
 *
 * The count is taken in the transaction that records the attempt (outbound-attempt.ts,
 * recordAttempt), by a conditional upsert of the day's row (WarmupRepository.take): on
 * PostgreSQL the row stays locked until that transaction commits, so several workers and nodes
 * never pass the cap.
 */
import type { DueRecipientRow } from "../db/recipients.ts";
import type { WarmupRow } from "../db/warmups.ts";
import type { OutboundContext } from "./outbound-context.ts";

/** The schedule of a warm-up started without one: doubling from 50 a day over 12 days. */
export const DEFAULT_WARMUP_SCHEDULE: readonly number[] = [50, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 51_200, 102_400];
const DAY_MS = 86_400_000;

/** The UTC day of a time, YYYY-MM-DD. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** The start of the UTC day after `ms`. */
export const nextUtcDay = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;

/** Which day of its warm-up `now` is (1 = the day of started_at; 0 or less before it). */
export const warmupDayOf = (w: Pick<WarmupRow, "started_at">, now: number): number => Math.floor(now / DAY_MS) - Math.floor(w.started_at / DAY_MS) + 1;

/** The day's cap at `now`: the first cap before the warm-up starts, null once it is over. */
export function capOf(w: Pick<WarmupRow, "started_at" | "schedule">, now: number): number | null {
  const day = warmupDayOf(w, now);
  if (day > w.schedule.length) return null;
  return w.schedule[Math.max(0, day - 1)]!;
}

/** What a message's route may use of the day's cap: all of it for transactional mail, 90 % for broadcast. */
export const limitFor = (cap: number, routeType: string | null): number => (routeType === "broadcast" ? cap - Math.floor(cap / 10) : cap);

/** A message's claim on its domain's day: `n` recipients taken from `limit` when its attempt is recorded. */
export interface WarmupTicket {
  domainId: string;
  day: string;
  n: number;
  limit: number;
  /** When the message comes back if the day's cap is reached. */
  releaseAt: number;
  reason: string;
}

/**
 * Whether a message's first attempt falls under its domain's warm-up: null when it does not (no
 * warm-up, over, or only retries left), else the ticket recordAttempt takes, with `hold` true
 * when the day is already full (the job is deferred without composing).
 */
export async function warmupTicket(ctx: OutboundContext, messageId: string, due: DueRecipientRow[]): Promise<(WarmupTicket & { hold: boolean }) | null> {
  const n = due.filter((r) => r.status === "pending").length;
  if (n === 0) return null;
  const repo = ctx.deps.store.read.warmups;
  const w = await repo.ofMessage(messageId);
  if (!w) return null;
  const now = ctx.now();
  const cap = capOf(w, now);
  if (cap === null) return null;
  const limit = limitFor(cap, w.route_type);
  const day = utcDay(now);
  const count = await repo.countOf(w.domain_id, day);
  const broadcast = w.route_type === "broadcast";
  const releaseAt = nextUtcDay(now) + (broadcast ? ctx.broadcastReleaseDelayMs : 0);
  const reason = `Held by warm-up: day ${Math.max(1, warmupDayOf(w, now))} cap of ${cap} recipients${broadcast ? ` (${limit} for broadcast mail)` : ""} reached; released ${new Date(releaseAt).toISOString()}`;
  return { domainId: w.domain_id, day, n, limit, releaseAt, reason, hold: count > 0 && count + n > limit };
}

/** The delay until a held message's release, in the runner's real time. */
export const holdDelayMs = (ctx: OutboundContext, t: WarmupTicket): number => Math.max(1000, t.releaseAt - ctx.now());

/**
 * The queue view's reason for a message held by its domain's warm-up: it has recipients never
 * attempted and its job waits for the next UTC day (a per-destination slot waits seconds, not
 * until midnight). Null for any other message.
 */
export function warmupHoldReason(
  w: (Pick<WarmupRow, "schedule" | "started_at"> & { route_type: string | null }) | undefined,
  recipients: { status: string }[],
  runAt: number | undefined,
  now: number,
): string | null {
  if (!w || runAt === undefined || runAt < nextUtcDay(now) - 1000 || !recipients.some((r) => r.status === "pending")) return null;
  const cap = capOf(w, now);
  if (cap === null) return null;
  const limit = limitFor(cap, w.route_type);
  return `Held by the sending domain's warm-up: day ${Math.max(1, warmupDayOf(w, now))}'s cap of ${cap} recipients${limit !== cap ? ` (${limit} for broadcast mail)` : ""} is reached; it goes at ${new Date(runAt).toISOString()}.`;
}
