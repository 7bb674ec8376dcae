import type { Database } from "bun:sqlite";
import { ValidationError } from "../errors.ts";
import type { SqlExecutor } from "./sql.ts";

/** One ORDER BY key: a trusted SQL column expression and its direction. */
export interface SortKey {
  column: string;
  desc: boolean;
}

export type CursorValue = string | number;
export interface Cursor {
  values: CursorValue[];
  dir: "next" | "prev";
}

export const encodeCursor = (c: Cursor): string => Buffer.from(JSON.stringify([c.dir === "next" ? "n" : "p", ...c.values])).toString("base64url");

/** Decodes an opaque cursor; a malformed one is the client's mistake (422 on page[cursor]). */
export function decodeCursor(raw: string, expectedLength: number, field = "page[cursor]"): Cursor {
  try {
    const arr = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(arr) && arr.length === expectedLength + 1 && (arr[0] === "n" || arr[0] === "p")) {
      const values = arr.slice(1);
      if (values.every((v) => typeof v === "string" || typeof v === "number")) {
        return { dir: arr[0] === "n" ? "next" : "prev", values: values as CursorValue[] };
      }
    }
  } catch {
    // fall through to the validation error
  }
  throw ValidationError.field(field, `The ${field} field is not a valid cursor.`);
}

/**
 * `(a, b, id)` strictly after (or before) `values`. When every key runs the same way this is a
 * row-value comparison, which SQLite seeks with straight to the cursor; the OR-expanded form it is
 * equal to makes the planner walk the index from its start (or, beside a range filter, pick a
 * multi-index OR plus a full sort: 360 ms instead of 2 ms at 500k messages). Mixed directions
 * need the expanded form.
 */
function keysetCondition(sort: SortKey[], values: CursorValue[], forward: boolean): { sql: string; params: CursorValue[] } {
  const desc = sort[0]!.desc;
  if (sort.every((k) => k.desc === desc)) {
    // Ascending and moving forward means "greater than"; each flip (desc, or backward) inverts it.
    const op = desc !== forward ? ">" : "<";
    return { sql: `(${sort.map((k) => k.column).join(", ")}) ${op} (${sort.map(() => "?").join(", ")})`, params: [...values] };
  }
  const ors: string[] = [];
  const params: CursorValue[] = [];
  for (let i = 0; i < sort.length; i++) {
    const ands: string[] = [];
    for (let j = 0; j < i; j++) {
      ands.push(`${sort[j]!.column} = ?`);
      params.push(values[j]!);
    }
    ands.push(`${sort[i]!.column} ${sort[i]!.desc !== forward ? ">" : "<"} ?`);
    params.push(values[i]!);
    ors.push(`(${ands.join(" AND ")})`);
  }
  return { sql: `(${ors.join(" OR ")})`, params };
}

export interface KeysetPage<R> {
  rows: R[];
  nextCursor: string | null;
  prevCursor: string | null;
}

/**
 * Appends `column = ?` to `where` (and the value to `params`) for each filter given; an undefined
 * value is no filter. Columns are the caller's trusted names, never client text.
 */
export function whereEquals(where: string[], params: (string | number | null)[], filters: Record<string, string | number | undefined>): void {
  for (const [column, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
}

/** What a keyset page is asked for. `sort` must end in a unique column (the id) so pages are stable while rows are added. */
export interface KeysetQuery<R> {
  select: string;
  where: string[];
  params: (string | number | null)[];
  sort: SortKey[];
  size: number;
  cursor: Cursor | null;
  /** Reads a row's sort values in `sort` order. */
  valuesOf: (row: R) => CursorValue[];
}

/** `SELECT … FROM … WHERE … ORDER BY sort LIMIT size+1`, continuing from the cursor. */
function keysetSql<R>(q: KeysetQuery<R>): { sql: string; params: (string | number | null)[] } {
  const where = [...q.where];
  const params: (string | number | null)[] = [...q.params];
  const backward = q.cursor?.dir === "prev";
  if (q.cursor) {
    const cond = keysetCondition(q.sort, q.cursor.values, !backward);
    where.push(cond.sql);
    params.push(...cond.params);
  }
  const order = q.sort.map((k) => `${k.column} ${k.desc !== backward ? "DESC" : "ASC"}`).join(", ");
  return { sql: `${q.select}${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${order} LIMIT ?`, params: [...params, q.size + 1] };
}

/** The page and its cursors from the rows the keyset SQL fetched. */
function keysetResult<R>(q: KeysetQuery<R>, fetched: R[]): KeysetPage<R> {
  const backward = q.cursor?.dir === "prev";
  const more = fetched.length > q.size;
  const rows = more ? fetched.slice(0, q.size) : fetched;
  if (backward) rows.reverse();
  const first = rows[0];
  const last = rows[rows.length - 1];
  const hasNext = backward ? q.cursor !== null : more;
  const hasPrev = backward ? more : q.cursor !== null;
  return {
    rows,
    nextCursor: hasNext && last ? encodeCursor({ dir: "next", values: q.valuesOf(last) }) : null,
    prevCursor: hasPrev && first ? encodeCursor({ dir: "prev", values: q.valuesOf(first) }) : null,
  };
}

/** One keyset page, read synchronously from SQLite. */
export function keysetPage<R>(sqlite: Database, q: KeysetQuery<R>): KeysetPage<R> {
  const { sql, params } = keysetSql(q);
  return keysetResult(q, sqlite.query<R, (string | number | null)[]>(sql).all(...params));
}

/**
 * A cursor value of the wrong type for its column (a number where the column is text, a word
 * where it is a time): SQLite compares across types, PostgreSQL refuses the statement with
 * "operator does not exist" (42883) or "invalid input syntax" (22P02). Either way the cursor was
 * not one this server made.
 */
const CURSOR_TYPE_ERRORS = new Set(["42883", "22P02"]);

/** One keyset page through an executor (either engine). */
export async function keysetPageOf<R>(db: SqlExecutor, q: KeysetQuery<R>): Promise<KeysetPage<R>> {
  const { sql, params } = keysetSql(q);
  try {
    return keysetResult(q, await db.all<R>(sql, params, { dynamic: true }));
  } catch (err) {
    const state = (err as { errno?: unknown } | null)?.errno;
    if (q.cursor && db.dialect === "postgres" && typeof state === "string" && CURSOR_TYPE_ERRORS.has(state)) {
      throw ValidationError.field("page[cursor]", "The page[cursor] field is not a valid cursor.");
    }
    throw err;
  }
}
