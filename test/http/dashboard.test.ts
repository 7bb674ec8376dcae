import { expect, test } from "bun:test";
import { DASHBOARD_CSP } from "../../src/http/dashboard.ts";
import { createTestApp, insertTestDomain } from "../helpers.ts";

// The dashboard's page and assets as the server gives them, and the two API reads it adds for the
// message view (recipients, the HTML part as a sandboxed page). Its behaviour in a browser:
// test/e2e/dashboard.test.ts.
const t = createTestApp();
const get = (path: string) => t.app.handle(new Request(`http://localhost${path}`));
insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: t.team.projectId, domain: "shop.example.com" });

test("GET / is the dashboard page: a strict CSP, no inline script or style, assets from this origin only", async () => {
  const res = await get("/");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    expect(DASHBOARD_CSP).toContain(directive);
  }
  expect(DASHBOARD_CSP).not.toContain("unsafe");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  const html = await res.text();
  expect(html).not.toMatch(/https?:\/\//);
  expect(html).not.toMatch(/<script>|<script [^>]*>[^<]|<style|style=/);
  const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
  expect(urls).toHaveLength(2);
  for (const url of urls) {
    expect(url).toMatch(/^\/dashboard\/assets\/[0-9a-f]{12}\/app\.(js|css)$/);
    const asset = await get(url);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe(url.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = await asset.text();
    expect(body.length).toBeGreaterThan(1000);
    expect(body).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z]/i); // nothing fetched from elsewhere (SVG/MathML namespaces are names, not loads)
  }
  expect((await get("/dashboard/assets/000000000000/app.js")).status).toBe(404);
  const doc = (await t.request("GET", "/openapi/json", { token: null })).json;
  expect(Object.keys(doc.paths).filter((p) => p === "/" || p.startsWith("/dashboard"))).toEqual([]);
});

test("a message's HTML is served as a sandbox that runs nothing and loads nothing remote unless images=1; recipients with their statuses", async () => {
  const html = `<p style="color:red">Hi</p><script>alert(1)</script><img src="https://tracker.example/p.gif">`;
  const sent = await t.request("POST", "/v1/send", {
    projectToken: t.team.projectToken,
    body: { from: "a@shop.example.com", to: ["x@example.org", "y@example.org"], subject: "<img src=x onerror=alert(1)>", html },
  });
  expect(sent.status).toBe(202);
  const id = sent.json.message_id;

  const res = await t.request("GET", `/v1/messages/${id}/html`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toStartWith("sandbox; default-src 'none';");
  expect(csp).toContain("img-src data:;");
  expect(csp).not.toContain("script-src");
  expect(res.headers.get("cache-control")).toBe("private, no-store");
  expect(res.text).toContain("<p style=\"color:red\">Hi</p>");
  const images = await t.request("GET", `/v1/messages/${id}/html?images=1`);
  expect(images.headers.get("content-security-policy")).toContain("img-src data: https: http:;");
  expect((await t.request("GET", `/v1/messages/${id}/html?images=yes`)).status).toBe(422);

  const recipients = await t.request("GET", `/v1/messages/${id}/recipients`);
  expect(recipients.status).toBe(200);
  expect(recipients.json.data.map((r: { email: string }) => r.email).sort()).toEqual(["x@example.org", "y@example.org"]);
  expect(recipients.json.data.every((r: { status: string }) => typeof r.status === "string")).toBe(true);

  // Another team sees 404s; a text-only message has no HTML.
  const b = t.addTeam();
  for (const path of [`/v1/messages/${id}/html`, `/v1/messages/${id}/recipients`]) {
    const other = await t.request("GET", path, { token: b.teamToken });
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ message: "Message not found.", error: "not_found" });
  }
  const text = await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: { from: "a@shop.example.com", to: ["x@example.org"], subject: "Plain", text: "Only text." } });
  const none = await t.request("GET", `/v1/messages/${text.json.message_id}/html`);
  expect(none.status).toBe(404);
  expect(none.json).toEqual({ message: "Message HTML not found.", error: "not_found" });
});
