/**
 * The overview's "Queues (this server)" in Chromium, now that /metrics answers loopback and
 * private networks only (test/security/metrics-access.test.ts): a browser on the server's own
 * network sees the queues; one on the internet (through a trusted proxy) is told why they are not
 * shown, instead of an empty table that reads as "nothing queued".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { createTestApp, engine, waitFor } from "../helpers.ts";
import { inviteWithPassword, launchChromium, signedInPage } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

describe.skipIf(!requireTool("chromium"))(`the overview's queues and /metrics in Chromium (${engine})`, () => {
  const t = createTestApp({ env: { POSTHORN_TRUSTED_PROXIES: "127.0.0.1/32" } });
  let server: ReturnType<typeof t.app.listen>;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${server.server!.port}`;
    await inviteWithPassword(t.request, "queues@example.com");
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop(true);
  });

  test("on the server's network: the queues; from the internet: 'Not shown here', no table of zeros", async () => {
    const queues = (page: Awaited<ReturnType<typeof signedInPage>>) => page.locator("section", { has: page.getByRole("heading", { name: "Queues (this server)" }) }).locator("tbody tr");
    const inside = await signedInPage(browser, base, "queues@example.com");
    await waitFor(async () => !/Loading/.test((await queues(inside).first().textContent()) ?? "Loading"));
    expect(await queues(inside).first().textContent()).not.toContain("Not shown here");

    const outside = await signedInPage(browser, base, "queues@example.com");
    await outside.setExtraHTTPHeaders({ "x-forwarded-for": "203.0.113.7" });
    await outside.reload();
    await outside.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await waitFor(async () => /Not shown here/.test((await queues(outside).first().textContent()) ?? ""));
    expect(await queues(outside).count()).toBe(1);
  }, 60_000);
});
