/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core, against a whole
 * server (startServer: job runner, sink delivery) on loopback, with a DNS server and an HTTPS
 * webhook receiver of the test's own. Screenshots of the main views are kept in the run's scratch
 * dir; their paths are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Browser, Page } from "playwright-core";
import { trackingToken } from "../../src/auth/tracking-tokens.ts";
import type { BootstrapResult } from "../../src/bootstrap.ts";
import { PostgresExecutor } from "../../src/db/postgres.ts";
import { WebhookSender, useWebhookSender } from "../../src/events/webhook-post.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { databaseEnv, sqlOf, tempDir, testConfig, waitFor } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot as shootPage } from "../support/chromium.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";
import { requireTool } from "../support/tools.ts";

const CHROME_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLE_PROXY_UA = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";

/** The DOM as the code run in the page (page.evaluate) uses it; this project's types have no DOM. */
type PageElement = { outerHTML: string; tagName: string; textContent: string | null; labels?: { length: number }; getAttribute(name: string): string | null; blur(): void };
declare const document: { activeElement: PageElement | null; querySelectorAll(selector: string): Iterable<PageElement> };

describe.skipIf(!requireTool("chromium"))("the dashboard in Chromium", () => {
  let server: RunningServer;
  let boot: BootstrapResult;
  let base: string;
  let browser: Browser;
  let page: Page;
  let dns: TestDnsServer;
  let receiver: TestReceiver;
  /** "Another host": a server on 127.0.0.2 that counts every request it gets. */
  let elsewhere: { hits: string[]; origin: string; stop: () => void };
  const dialogs: string[] = [];
  const shots = tempDir("dashboard-screenshots-");

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${boot.team_token}` }) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, json: (await res.json()) as any };
  };
  const send = (message: Record<string, unknown>) => api("POST", "/v1/send", { from: "Shop <hello@shop.example.com>", to: ["customer@example.org"], ...message }, { "x-service-token": boot.project_token });
  const delivered = (id: string) => waitFor(async () => (await api("GET", `/v1/messages/${id}`)).json.status === "delivered", 15_000);
  const shoot = (name: string) => shootPage(page, shots, name);

  beforeAll(async () => {
    dns = await startDnsServer();
    dns.set("hooks.example.test", "A", ["127.0.0.1"]);
    const cert = makeTestCert(["hooks.example.test"]);
    receiver = startReceiver(cert);
    const hits: string[] = [];
    const other = Bun.serve({ hostname: "127.0.0.2", port: 0, fetch: (req) => (hits.push(req.url), new Response("GIF89a", { headers: { "content-type": "image/gif" } })) });
    elsewhere = { hits, origin: `http://127.0.0.2:${other.port}`, stop: () => other.stop(true) };

    server = await startServer(
      testConfig({
        ...databaseEnv(),
        POSTHORN_HTTP_HOST: "127.0.0.1",
        POSTHORN_HTTP_PORT: "0",
        POSTHORN_DELIVERY: "sink",
        POSTHORN_REQUIRE_VERIFIED_DOMAIN: "false",
        POSTHORN_DNS_SERVERS: dns.server,
        POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
      }),
    );
    useWebhookSender(server.deps, new WebhookSender({ dns: server.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 5000 }));
    boot = server.bootstrap!;
    base = `http://127.0.0.1:${server.httpPort}`;
    // The sending domain, attached to the default project (not verified: POSTHORN_REQUIRE_VERIFIED_DOMAIN=false).
    const domain = await api("POST", "/v1/domains", { domain: "shop.example.com" });
    await api("PUT", `/v1/domains/${domain.json.id}/projects`, { project_ids: [boot.project_id] });

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on("dialog", (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void (d.type() === "confirm" ? d.accept() : d.dismiss());
    });
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    await server?.stop();
    elsewhere?.stop();
    await receiver?.stop();
    await dns?.close();
  });

  test("sign in from the keyboard: a wrong password is refused, the right one lands on the overview", async () => {
    for (let i = 0; i < 3; i++) expect((await send({ subject: `Welcome ${i}`, text: "Hello there." })).status).toBe(202);
    await page.goto(`${base}/`);
    const email = page.getByLabel("Email");
    await expect(email.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type(boot.owner_email!);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not the password");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The email address or password is incorrect.");
    await expect(page.getByRole("heading", { name: "Last 28 days" }).count()).resolves.toBe(0);

    await page.getByLabel("Password").fill(boot.owner_password!);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await waitFor(async () => Number(await page.locator("[data-figure=sent]").textContent()) >= 3);
    expect(await page.getByText(`${boot.owner_email} · My team`).count()).toBe(1);
    await shoot("overview");
  }, 30_000);

  test("the overview shows opens and clicks by people, and machines' apart", async () => {
    const sent = await send({ subject: "Tracked", html: `<p>Hi <a href="https://shop.example.com/order">your order</a></p>`, track_opens: true, track_clicks: true });
    await delivered(sent.json.message_id);
    const messageId = sent.json.message_id as string;
    // The 250 came a minute ago, so a reader's hit now is not "seconds after delivery" (a scanner's sign).
    const url = server.deps.config.databaseUrl;
    const sql = url ? new PostgresExecutor(new SQL(url, { max: 1, idleTimeout: 1 })) : sqlOf(server.deps);
    await sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [messageId]);
    const recipientId = (await sql.get<{ id: string }>("SELECT id FROM recipients WHERE message_id = ?", [messageId]))!.id;
    const secret = await serverSecretOf(server.deps.store);
    const hit = (path: string, ua: string) => fetch(`${base}${path}`, { redirect: "manual", headers: { "user-agent": ua } });
    const open = `/t/o/${trackingToken(secret, { kind: "open", messageId, recipientId })}`;
    expect((await hit(open, CHROME_UA)).status).toBe(200);
    expect((await hit(open, GOOGLE_PROXY_UA)).status).toBe(200);
    expect((await hit(`/t/c/${trackingToken(secret, { kind: "click", messageId, recipientId, link: 0 })}`, CHROME_UA)).status).toBe(302);

    await page.goto(`${base}/#/`);
    await page.reload();
    await page.locator("[data-figure=opens_human]").waitFor();
    expect(await page.locator(".tile", { has: page.locator("[data-figure=opens_human]") }).textContent()).toBe("1Opens by people+ 1 by machines");
    expect(await page.locator(".tile", { has: page.locator("[data-figure=clicks_human]") }).textContent()).toBe("1Clicks by people+ 0 by machines");
    const transactional = page.getByRole("row", { name: /Transactional/ });
    const headings = await page.locator("main table").first().locator("thead th").allTextContents();
    const cells = await transactional.locator("td").allTextContents();
    const byHeading = Object.fromEntries(headings.map((h, i) => [h, cells[i]]));
    expect(byHeading).toMatchObject({ Opens: "1", Clicks: "1", "Machine opens": "1", "Machine clicks": "0" });
    await shoot("overview-engagement");
  }, 30_000);

  test("find a sent message by its subject and open its timeline", async () => {
    const sent = await send({ subject: "Invoice 4711", text: "Your invoice.", tags: [{ name: "campaign", value: "spring" }, { name: "tier", value: "gold" }] });
    await send({ subject: "Invoice 4712", text: "Another one." });
    await delivered(sent.json.message_id);
    await page.goto(`${base}/#/messages`);
    await page.locator("table.messages tbody a").first().waitFor();
    await page.getByLabel("Subject contains").fill("invoice 4711");
    await page.keyboard.press("Enter");
    await waitFor(async () => (await page.locator("table.messages tbody a").allTextContents()).join("|") === "Invoice 4711");
    await shoot("messages");
    await page.getByRole("link", { name: "Invoice 4711" }).click();
    await page.locator("ol.timeline li", { hasText: "message.delivered" }).waitFor();
    expect(await page.locator("ol.timeline li", { hasText: "message.delivered" }).textContent()).toContain("250 2.0.0");
    expect(await page.locator("ol.timeline strong").allTextContents()).toEqual(["message.created", "message.queued", "message.sent", "message.delivered"]);
    // Its name-value tags among the facts.
    const facts = await page.locator("dl.facts").first().evaluate((dl) => [...dl.querySelectorAll("dt")].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
    expect(facts).toContainEqual(["Tags", "campaign=spring, tier=gold"]);
    await page.getByRole("tab", { name: "Headers" }).click();
    await page.getByRole("row", { name: /^Subject Invoice 4711$/ }).waitFor();
    await shoot("message");
  }, 30_000);

  test("a subject of markup and HTML with scripts run nothing, and nothing is fetched from another host until images are asked for", async () => {
    const subject = "<img src=x onerror=alert(1)>";
    const html = `<p id="hello">Hello from HTML</p><script>alert(2)</script><img src="${elsewhere.origin}/pixel.gif">
      <link rel="stylesheet" href="${elsewhere.origin}/style.css"><iframe src="${elsewhere.origin}/frame"></iframe>
      <form action="${elsewhere.origin}/form"><button id="go">Go</button></form><img src="x" onerror="alert(3)"><svg onload="alert(4)"></svg>`;
    const sent = await send({ subject, html });
    await delivered(sent.json.message_id);

    await page.goto(`${base}/#/messages?filter[subject]=${encodeURIComponent("onerror")}`);
    await page.getByRole("link", { name: subject }).click();
    await page.getByRole("heading", { name: subject }).waitFor();
    // The subject is text, wherever it is shown: no element came of it.
    expect(await page.locator("main img").count()).toBe(0);
    const frame = page.frameLocator("iframe.mail");
    expect(await frame.locator("#hello").textContent()).toBe("Hello from HTML");
    await frame.locator("#go").click({ timeout: 2000 }).catch(() => undefined); // a form in the sandbox may not submit
    await Bun.sleep(1000);
    expect(dialogs).toEqual([]);
    expect(elsewhere.hits).toEqual([]);
    await shoot("message-html-sandboxed");

    // "Load images" is an explicit click: then, and only then, the image is fetched (still no script).
    await page.getByRole("button", { name: "Load images" }).click();
    await waitFor(() => elsewhere.hits.some((u) => u.endsWith("/pixel.gif")), 5000);
    expect(elsewhere.hits.filter((u) => !u.endsWith("/pixel.gif"))).toEqual([]);
    expect(await frame.locator("#hello").textContent()).toBe("Hello from HTML");
    expect(dialogs).toEqual([]);
  }, 30_000);

  test("add a domain, publish its records on the DNS server, verify it now", async () => {
    await page.goto(`${base}/#/domains`);
    await page.getByRole("textbox", { name: "Domain" }).fill("news.example.test");
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByRole("heading", { name: "news.example.test" }).waitFor();
    const rows = page.locator("table.records tbody tr");
    const domains = (await api("GET", "/v1/domains")).json.data as { domain: string; dns_records: unknown[] }[];
    const records = domains.find((d) => d.domain === "news.example.test")!.dns_records.length;
    expect(records).toBeGreaterThanOrEqual(4);
    expect(await rows.count()).toBe(records);
    expect(await page.getByRole("button", { name: /^Copy value/ }).count()).toBe(records);
    expect(new Set(await page.locator("table.records .status").allTextContents())).toEqual(new Set(["pending"]));

    // Publish what the page says to publish, as a user would at their DNS provider.
    for (const row of await rows.all()) {
      const [type, name, value] = [await row.locator("td").nth(1).textContent(), await row.locator("td:nth-child(3) code").textContent(), await row.locator("td.value code").textContent()];
      if (type === "MX") dns.set(name!, "MX", [{ exchange: value!, priority: 10 }]);
      else dns.set(name!, "TXT", [value!]);
    }
    dns.remove("_dmarc.news.example.test"); // left out: the page then says what is missing
    await page.getByRole("button", { name: "Verify now" }).click();
    await waitFor(async () => (await page.locator("[data-record=dkim] .status").textContent()) === "active");
    expect(await page.getByRole("status").textContent()).toMatch(/verif/i);
    expect(await page.locator("[data-record=dmarc] .status").textContent()).toBe("pending");
    expect(await page.locator("[data-record=dmarc] .reason").textContent()).not.toBe("");
    await shoot("domain");

    // Rotate the DKIM keys: two new records to publish; once both verify they sign, and the old ones retire.
    await page.getByRole("button", { name: "Rotate DKIM keys" }).click();
    await waitFor(async () => (await page.locator("tr[data-key-state=next]").count()) === 2);
    expect(dialogs.at(-1)).toMatch(/^confirm: Make new DKIM keys for news\.example\.test/);
    expect(await page.locator("tr[data-key-state=current]").count()).toBe(2);
    for (const row of await page.locator("tr[data-key-state=next]").all()) {
      dns.set((await row.locator("td:nth-child(3) code").textContent())!, "TXT", [(await row.locator("td.value code").textContent())!]);
    }
    await page.getByRole("button", { name: "Verify now" }).click();
    await waitFor(async () => (await page.locator("tr[data-key-state=retiring]").count()) === 2);
    expect(await page.locator("tr[data-key-state=next]").count()).toBe(0);
    expect(await page.locator("tr[data-key-state=current] .status").allTextContents()).toEqual(["active", "active"]);
    expect(await page.locator("tr[data-key-state=retiring]").first().textContent()).toMatch(/keep it published until/);
    await shoot("domain-rotated");
  }, 30_000);

  test("create a webhook (its secret shown once), send a test and see the delivery in its log", async () => {
    await page.goto(`${base}/#/webhooks`);
    await page.getByLabel("Name").fill("Orders");
    await page.getByLabel("URL (https)").fill(receiver.url());
    await page.getByRole("checkbox", { name: "webhook.test" }).check();
    // Every kind the API accepts is offered (the list is type-checked against the OpenAPI document's enum).
    await page.getByRole("checkbox", { name: "suppression.added" }).check();
    await page.getByRole("button", { name: "Create webhook" }).click();
    const secret = await page.locator(".once code").textContent();
    expect(secret).toMatch(/^whsec_/);
    expect((await api("GET", "/v1/webhooks")).json.data.find((w: { name: string }) => w.name === "Orders").events).toEqual(["message.delivered", "message.bounced", "webhook.test", "suppression.added"]);
    receiver.secret = secret!;
    await page.getByRole("link", { name: "Orders" }).click();
    await page.getByRole("button", { name: "Send test" }).click();
    await page.locator("table.deliveries tbody tr", { hasText: "webhook.test" }).waitFor();
    expect(await page.locator("table.deliveries tbody tr").first().textContent()).toMatch(/succeeded 200 \d+ ms/);
    expect(receiver.deliveries.filter((d) => d.verified && d.json?.event === "webhook.test")).toHaveLength(1);
    // Redeliver: the same event again, signed afresh, a new attempt in the log.
    await page.getByRole("button", { name: /^Redeliver webhook\.test/ }).click();
    await page.getByRole("status").filter({ hasText: "Event redelivered successfully." }).waitFor();
    await waitFor(async () => (await page.locator("table.deliveries tbody tr", { hasText: "webhook.test" }).count()) === 2);
    const tests = receiver.deliveries.filter((d) => d.verified && d.json?.event === "webhook.test");
    expect(tests).toHaveLength(2);
    expect(tests[1]!.json!.id).toBe(tests[0]!.json!.id);
    await shoot("webhook");
  }, 30_000);

  test("add suppressions in bulk, and a whole domain; find one, remove it", async () => {
    await page.goto(`${base}/#/suppressions`);
    await page.getByLabel(/^Suppress for the whole team/).fill("first@example.org\nsecond@example.org");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "2 suppressions created" }).waitFor();
    await page.getByRole("cell", { name: "second@example.org", exact: true }).waitFor();
    await shoot("suppressions");
    await page.getByRole("button", { name: "Remove first@example.org" }).click();
    await page.getByRole("status").filter({ hasText: "first@example.org is no longer suppressed." }).waitFor();
    expect((await api("GET", "/v1/suppressions")).json.data.map((s: { email: string }) => s.email)).toEqual(["second@example.org"]);
    // A whole domain: listed with its type.
    await page.getByLabel("What to suppress").selectOption("domain");
    await page.getByLabel(/^Suppress for the whole team/).fill("Blocked.Example");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "1 suppression created" }).waitFor();
    await page.locator("main table tbody tr", { hasText: "blocked.example" }).getByRole("cell", { name: "domain", exact: true }).waitFor();
    expect((await api("GET", "/v1/suppressions?filter[type]=domain")).json.data.map((s: { value: string; scope: string }) => `${s.value} ${s.scope}`)).toEqual(["blocked.example team"]);
    await page.getByRole("searchbox", { name: "Address, domain or extension" }).fill("second@example.org");
    await page.keyboard.press("Enter");
    await waitFor(async () => (await page.locator("main table tbody tr").count()) === 1);
  }, 30_000);

  test("create a route from the keyboard, change its settings, and find them saved after a reload", async () => {
    await page.goto(`${base}/#/projects`);
    const card = page.locator("article.card", { hasText: "Default project" });
    await card.getByRole("link", { name: "Settings of Transactional" }).waitFor();
    await card.getByLabel("New route name").fill("Receipts");
    await page.keyboard.press("Tab"); // to the type
    await page.keyboard.press("Tab"); // to the slug
    await page.keyboard.type("receipts-eu");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Route Receipts" }).waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split("/")[2]!);
    expect((await api("GET", `/v1/routes/${id}`)).json).toMatchObject({ name: "Receipts", slug: "receipts-eu", route_type: "transactional", track_opens: false, track_clicks: false });

    // Rename and turn on open tracking, all by keyboard (Space ticks, Enter in a field submits).
    await page.getByLabel("Track opens").focus();
    await page.keyboard.press("Space");
    // Route settings (docs/sending.md): a switch and the TLS policy.
    await page.getByLabel("Skip disposable addresses").check();
    await page.getByLabel("TLS policy").selectOption("enforced");
    await page.getByLabel("Name", { exact: true }).fill("Receipts (EU)");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Route updated successfully." }).waitFor();
    expect((await api("GET", `/v1/routes/${id}`)).json).toMatchObject({
      name: "Receipts (EU)",
      track_opens: true,
      track_clicks: false,
      settings: { track_opens: true, suppress_disposable_recipients: true, tls: "enforced", redact_email_content: false },
    });
    await page.reload();
    await page.getByRole("heading", { name: "Route Receipts (EU)" }).waitFor();
    expect(await page.getByLabel("Track opens").isChecked()).toBe(true);
    expect(await page.getByLabel("Track clicks").isChecked()).toBe(false);
    expect(await page.getByLabel("Skip disposable addresses").isChecked()).toBe(true);
    expect(await page.getByLabel("TLS policy").inputValue()).toBe("enforced");
    // A transactional route has no hosted unsubscribe to turn off.
    expect(await page.getByLabel("No hosted unsubscribe").count()).toBe(0);
    await shoot("route");

    // An inbound route has its own settings; a refused value says why and changes nothing.
    await page.goto(`${base}/#/projects`);
    await card.getByLabel("New route name").fill("Support inbox");
    await card.getByLabel("Type").selectOption("inbound");
    await card.getByRole("button", { name: "Create route" }).click();
    await page.getByRole("heading", { name: "Route Support inbox" }).waitFor();
    const inboundId = decodeURIComponent(new URL(page.url()).hash.split("/")[2]!);
    expect(await page.getByLabel("Track opens").count()).toBe(0);
    await page.getByLabel("Custom inbound domain").fill(server.deps.config.inboundDomain);
    await page.getByLabel("Spam threshold").fill("7.5");
    await page.getByLabel("Attachments in webhooks").selectOption("url");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("alert").waitFor();
    expect((await api("GET", `/v1/routes/${inboundId}`)).json).toMatchObject({ inbound_domain: null, inbound_spam_threshold: 5, attachment_delivery: "inline" });
    await page.getByLabel("Custom inbound domain").fill("support.example.test");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Route updated successfully." }).waitFor();
    expect((await api("GET", `/v1/routes/${inboundId}`)).json).toMatchObject({ inbound_domain: "support.example.test", inbound_spam_threshold: 7.5, attachment_delivery: "url" });
    await page.locator("table.records tbody tr", { hasText: "MX" }).waitFor();
    expect(await page.getByRole("button", { name: /^Copy value/ }).count()).toBe(2);
  }, 30_000);

  test("create a project and rotate its sending token: each token is shown once, the new one works and the old one no longer does", async () => {
    const ping = async (token: string) => (await api("GET", "/v1/ping", undefined, { "x-service-token": token })).status;
    await page.goto(`${base}/#/projects`);
    await page.getByLabel("New project name").fill("Newsletters");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("status").filter({ hasText: "Sending token of Newsletters" }).waitFor();
    const first = (await page.locator(".once code").textContent())!;
    expect(first).toMatch(/^ph_/);
    expect(await ping(first)).toBe(200);

    await page.locator("article.card", { hasText: "Newsletters" }).getByRole("button", { name: "Rotate token" }).click();
    expect(dialogs.at(-1)).toBe("confirm: Replace the sending token of Newsletters? The old one stops working at once.");
    await page.getByRole("status").filter({ hasText: "New sending token of Newsletters" }).waitFor();
    // The answer names it new_token; before the dashboard's types came from the OpenAPI document it read `token` and showed nothing.
    const second = (await page.locator(".once code").textContent())!;
    expect(second).toMatch(/^ph_/);
    expect(second).not.toBe(first);
    expect(await ping(second)).toBe(200);
    expect(await ping(first)).toBe(401);
  }, 30_000);

  test("every form control has a label, and each view's controls are reached with Tab", async () => {
    const routes = (await api("GET", `/v1/projects/${boot.project_id}/routes`)).json.data as { id: string; route_type: string }[];
    const inbound = routes.find((r) => r.route_type === "inbound")!.id;
    for (const view of ["messages", "queue", "domains", "webhooks", "suppressions", "projects", "members", `routes/${inbound}`]) {
      await page.goto(`${base}/#/${view}`);
      await page.locator("main section").first().waitFor();
      // The view's lists have loaded (not "network idle": under a loaded CI one slow answer held
      // that past its 10 s, though nothing here depends on it).
      await waitFor(async () => (await page.locator("main", { hasText: "Loading…" }).count()) === 0, 20_000);
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll("input, select, textarea, button")]
          .filter((el) => {
            const named = el.labels?.length || el.getAttribute("aria-label") || (el.tagName === "BUTTON" && el.textContent?.trim());
            return !named;
          })
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect({ view, unlabelled }).toEqual({ view, unlabelled: [] });
      // Tab from the top reaches the first control of the view's form (skip link, navigation, sign-out first).
      await page.evaluate(() => document.activeElement?.blur());
      const first = await page.locator("main input, main select, main textarea, main button").first().evaluate((el) => el.outerHTML);
      let reached = false;
      for (let i = 0; i < 15 && !reached; i++) {
        await page.keyboard.press("Tab");
        reached = await page.evaluate((html) => document.activeElement?.outerHTML === html, first);
      }
      expect({ view, reached }).toEqual({ view, reached: true });
      if (view === "projects" || view === "members") await shoot(view);
    }
  }, 60_000);
});
