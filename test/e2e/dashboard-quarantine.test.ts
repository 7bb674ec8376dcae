/**
 * Held (quarantined) inbound mail in the dashboard, in Debian's Chromium: GTUBE sent over SMTP to
 * the MX on loopback is held; the Messages view lists it under "Held inbound mail" (filter[status]
 * = quarantined), apart from clean mail; its page has a Release button whose click hands it to the
 * route's webhook, a real HTTPS receiver on loopback that checks the signature with its own code.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { useWebhookSender, WebhookSender } from "../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { GTUBE } from "../../src/smtp/spam.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot, inviteWithPassword, signedInPage } from "../support/chromium.ts";
import { SUBSCRIBER_URL } from "../support/event-subscriber.ts";
import { requireTool } from "../support/tools.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";
import { compose, sendRaw, startInbound, type InboundHarness } from "../smtp/support.ts";

describe.skipIf(!requireTool("chromium"))("held inbound mail in Chromium", () => {
  let h: InboundHarness;
  let receiver: TestReceiver;
  let sender: WebhookSender;
  let listener: ReturnType<typeof Bun.serve>;
  let base: string;
  let browser: Browser;
  let page: Page;
  const shots = tempDir("dashboard-quarantine-screenshots-");
  const ids: Record<string, string> = {};
  const statusOf = async (id: string) => (await h.app.request("GET", `/v1/messages/${id}`)).json.status as string;

  async function deliver(subject: string, text: string): Promise<string> {
    const raw = await compose({ from: "alice@sender.test", to: h.inboundAddress, subject, text });
    const info = await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);
    return /Queued as (\S+)/.exec(info.response)![1]!;
  }

  beforeAll(async () => {
    const cert = makeTestCert(["hooks.example.test"]);
    receiver = startReceiver(cert);
    h = await startInbound({
      env: { POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" },
      beforeStart: ({ deps, runner, dns }) => {
        dns.set("hooks.example.test", "A", ["127.0.0.1"]);
        sender = new WebhookSender({ dns: deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 3000, dnsCacheMs: 0 });
        useWebhookSender(deps, sender);
        registerWebhookJobs(runner, deps, { sender, scheduleMs: [50, 50, 50] });
      },
    });
    await h.app.sql.run("UPDATE webhooks SET enabled = 0 WHERE url = ?", [SUBSCRIBER_URL]);
    const hook = await h.app.request("POST", "/v1/webhooks", { body: { route_id: h.inboundRouteId, name: "inbound", url: receiver.url(), events: ["message.inbound"] } });
    expect(hook.status).toBe(201);
    receiver.secret = hook.json.data.secret;

    ids.clean = await deliver("Question about my order", "Where is it?");
    ids.held = await deliver("You won a prize", `Claim it now!\n${GTUBE}\n`);
    await waitFor(async () => (await statusOf(ids.clean!)) === "processed" && (await statusOf(ids.held!)) === "quarantined", 10_000);
    await waitFor(() => receiver.deliveries.some((d) => d.json?.data?.message_id === ids.clean), 10_000);

    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.app.app.handle(req) });
    base = `http://127.0.0.1:${listener.port}`;
    // A member signs in with the password set through their invitation link, as in the dashboard.
    await inviteWithPassword(h.app.request, "ops@example.com");

    browser = await launchChromium();
    page = await signedInPage(browser, base, "ops@example.com");
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
    await h?.stop();
    sender?.close();
    await receiver?.stop();
  });

  test("the Messages view lists held mail apart; its page releases it to the route's webhook, once", async () => {
    await page.goto(`${base}/#/messages`);
    await page.getByRole("link", { name: "Held inbound mail" }).click();
    await page.locator("table.messages").waitFor();
    await waitFor(async () => (await page.locator("table.messages tbody td:first-child a").allTextContents()).join("|") === "You won a prize");
    // The filter the link set is the Status select's too.
    expect(await page.getByLabel(/^Status/).inputValue()).toBe("quarantined");
    await shoot(page, shots, "held-mail");

    await page.getByRole("link", { name: "You won a prize" }).click();
    const release = page.getByRole("button", { name: "Release" });
    await release.waitFor();
    expect(receiver.deliveries.some((d) => d.json?.data?.message_id === ids.held)).toBe(false);
    await release.click();
    await expect(page.getByRole("status").textContent()).resolves.toBe("Released: queued for 1 webhook of its route.");

    const got = await waitFor(() => receiver.deliveries.find((d) => d.json?.data?.message_id === ids.held), 10_000);
    expect(got.verified).toBe(true);
    expect(got.json!.event).toBe("message.inbound");
    expect(got.json!.data).toMatchObject({ subject: "You won a prize", status: "processed" });
    // The page read the message again: no longer held, no button, the release in its timeline.
    await page.getByRole("button", { name: "Release" }).waitFor({ state: "detached" });
    await page.getByText("message.inbound_released").waitFor();
    await shoot(page, shots, "released");

    await waitFor(async () => (await statusOf(ids.held!)) === "processed", 10_000);
    await waitFor(async () => (await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue IN ('inbound', 'webhook') AND dead_at IS NULL"))!.n === 0, 10_000);
    expect(receiver.deliveries.filter((d) => d.json?.data?.message_id === ids.held)).toHaveLength(1);
    // Nothing is held any more.
    await page.goto(`${base}/#/messages?filter[status]=quarantined`);
    await page.getByText("No messages.").waitFor();
  }, 40_000);
});
