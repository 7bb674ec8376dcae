import { t } from "elysia";
import { decodeCursor, type Cursor, type KeysetPage, type SortKey } from "../db/keyset.ts";
import { ValidationError } from "../errors.ts";

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 100;

/** Query fields every list endpoint accepts; merge with the endpoint's own filters. */
export const PageQuery = {
  // A string of digits (format integer: documented as the integer it is, see src/http/openapi.ts),
  // range-checked by parsePage: Elysia's numeric query coercion reports a range error without its
  // field path, and the 422 must name page[size].
  "page[size]": t.Optional(
    t.String({
      format: "integer",
      maxLength: 10,
      description: `Results per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
      error: `The page[size] field must be an integer from 1 to ${MAX_PAGE_SIZE}.`,
    }),
  ),
  "page[cursor]": t.Optional(t.String({ maxLength: 2000 })),
};

/**
 * `cursor`: the name Lettermint's SDKs page with on the lists where the service does (webhooks and
 * their deliveries); the same cursor as page[cursor], which wins when both are given.
 */
export const CursorAlias = {
  cursor: t.Optional(t.String({ maxLength: 2000, description: "= page[cursor] (the name Lettermint's SDKs use on this list)" })),
};

/** The paginated response shape of the spec. */
export const Paginated = <T extends import("@sinclair/typebox").TSchema>(item: T) =>
  t.Object({
    data: t.Array(item),
    path: t.Union([t.String(), t.Null()]),
    per_page: t.Integer({ minimum: 0 }),
    next_cursor: t.Union([t.String(), t.Null()]),
    next_page_url: t.Union([t.String(), t.Null()]),
    prev_cursor: t.Union([t.String(), t.Null()]),
    prev_page_url: t.Union([t.String(), t.Null()]),
  });

/**
 * Parses `sort` ("-status,created_at") against the allowed keys (name → SQL column) and appends
 * the unique tiebreaker. Unknown keys are a 422, never silently ignored.
 */
export function parseSort(raw: string | undefined, allowed: Record<string, string>, fallback: string, tiebreaker = "id"): SortKey[] {
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const part of (raw?.trim() || fallback).split(",")) {
    const p = part.trim();
    const desc = p.startsWith("-");
    const name = desc ? p.slice(1) : p;
    // Own keys only: "constructor" or "__proto__" must not find Object's members (and end up in ORDER BY).
    const column = Object.hasOwn(allowed, name) ? allowed[name] : undefined;
    if (typeof column !== "string") {
      throw ValidationError.field("sort", `The sort field contains an unknown key "${name}". Allowed: ${Object.keys(allowed).join(", ")}.`);
    }
    if (seen.has(name)) continue;
    seen.add(name);
    keys.push({ column, desc });
  }
  const last = keys[keys.length - 1]!;
  keys.push({ column: tiebreaker, desc: last.desc });
  return keys;
}

export interface PageParams {
  size: number;
  cursor: Cursor | null;
}

export function parsePage(query: Record<string, unknown>, sortLength: number): PageParams {
  const rawSize = query["page[size]"] as string | number | undefined;
  const size = rawSize === undefined || rawSize === "" ? DEFAULT_PAGE_SIZE : Number(rawSize);
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE || !/^\d+$/.test(String(rawSize ?? size))) {
    throw ValidationError.field("page[size]", `The page[size] field must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
  }
  const field = query["page[cursor]"] !== undefined ? "page[cursor]" : "cursor";
  const raw = query[field] as string | undefined;
  return { size, cursor: raw ? decodeCursor(raw, sortLength, field) : null };
}

/** Builds the spec's paginated body, with page URLs under POSTHORN_PUBLIC_URL. */
export function pageBody<T>(
  page: KeysetPage<unknown>,
  data: T[],
  opts: { publicUrl: string; path: string; query: Record<string, unknown>; size: number },
) {
  const base = `${opts.publicUrl}${opts.path}`;
  const url = (cursor: string | null) => {
    if (!cursor) return null;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && k !== "page[cursor]" && k !== "cursor") params.set(k, String(v));
    params.set("page[cursor]", cursor);
    return `${base}?${params.toString()}`;
  };
  return {
    data,
    path: base,
    per_page: opts.size,
    next_cursor: page.nextCursor,
    next_page_url: url(page.nextCursor),
    prev_cursor: page.prevCursor,
    prev_page_url: url(page.prevCursor),
  };
}
