/**
 * The OpenAPI document (GET /openapi/json) and its reading page (GET /openapi). The document is
 * made from the routes' own schemas by @elysiajs/openapi, then tidied into a contract that
 * OpenAPI tooling accepts as it is (`redocly lint`, client generators): see `tidy`.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import { Elysia, type AnyElysia } from "elysia";

export interface OpenApiOptions {
  version: string;
  /** POSTHORN_PUBLIC_URL: the document's server. */
  publicUrl: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The whole document of `app`'s routes. */
export function openapiDocument(app: AnyElysia, opts: OpenApiOptions): Record<string, Json> {
  const { paths, components } = toOpenAPISchema(app) as unknown as { paths: Json; components: { schemas?: Json } };
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
        projectToken: { type: "apiKey", in: "header", name: "x-service-token", description: "Project sending token (ph_…)" },
      },
      schemas: components.schemas ?? {},
    },
  }) as Record<string, Json>;
}

/**
 * What TypeBox schemas carry that is no OpenAPI, made right for clients:
 * - a custom validation message (`error: "…"`, a string where JSON Schema has no such keyword) is
 *   dropped; a property that is named `error` (an object) stays;
 * - Elysia's numeric types, which accept a number written as a string in a query, appear as
 *   `anyOf [string (format integer|numeric), integer|number]`: documented as the number they are.
 */
export function tidy(node: Json): Json {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== "object") return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "error" && typeof value === "string") continue;
    out[key] = tidy(value);
  }
  const numeric = numericOf(out.anyOf);
  if (numeric) {
    delete out.anyOf;
    return { ...numeric, ...out };
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

/** The reading page: Scalar's API reference over /openapi/json. */
const page = (title: string) => `<!doctype html>
<html>
  <head>
    <title>${title}</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-url="/openapi/json"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser/standalone.js"></script>
  </body>
</html>`;

/** GET /openapi/json and GET /openapi for the routes of `root` (called once its routes are all registered). */
export function openapiController(root: () => AnyElysia, opts: OpenApiOptions) {
  let document: Record<string, Json> | null = null;
  return new Elysia({ name: "openapi" })
    .get("/openapi/json", () => (document ??= openapiDocument(root(), opts)), { detail: { hide: true } })
    .get("/openapi", () => new Response(page("Posthorn API"), { headers: { "content-type": "text/html; charset=utf-8" } }), { detail: { hide: true } });
}
