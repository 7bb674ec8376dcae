/**
 * The Audit log view in Chromium (docs/access.md "Audit log"): an owner signs in, renames the
 * team through the API with the team token, then opens Audit log and finds the change with who
 * made it and the changed field; filtering by a target id shows only that target's rows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createTestApp, engine, tempDir, waitFor } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot, inviteWithPassword, signedInPage } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

describe.skipIf(!requireTool("chromium"))(`the Audit log view in Chromium (${engine})`, () => {
  const t = createTestApp();
  let listener: ReturnType<typeof Bun.serve>;
  let browser: Browser;
  let page: Page;
  let projectId: string;
  const shots = tempDir("dashboard-audit-screenshots-");

  beforeAll(async () => {
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.app.handle(req) });
    await inviteWithPassword(t.request, "auditor@example.com");
    expect((await t.request("PUT", "/v1/team", { body: { name: "Audited team" } })).status).toBe(200);
    const project = await t.request("POST", "/v1/projects", { body: { name: "Audited project" } });
    projectId = project.json.data.id;
    expect((await t.request("PUT", `/v1/projects/${projectId}`, { body: { name: "Renamed project" } })).status).toBe(200);

    browser = await launchChromium();
    page = await signedInPage(browser, `http://127.0.0.1:${listener.port}`, "auditor@example.com");
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
  });

  test("lists the team's changes, newest first, with who and what; a target filter narrows it", async () => {
    await page.getByRole("link", { name: "Audit log" }).click();
    const rows = page.locator("main table tbody tr");
    await waitFor(async () => (await rows.count()) >= 4);
    const texts = await rows.allTextContents();
    expect(texts[0]).toContain(`PUT /v1/projects/{projectId}`);
    expect(texts[0]).toContain("name: Renamed project");
    expect(texts[0]).toContain("Team token");
    expect(texts.some((r) => r.includes("PUT /v1/team") && r.includes("name: Audited team"))).toBe(true);
    // The invitation's set-password link is no team principal's change: no row, and no secret shown.
    expect(texts.join("\n")).not.toContain("correct horse battery");
    await shoot(page, shots, "audit-log");

    await page.getByLabel("Target id").fill(projectId);
    await page.getByRole("button", { name: "Filter" }).click();
    await waitFor(async () => (await rows.count()) === 1);
    expect(await rows.first().textContent()).toContain("Renamed project");
  }, 30_000);
});
