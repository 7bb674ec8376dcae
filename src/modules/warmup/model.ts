import { t, type Static } from "elysia";
import { Nullable } from "../../http/schemas.ts";

/** Longest schedule, in days. */
export const MAX_SCHEDULE_DAYS = 365;
/** Highest cap of one day. */
export const MAX_DAILY_CAP = 10_000_000;

export const WarmupRequest = t.Object(
  {
    enabled: t.Boolean({ error: "The enabled field must be true or false.", description: "Whether the domain's mail is capped by the schedule" }),
    schedule: t.Optional(
      t.Array(t.Integer({ minimum: 1, maximum: MAX_DAILY_CAP }), {
        minItems: 1,
        maxItems: MAX_SCHEDULE_DAYS,
        error: `The schedule field must be a list of 1 to ${MAX_SCHEDULE_DAYS} daily caps, each a whole number from 1 to ${MAX_DAILY_CAP}.`,
        description: "Recipients per UTC day: day 1 first. Absent: the schedule kept, or the default (50, 100, 200 … doubling over 12 days) for a new warm-up",
      }),
    ),
    started_at: t.Optional(
      t.String({
        format: "date-time",
        error: "The started_at field must be a date and time (ISO 8601 with an offset).",
        description: "Day 1 is the UTC day of this time. Absent: kept, or now for a warm-up being turned on",
      }),
    ),
  },
  { additionalProperties: t.Never({ error: "Unknown field: the body takes enabled, schedule and started_at." }) },
);
export type WarmupRequest = Static<typeof WarmupRequest>;

export const WarmupData = t.Object({
  domain_id: t.String(),
  domain: t.String(),
  enabled: t.Boolean(),
  schedule: t.Array(t.Integer(), { description: "Daily caps, day 1 first" }),
  started_at: Nullable(t.String({ format: "date-time" })),
  day: Nullable(t.Integer({ description: "Which day of the schedule today (UTC) is; null when off" })),
  complete: t.Boolean({ description: "The schedule is over: the domain's mail is no longer capped" }),
  cap_today: Nullable(t.Integer({ description: "Recipients today's first attempts may reach; null when uncapped" })),
  broadcast_cap_today: Nullable(t.Integer({ description: "What broadcast routes may use of it (90 %): the rest is kept for transactional mail" })),
  sent_today: t.Integer({ description: "Recipients counted today (UTC)" }),
  held: t.Integer({ description: "Messages of the domain waiting in the queue for their first attempt at a later time: held by the warm-up until the next day (or, briefly, for a per-destination slot)" }),
  next_release_at: Nullable(t.String({ format: "date-time", description: "When held mail is released: the next UTC midnight (broadcast a minute later)" })),
  days: t.Array(t.Object({ date: t.String(), cap: Nullable(t.Integer()), sent: t.Integer() }), { description: "Each day of the warm-up so far" }),
});
export type WarmupData = Static<typeof WarmupData>;
