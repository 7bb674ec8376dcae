/**
 * The dashboard's Queue view in Debian's Chromium: the app delivers over SMTP to a loopback sink
 * (through a loopback DNS server) that defers, so mail stays queued; the view lists it, filters
 * it, retries and cancels one message and cancels every message a filter matches, and shows the
 * destination's shaping after a rate reply. A team member signs in as a real user would, with
 * the password set through their invitation link.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { tempDir, waitFor } from "../helpers.ts";
import { startOutbound, startSink, type OutboundHarness, type Sink } from "../send/harness.ts";
import { keepScreenshots, launchChromium, shoot, inviteWithPassword, signedInPage } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

const DEFER = { code: 451, message: "4.3.0 Mailbox temporarily unavailable" };
const RATE = { code: 421, message: "4.7.28 Too many messages, slow down" };

describe.skipIf(!requireTool("chromium"))("the Queue view in Chromium", () => {
  let sink: Sink;
  let h: OutboundHarness;
  let listener: ReturnType<typeof Bun.serve>;
  let base: string;
  let browser: Browser;
  let page: Page;
  /** The confirm() dialogs seen, and the answer the next ones get. */
  const dialogs: string[] = [];
  let answer = true;
  const shots = tempDir("dashboard-queue-screenshots-");
  const ids: Record<string, string> = {};
  const statusOf = async (id: string) => (await h.request("GET", `/v1/messages/${id}`)).json.status as string;
  const rows = () => page.locator("table.queue tbody tr");
  const subjects = async () => (await page.locator("table.queue tbody tr td:first-child a").allTextContents()).sort();

  beforeAll(async () => {
    sink = await startSink();
    // A plain deferral: the mail waits for its next attempt, 10 minutes away.
    sink.onRcpt = () => DEFER;
    h = await startOutbound({ sink, outbound: { retryScheduleMs: [600_000] } });
    for (const d of ["one.test", "two.test"]) h.routeToSink(d);
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.app.handle(req) });
    base = `http://127.0.0.1:${listener.port}`;

    // A member invited by the team token sets a password through the link, as in the dashboard.
    await inviteWithPassword(h.request, "ops@example.com");

    for (const [subject, to] of [
      ["Order one", "ann@one.test"],
      ["Order two", "bob@one.test"],
      ["Invoice", "cy@two.test"],
    ] as const) {
      const sent = await h.send({ from: "shop@sender.test", to: [to], subject, text: "Hello." });
      expect(sent.status).toBe(202);
      ids[subject] = sent.json.message_id;
    }
    for (const id of Object.values(ids)) await h.waitForStatus(id, ["soft_bounced"], 15_000);

    browser = await launchChromium();
    page = await signedInPage(browser, base, "ops@example.com", {
      onDialog: (d) => {
        dialogs.push(d.message());
        void (answer ? d.accept() : d.dismiss());
      },
    });
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
    await h?.close();
    await sink?.close();
  });

  test("the queue lists the deferred mail with each remote reply and filters it by recipient domain", async () => {
    await page.getByRole("link", { name: "Queue" }).click();
    await waitFor(async () => (await rows().count()) === 3);
    expect(await subjects()).toEqual(["Invoice", "Order one", "Order two"]);
    expect(await rows().filter({ hasText: "Invoice" }).textContent()).toContain("451 4.3.0 Mailbox temporarily unavailable");
    await shoot(page, shots, "queue");

    await page.getByLabel("Recipient domain").fill("two.test");
    await page.keyboard.press("Enter");
    await waitFor(async () => (await subjects()).join() === "Invoice");
    expect(new URL(page.url()).hash).toBe("#/queue?filter%5Bdomain%5D=two.test");
  }, 30_000);

  test("retry one message now: once the receiver takes it, it leaves the queue delivered", async () => {
    sink.onRcpt = (address) => (address.endsWith("@two.test") ? null : DEFER);
    await page.getByRole("button", { name: "Retry now: Invoice" }).click();
    await page.getByRole("status").filter({ hasText: "The message will be attempted now." }).waitFor();
    await h.waitForStatus(ids.Invoice!, ["delivered"], 10_000);
    await page.getByRole("button", { name: "Filter" }).click();
    await waitFor(async () => (await page.locator("table.queue tbody", { hasText: "Nothing queued to two.test." }).count()) === 1);
  }, 30_000);

  test("cancel one message; the bulk cancel asks first, names its filter, and does nothing when refused", async () => {
    await page.goto(`${base}/#/queue?filter[domain]=one.test`);
    await waitFor(async () => (await subjects()).join() === "Order one,Order two");
    await page.getByRole("button", { name: "Cancel: Order one" }).click();
    await page.getByRole("status").filter({ hasText: "1 recipient(s) cancelled." }).waitFor();
    expect(dialogs.at(-1)).toContain('Cancel "Order one"?');
    expect(await statusOf(ids["Order one"]!)).toBe("failed");
    await waitFor(async () => (await subjects()).join() === "Order two");

    answer = false;
    await page.getByRole("button", { name: "Cancel all matching" }).click();
    await page.getByRole("status").filter({ hasText: "Nothing was changed." }).waitFor();
    expect(dialogs.at(-1)).toContain("Cancel every queued message to one.test?");
    expect(await statusOf(ids["Order two"]!)).toBe("soft_bounced");

    answer = true;
    await page.getByRole("button", { name: "Cancel all matching" }).click();
    await page.getByRole("status").filter({ hasText: "1 recipient(s) of 1 message(s) cancelled." }).waitFor();
    expect(await statusOf(ids["Order two"]!)).toBe("failed");
    await waitFor(async () => (await page.locator("table.queue tbody", { hasText: "Nothing queued to one.test." }).count()) === 1);
  }, 30_000);

  test("a rate reply shows on its destination: the reply, its time, and the limits it lowered", async () => {
    sink.onRcpt = () => RATE;
    const sent = await h.send({ from: "shop@sender.test", to: ["dee@one.test"], subject: "Slow", text: "Hello." });
    await h.waitForStatus(sent.json.message_id, ["soft_bounced"], 10_000);
    await page.goto(`${base}/#/queue`);
    const destination = page.locator("table.destinations tbody tr", { hasText: "mx.sink.test" });
    // The nodes share the shaping state through the database about once a second: the view shows it as it was when loaded.
    await waitFor(async () => {
      await page.reload();
      await destination.waitFor();
      return (await destination.textContent())!.includes("4.7.28");
    }, 10_000);
    expect(await destination.locator("td").nth(1).textContent()).toContain("one.test");
    expect(await destination.textContent()).toContain("421 4.7.28 Too many messages, slow down");
    expect(await destination.textContent()).toMatch(/rate repl(y|ies in a row)/);
    expect(await destination.locator("td").nth(3).textContent()).not.toBe("no limit");
    await shoot(page, shots, "queue-destinations");
  }, 30_000);
});
