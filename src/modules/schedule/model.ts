import { t, type Static } from "elysia";

/** The service's RescheduleMessageRequest. */
export const RescheduleMessageRequest = t.Object({
  scheduled_at: t.String({
    maxLength: 64,
    error: "The scheduled_at field is required and must be a date-time string such as 2030-01-31T09:00:00Z.",
    description: "The new time to send: ISO 8601 with an offset (Z or ±hh:mm), in the future, at most 30 days ahead",
  }),
});
export type RescheduleMessageRequest = Static<typeof RescheduleMessageRequest>;

/** The service's ScheduledMessage (RescheduleMessageResponse): the schedule state after a reschedule or a cancel. */
export const ScheduledMessage = t.Object({
  message_id: t.String(),
  status: t.Union([t.Literal("scheduled"), t.Literal("canceled")], { description: "scheduled after a reschedule, canceled after a cancel" }),
  scheduled_at: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "The time to send (UTC); after a cancel, the time it was scheduled for" }),
});
export type ScheduledMessage = Static<typeof ScheduledMessage>;
