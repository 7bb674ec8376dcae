/**
 * The web dashboard at `/`: one HTML page and its script and stylesheet, built from src/web/app
 * and carried by the binary (no CDN, works offline). The page is a client of the /v1 API with a
 * session cookie; the server has no second backend for it.
 */
import { Elysia } from "elysia";
import { dashboardAssets } from "../web/assets.ts" with { type: "macro" };

const assets = dashboardAssets();
const base = `/dashboard/assets/${assets.version}`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Posthorn</title>
    <link rel="stylesheet" href="${base}/app.css" />
    <script type="module" src="${base}/app.js"></script>
  </head>
  <body>
    <div id="app"></div>
  </body>
</html>
`;

/**
 * Nothing but this origin: no inline script or style, no plugins, no framing of the dashboard.
 * Mail HTML is shown in a sandboxed frame of /v1/messages/{id}/html, which sends its own,
 * stricter policy.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const common = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };
const pageHeaders = { ...common, "content-type": "text/html; charset=utf-8", "content-security-policy": DASHBOARD_CSP, "x-frame-options": "DENY", "cache-control": "no-cache" };
const assetHeaders = (type: string) => ({ ...common, "content-type": type, "cache-control": "public, max-age=31536000, immutable" });

/** GET / and the dashboard's assets (versioned by content, so cached for good). Public, and not in the OpenAPI document. */
export function dashboardController() {
  const hide = { detail: { hide: true } };
  return new Elysia({ name: "dashboard" })
    .get("/", () => new Response(page, { headers: pageHeaders }), hide)
    .get(`${base}/app.js`, () => new Response(assets.js, { headers: assetHeaders("text/javascript; charset=utf-8") }), hide)
    .get(`${base}/app.css`, () => new Response(assets.css, { headers: assetHeaders("text/css; charset=utf-8") }), hide);
}

/** The built assets' sizes, for the figures (scripts/bench/dashboard.ts). */
export const dashboardAssetFiles = () => ({ version: assets.version, js: assets.js, css: assets.css, page });
