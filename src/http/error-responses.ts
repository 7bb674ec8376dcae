import { Elysia } from "elysia";
import { AppError, BadRequestError, ConflictError, DatabaseUnavailableError, fieldErrors, ForbiddenError, PayloadTooLargeError, RateLimitedError, UnauthenticatedError, ValidationError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { bodyShapeOf, describeShape, parseJsonBody, type BodyShape } from "./body.ts";
import { learnFilters, routeKey } from "./filters.ts";

type TypeBoxIssue = { path: string; message: string; schema?: { error?: unknown } };

/** "/3/subject" → "3.subject"; the body root is "body". */
export const fieldPath = (pointer: string): string =>
  pointer.replace(/^\//, "").split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~")).join(".") || "body";

/** At most this many issues are turned into messages: a huge array of bad items is one 422, not a huge one. */
const MAX_ISSUES = 50;

/** Turns TypeBox issues into the {field: [messages]} map of a 422, first issue first. */
export function validationErrors(issues: readonly TypeBoxIssue[]): Record<string, string[]> {
  const errors = fieldErrors();
  for (const issue of issues.slice(0, MAX_ISSUES)) {
    const path = fieldPath(String(issue.path ?? ""));
    const custom = typeof issue.schema?.error === "string" ? issue.schema.error : null;
    const message = String(issue.message ?? "is invalid");
    const text = custom ?? `The ${path} field is invalid: ${message.charAt(0).toLowerCase()}${message.slice(1)}.`;
    const list = (errors[path] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return errors;
}

/**
 * The `error` of every error body: a short string, stable per kind of error, beside the spec's
 * `message` and `errors`. Lettermint's SDKs show it to people ("Validation error: validation_failed",
 * "Client error: invalid_request") and read nothing else of an error body.
 */
const ERROR_CODES: Readonly<Record<number, string>> = {
  400: "invalid_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "too_many_requests",
  500: "server_error",
  503: "service_unavailable",
};
export const errorCodeOf = (status: number): string => ERROR_CODES[status] ?? (status >= 500 ? "server_error" : "invalid_request");

const json = (status: number, body: { message: string; errors?: unknown }, headers: Record<string, string> = {}, code = errorCodeOf(status)) =>
  new Response(JSON.stringify({ ...body, error: code }), { status, headers: { "content-type": "application/json", ...headers } });

const serverError = () => json(500, { message: "Server error." });

/** The error a parse hook threw, which Elysia wraps in its ParseError. */
const unwrapParse = (code: string | number, error: unknown): unknown =>
  code === "PARSE" && (error as { cause?: unknown })?.cause instanceof AppError ? (error as { cause: unknown }).cause : error;

function mapError(code: string | number, raw: unknown, log: Logger): Response {
  const error = unwrapParse(code, raw);
  if (error instanceof ValidationError) return json(422, { message: error.message, errors: error.errors });
  if (error instanceof RateLimitedError) return json(429, { message: error.message }, { "retry-after": String(error.retryAfterSeconds) });
  if (error instanceof DatabaseUnavailableError) {
    log.warn("database unavailable", { reason: error.reason });
    return json(503, { message: error.message }, { "retry-after": "5" });
  }
  if (error instanceof ConflictError && error.code) return json(409, { message: error.message }, {}, error.code);
  if (error instanceof ForbiddenError && error.code) return json(403, { message: error.message }, {}, error.code);
  if (error instanceof UnauthenticatedError && error.code) return json(401, { message: error.message }, {}, error.code);
  if (error instanceof AppError) return json(error.status, { message: error.message });
  switch (code) {
    case "VALIDATION": {
      // A response that does not match its own schema is our bug, not the client's: a 500.
      if ((error as { type?: unknown }).type === "response") break;
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
  return serverError();
}

/**
 * Maps an error to the one response shape of docs/api.md (Requests, answers and errors). It cannot throw: whatever goes wrong
 * while mapping is a plain 500, so no client ever sees a runtime's error page or a stack.
 */
export function errorResponse(code: string | number, error: unknown, log: Logger): Response {
  try {
    return mapError(code, error, log);
  } catch (err) {
    try {
      log.error("error handler failed", { code: String(code), error: err instanceof Error ? err.stack : String(err) });
    } catch {
      // logging must not make it worse
    }
    return serverError();
  }
}

/**
 * The single root error handler and the request checks every route shares: the size guard before
 * anything is read, JSON parsing with its bounds (src/http/body.ts), and what the routes' schemas
 * say but Elysia does not enforce. A body whose top-level type is not the one the route's schema
 * wants (`123` or `[]` where an object belongs) is handed to the schema as null, so its check
 * refuses it after authentication (a request without credentials is still a 401 whatever its
 * body), and the 422 then says what was wrong. There is no global beforeHandle, so routes that
 * need neither check (the send API) pay for no extra hook. Unknown `filter[…]` keys are refused
 * where lists are, in the team token's resolve (src/http/filters.ts).
 */
export function errorHandler(log: Logger, maxBodyBytes: number) {
  const shapes = new Map<string, BodyShape | null>();
  const wrongShape = new WeakMap<Request, ValidationError>();
  const plugin = new Elysia({ name: "error-handler" })
    .onRequest(({ request }) => {
      // No id, name or filter contains NUL, and PostgreSQL's text cannot hold one: refused before
      // routing, on both engines. Tracking links (/t/…) are only read: anything in them that is
      // not a token is their own 404 page.
      if (/%00/.test(request.url) && !/^https?:\/\/[^/]*\/t\/[oc]\//.test(request.url)) return errorResponse(400, new BadRequestError("The URL may not contain the NUL character (%00)."), log);
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > maxBodyBytes) return errorResponse(413, new PayloadTooLargeError(maxBodyBytes), log);
    })
    .onParse({ as: "global" }, async ({ request, route }) => {
      const key = routeKey(request.method, route);
      // A route without a body schema ignores its body (RFC 8058's one-click POST is a form).
      if (!shapes.has(key)) {
        // Unread, so it is never buffered (the runtime sets no cap of its own, see src/server.ts).
        if (request.body && !request.bodyUsed) request.body.cancel().catch(() => undefined);
        return null;
      }
      const value = request.body ? await parseJsonBody(request, maxBodyBytes) : undefined;
      const want = shapes.get(key);
      const got = Array.isArray(value) ? "array" : value !== null && typeof value === "object" ? "object" : null;
      if (want && got !== want) {
        const found = value === undefined ? "an empty body" : describeShape(value);
        wrongShape.set(request, ValidationError.field("body", `The request body must be a JSON ${want}, not ${found}.`));
      }
      // Always a value, so that Elysia's own parsers never run: null stands for an empty body, and for a body of the
      // wrong top-level type, which the route's schema then refuses (the 422 says why, see onError).
      return value === undefined || wrongShape.has(request) ? null : value;
    })
    // Never reached (the parser above always answers); it tells the OpenAPI document that bodies are JSON.
    .onParse({ as: "global" }, { fn: "json" } as unknown as () => void)
    // When the schema check fails first, the top-level type is still the clearer thing to say.
    .onError({ as: "global" }, ({ code, error, request }) => errorResponse(code, (code === "VALIDATION" && wrongShape.get(request)) || error, log));
  return Object.assign(plugin, {
    /**
     * Records what each route's body schema wants at the top level and which filters its query
     * schema names; call once every route is mounted.
     */
    learnRoutes(routes: readonly { method: string; path: string; hooks?: { body?: unknown; query?: unknown } }[]) {
      for (const r of routes) {
        const key = routeKey(r.method, r.path);
        if (r.hooks?.body) shapes.set(key, bodyShapeOf(r.hooks.body));
        const query = r.hooks?.query as { properties?: Record<string, unknown> } | undefined;
        if (query?.properties) learnFilters(key, Object.keys(query.properties));
      }
    },
  });
}
