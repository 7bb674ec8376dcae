/**
 * Request bodies: JSON only, read with a byte bound, nesting bounded before JSON.parse, and text
 * that is well-formed UTF-8 and Unicode. Every check is one pass over the bytes, so a hostile
 * body costs O(size) and is answered with a 4xx instead of stalling the event loop or blowing
 * the stack of the parser or the validator.
 */
import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from "../errors.ts";
import { readUpTo } from "../untrusted/bounded-read.ts";

/** Deeper than any body of the API (a batch item's attachment is 3 levels). */
export const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder("utf-8", { fatal: true });
/** Escapes that can bring text no store keeps: a lone surrogate (\uD800–\uDFFF) or NUL (\u0000). */
const SUSPECT_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;

/** `application/json` or any `+json` type, parameters (charset) ignored. */
export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const type = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** Reads the whole body, refusing it (413) as soon as it passes `limit` bytes, with or without Content-Length. */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw new PayloadTooLargeError(limit);
  if (!request.body) return new Uint8Array(0);
  // With a declared length the server reads no more than that, so the runtime's own reader can take it whole.
  if (declared !== null) return new Uint8Array(await request.arrayBuffer());
  const { bytes, complete } = await readUpTo(request.body, limit);
  if (!complete) throw new PayloadTooLargeError(limit);
  return bytes;
}

/** The deepest nesting of arrays and objects in JSON text, stopping early once past `max`. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  // Nesting deeper than `max` takes more than `max` brackets that open. A send has a handful, and
  // counting them is indexOf's native search, where the walk below is JavaScript over every character.
  if (openersAtMost(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** Whether `text` holds at most `max` of "{" and "[", in strings or not. */
function openersAtMost(text: string, max: number): boolean {
  let n = 0;
  for (const opener of ["{", "["]) {
    for (let i = text.indexOf(opener); i !== -1; i = text.indexOf(opener, i + 1)) if (++n > max) return false;
  }
  return true;
}

/** Text the database can keep: well-formed Unicode (no lone surrogate) without NUL, which PostgreSQL's text refuses. */
const storable = (s: string): boolean => s.isWellFormed() && !s.includes("\0");

/** True when every string and key in `value` is storable text. */
function wellFormed(value: unknown): boolean {
  if (typeof value === "string") return storable(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) if (!storable(k) || !wellFormed(v)) return false;
  }
  return true;
}

/**
 * Parses a JSON request body. Returns undefined for an empty body (the route's schema then
 * decides whether one was required). Throws 413, 415 or 400, each with a message that says which.
 */
export async function parseJsonBody(request: Request, limit: number): Promise<unknown> {
  const bytes = await readBodyBytes(request, limit);
  if (bytes.byteLength === 0) return undefined;
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new UnsupportedMediaTypeError("Request bodies must be JSON, sent with Content-Type: application/json.");
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new BadRequestError("The request body is not valid UTF-8.");
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new BadRequestError(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError("The request body is not valid JSON.");
  }
  // Strict UTF-8 cannot decode to a lone surrogate, and JSON allows no raw NUL: only an escape can
  // bring either, so the value is walked only when the text has one.
  if (SUSPECT_ESCAPE.test(text) && !wellFormed(value)) {
    throw new BadRequestError("The request body contains text that cannot be stored: a lone surrogate or a NUL character (\\u0000).");
  }
  return value;
}

/** "object" or "array": what a route's body schema wants at the top level, or null when anything goes. */
export type BodyShape = "object" | "array";

export function bodyShapeOf(schema: unknown): BodyShape | null {
  const type = (schema as { type?: unknown } | null | undefined)?.type;
  return type === "object" || type === "array" ? type : null;
}

export function describeShape(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
