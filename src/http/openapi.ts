/**
 * The OpenAPI document (GET /openapi/json) and its reading page (GET /openapi, Swagger UI). The
 * document is made from the routes' own schemas by @elysiajs/openapi, then tidied into a contract
 * that OpenAPI tooling accepts as it is (`redocly lint`, client generators): see `tidy`.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import { Elysia, type AnyElysia } from "elysia";
import { documentRateLimits, rateLimitComponents } from "./rate-limit.ts";

// The reading page's assets, embedded in the binary: see uiAssets.
import uiBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import uiCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import uiPageCss from "swagger-ui-dist/index.css" with { type: "file" };
import uiIcon from "swagger-ui-dist/favicon-32x32.png" with { type: "file" };
import { version as uiVersion } from "swagger-ui-dist/package.json" with { type: "json" };

export interface OpenApiOptions {
  version: string;
  /** POSTHORN_PUBLIC_URL: the document's server. */
  publicUrl: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The whole document of `app`'s routes. */
export function openapiDocument(app: AnyElysia, opts: OpenApiOptions): Record<string, Json> {
  const { paths, components } = toOpenAPISchema(app) as unknown as { paths: Json; components: { schemas?: Json } };
  documentRateLimits(paths);
  return tidy({
    openapi: "3.1.0",
    info: {
      title: "Posthorn API",
      version: opts.version,
      description: "Self-hosted email: send, receive, webhooks, DNS checks.",
    },
    servers: [{ url: opts.publicUrl, description: "This Posthorn server (POSTHORN_PUBLIC_URL)" }],
    paths,
    components: {
      securitySchemes: {
        teamToken: { type: "http", scheme: "bearer", description: "Team API token (ph_team_…)" },
        projectToken: {
          type: "apiKey",
          in: "header",
          name: "x-service-token",
          description: "Project sending token (ph_…). Also accepted in x-lettermint-token, the header Lettermint's SDKs send; both with different values is a 401",
        },
        sessionCookie: { type: "apiKey", in: "cookie", name: "posthorn_session", description: "Dashboard session (POST /v1/auth/sign-in); also accepted wherever the team token is, with X-CSRF-Token on requests that change something" },
      },
      schemas: components.schemas ?? {},
      ...rateLimitComponents,
    },
  }) as Record<string, Json>;
}

/**
 * What TypeBox schemas carry that is no OpenAPI, made right for clients:
 * - a custom validation message (`error: "…"`, a string where JSON Schema has no such keyword) is
 *   dropped; a property that is named `error` (an object) stays;
 * - Elysia's numeric types, which accept a number written as a string in a query, appear as
 *   `anyOf [string (format integer|numeric), integer|number]`: documented as the number they are;
 *   so is a query string of format integer (page[size], range-checked by the handler).
 */
export function tidy(node: Json): Json {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== "object") return node;
  // The pair first, while its string member is still one.
  const numeric = numericOf(node.anyOf);
  if (numeric) {
    const { anyOf: _anyOf, ...rest } = node;
    return tidy({ ...numeric, ...rest });
  }
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "error" && typeof value === "string") continue;
    out[key] = tidy(value);
  }
  if (out.type === "string" && out.format === "integer") {
    const { format: _format, maxLength: _maxLength, ...rest } = out;
    return { ...rest, type: "integer" };
  }
  return out;
}

function numericOf(anyOf: Json | undefined): { [key: string]: Json } | null {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return null;
  const [a, b] = anyOf as { [key: string]: Json }[];
  const isText = (s: { [key: string]: Json } | undefined) => s?.type === "string" && (s.format === "integer" || s.format === "numeric");
  const isNumber = (s: { [key: string]: Json } | undefined) => s?.type === "integer" || s?.type === "number";
  if (isText(a) && isNumber(b)) return b!;
  if (isText(b) && isNumber(a)) return a!;
  return null;
}

/*
 * The reading page is Swagger UI from the pinned swagger-ui-dist, served from this binary so that
 * it works offline: a `type: "file"` import is embedded by `bun build --compile` and is the file's
 * path for Bun.file, from source as in the binary. The version is in the assets' URLs, so browsers
 * may keep them for good; an upgrade changes the URLs.
 */
const uiBase = `/openapi/assets/${uiVersion}`;
const uiAssets: Record<string, { file: string; type: string }> = {
  "swagger-ui-bundle.js": { file: uiBundle, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { file: uiCss, type: "text/css; charset=utf-8" },
  "index.css": { file: uiPageCss, type: "text/css; charset=utf-8" },
  "favicon-32x32.png": { file: uiIcon, type: "image/png" },
};

/** Ours, so unversioned. validatorUrl: null, or Swagger UI would send the document's URL to validator.swagger.io. */
const initializer = `window.ui = SwaggerUIBundle({ url: "/openapi/json", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null });
`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Posthorn API</title>
    <link rel="stylesheet" href="${uiBase}/swagger-ui.css" />
    <link rel="stylesheet" href="${uiBase}/index.css" />
    <link rel="icon" type="image/png" href="${uiBase}/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${uiBase}/swagger-ui-bundle.js"></script>
    <script src="/openapi/assets/init.js"></script>
  </body>
</html>
`;

// Nothing but this origin, and the data: images in Swagger UI's stylesheet. It needs no inline
// style (its styles are set from script), as checked in Chromium: loading, expanding every
// operation, trying some out. "Try it out" calls the document's server (POSTHORN_PUBLIC_URL), so
// it works where that is the page's origin (the API sends no CORS headers for any other).
const pageHeaders = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'self'; img-src 'self' data:",
  "x-content-type-options": "nosniff",
};
const assetHeaders = (type: string, maxAge: string) => ({ "content-type": type, "cache-control": `public, ${maxAge}`, "x-content-type-options": "nosniff" });

/** GET /openapi/json, GET /openapi and the page's assets for the routes of `root` (called once its routes are all registered). Public, and not in the document. */
export function openapiController(root: () => AnyElysia, opts: OpenApiOptions) {
  let document: Record<string, Json> | null = null;
  const hide = { detail: { hide: true } };
  const app = new Elysia({ name: "openapi" })
    .get("/openapi/json", () => (document ??= openapiDocument(root(), opts)), hide)
    .get("/openapi", () => new Response(page, { headers: pageHeaders }), hide)
    .get("/openapi/assets/init.js", () => new Response(initializer, { headers: assetHeaders("text/javascript; charset=utf-8", "max-age=300") }), hide);
  for (const [name, { file, type }] of Object.entries(uiAssets)) {
    app.get(`${uiBase}/${name}`, () => new Response(Bun.file(file), { headers: assetHeaders(type, "max-age=31536000, immutable") }), hide);
  }
  return app;
}
