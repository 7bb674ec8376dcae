import { Elysia, t } from "elysia";
import type { Deps } from "../../context.ts";
import { authPlugin } from "../../http/auth.ts";
import { sha256Hex } from "../../ids.ts";
import { IdempotencyKeyParameter, SendBatch, SendEmail, SendResult } from "./model.ts";
import { acceptMessages } from "./service.ts";

const security = [{ projectToken: [] }];
const ErrorBody = t.Object({ message: t.String() });
const ValidationErrorBody = t.Object({ message: t.String(), errors: t.Record(t.String(), t.Array(t.String())) });
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
    );
