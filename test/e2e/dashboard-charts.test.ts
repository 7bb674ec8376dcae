/**
 * The overview's charts in Debian's Chromium (docs/dashboard.md): a whole server delivers directly
 * to a loopback MX (a sink that accepts, defers and refuses by recipient), a reader and a mail
 * provider's image proxy open and click; the overview then draws the period from GET /v1/stats
 * and POST /v1/analytics. The test reads the bars' figures back from the SVG and compares them
 * with the API's, decodes a screenshot of each chart and counts the pixels of the series' colours
 * (a blank or unstyled chart fails), follows a provider's bar to the messages behind it, and
 * checks that a member whose role lacks the statistics permissions gets no charts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { unzlibSync } from "fflate";
import type { Browser, Page } from "playwright-core";
import { trackingToken } from "../../src/auth/tracking-tokens.ts";
import type { BootstrapResult } from "../../src/bootstrap.ts";
import { PostgresExecutor } from "../../src/db/postgres.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { startSink, type Sink } from "../send/harness.ts";
import { databaseEnv, sqlOf, tempDir, testConfig, waitFor } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot } from "../support/chromium.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { requireTool } from "../support/tools.ts";

const CHROME_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLE_PROXY_UA = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";

/** The series' colours as the overview draws them (src/web/app/views/overview.tsx). */
const COLOR = { sent: [0x1f, 0x5f, 0xbf], delivered: [0x1e, 0x7a, 0x3c], hard_bounced: [0xb3, 0x26, 0x1e], privacy: [0x17, 0xa2, 0xb8] } as const;

/** An 8-bit RGB or RGBA PNG (as Chromium writes screenshots), decoded to its pixels. */
function decodePng(png: Uint8Array): { width: number; height: number; channels: number; pixels: Uint8Array } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Uint8Array[] = [];
  while (at < png.length) {
    const len = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const body = png.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      const [depth, colorType, , , interlace] = body.subarray(8, 13);
      if (depth !== 8 || interlace !== 0 || (colorType !== 2 && colorType !== 6)) throw new Error(`unexpected PNG: depth ${depth}, colour type ${colorType}, interlace ${interlace}`);
      channels = colorType === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(body);
    at += 12 + len;
  }
  const raw = unzlibSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const pred = filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      pixels[y * stride + x] = (line[x]! + pred) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Pixels of exactly `rgb`, and how many distinct colours the picture has. */
function colours(png: Uint8Array, rgb: readonly number[]): { matching: number; distinct: number } {
  const { width, height, channels, pixels } = decodePng(png);
  const seen = new Set<number>();
  let matching = 0;
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = [pixels[i * channels]!, pixels[i * channels + 1]!, pixels[i * channels + 2]!];
    seen.add((r << 16) | (g << 8) | b);
    if (r === rgb[0] && g === rgb[1] && b === rgb[2]) matching++;
  }
  return { matching, distinct: seen.size };
}

describe.skipIf(!requireTool("chromium"))("the overview's charts in Chromium", () => {
  let server: RunningServer;
  let boot: BootstrapResult;
  let base: string;
  let browser: Browser;
  let page: Page;
  let dns: TestDnsServer;
  let sink: Sink;
  const shots = tempDir("dashboard-charts-screenshots-");
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.parse(today) - 29 * 86_400_000).toISOString().slice(0, 10);

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { authorization: `Bearer ${boot.team_token}` }) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, json: (await res.json()) as any, headers: res.headers };
  };
  const send = (to: string, extra: Record<string, unknown> = {}) =>
    api("POST", "/v1/send", { from: "Shop <hello@shop.example.com>", to: [to], subject: `For ${to}`, text: "Hello there.", ...extra }, { "x-service-token": boot.project_token });
  const statusOf = async (id: string) => (await api("GET", `/v1/messages/${id}`)).json.status as string;

  beforeAll(async () => {
    dns = await startDnsServer();
    sink = await startSink();
    // Mailbox providers' domains, all pointing at the loopback sink.
    for (const domain of ["gmail.com", "outlook.com", "example.org"]) dns.set(domain, "MX", [{ exchange: "mx.sink.test", priority: 10 }]);
    dns.set("mx.sink.test", "A", ["127.0.0.1"]);
    sink.onRcpt = (address) =>
      address.startsWith("nobody@") ? { code: 550, message: "5.1.1 No such user here" } : address.startsWith("full@") ? { code: 452, message: "4.2.2 Mailbox full" } : null;
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
    const domain = await api("POST", "/v1/domains", { domain: "shop.example.com" });
    await api("PUT", `/v1/domains/${domain.json.id}/projects`, { project_ids: [boot.project_id] });

    // Five delivered (three at Google, two at Microsoft), one refused for good, one deferred.
    const ok = ["ann@gmail.com", "bob@gmail.com", "cat@gmail.com", "dan@outlook.com", "eve@outlook.com"];
    const ids: string[] = [];
    for (const to of ok) ids.push((await send(to, { html: `<p>Hi <a href="https://shop.example.com/sale">the sale</a></p>`, track_opens: true, track_clicks: true })).json.message_id);
    const hard = (await send("nobody@gmail.com")).json.message_id as string;
    const soft = (await send("full@outlook.com")).json.message_id as string;
    await waitFor(async () => (await Promise.all(ids.map(statusOf))).every((s) => s === "delivered"), 20_000, 100);
    await waitFor(async () => (await statusOf(hard)) === "hard_bounced", 20_000, 100);
    await waitFor(async () => (await statusOf(soft)) === "soft_bounced", 20_000, 100);

    // A reader opens and clicks the first; Google's image proxy opens the second (a privacy-proxy open).
    const url = server.deps.config.databaseUrl;
    const sql = url ? new PostgresExecutor(new SQL(url, { max: 1, idleTimeout: 1 })) : sqlOf(server.deps);
    // The 250s came a minute ago, so a hit now is not "seconds after delivery" (a scanner's sign).
    for (const id of ids) await sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [id]);
    const secret = await serverSecretOf(server.deps.store);
    const recipientOf = async (id: string) => (await sql.get<{ id: string }>("SELECT id FROM recipients WHERE message_id = ?", [id]))!.id;
    const hit = (path: string, ua: string) => fetch(`${base}${path}`, { redirect: "manual", headers: { "user-agent": ua } });
    const [r0, r1] = [await recipientOf(ids[0]!), await recipientOf(ids[1]!)];
    expect((await hit(`/t/o/${trackingToken(secret, { kind: "open", messageId: ids[0]!, recipientId: r0 })}`, CHROME_UA)).status).toBe(200);
    expect((await hit(`/t/c/${trackingToken(secret, { kind: "click", messageId: ids[0]!, recipientId: r0, link: 0 })}`, CHROME_UA)).status).toBe(302);
    expect((await hit(`/t/o/${trackingToken(secret, { kind: "open", messageId: ids[1]!, recipientId: r1 })}`, GOOGLE_PROXY_UA)).status).toBe(200);

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

  const signIn = async () => {
    await page.goto(`${base}/`);
    await page.getByLabel("Email").fill(boot.owner_email!);
    await page.getByLabel("Password").fill(boot.owner_password!);
    await page.keyboard.press("Enter");
  };
  /** The figures a chart's marks carry, per series: data-value summed. */
  const marks = (chart: string) =>
    page.locator(`figure[data-chart="${chart}"] svg [data-series][data-value]`).evaluateAll((els) => {
      const out: Record<string, number> = {};
      for (const el of els) out[el.getAttribute("data-series")!] = (out[el.getAttribute("data-series")!] ?? 0) + Number(el.getAttribute("data-value"));
      return out;
    });
  const legend = (chart: string) => page.locator(`figure[data-chart="${chart}"] .legend li`).allTextContents();

  test("the last 30 days: every series drawn with the API's figures, and the screenshots are not blank", async () => {
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await signIn();
    await page.getByRole("heading", { name: "Statistics: Last 30 days" }).waitFor();
    const volume = "Sent, delivered, bounced and complaints per day";
    await page.locator(`figure[data-chart="${volume}"] rect[data-series=sent]`).first().waitFor();
    // Offline: everything the page asked for came from this server (no CDN, no font, no chart library).
    expect(requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith("data:"))).toEqual([]);
    expect(requests.some((u) => u.startsWith(`${base}/v1/stats?`))).toBe(true);

    const stats = (await api("GET", `/v1/stats?from=${monthAgo}&to=${today}`)).json;
    expect(stats.totals).toMatchObject({ sent: 7, delivered: 5, hard_bounced: 1, spam_complaints: 0 });
    const analytics = (
      await api("POST", "/v1/analytics", { metrics: ["soft_bounced", "human_opens", "privacy_opens", "machine_opens", "human_clicks", "privacy_clicks", "machine_clicks"], from: monthAgo, to: today })
    ).json.data.summary.metrics;
    expect(analytics).toMatchObject({ soft_bounced: 1, human_opens: 1, privacy_opens: 1, machine_opens: 0, human_clicks: 1 });

    // The bars carry the API's figures; a series with none has no bar, yet its legend names it.
    expect(await marks(volume)).toEqual({ sent: stats.totals.sent, delivered: stats.totals.delivered, soft_bounced: analytics.soft_bounced, hard_bounced: stats.totals.hard_bounced });
    expect(await legend(volume)).toEqual(["Sent7", "Delivered5", "Soft bounced (deferred)1", "Hard bounced1", "Complaints0"]);
    expect(await page.locator(`figure[data-chart="${volume}"] svg rect[data-date="${today}"]`).count()).toBe(4);
    const opens = "Opens by verdict (recipients' first open of each kind)";
    expect(await marks(opens)).toEqual({ human_opens: 1, privacy_opens: 1 });
    expect(await legend(opens)).toEqual(["People1", "Privacy proxies1", "Machines0"]);
    expect(await marks("Clicks by verdict (recipients' first click of each kind)")).toEqual({ human_clicks: 1 });
    // Deliverability: 5 delivered of 6 final outcomes (the deferred one is not final), today only.
    const rate = page.locator(`figure[data-chart="Deliverability rate"] circle[data-series=delivery_rate]`);
    expect(await rate.count()).toBe(1);
    expect(Number(await rate.getAttribute("data-value"))).toBeCloseTo(5 / 6, 6);

    // By provider: google 4 sent (3 delivered, 1 hard), microsoft 3 (2 delivered, 1 soft), as the analytics breakdown says.
    const byProvider = (
      await api("POST", "/v1/analytics", { metrics: ["sent", "delivered", "hard_bounced", "soft_bounced"], from: monthAgo, to: today, include: ["breakdown"], group_by: ["provider_family"] })
    ).json.data.breakdown;
    const provider = (name: string) => byProvider.find((r: any) => r.dimensions.provider_family === name).metrics;
    expect(provider("google")).toMatchObject({ sent: 4, delivered: 3, hard_bounced: 1, soft_bounced: 0 });
    expect(provider("microsoft")).toMatchObject({ sent: 3, delivered: 2, hard_bounced: 0, soft_bounced: 1 });
    const bar = (chart: string, group: string, series: string) => page.locator(`figure[data-chart="${chart}"] rect[data-group="${group}"][data-series="${series}"]`);
    for (const [group, m] of [["google", provider("google")], ["microsoft", provider("microsoft")]] as const) {
      for (const s of ["sent", "delivered", "hard_bounced", "soft_bounced"]) expect(Number(await bar("By recipient provider", group, s).getAttribute("data-value"))).toBe(m[s]);
    }
    expect(Number(await bar("Bounces by reason", "invalid_recipient", "hard_bounced").getAttribute("data-value"))).toBe(1);
    expect(Number(await bar("Bounces by reason", "mailbox_full", "soft_bounced").getAttribute("data-value"))).toBe(1);
    await shoot(page, shots, "overview-charts");

    // The pictures: each chart's screenshot has its series' colours, in more than a few pixels.
    const picture = (chart: string) => page.locator(`figure[data-chart="${chart}"] svg`).screenshot();
    const v = await picture(volume);
    for (const s of ["sent", "delivered", "hard_bounced"] as const) expect(colours(v, COLOR[s]).matching).toBeGreaterThan(40);
    expect(colours(v, COLOR.sent).distinct).toBeGreaterThan(8);
    expect(colours(await picture(opens), COLOR.privacy).matching).toBeGreaterThan(40);
    expect(colours(await picture("By recipient provider"), COLOR.hard_bounced).matching).toBeGreaterThan(40);
  }, 60_000);

  test("a provider's hard-bounce bar opens the period's hard-bounced messages", async () => {
    await page.locator(`figure[data-chart="By recipient provider"] a:has(rect[data-group="google"][data-series="hard_bounced"])`).click();
    await waitFor(async () => (await page.locator("table.messages tbody a").allTextContents()).join("|") === "For nobody@gmail.com", 10_000);
    const query = new URLSearchParams(page.url().split("?")[1]);
    expect(Object.fromEntries(query)).toEqual({ "filter[type]": "outbound", "filter[from_date]": monthAgo, "filter[to_date]": today, "filter[status]": "hard_bounced" });
  }, 30_000);

  test("the period picker: 7 days, and a from–to range longer than 90 days is refused in the form", async () => {
    await page.goto(`${base}/#/`);
    await page.getByRole("button", { name: "7 days" }).click();
    await page.getByRole("heading", { name: "Statistics: Last 7 days" }).waitFor();
    await waitFor(async () => (await page.locator(`figure[data-chart="Sent, delivered, bounced and complaints per day"] svg text`).allTextContents()).length > 0);
    expect(await marks("Sent, delivered, bounced and complaints per day")).toMatchObject({ sent: 7, delivered: 5 });
    const picker = page.getByRole("form", { name: "Period" });
    await picker.getByLabel("From").fill("2020-01-01");
    await picker.getByLabel("To").fill("2020-12-31");
    await picker.getByRole("button", { name: "Show" }).click();
    await expect(picker.getByRole("alert").textContent()).resolves.toBe("A period is at most 90 days.");
    await picker.getByLabel("From").fill(monthAgo);
    await picker.getByLabel("To").fill(today);
    await picker.getByRole("button", { name: "Show" }).click();
    await page.getByRole("heading", { name: `Statistics: ${monthAgo} to ${today}` }).waitFor();
    await page.locator(`figure[data-chart="Sent, delivered, bounced and complaints per day"] rect[data-series=sent]`).first().waitFor();
    expect(await marks("Sent, delivered, bounced and complaints per day")).toMatchObject({ sent: 7, delivered: 5, hard_bounced: 1 });
  }, 30_000);

  test("a member whose role lacks the statistics permissions sees no charts (the API refuses them too)", async () => {
    const role = await api("POST", "/v1/team/roles", { name: "Sender", permissions: ["projects:read", "routes:read", "messages:read", "messages:send"] });
    expect(role.status).toBe(201);
    const invited = await api("POST", "/v1/team/members", { email: "sender@example.com", role: role.json.data?.id ?? role.json.id });
    expect(invited.status).toBe(201);
    const password = "a password of the sender's";
    expect((await api("POST", "/v1/auth/password", { token: invited.json.password_url.split("/").pop(), password }, {})).status).toBe(200);
    const signedIn = await api("POST", "/v1/auth/sign-in", { email: "sender@example.com", password }, {});
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect((await api("GET", `/v1/stats?from=${monthAgo}&to=${today}`, undefined, { cookie })).status).toBe(403);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: "posthorn_session", value: cookie.slice(cookie.indexOf("=") + 1), url: base }]);
    const member = await context.newPage();
    await member.goto(`${base}/`);
    await member.locator("[data-stats=forbidden]").waitFor();
    expect(await member.locator("figure.chart").count()).toBe(0);
    expect(await member.locator("[data-stats=forbidden]").textContent()).toContain("stats:read");
    await shoot(member, shots, "overview-no-stats-permission");
    await context.close();
  }, 30_000);
});
