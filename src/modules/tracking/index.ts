import { Elysia } from "elysia";
import type { Deps } from "../../context.ts";
import { clientIp, type IpServer } from "../../http/auth.ts";
import { recordTrackingHit, type TrackingRequest } from "./service.ts";

/** The 1×1 transparent GIF of the open pixel. */
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

const notFound = () =>
  new Response("<!doctype html><title>Link not found</title><p>This link is not valid.</p>", {
    status: 404,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });

/**
 * GET (and HEAD) {base}/t/o/{token}: the open pixel; {base}/t/c/{token}: 302 to the link's
 * original URL. Public and outside the API's document: the URLs are in the mail, not for clients.
 * Any token that is not ours is the same 404 page, with no Location.
 */
export function trackingController(deps: Deps) {
  const hit = async (kind: TrackingRequest["kind"], token: string, request: Request, server: unknown) => {
    const url = await recordTrackingHit(deps, {
      kind,
      token,
      method: request.method,
      ip: clientIp(server as IpServer, request),
      userAgent: request.headers.get("user-agent"),
    });
    if (url === null) return notFound();
    if (kind === "click") return new Response(null, { status: 302, headers: { location: url, "cache-control": "no-store" } });
    return new Response(request.method === "HEAD" ? null : PIXEL, {
      headers: { "content-type": "image/gif", "content-length": String(PIXEL.length), "cache-control": "no-store" },
    });
  };
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "tracking" })
    .get("/t/o/:token", ({ params, request, server }) => hit("open", params.token, request, server), hidden)
    .head("/t/o/:token", ({ params, request, server }) => hit("open", params.token, request, server), hidden)
    .get("/t/c/:token", ({ params, request, server }) => hit("click", params.token, request, server), hidden)
    .head("/t/c/:token", ({ params, request, server }) => hit("click", params.token, request, server), hidden);
}
