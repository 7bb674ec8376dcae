import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { sha256Hex } from "../../ids.ts";
import { IdempotencyKeyParameter, SendBatch, SendEmail, SendResult } from "./model.ts";
import type { SendEmail as SendEmailBody } from "./model.ts";
import { acceptMessages } from "../../sending/acceptance.ts";
import { confirmationPage, donePage, PAGE_HEADERS, unsubscribe, unsubscribeTarget } from "./unsubscribe.ts";
import { ErrorBody, ValidationErrorBody } from "../../http/schemas.ts";
import { fieldErrors, ValidationError } from "../../errors.ts";
import { blockedAttachment } from "../../sending/blocked-file-types.ts";

/**
 * What Posthorn checks of a send beyond the spec's fields, in a batch keyed by the item's index:
 * attachments of a blocked type (src/sending/blocked-file-types.ts), and Lettermint's fields.
 * settings.track_opens/track_clicks stand for track_opens/track_clicks (which win when both are
 * given). scheduled_at, tags and settings.tls are checked with the rest (src/sending/validation.ts).
 */
function checkSends(emails: SendEmailBody[], batch: boolean): void {
  const errors = fieldErrors();
  emails.forEach((e, n) => {
    const at = (field: string) => `${batch ? `${n}.` : ""}${field}`;
    (e.attachments ?? []).forEach((a, i) => {
      const blocked = blockedAttachment(a.filename, a.content_type);
      if (blocked) errors[at(`attachments.${i}.${blocked.field}`)] = [blocked.message];
    });
    if (e.settings) {
      e.track_opens ??= e.settings.track_opens;
      e.track_clicks ??= e.settings.track_clicks;
    }
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

const security = [{ projectToken: [] }];
const errors = { 401: ErrorBody, 409: ErrorBody, 413: ErrorBody, 422: ValidationErrorBody };

/** POST /v1/send and /v1/send/batch (project token). */
export const sendController = (deps: Deps) =>
  new Elysia({ tags: ["Sending"] })
    .use(authPlugin(deps))
    .post(
      "/v1/send",
      async ({ project, body, request, set }) => {
        checkSends([body], false);
        const key = request.headers.get("idempotency-key") ?? undefined;
        const [accepted] = await acceptMessages(deps, project, [body], {
          idempotencyKey: key,
          requestHash: key === undefined ? null : sha256Hex("single\n" + JSON.stringify(body)),
        });
        set.status = 202;
        return accepted!;
      },
      {
        project: true,
        body: SendEmail,
        detail: {
          summary: "Send an email",
          description:
            "Accepts one email for delivery. A 202 means it is stored durably; delivery follows. Custom headers cannot contain line breaks nor set From, Sender, To, Cc, Bcc, Reply-To, Subject, Date, Message-ID, DKIM-Signature, Return-Path, Received, MIME-Version, Content-Type or Content-Transfer-Encoding.",
          security,
          parameters: [IdempotencyKeyParameter],
        },
        response: { 202: SendResult, ...errors },
      },
    )
    .post(
      "/v1/send/batch",
      async ({ project, body, request, set }) => {
        checkSends(body, true);
        const key = request.headers.get("idempotency-key") ?? undefined;
        const accepted = await acceptMessages(deps, project, body, {
          batch: true,
          idempotencyKey: key,
          requestHash: key === undefined ? null : sha256Hex("batch\n" + JSON.stringify(body)),
        });
        set.status = 202;
        return accepted;
      },
      {
        project: true,
        body: SendBatch,
        detail: {
          summary: "Send up to 500 emails",
          description:
            "All or nothing: if any email is invalid the answer is 422 with errors keyed by index (e.g. 3.subject) and nothing is sent. Otherwise one {message_id, status} per email, in order.",
          security,
          parameters: [IdempotencyKeyParameter],
        },
        response: { 202: t.Array(SendResult), ...errors },
      },
    )
    .get(
      "/v1/unsubscribe/:token",
      async ({ params, query }) => {
        const target = await unsubscribeTarget(deps, params.token);
        return new Response(confirmationPage(target, params.token, query.email ?? null), { headers: PAGE_HEADERS });
      },
      {
        params: t.Object({ token: t.String({ maxLength: 100 }) }),
        query: t.Object({ email: t.Optional(t.String({ maxLength: 320 })) }),
        detail: {
          summary: "Unsubscribe confirmation page (the List-Unsubscribe link of broadcast mail, one per recipient); changes nothing",
          tags: ["Unsubscribe"],
          security: [],
        },
        response: { 200: t.String({ description: "HTML" }), 404: ErrorBody },
      },
    )
    .post(
      "/v1/unsubscribe/:token",
      async ({ params, query }) => {
        const outcome = await unsubscribe(deps, params.token, query.email ?? null);
        if (!outcome.done) return new Response(confirmationPage(outcome.target, params.token, null), { status: 422, headers: PAGE_HEADERS });
        return new Response(donePage(outcome), { headers: PAGE_HEADERS });
      },
      {
        params: t.Object({ token: t.String({ maxLength: 100 }) }),
        query: t.Object({ email: t.Optional(t.String({ maxLength: 320 })) }),
        parse: "none",
        detail: {
          summary: "One-click unsubscribe (RFC 8058): adds a route-scoped suppression for the one recipient the link was sent to",
          description:
            "The body (RFC 8058's List-Unsubscribe=One-Click) is not read. A message-wide link of mail sent before per-recipient links, shared by several recipients, unsubscribes only the address given as `?email=`, if it is one of the message's recipients (the answer is the same either way); without it, 422 and nothing changes.",
          tags: ["Unsubscribe"],
          security: [],
        },
        response: { 200: t.String({ description: "HTML" }), 404: ErrorBody, 422: t.String({ description: "HTML" }) },
      },
    );
