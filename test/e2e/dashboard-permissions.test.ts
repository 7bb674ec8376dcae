/**
 * The dashboard's actions follow the signed-in member's permissions (src/web/app/allowed.ts), in
 * Debian's Chromium: a member whose role lacks the permission an operation declares sees no button
 * for it, and the same session's request is refused by the API (403 missing_permission, nothing
 * changed); an owner sees the button and it works.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createTestApp, tempDir } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

describe.skipIf(!requireTool("chromium"))("dashboard actions by permission, in Chromium", () => {
  const t = createTestApp();
  let listener: ReturnType<typeof Bun.serve>;
  let base: string;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const shots = tempDir("dashboard-permissions-screenshots-");
  const ids: Record<string, string> = {};

  /** A user of team A with `role` and a password of their own. */
  const addUser = async (email: string, role: string) => {
    const invited = await t.request("POST", "/v1/team/members", { body: { email, role } });
    expect(invited.status).toBe(201);
    const token = (invited.json.password_url as string).split("/").pop()!;
    expect((await t.request("POST", "/v1/auth/password", { token: null, body: { token, password: `${email}'s password` } })).status).toBe(200);
    ids[email] = invited.json.data.id;
  };
  /** Signs the browser in as `email` (a fresh cookie) and answers the session's CSRF token. */
  const signIn = async (email: string): Promise<string> => {
    const signedIn = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email, password: `${email}'s password`, team_id: t.team.teamId } });
    expect(signedIn.status).toBe(201);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    await page.context().clearCookies();
    await page.context().addCookies([{ name: "posthorn_session", value: cookie.slice(cookie.indexOf("=") + 1), url: base }]);
    return signedIn.json.data.csrf_token as string;
  };
  /** `method path` from the page, with the session's cookie and CSRF token. */
  const fromPage = (csrf: string, method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ([csrf, method, path, body]) => {
        const res = await fetch(path, { method, headers: { "content-type": "application/json", "x-csrf-token": csrf }, body: body === undefined ? undefined : JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as { message?: string; error?: string } };
      },
      [csrf, method, path, body] as const,
    );
  const open = async (view: string) => {
    await page.goto(`${base}/#/${view}`);
    await page.reload();
  };
  const domainNames = async () => ((await t.request("GET", "/v1/domains")).json.data as { domain: string }[]).map((d) => d.domain);

  beforeAll(async () => {
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.app.handle(req) });
    base = `http://127.0.0.1:${listener.port}`;
    expect((await t.request("POST", "/v1/domains", { body: { domain: "keep.example.com" } })).status).toBe(201);
    await addUser("mia@example.com", "member");
    await addUser("olga@example.com", "owner");
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
  });

  test("a member (no domains:delete, no domains:manage, no security:manage) sees the domains but no Delete, no Add, no warm-up controls, no two-factor requirement; the same session's DELETE and PUT warmup are 403", async () => {
    const csrf = await signIn("mia@example.com");
    await open("domains");
    const row = page.getByRole("row", { name: /keep\.example\.com/ });
    await row.waitFor();
    // Wait until the view has read what the member may do (GET /openapi/json and /v1/team/roles).
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("button", { name: /^Delete / }).count()).resolves.toBe(0);
    await expect(page.getByRole("form", { name: "Add a domain" }).count()).resolves.toBe(0);
    await shoot(page, shots, "domains-as-member");
    const id = ((await t.request("GET", "/v1/domains")).json.data as { id: string; domain: string }[]).find((d) => d.domain === "keep.example.com")!.id;
    const refused = await fromPage(csrf, "DELETE", `/v1/domains/${id}`);
    expect(refused).toEqual({ status: 403, body: { message: "Your role does not have the domains:delete permission this request needs.", error: "missing_permission" } });
    expect(await domainNames()).toContain("keep.example.com");

    // The warm-up is shown (domains:read) without its controls (domains:manage), and the API refuses them.
    await open("deliverability");
    await page.locator('.warmup[data-domain="keep.example.com"]').waitFor();
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("form", { name: "Warm-up of keep.example.com" }).count()).resolves.toBe(0);
    const warm = await fromPage(csrf, "PUT", `/v1/domains/${id}/warmup`, { enabled: true, schedule: [5] });
    expect(warm.status).toBe(403);
    expect(warm.body.error).toBe("missing_permission");
    // The team's two-factor requirement needs security:manage.
    await open("security");
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).waitFor();
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("button", { name: "Require it for the team" }).count()).resolves.toBe(0);
  });

  test("a custom role that may only read: no webhook to create, no suppression to add or remove; the API refuses the same session", async () => {
    const role = await t.request("POST", "/v1/team/roles", {
      body: { name: "Reader", permissions: ["members:read", "domains:read", "webhooks:read", "suppressions:read", "projects:read", "routes:read"] },
    });
    expect(role.status).toBe(201);
    expect((await t.request("PUT", `/v1/team/members/${ids["mia@example.com"]}/assignment`, { body: { role_id: role.json.data.id, project_access: { scope: "all" } } })).status).toBe(200);
    expect((await t.request("POST", "/v1/suppressions", { body: { emails: ["gone@example.net"], scope: "team", reason: "manual" } })).status).toBeLessThan(300);
    const csrf = await signIn("mia@example.com");

    await open("suppressions");
    await page.getByRole("cell", { name: "gone@example.net" }).waitFor();
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("form", { name: "Suppress addresses" }).count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: "Remove gone@example.net" }).count()).resolves.toBe(0);
    const added = await fromPage(csrf, "POST", "/v1/suppressions", { emails: ["new@example.net"], scope: "team", reason: "manual" });
    expect(added.status).toBe(403);
    expect(added.body.error).toBe("missing_permission");

    await open("webhooks");
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.waitForLoadState("networkidle");
    await expect(page.getByRole("form", { name: "Create a webhook" }).count()).resolves.toBe(0);
    const created = await fromPage(csrf, "POST", "/v1/webhooks", { name: "x", url: "https://hooks.example.net/x", route_id: "none", events: ["message.delivered"] });
    expect(created.status).toBe(403);
    expect(created.body.error).toBe("missing_permission");
    expect((await t.request("GET", "/v1/webhooks")).json.data).toEqual([]);
  });

  test("an owner sees Delete on the Domains view; confirmed, the domain is gone (and the forms, warm-up controls and the two-factor requirement are back)", async () => {
    await signIn("olga@example.com");
    await open("deliverability");
    await page.getByRole("form", { name: "Warm-up of keep.example.com" }).waitFor();
    await open("security");
    await page.getByRole("button", { name: "Require it for the team" }).waitFor();
    await open("domains");
    await page.getByRole("form", { name: "Add a domain" }).waitFor();
    const button = page.getByRole("button", { name: "Delete keep.example.com" });
    await button.waitFor();
    await shoot(page, shots, "domains-as-owner");
    await button.click();
    await page.getByRole("row", { name: /keep\.example\.com/ }).waitFor({ state: "detached" });
    expect(dialogs.at(-1)).toMatch(/^Delete keep\.example\.com\?/);
    expect(await domainNames()).not.toContain("keep.example.com");
    await open("suppressions");
    await page.getByRole("form", { name: "Suppress addresses" }).waitFor();
    await page.getByRole("button", { name: "Remove gone@example.net" }).waitFor();
  });
});
