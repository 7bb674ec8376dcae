import type { Deps } from "../../context.ts";
import type { ScheduledMessageRow } from "../../db/scheduled.ts";
import type { Repositories } from "../../db/store.ts";
import { ConflictError, NotFoundError, ValidationError } from "../../errors.ts";
import { iso } from "../../ids.ts";
import { checkScheduledAt } from "../../sending/schedule-time.ts";
import { cancelScheduledMessage, rescheduleMessage } from "../../sending/scheduled-job.ts";
import type { ScheduledMessage } from "./model.ts";

type Ctx = Pick<Deps, "store">;

/** Who asks: a team (team token or dashboard session) sees its team's messages, a project token its project's. */
export interface Asker {
  teamId: string;
  projectId: string | null;
}

/** The message inside the write, if the asker may see it (else 404, as for an unknown id). */
async function messageOf(tx: Repositories, asker: Asker, id: string): Promise<ScheduledMessageRow> {
  const m = await tx.scheduled.find(id);
  if (!m || m.team_id !== asker.teamId || (asker.projectId !== null && m.project_id !== asker.projectId)) throw new NotFoundError("Message");
  return m;
}

/** The 409 for a message that is not (or no longer) scheduled. */
function notScheduled(m: ScheduledMessageRow, action: string): ConflictError {
  const what = m.type === "inbound" ? "an inbound message" : `${m.status}`;
  return new ConflictError(`The message is ${what}: only a scheduled message can be ${action}, until its time comes.`, "MESSAGE_NOT_SCHEDULED");
}

/**
 * PATCH /v1/messages/{id}: moves a scheduled message to `scheduled_at` (404 for a message the
 * asker cannot see, then 422 for a time refused at send, nothing changed). 409 once it has left `scheduled`: released at its time, canceled, or
 * never scheduled. The check and the move are one write that wins or loses against the release.
 */
export async function reschedule(deps: Ctx, asker: Asker, id: string, scheduledAt: string): Promise<ScheduledMessage> {
  return deps.store.write(async (tx) => {
    // Whose message first: another team's (or project's) id is a 404 whatever the body says.
    const m = await messageOf(tx, asker, id);
    const checked = checkScheduledAt(scheduledAt, Date.now());
    if ("error" in checked) throw ValidationError.field("scheduled_at", checked.error);
    if (m.status !== "scheduled" || !(await rescheduleMessage(tx, m, checked.at, Date.now()))) throw notScheduled(await messageOf(tx, asker, id), "rescheduled");
    return { message_id: m.id, status: "scheduled", scheduled_at: iso(checked.at) };
  });
}

/**
 * POST /v1/messages/{id}/cancel: a scheduled message is canceled, never sent. 409 once it has left
 * `scheduled` (queue control's POST /v1/messages/{id}/cancel-delivery stops one in the delivery queue).
 */
export async function cancel(deps: Ctx, asker: Asker, id: string): Promise<ScheduledMessage> {
  return deps.store.write(async (tx) => {
    const m = await messageOf(tx, asker, id);
    if (m.status !== "scheduled" || !(await cancelScheduledMessage(tx, m, Date.now()))) throw notScheduled(await messageOf(tx, asker, id), "canceled");
    return { message_id: m.id, status: "canceled", scheduled_at: iso(m.scheduled_at) };
  });
}
