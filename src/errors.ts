import { emptyDict } from "./untrusted/dict.ts";

/**
 * The one error hierarchy. Services throw these; src/http/error-responses.ts maps them to HTTP in one
 * place. Nothing here knows about HTTP beyond the status each kind stands for.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
}

/** 401: no valid credentials. */
export class UnauthenticatedError extends AppError {
  readonly status = 401;
  /** `code`, when given, is the body's `error` instead of "unauthenticated" (two_factor_required, two_factor_invalid). */
  constructor(
    message = "Unauthenticated.",
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * 403: authenticated, but not allowed (a session without its CSRF token, a role without the
 * route's permission). `code`, when given, is the body's `error` instead of "forbidden".
 */
export class ForbiddenError extends AppError {
  readonly status = 403;
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** 404: unknown, or belongs to another team. `resource` is e.g. "Route". */
export class NotFoundError extends AppError {
  readonly status = 404;
  constructor(readonly resource: string) {
    super(`${resource} not found.`);
  }
}

/** 404 for what retention purged: says so, so that nobody looks for a bug. */
export class PurgedError extends NotFoundError {
  constructor(resource: string, purgedAt: string) {
    super(resource);
    this.message = `${resource} was purged on ${purgedAt}, once the message had been final for longer than the retention window (POSTHORN_RETENTION_DAYS).`;
  }
}

/** 410: the content was there and is no more, on purpose: its route's redact_email_content dropped it once the message was final. */
export class RedactedError extends AppError {
  readonly status = 410;
  constructor(resource: string, redactedAt: string) {
    super(`${resource} was redacted on ${redactedAt}: the route keeps no content of its messages once every recipient has a final status (redact_email_content).`);
  }
}

/** Content of a message kept from the team (message_contents.sealed): 410, as for redacted content. */
export class SealedContentError extends AppError {
  readonly status = 410;
  constructor(resource: string) {
    super(`${resource} is kept from the team: the message holds a report forwarding verification code, for its recipient only.`);
  }
}

/**
 * An empty map of field path → messages. It has no prototype: paths are built from client text
 * (a body key "__proto__" or "toString", a header name), and on a plain object `map[path] ??= []`
 * would find Object's inherited members instead of an empty slot.
 */
export const fieldErrors = (): Record<string, string[]> => emptyDict<string[]>();

/** 422: field-level validation failures. Keys are dotted field paths ("3.subject"). */
export class ValidationError extends AppError {
  readonly status = 422;
  constructor(readonly errors: Record<string, string[]>) {
    const first = Object.values(errors)[0]?.[0] ?? "The given data was invalid.";
    super(first);
  }

  /** One field's error. The map has no prototype: a path is client text ("__proto__", "toString"). */
  static field(path: string, message: string): ValidationError {
    const errors = fieldErrors();
    errors[path] = [message];
    return new ValidationError(errors);
  }
}

/**
 * 409: conflicts with existing state (duplicate slug or domain, idempotency key in use). `code`,
 * when given, is the body's `error` instead of "conflict": the service's own code for the case
 * (INBOUND_MESSAGE_NOT_QUARANTINED, …), stable for machines.
 */
export class ConflictError extends AppError {
  readonly status = 409;
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** 413: request or message too large. */
export class PayloadTooLargeError extends AppError {
  readonly status = 413;
  constructor(limitBytes: number) {
    super(`The request body is larger than the limit of ${limitBytes} bytes.`);
  }
}

/** 400: a body that cannot be parsed at all. */
export class BadRequestError extends AppError {
  readonly status = 400;
}

/** 415: a body that is not JSON. */
export class UnsupportedMediaTypeError extends AppError {
  readonly status = 415;
}

/** 503: the database cannot be reached (or has no connection free in time); nothing was changed. */
export class DatabaseUnavailableError extends AppError {
  readonly status = 503;
  constructor(readonly reason: string) {
    super("The database is unavailable; nothing was changed. Try again shortly.");
  }
}

/** 429 with Retry-After seconds. */
export class RateLimitedError extends AppError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super("Too many requests.");
  }
}
