import type { Deps } from "../../context.ts";
import type { WarmupRow } from "../../db/warmups.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { iso, isUuid } from "../../ids.ts";
import { capOf, DEFAULT_WARMUP_SCHEDULE, limitFor, nextUtcDay, utcDay, warmupDayOf } from "../../mail/warmup.ts";
import type { WarmupData, WarmupRequest } from "./model.ts";

const DAY_MS = 86_400_000;

async function findDomain(deps: Pick<Deps, "store">, teamId: string, id: string) {
  const row = isUuid(id) ? await deps.store.read.domains.findOfTeam(id, teamId) : null;
  if (!row) throw new NotFoundError("Domain");
  return row;
}

/** A domain's warm-up: its settings, today's cap and count, held mail, and each day so far. */
export async function warmupOf(deps: Pick<Deps, "store">, teamId: string, domainId: string, now = Date.now()): Promise<WarmupData> {
  const domain = await findDomain(deps, teamId, domainId);
  const repo = deps.store.read.warmups;
  const w = await repo.get(domain.id);
  const today = utcDay(now);
  const sentToday = await repo.countOf(domain.id, today);
  const on = w?.enabled === true;
  const cap = on ? capOf(w, now) : null;
  const days = w ? await repo.daysOf(domain.id, utcDay(Math.min(w.started_at, now))) : [];
  const held = on && cap !== null ? await repo.heldCount(domain.id, now) : 0;
  return {
    domain_id: domain.id,
    domain: domain.domain,
    enabled: on,
    schedule: w?.schedule ?? [...DEFAULT_WARMUP_SCHEDULE],
    started_at: w ? iso(w.started_at) : null,
    day: on ? warmupDayOf(w, now) : null,
    complete: on && cap === null,
    cap_today: cap,
    broadcast_cap_today: cap === null ? null : limitFor(cap, "broadcast"),
    sent_today: sentToday,
    held,
    next_release_at: on && cap !== null ? iso(nextUtcDay(now)) : null,
    days: days.map((d) => ({ date: d.day, sent: d.sent, cap: w ? capOf(w, Date.parse(`${d.day}T12:00:00Z`)) : null })),
  };
}

/** Turns a domain's warm-up on or off, with its schedule and day 1 (docs/deliverability.md, Warm-up). */
export async function putWarmup(deps: Pick<Deps, "store">, teamId: string, domainId: string, body: WarmupRequest, now = Date.now()): Promise<WarmupData> {
  const domain = await findDomain(deps, teamId, domainId);
  let startedAt: number | undefined;
  if (body.started_at !== undefined) {
    if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(body.started_at)) throw ValidationError.field("started_at", "The started_at field must be a date and time with an offset (Z or +hh:mm).");
    startedAt = Date.parse(body.started_at);
    if (!Number.isFinite(startedAt)) throw ValidationError.field("started_at", "The started_at field must be a date and time (ISO 8601 with an offset).");
    if (Math.abs(startedAt - now) > 400 * DAY_MS) throw ValidationError.field("started_at", "The started_at field must be within 400 days of now.");
  }
  await deps.store.write(async (tx) => {
    const before = await tx.warmups.get(domain.id);
    const row: WarmupRow = {
      domain_id: domain.id,
      enabled: body.enabled,
      schedule: body.schedule ?? before?.schedule ?? [...DEFAULT_WARMUP_SCHEDULE],
      // Turning a warm-up on starts it today unless a start is given; turning it off keeps its day 1.
      started_at: startedAt ?? (before && (before.enabled || !body.enabled) ? before.started_at : now),
      created_at: before?.created_at ?? now,
      updated_at: now,
    };
    await tx.warmups.put(row);
  });
  return warmupOf(deps, teamId, domainId, now);
}
