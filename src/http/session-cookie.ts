/** The dashboard's session cookie: how it is read from a request and written into a response. */
import { SESSION_MAX_MS } from "../auth/sessions.ts";

export const SESSION_COOKIE = "posthorn_session";
/** The header the dashboard sends the session's CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** Methods that change nothing, so they need no CSRF token. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
export const changesState = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());

/** The session token in a Cookie header, or null. */
export function sessionTokenOf(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** Secure when this request came over HTTPS or the public URL is https (behind a TLS proxy the request itself is plain). */
export const secureCookies = (request: Request, publicUrl: string): boolean => request.url.startsWith("https:") || publicUrl.startsWith("https:");

const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;

/** Set-Cookie for a new session: kept by the browser until the session's absolute end (idle expiry is the server's). */
export const sessionCookie = (token: string, secure: boolean): string => `${SESSION_COOKIE}=${token}; ${attributes(secure)}; Max-Age=${Math.floor(SESSION_MAX_MS / 1000)}`;

/** Set-Cookie that removes the session cookie. */
export const clearedSessionCookie = (secure: boolean): string => `${SESSION_COOKIE}=; ${attributes(secure)}; Max-Age=0`;
