/**
 * Elysia drops query keys a route's schema does not name, so a misspelt `filter[…]` would silently
 * widen a list. The filters each list's query schema names are learnt once the routes are mounted
 * (createApp), and any other `filter…` key is a 422, checked where lists are: every list is a
 * management endpoint, so the team token's resolve (src/http/auth.ts) runs the check, after
 * authentication, and routes without a query schema pay nothing.
 */
import { fieldErrors, ValidationError } from "../errors.ts";

/** "GET /v1/webhooks" → its filter names. Routes are the same in every app, so one table serves all. */
const filtersOf = new Map<string, string[]>();

export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** Records the `filter[…]` names among a route's query keys. */
export function learnFilters(key: string, queryKeys: readonly string[]): void {
  filtersOf.set(key, queryKeys.flatMap((k) => /^filter\[(.+)\]$/.exec(k)?.[1] ?? []));
}

/** 422 for any `filter…` query key the route does not name; nothing for routes without a query schema. */
export function rejectUnknownFilters(request: Request, route: string): void {
  const allowed = filtersOf.get(routeKey(request.method, route));
  if (!allowed) return;
  const q = request.url.indexOf("?");
  if (q === -1) return;
  const errors = fieldErrors();
  for (const key of new URLSearchParams(request.url.slice(q + 1)).keys()) {
    const m = /^filter\[(.*)\]$/.exec(key);
    // Numbered pairs (filter[tags][3][name]) are allowed as the schema's [0] is.
    if ((m && !allowed.includes(m[1]!.replace(/^([^\]]+)\]\[\d{1,2}\]\[/, "$1][0]["))) || (!m && key.startsWith("filter"))) {
      errors[key] = [`Unknown filter "${key}". Allowed: ${allowed.map((a) => `filter[${a}]`).join(", ") || "none"}.`];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/**
 * The numbered `filter[<name>][n][…]` keys of the request's query with their values: a schema
 * names only the [0] pair, and Elysia drops the keys it does not name.
 */
export function numberedFilters(request: Request, name: string): Record<string, string> {
  const q = request.url.indexOf("?");
  const found: Record<string, string> = {};
  if (q === -1) return found;
  const prefix = `filter[${name}][`;
  for (const [key, value] of new URLSearchParams(request.url.slice(q + 1))) if (key.startsWith(prefix)) found[key] = value;
  return found;
}
