import { Elysia } from "elysia";
import { AppError, PayloadTooLargeError, RateLimitedError, ValidationError } from "../errors.ts";
import type { Logger } from "../log.ts";

type TypeBoxIssue = { path: string; message: string; schema?: { error?: unknown } };

/** "/3/subject" → "3.subject"; the body root is "body". */
export const fieldPath = (pointer: string): string =>
  pointer.replace(/^\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).join(".") || "body";

/** Turns TypeBox issues into the {field: [messages]} map of a 422, first issue first. */
export function validationErrors(issues: readonly TypeBoxIssue[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const path = fieldPath(issue.path);
    const custom = typeof issue.schema?.error === "string" ? issue.schema.error : null;
    const text = custom ?? `The ${path} field is invalid: ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}.`;
    const list = (errors[path] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return errors;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** Maps an error to the one response shape of DESIGN.md §4. Never leaks a stack. */
export function errorResponse(code: string | number, error: unknown, log: Logger): Response {
  if (error instanceof ValidationError) return json(422, { message: error.message, errors: error.errors });
  if (error instanceof RateLimitedError)
    return json(429, { message: error.message }, { "retry-after": String(error.retryAfterSeconds) });
  if (error instanceof AppError) return json(error.status, { message: error.message });
  switch (code) {
    case "VALIDATION": {
      const all = (error as { all?: TypeBoxIssue[] }).all ?? [];
      const v = new ValidationError(validationErrors(all));
      return json(422, { message: v.message, errors: v.errors });
    }
    case "PARSE":
      return json(400, { message: "The request body is not valid JSON." });
    case "NOT_FOUND":
      return json(404, { message: "Not found." });
    case "INVALID_COOKIE_SIGNATURE":
    case "INVALID_FILE_TYPE":
      return json(400, { message: "Bad request." });
  }
  log.error("unhandled error", { code: String(code), error: error instanceof Error ? error.stack : String(error) });
  return json(500, { message: "Server error." });
}

/** The single root error handler, plus the body-size guard that must run before parsing. */
export const errorHandler = (log: Logger, maxBodyBytes: number) =>
  new Elysia({ name: "error-handler" })
    .onRequest(({ request }) => {
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > maxBodyBytes) return errorResponse(413, new PayloadTooLargeError(maxBodyBytes), log);
    })
    .onError({ as: "global" }, ({ code, error }) => errorResponse(code, error, log));
