/**
 * The dashboard's client of the /v1 API: same origin, the session cookie, and the session's CSRF
 * token on every request that changes something. Errors carry the API's message (and field errors).
 */
import type { paths } from "./api-types.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> = {},
    /** The body's `error` (e.g. two_factor_required). */
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

export const setCsrfToken = (token: string | null) => {
  csrfToken = token;
};
/** Called when the API says the session is over (401), so the app can show the sign-in page. */
export const whenSignedOut = (fn: () => void) => {
  onSignedOut = fn;
};

export type Query = Record<string, string | number | undefined | null>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function request<T>(method: string, path: string, body?: unknown, opts: { quiet401?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  if (!res.ok) {
    const err = json as { message?: string; errors?: Record<string, string[]>; error?: string } | null;
    if (res.status === 401 && !opts.quiet401) onSignedOut();
    const retry = res.headers.get("retry-after");
    const message = err?.message ?? `HTTP ${res.status}`;
    throw new ApiError(res.status, res.status === 429 && retry ? `${message} Try again in ${retry} s.` : message, err?.errors ?? {}, typeof err?.error === "string" ? err.error : null);
  }
  return json as T;
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>("GET", withQuery(path, query)),
  post: <T>(path: string, body?: unknown, opts?: { quiet401?: boolean }) => request<T>("POST", path, body ?? {}, opts),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, body),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  del: <T>(path: string) => request<T>("DELETE", path),
  /** The raw text of an endpoint that does not answer JSON (a message's source). */
  text: async (path: string): Promise<string> => {
    const res = await fetch(path, { credentials: "same-origin" });
    if (!res.ok) throw new ApiError(res.status, res.status === 404 ? "Not stored (yet)." : `HTTP ${res.status}`);
    return res.text();
  },
  /** Who is signed in, or null. */
  session: () => request<ApiBody<"/v1/auth/session">>("GET", "/v1/auth/session", undefined, { quiet401: true }).then((r) => r.data, () => null),
};

/**
 * The shapes the dashboard reads are the API's own, as its OpenAPI document declares them:
 * api-types.ts is generated from it (bun scripts/dashboard-api-types.ts), never written by hand,
 * so a field the API stops answering, or answers with another type, is a type error here.
 */
type Method = "get" | "post" | "put" | "patch" | "delete";
type OkJson<R> = { [S in keyof R]: S extends 200 | 201 | 202 ? (R[S] extends { content: { "application/json": infer T } } ? T : never) : never }[keyof R];
/** The JSON of a successful answer to `method path` (path as the document writes it: "/v1/webhooks/{id}"). */
export type ApiBody<P extends keyof paths, M extends Method = "get"> = paths[P][M] extends { responses: infer R } ? OkJson<R> : never;
/** One item of the `data` a list (or a `{ data }` answer) carries. */
export type ApiItem<P extends keyof paths, M extends Method = "get"> = ApiBody<P, M> extends { data: (infer T)[] } ? T : never;
/** The `data` of an answer that wraps one object in it. */
export type ApiData<P extends keyof paths, M extends Method = "get"> = ApiBody<P, M> extends { data: infer T } ? T : never;

/** The JSON body `method path` takes. */
export type ApiRequest<P extends keyof paths, M extends Method = "post"> = paths[P][M] extends { requestBody?: { content: { "application/json": infer T } } } ? T : never;

export type Session = ApiData<"/v1/auth/session">;
