import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { errorResponses, IdParams } from "../../http/schemas.ts";
import { RescheduleMessageRequest, ScheduledMessage } from "./model.ts";
import { cancel, reschedule, type Asker } from "./service.ts";

/** Either token, as the service allows: the team's (or a dashboard session), or a project's for its own messages. */
const security: Record<string, string[]>[] = [{ teamToken: [] }, { projectToken: [] }];
const params = IdParams("messageId", "Message");
const askerOf = (p: { teamId: string; kind: string; projectId?: string }): Asker => ({ teamId: p.teamId, projectId: p.kind === "project" ? (p.projectId ?? null) : null });

/** Scheduled sending: move or cancel a message sent with scheduled_at while it waits (docs/sending.md, Scheduled sending). */
export const scheduleController = (deps: Deps) =>
  new Elysia({ tags: ["Messages"] })
    .use(authPlugin(deps))
    .patch("/v1/messages/:messageId", ({ principal, params, body }) => reschedule(deps, askerOf(principal), params.messageId, body.scheduled_at), {
      anyToken: true,
      permission: "messages:send",
      params,
      body: RescheduleMessageRequest,
      detail: {
        summary: "Reschedule a scheduled message",
        description:
          "Moves a message sent with scheduled_at to a new time (ISO 8601 with an offset, in the future, at most 30 days ahead). 409 once it has left scheduled (its time came, or it was canceled). A project token reaches its own project's messages only.",
        security,
      },
      response: { 200: ScheduledMessage, ...errorResponses(401, 404, 409, 422) },
    })
    .post("/v1/messages/:messageId/cancel", ({ principal, params }) => cancel(deps, askerOf(principal), params.messageId), {
      anyToken: true,
      permission: "messages:send",
      params,
      detail: {
        summary: "Cancel a scheduled message",
        description:
          "A message sent with scheduled_at and still waiting becomes canceled and is never sent. 409 once it has left scheduled (its time came, or it was canceled); POST /v1/messages/{id}/cancel-delivery stops a message in the delivery queue. A project token reaches its own project's messages only.",
        security,
      },
      response: { 200: ScheduledMessage, ...errorResponses(401, 404, 409) },
    });
