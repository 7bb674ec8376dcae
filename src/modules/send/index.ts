import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { sha256Hex } from "../../ids.ts";
import { IdempotencyKeyParameter, SendBatch, SendEmail, SendResult } from "./model.ts";
import { acceptMessages } from "../../sending/acceptance.ts";
import { confirmationPage, donePage, unsubscribe, unsubscribeTarget } from "./unsubscribe.ts";
import { ErrorBody, ValidationErrorBody } from "../../http/schemas.ts";

const security = [{ projectToken: [] }];
const errors = { 401: ErrorBody, 409: ErrorBody, 413: ErrorBody, 422: ValidationErrorBody };

/** POST /v1/send and /v1/send/batch (project token). */
export const sendController = (deps: Deps) =>
  new Elysia({ tags: ["Sending"] })
    .use(authPlugin(deps))
    .post(
      "/v1/send",
      async ({ project, body, request, set }) => {
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
      async ({ params, set }) => {
        const target = await unsubscribeTarget(deps, params.token);
        set.headers["content-type"] = "text/html; charset=utf-8";
        return confirmationPage(target, params.token);
      },
      {
        params: t.Object({ token: t.String({ maxLength: 100 }) }),
        detail: { summary: "Unsubscribe confirmation page (the List-Unsubscribe link of broadcast mail); changes nothing", tags: ["Unsubscribe"], security: [] },
        response: { 200: t.String({ description: "HTML" }), 404: ErrorBody },
      },
    )
    .post(
      "/v1/unsubscribe/:token",
      async ({ params, set }) => {
        const emails = await unsubscribe(deps, params.token);
        set.headers["content-type"] = "text/html; charset=utf-8";
        return donePage(emails);
      },
      {
        params: t.Object({ token: t.String({ maxLength: 100 }) }),
        parse: "none",
        detail: {
          summary: "One-click unsubscribe (RFC 8058): adds a route-scoped suppression for the message's recipients",
          tags: ["Unsubscribe"],
          security: [],
        },
        response: { 200: t.String({ description: "HTML" }), 404: ErrorBody },
      },
    );
