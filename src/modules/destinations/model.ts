import { t, type Static } from "elysia";
import { Nullable } from "../../http/schemas.ts";

const Reply = t.Object({
  code: Nullable(t.Integer()),
  enhanced_code: Nullable(t.String()),
  message: t.String(),
});

/** One destination's shaping state (src/mail/shaping.ts), as every node applies it. */
export const DestinationData = t.Object({
  name: t.String({ description: "The sorted MX host set of its domains, comma-separated, or relay:<host>" }),
  mx_hosts: t.Array(t.String()),
  domains: t.Array(t.String(), { description: "Recipient domains seen going there (up to 20)" }),
  paused: t.Boolean(),
  paused_until: Nullable(t.String({ format: "date-time", description: "When a pause after a rate reply ends (also shown once it has ended)" })),
  concurrency: Nullable(t.Integer({ description: "Transactions at once per node now; null = no limit" })),
  max_concurrency: Nullable(t.Integer({ description: "The policy's concurrency, what ramping up returns to; null = no limit" })),
  per_minute: Nullable(t.Integer({ description: "Messages per minute per node now; null = no limit" })),
  max_per_minute: Nullable(t.Integer({ description: "The policy's pace; null = no limit" })),
  strikes: t.Integer({ description: "Rate replies in a row (each doubles the next pause)" }),
  throttled_at: Nullable(t.String({ format: "date-time", description: "The last rate reply that paused it" })),
  last_reply: t.Union([Reply, t.Null()], {
    description: "The latest reply the destination gave to this team's own mail still queued there; null when none has (a pause another team's mail caused shows no reply)",
  }),
  updated_at: t.String({ format: "date-time" }),
});
export type DestinationData = Static<typeof DestinationData>;

export const DestinationList = t.Object({ data: t.Array(DestinationData), message: t.String() });
