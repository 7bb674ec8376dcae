/**
 * The Deliverability page's bounces by provider × bounce class per sending domain, in Debian's
 * Chromium (issue 47, docs/dashboard.md): a whole server delivers directly to a loopback MX that
 * refuses some recipients (550 5.1.1) and defers others (452 4.2.2); two sending domains bounce
 * at Google and Microsoft. The page's bars carry the counts POST /v1/analytics gives for each
 * domain alone (the other domain's bounces are not in them), and a member whose role lacks
 * analytics:read sees no such chart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { BootstrapResult } from "../../src/bootstrap.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { startSink, type Sink } from "../send/harness.ts";
import { databaseEnv, tempDir, testConfig, waitFor } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot } from "../support/chromium.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { requireTool } from "../support/tools.ts";

describe.skipIf(!requireTool("chromium"))("bounces by provider and class on the Deliverability page in Chromium", () => {
  let server: RunningServer;
  let boot: BootstrapResult;
  let base: string;
  let browser: Browser;
  let page: Page;
  let dns: TestDnsServer;
  let sink: Sink;
  const shots = tempDir("dashboard-deliverability-bounces-screenshots-");
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.parse(today) - 29 * 86_400_000).toISOString().slice(0, 10);

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${boot.team_token}` }) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, json: (await res.json()) as any, headers: res.headers };
  };
  const send = (from: string, to: string) => api("POST", "/v1/send", { from, to: [to], subject: `For ${to}`, text: "Hello there." }, { "x-service-token": boot.project_token });
  const statusOf = async (id: string) => (await api("GET", `/v1/messages/${id}`)).json.status as string;
  /** The domain's breakdown as the API gives it: provider → class → hard + soft bounces. */
  const breakdownOf = async (domain: string) => {
    const res = await api("POST", "/v1/analytics", {
      metrics: ["hard_bounced", "soft_bounced"],
      from: monthAgo,
      to: today,
      include: ["breakdown"],
      group_by: ["provider_family", "bounce_classification"],
      filters: [{ dimension: "sending_domain", operator: "eq", values: [domain] }],
    });
    expect(res.status).toBe(200);
    const out: Record<string, Record<string, number>> = {};
    for (const row of res.json.data.breakdown) {
      const n = (row.metrics.hard_bounced ?? 0) + (row.metrics.soft_bounced ?? 0);
      if (n === 0 || row.dimensions.bounce_classification === null) continue;
      (out[row.dimensions.provider_family] ??= {})[row.dimensions.bounce_classification] = n;
    }
    return out;
  };

  beforeAll(async () => {
    dns = await startDnsServer();
    sink = await startSink();
    for (const domain of ["gmail.com", "outlook.com"]) dns.set(domain, "MX", [{ exchange: "mx.sink.test", priority: 10 }]);
    dns.set("mx.sink.test", "A", ["127.0.0.1"]);
    sink.onRcpt = (address) =>
      address.startsWith("nobody") ? { code: 550, message: "5.1.1 No such user here" } : address.startsWith("full") ? { code: 452, message: "4.2.2 Mailbox full" } : null;
    server = await startServer(
      testConfig({
        ...databaseEnv(),
        POSTHORN_HTTP_HOST: "127.0.0.1",
        POSTHORN_HTTP_PORT: "0",
        POSTHORN_DELIVERY: "direct",
        POSTHORN_MX_PORT: String(sink.port),
        POSTHORN_DNS_SERVERS: dns.server,
        POSTHORN_REQUIRE_VERIFIED_DOMAIN: "false",
      }),
    );
    boot = server.bootstrap!;
    base = `http://127.0.0.1:${server.httpPort}`;
    for (const name of ["shop.example.com", "news.example.com"]) {
      const domain = await api("POST", "/v1/domains", { domain: name });
      expect(domain.status).toBe(201);
      await api("PUT", `/v1/domains/${domain.json.id}/projects`, { project_ids: [boot.project_id] });
    }
    // shop: Google refuses two and defers one, Microsoft refuses one and delivers one. news: Microsoft defers one.
    const sends: [string, string, string][] = [
      ["hello@shop.example.com", "nobody1@gmail.com", "hard_bounced"],
      ["hello@shop.example.com", "nobody2@gmail.com", "hard_bounced"],
      ["hello@shop.example.com", "full1@gmail.com", "soft_bounced"],
      ["hello@shop.example.com", "nobody3@outlook.com", "hard_bounced"],
      ["hello@shop.example.com", "ann@outlook.com", "delivered"],
      ["hello@news.example.com", "full2@outlook.com", "soft_bounced"],
    ];
    const sent: [string, string][] = [];
    for (const [from, to, status] of sends) {
      const res = await send(from, to);
      expect(res.status).toBe(202);
      sent.push([res.json.message_id, status]);
    }
    await waitFor(async () => (await Promise.all(sent.map(async ([id, s]) => (await statusOf(id)) === s))).every(Boolean), 30_000, 100);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(10_000);
  }, 90_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    await server?.stop();
    await sink?.close();
    await dns?.close();
  });

  /** A chart's bars: group (provider) → series (bounce class) → data-value. */
  const bars = (p: Page, chart: string) =>
    p.locator(`figure[data-chart="${chart}"] svg rect[data-series][data-value]`).evaluateAll((els) => {
      const out: Record<string, Record<string, number>> = {};
      for (const el of els) (out[el.getAttribute("data-group")!] ??= {})[el.getAttribute("data-series")!] = Number(el.getAttribute("data-value"));
      return out;
    });

  test("each domain's bars are its bounce classes per provider with the API's counts", async () => {
    const shop = await breakdownOf("shop.example.com");
    const news = await breakdownOf("news.example.com");
    expect(shop).toEqual({ google: { invalid_recipient: 2, mailbox_full: 1 }, microsoft: { invalid_recipient: 1 } });
    expect(news).toEqual({ microsoft: { mailbox_full: 1 } });

    await page.goto(`${base}/`);
    await page.getByLabel("Email").fill(boot.owner_email!);
    await page.getByLabel("Password").fill(boot.owner_password!);
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "Deliverability" }).click();
    await page.getByRole("heading", { name: "Bounces by provider (last 30 days)" }).waitFor();
    const shopChart = "Bounces of shop.example.com by provider and class";
    const newsChart = "Bounces of news.example.com by provider and class";
    await page.locator(`figure[data-chart="${shopChart}"] rect[data-series]`).first().waitFor();
    await page.locator(`figure[data-chart="${newsChart}"] rect[data-series]`).first().waitFor();
    expect(await bars(page, shopChart)).toEqual(shop);
    expect(await bars(page, newsChart)).toEqual(news);
    expect(await page.locator(`figure[data-chart="${shopChart}"] .legend li`).allTextContents()).toEqual(["invalid recipient3", "mailbox full1"]);
    await shoot(page, shots, "deliverability-bounces");
  }, 60_000);

  test("a member whose role lacks analytics:read sees the page without the bounce charts", async () => {
    const role = await api("POST", "/v1/team/roles", { name: "Postmaster", permissions: ["domains:read", "domains:manage", "members:read"] });
    expect(role.status).toBe(201);
    const invited = await api("POST", "/v1/team/members", { email: "postmaster@example.com", role: role.json.data?.id ?? role.json.id });
    expect(invited.status).toBe(201);
    const password = "a password of the postmaster's";
    expect((await api("POST", "/v1/auth/password", { token: invited.json.password_url.split("/").pop(), password }, {})).status).toBe(200);
    const signedIn = await api("POST", "/v1/auth/sign-in", { email: "postmaster@example.com", password }, {});
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect((await api("POST", "/v1/analytics", { metrics: ["hard_bounced"] }, { cookie })).status).toBe(403);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: "posthorn_session", value: cookie.slice(cookie.indexOf("=") + 1), url: base }]);
    const member = await context.newPage();
    member.setDefaultTimeout(10_000);
    await member.goto(`${base}/#/deliverability`);
    // The warm-up form needs domains:manage (members:read lets the dashboard read the role): once it shows, the permissions have been read.
    await member.getByRole("form", { name: "Warm-up of shop.example.com" }).waitFor();
    expect(await member.getByRole("heading", { name: "Bounces by provider (last 30 days)" }).count()).toBe(0);
    expect(await member.locator("figure[data-chart^='Bounces of']").count()).toBe(0);
    await context.close();
  }, 30_000);
});
