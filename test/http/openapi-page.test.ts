import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createTestApp, tempDir } from "../helpers.ts";
import { requireTool } from "../support/tools.ts";

// GET /openapi is Swagger UI from the pinned swagger-ui-dist, every file of it served by Posthorn
// itself (embedded in the binary: scripts/smoke.ts checks that), so the page works offline.
const dist = join(import.meta.dir, "..", "..", "node_modules", "swagger-ui-dist");
const { version } = (await Bun.file(join(dist, "package.json")).json()) as { version: string };
const t = createTestApp();
const get = (path: string) => t.app.handle(new Request(`http://localhost${path}`));
const contentTypes: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", png: "image/png" };

async function page() {
  const res = await get("/openapi");
  const html = await res.text();
  return { res, html, urls: [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!) };
}

test("GET /openapi is an HTML page that loads Swagger UI from this server only", async () => {
  const { res, html, urls } = await page();
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("content-security-policy")).toBe("default-src 'self'; img-src 'self' data:");
  expect(html).not.toMatch(/https?:\/\//);
  expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script: the CSP would refuse it
  expect(urls.sort()).toEqual(
    [`/openapi/assets/${version}/swagger-ui-bundle.js`, `/openapi/assets/${version}/swagger-ui.css`, `/openapi/assets/${version}/index.css`, `/openapi/assets/${version}/favicon-32x32.png`, "/openapi/assets/init.js"].sort(),
  );
  for (const url of urls) expect(url).toMatch(/^\/[^/]/); // same origin: a path, not //host
});

test("each file the page loads: 200, its content type, swagger-ui-dist's bytes, cached for good when its URL has the version", async () => {
  const { urls } = await page();
  const vendor = urls.filter((u) => u.startsWith(`/openapi/assets/${version}/`));
  expect(vendor.length).toBe(4);
  for (const url of vendor) {
    const res = await get(url);
    const body = new Uint8Array(await res.arrayBuffer());
    const name = url.slice(url.lastIndexOf("/") + 1);
    expect({ url, status: res.status, type: res.headers.get("content-type"), cache: res.headers.get("cache-control") }).toEqual({
      url,
      status: 200,
      type: contentTypes[name.split(".").pop()!]!,
      cache: "public, max-age=31536000, immutable",
    });
    expect({ url, same: Buffer.from(body).equals(Buffer.from(await Bun.file(join(dist, name)).bytes())) }).toEqual({ url, same: true });
  }

  // Our initializer: unversioned, so briefly cached; the document of this server, no remote validator.
  const init = await get("/openapi/assets/init.js");
  expect(init.status).toBe(200);
  expect(init.headers.get("content-type")).toBe(contentTypes.js!);
  expect(init.headers.get("cache-control")).toBe("public, max-age=300");
  const script = await init.text();
  expect(script).toContain('url: "/openapi/json"');
  expect(script).toContain("validatorUrl: null");
  expect(script).not.toMatch(/https?:\/\//);
});

test("another version's or an unknown asset is 404; the page and its assets are not in the OpenAPI document", async () => {
  expect((await get("/openapi/assets/0.0.0/swagger-ui-bundle.js")).status).toBe(404);
  expect((await get(`/openapi/assets/${version}/swagger-ui-bundle.js.map`)).status).toBe(404);
  const doc = (await t.request("GET", "/openapi/json", { token: null })).json;
  expect(Object.keys(doc.paths).filter((p) => p.startsWith("/openapi"))).toEqual([]);
});

// A real browser, offline but for this server: Swagger UI renders the operations.
describe.skipIf(!requireTool("chromium"))("in Chromium", () => {
  test("the page renders every operation from the embedded assets alone", async () => {
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.server!.port}/openapi`;
      const browser = Bun.spawn(
        [Bun.which("chromium")!, "--headless=new", "--no-sandbox", "--disable-gpu", `--user-data-dir=${tempDir("chromium-")}`, "--virtual-time-budget=5000", "--dump-dom", url],
        { stdout: "pipe", stderr: "ignore", timeout: 50_000 },
      );
      const dom = await new Response(browser.stdout).text();
      expect(await browser.exited).toBe(0);
      const paths = new Set([...dom.matchAll(/data-path="([^"]+)"/g)].map((m) => m[1]));
      expect(paths).toContain("/v1/send");
      expect(paths).toContain("/v1/domains");
      const doc = (await t.request("GET", "/openapi/json", { token: null })).json;
      expect(paths.size).toBe(Object.keys(doc.paths).length);
    } finally {
      await server.stop();
    }
  }, 60_000);
});
