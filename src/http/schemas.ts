/**
 * Schema helpers shared by the management controllers (team, projects, routes, messages,
 * suppressions): error bodies for the OpenAPI document, nullable fields with readable 422
 * messages, and the strict handling of `include` query values (`filter[…]`: src/http/filters.ts).
 */
import { t, type TSchema } from "elysia";
import type { Cursor, CursorValue, SortKey } from "../db/keyset.ts";
import { ValidationError, fieldErrors } from "../errors.ts";
import { UUID_PATTERN } from "../ids.ts";

const ErrorCode = t.String({ description: "A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show" });
export const ErrorBody = t.Object({ message: t.String(), error: ErrorCode }, { description: "Error" });
export const ValidationErrorBody = t.Object(
  { message: t.String(), errors: t.Record(t.String(), t.Array(t.String())), error: ErrorCode },
  { description: "Validation failed; errors are keyed by field path" },
);

/** Response schemas of the error statuses an endpoint can answer, for the OpenAPI document. */
export function errorResponses(...statuses: (401 | 403 | 404 | 409 | 422 | 429)[]) {
  const out: Partial<Record<401 | 403 | 404 | 409 | 422 | 429, TSchema>> = {};
  for (const s of statuses) out[s] = s === 422 ? ValidationErrorBody : ErrorBody;
  return out as Record<number, TSchema>;
}

export const MessageBody = t.Object({ message: t.String() });

/** `{data, message}`: the spec's envelope. */
export const Envelope = <T extends TSchema>(data: T) => t.Object({ data, message: t.String() });

export const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);

/** A string or null with one readable 422 message for both the type and the length checks. */
export const nullableString = (field: string, opts: { minLength?: number; maxLength: number; description?: string }) =>
  t.Union(
    [t.String({ minLength: opts.minLength ?? 1, maxLength: opts.maxLength }), t.Null()],
    {
      error: `The ${field} field must be a string of ${opts.minLength ?? 1} to ${opts.maxLength} characters, or null.`,
      description: opts.description,
    },
  );

export const uuidString = (field: string, description?: string) =>
  t.String({ pattern: UUID_PATTERN, error: `The ${field} field must be a valid UUID.`, description });

/** Path id: any string; a malformed or unknown id is simply not found (404), like another team's. */
export const IdParams = (name: string, what: string) => t.Object({ [name]: t.String({ maxLength: 100, description: `${what} ID (UUID)` }) });

/** A literal union with one readable message listing the allowed values. */
export const oneOf = <const V extends readonly string[]>(field: string, values: V, description?: string) =>
  t.Union(
    values.map((v) => t.Literal(v)),
    { error: `The ${field} field must be one of: ${values.join(", ")}.`, description },
  ) as unknown as import("@sinclair/typebox").TUnion<{ [K in keyof V]: import("@sinclair/typebox").TLiteral<V[K]> }[number][]>;

/** Parses `include=a,b` against the allowed names; unknown names are a 422 on `include`. */
export function parseInclude<N extends string>(raw: string | undefined, allowed: readonly N[]): Set<N> {
  const out = new Set<N>();
  if (!raw) return out;
  for (const part of raw.split(",")) {
    const name = part.trim();
    if (!name) continue;
    if (!allowed.includes(name as N)) {
      throw ValidationError.field("include", `The include field contains an unknown value "${name}". Allowed: ${allowed.join(", ")}.`);
    }
    out.add(name as N);
  }
  return out;
}

/**
 * ISO 8601 date ("2024-05-01") or date-time ("2024-05-01T12:00:00Z") → epoch ms. A bare date is
 * the start of that UTC day, or its end when `endOfDay` (so to_date=2024-05-01 includes that day).
 */
export function parseDateFilter(field: string, raw: string | undefined, endOfDay = false): number | null {
  if (raw === undefined || raw === "") return null;
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(raw);
  const ms = dateOnly ? Date.parse(`${raw}T00:00:00Z`) : dateTime ? Date.parse(raw) : NaN;
  if (Number.isNaN(ms)) {
    throw ValidationError.field(field, `The ${field} field must be an ISO 8601 date (2024-05-01) or date-time with a time zone (2024-05-01T12:00:00Z).`);
  }
  return dateOnly && endOfDay ? ms + 86_400_000 - 1 : ms;
}


/**
 * Transform hook factory: top-level body fields set to null mean the same as leaving them out.
 * Keeping null out of the schema lets a bad nested value be reported under its own path
 * ("emails.3") instead of as one failed union.
 */
export const nullsToAbsent =
  (...keys: string[]) =>
  ({ body }: { body: unknown }): void => {
    if (!body || typeof body !== "object" || Array.isArray(body)) return;
    const b = body as Record<string, unknown>;
    for (const k of keys) if (b[k] === null) delete b[k];
  };

/**
 * Hooks requiring each named body field, when present and not null, to be a JSON object. Elysia's
 * coercion turns a string or number given for an optional nested object into `{}`, which would
 * pass as "no change"; a wrong type must be a 422. The type is seen in `transform` (before that
 * coercion) but the 422 is raised in `beforeHandle`, so that an unauthenticated request is still a
 * 401 (auth runs in a later transform) and schema errors keep their usual precedence.
 */
export function requireObjects(...keys: string[]) {
  const wrong = new WeakMap<Request, ValidationError>();
  return {
    transform({ body, request }: { body: unknown; request: Request }): void {
      if (!body || typeof body !== "object" || Array.isArray(body)) return;
      const b = body as Record<string, unknown>;
      for (const k of keys) {
        const v = b[k];
        if (v !== undefined && v !== null && (typeof v !== "object" || Array.isArray(v))) {
          wrong.set(request, ValidationError.field(k, `The ${k} field must be an object or null.`));
          return;
        }
      }
    },
    beforeHandle({ request }: { request: Request }): void {
      const error = wrong.get(request);
      if (error) throw error;
    },
  };
}
