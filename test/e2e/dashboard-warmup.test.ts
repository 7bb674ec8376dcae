/**
 * Warm-up and blocklists in the dashboard, in Debian's Chromium: a one-day schedule of 1
 * recipient on the real clock, two messages sent; one reaches the loopback sink, the other is
 * listed in the Queue view, pending, with its reason and its release at the next UTC midnight.
 * The Deliverability page shows the domain's warm-up progress and changes its schedule, and the
 * blocklist status after a check against a zone on the loopback DNS server that lists the
 * sending address (docs/deliverability.md, Warm-up and Blocklists).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { runBlocklistCheck } from "../../src/deliverability/blocklist-job.ts";
import { nextUtcDay } from "../../src/mail/warmup.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";
import { keepScreenshots, launchChromium, shoot, inviteWithPassword, signedInPage } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";
import { clearOfUtcMidnight } from "../support/utc-midnight.ts";

describe.skipIf(!requireTool("chromium"))("warm-up in the Queue view in Chromium", () => {
  let h: OutboundHarness;
  let listener: ReturnType<typeof Bun.serve>;
  let browser: Browser;
  let page: Page;
  const shots = tempDir("dashboard-warmup-screenshots-");

  beforeAll(async () => {
    // The warm-up's day, count and release are read on the real clock: set up and every test on one UTC day.
    await clearOfUtcMidnight(150_000, "dashboard warm-up tests");
    h = await startOutbound({ env: { POSTHORN_SENDING_ADDRESSES: "192.0.2.7", POSTHORN_BLOCKLIST_IP_ZONES: "zen.spamhaus.org", POSTHORN_BLOCKLIST_DOMAIN_ZONES: "dbl.spamhaus.org" } });
    h.routeToSink("dest.test");
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.app.handle(req) });
    await inviteWithPassword(h.request, "ops@example.com");

    expect((await h.request("PUT", `/v1/domains/${h.domain.domainId}/warmup`, { body: { enabled: true, schedule: [1] } })).status).toBe(200);
    for (const subject of ["Welcome", "Second welcome"]) expect((await h.send({ from: "hi@sender.test", to: [`${subject.length}@dest.test`], subject, text: "Hello." })).status).toBe(202);
    await waitFor(async () => (await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'outbound' AND run_at > ?", [Date.now() + 60_000]))!.n === 1, 15_000);
    await waitFor(() => h.sink.received.length === 1, 15_000);

    browser = await launchChromium();
    page = await signedInPage(browser, `http://127.0.0.1:${listener.port}`, "ops@example.com");
  }, 210_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
    await h?.close();
  });

  test("the held message is listed as pending with the warm-up's reason and its release at midnight", async () => {
    await page.getByRole("link", { name: "Queue" }).click();
    const rows = page.locator("table.queue tbody tr");
    await waitFor(async () => (await rows.count()) === 1);
    const row = rows.first();
    const text = (await row.textContent())!;
    expect(text).toMatch(/welcome/i);
    const release = new Date(nextUtcDay(Date.now())).toISOString().slice(0, 10);
    await expect(row.locator(".held-reason").textContent()).resolves.toMatch(new RegExp(`^Held by the sending domain's warm-up: day 1's cap of 1 recipients is reached; it goes at ${release}T00:00:00\\.\\d{3}Z\\.$`));
    await shoot(page, shots, "queue-warmup");
  }, 30_000);

  test("the Deliverability page: the blocklist status after a check, the warm-up's progress, and a new schedule", async () => {
    h.dns.set("7.2.0.192.zen.spamhaus.org", "A", ["127.0.0.2"]);
    expect(await runBlocklistCheck(h.deps)).toMatchObject({ checked: 2, listed: 1 });
    await page.getByRole("link", { name: "Deliverability" }).click();
    const listed = page.locator("table.blocklists tbody tr", { hasText: "192.0.2.7" });
    await listed.waitFor();
    expect(await listed.textContent()).toContain("127.0.0.2 — Spamhaus SBL: a known spam source or spam operation");
    expect(await page.locator(".blocklist-summary").textContent()).toContain("Listed in 1 place");
    expect(await page.locator("table.blocklists tbody tr", { hasText: "sender.test" }).textContent()).toContain("clear");

    const warmup = page.locator('.warmup[data-domain="sender.test"]');
    await expect(warmup.locator(".warmup-progress").textContent()).resolves.toMatch(/^Warm-up day 1 of 1: 1 of 1 recipients today \(broadcast up to 1\); 1 held until /);
    await shoot(page, shots, "deliverability");
    await warmup.getByLabel("Daily caps").fill("5, 10, 20");
    await warmup.getByRole("button", { name: "Save schedule" }).click();
    await warmup.getByText("Warm-up of sender.test on.").waitFor();
    await waitFor(async () => /^Warm-up day 1 of 3: 1 of 5 recipients today \(broadcast up to 5\)/.test((await warmup.locator(".warmup-progress").textContent()) ?? ""));
    expect((await h.request("GET", `/v1/domains/${h.domain.domainId}/warmup`)).json).toMatchObject({ enabled: true, schedule: [5, 10, 20], cap_today: 5 });
    await warmup.getByRole("button", { name: "Stop warm-up" }).click();
    await warmup.getByText("Warm-up of sender.test off.").waitFor();
    await waitFor(async () => (await warmup.locator(".warmup-progress").textContent()) === "Warm-up off.");
    expect((await h.request("GET", `/v1/domains/${h.domain.domainId}/warmup`)).json).toMatchObject({ enabled: false, schedule: [5, 10, 20] });
  }, 30_000);
});
