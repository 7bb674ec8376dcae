/**
 * Scheduled messages in the dashboard's Queue view, in Debian's Chromium: the app delivers over
 * SMTP to a loopback sink (through a loopback DNS server) and runs the scheduled queue, so a
 * scheduled message waits, then goes at its time. The view lists scheduled mail with when it goes,
 * its recipients and subject; an operator reschedules one (a time in the past is refused with the
 * API's message, nothing changed), brings one forward so that it is delivered within seconds, and
 * cancels one; each through the API's own calls (PATCH /v1/messages/{id}, POST .../cancel).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { SCHEDULED_QUEUE, registerScheduledJobs } from "../../src/sending/scheduled-job.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startOutbound, startSink, type OutboundHarness, type Sink } from "../send/harness.ts";
import { keepScreenshots, launchChromium, shoot, inviteWithPassword, signedInPage } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

const DAY = 86_400_000;

describe.skipIf(!requireTool("chromium"))("scheduled messages in the Queue view, in Chromium", () => {
  let sink: Sink;
  let h: OutboundHarness;
  let listener: ReturnType<typeof Bun.serve>;
  let base: string;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const shots = tempDir("dashboard-scheduled-screenshots-");
  const ids: Record<string, string> = {};
  const when: Record<string, number> = {};
  const message = async (id: string) => (await h.request("GET", `/v1/messages/${id}`)).json as { status: string; scheduled_at: string | null };
  const row = (subject: string) => page.locator("table.queue tbody tr", { hasText: subject });
  const subjects = async () => (await page.locator("table.queue tbody tr td:first-child a").allTextContents()).sort();
  /** A time as the view shows it: the browser's locale and zone. */
  const shown = (ms: number) => page.evaluate((t) => new Date(t).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }), ms);
  /** A time as a datetime-local input takes it, in the browser's zone. */
  const localValue = (ms: number) =>
    page.evaluate((t) => {
      const d = new Date(t);
      const p = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, ms);

  beforeAll(async () => {
    sink = await startSink();
    h = await startOutbound({ sink });
    registerScheduledJobs(h.runner, h.deps);
    h.runner.wake(SCHEDULED_QUEUE);
    h.routeToSink("one.test");
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.app.handle(req) });
    base = `http://127.0.0.1:${listener.port}`;

    await inviteWithPassword(h.request, "ops@example.com");

    // Whole seconds: the datetime-local input the view offers has a step of one second.
    const inADay = Math.ceil((Date.now() + DAY) / 1000) * 1000;
    for (const [subject, to, at] of [
      ["Newsletter", "ann@one.test", inADay],
      ["Reminder", "bob@one.test", inADay + 3_600_000],
      ["Welcome", "cy@one.test", inADay + 7_200_000],
    ] as const) {
      const sent = await h.send({ from: "shop@sender.test", to: [to], subject, text: "Hello.", scheduled_at: new Date(at).toISOString() });
      expect(sent.status).toBe(202);
      expect(sent.json.status).toBe("scheduled");
      ids[subject] = sent.json.message_id;
      when[subject] = at;
    }

    browser = await launchChromium();
    page = await signedInPage(browser, base, "ops@example.com", {
      viewport: { width: 1400, height: 900 },
      onDialog: (d) => {
        dialogs.push(d.message());
        void d.accept();
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

  test("the queue lists scheduled mail with when it goes, its recipients and subject; the Status filter picks it out", async () => {
    await page.getByRole("link", { name: "Queue" }).click();
    await waitFor(async () => (await subjects()).length === 3);
    expect(await subjects()).toEqual(["Newsletter", "Reminder", "Welcome"]);
    const reminder = row("Reminder");
    expect(await reminder.textContent()).toContain("bob@one.test");
    expect(await reminder.textContent()).toContain(`goes out ${await shown(when.Reminder!)}`);
    // A scheduled message is not attempted early from here: no "Retry now", only reschedule and cancel.
    expect(await reminder.getByRole("button", { name: "Retry now: Reminder" }).count()).toBe(0);
    expect(await reminder.getByRole("button", { name: "Reschedule: Reminder" }).count()).toBe(1);
    await shoot(page, shots, "queue-scheduled");

    await page.getByLabel("Status").selectOption("soft_bounced");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.locator("table.queue tbody", { hasText: "Nothing queued with status deferred." }).waitFor();
    await page.getByLabel("Status").selectOption("scheduled");
    await page.getByRole("button", { name: "Filter" }).click();
    await waitFor(async () => (await subjects()).length === 3);
    expect(new URL(page.url()).hash).toBe("#/queue?filter%5Bstatus%5D=scheduled");
    expect(sink.received).toHaveLength(0);
  }, 30_000);

  test("reschedule: a new time is saved through the API; a time in the past is refused with its message and changes nothing", async () => {
    await page.getByRole("button", { name: "Reschedule: Welcome" }).click();
    const input = page.getByLabel("New time: Welcome", { exact: true });
    // The form opens on the message's current time. Compared as a time: Chromium drops ":00"
    // seconds from a datetime-local value, so the text differs one minute in sixty.
    expect(await page.evaluate((v) => new Date(v).getTime(), await input.inputValue())).toBe(when.Welcome!);

    await input.fill(await localValue(Date.now() - 3_600_000));
    await page.getByRole("button", { name: "Save the new time: Welcome" }).click();
    await page.getByRole("alert").filter({ hasText: "must be in the future" }).waitFor();
    expect((await message(ids.Welcome!)).scheduled_at).toBe(new Date(when.Welcome!).toISOString());

    const later = when.Welcome! + 2 * DAY;
    await input.fill(await localValue(later));
    await page.getByRole("button", { name: "Save the new time: Welcome" }).click();
    await page.getByRole("status").filter({ hasText: `"Welcome" will go out ${await shown(later)}.` }).waitFor();
    expect(await message(ids.Welcome!)).toMatchObject({ status: "scheduled", scheduled_at: new Date(later).toISOString() });
    const events = (await h.request("GET", `/v1/messages/${ids.Welcome}/events`)).json.data.map((e: { event: string }) => e.event);
    expect(events).toContain("rescheduled");
    await waitFor(async () => (await row("Welcome").textContent())!.includes(`goes out ${await shown(later)}`));
    expect(sink.received).toHaveLength(0);
  }, 30_000);

  test("brought forward to a few seconds from now, the message goes out then, once, and leaves the queue", async () => {
    await page.getByRole("button", { name: "Reschedule: Reminder" }).click();
    const soon = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    await page.getByLabel("New time: Reminder", { exact: true }).fill(await localValue(soon));
    await page.getByRole("button", { name: "Save the new time: Reminder" }).click();
    await page.getByRole("status").filter({ hasText: '"Reminder" will go out' }).waitFor();
    expect(await h.waitForStatus(ids.Reminder!, ["delivered"], 15_000)).toBe("delivered");
    const got = sink.received.filter((m) => m.to.includes("bob@one.test"));
    expect(got).toHaveLength(1);
    expect(got[0]!.at).toBeGreaterThanOrEqual(soon);
    await page.getByRole("button", { name: "Filter" }).click();
    await waitFor(async () => (await subjects()).join() === "Newsletter,Welcome");
  }, 30_000);

  test("cancel asks first, then the message is canceled through the API, never sent, and leaves the queue", async () => {
    await row("Newsletter").getByRole("button", { name: "Cancel: Newsletter" }).click();
    await page.getByRole("status").filter({ hasText: '"Newsletter" is canceled: it will not be sent.' }).waitFor();
    expect(dialogs.at(-1)).toContain('Cancel the scheduled "Newsletter"?');
    expect((await message(ids.Newsletter!)).status).toBe("canceled");
    await waitFor(async () => (await subjects()).join() === "Welcome");
    await shoot(page, shots, "queue-scheduled-after");
    expect(sink.received.filter((m) => m.to.includes("ann@one.test"))).toHaveLength(0);
    // The queue's own cancel and retry leave a scheduled message to the calls made for it.
    const retry = await h.request("POST", `/v1/messages/${ids.Welcome}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.json.message).toContain("scheduled");
    const bulk = await h.request("POST", "/v1/queue/retry");
    expect(bulk.json.data).toEqual({ messages: 0, recipients: 0 });
    expect((await message(ids.Welcome!)).status).toBe("scheduled");
    const listed = await h.request("GET", "/v1/queue?filter[status]=scheduled");
    expect(listed.json.data.map((m: { id: string; scheduled_at: string }) => [m.id, m.scheduled_at])).toEqual([[ids.Welcome, new Date(when.Welcome! + 2 * DAY).toISOString()]]);
    const wrong = await h.request("GET", "/v1/queue?filter[status]=delivered");
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors["filter[status]"]).toEqual(["The filter[status] field must be one of: scheduled, pending, queued, processed, soft_bounced."]);
  }, 30_000);
});
