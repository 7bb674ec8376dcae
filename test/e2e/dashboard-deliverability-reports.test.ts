/**
 * DMARC and TLS reports on the dashboard's Deliverability page, in Debian's Chromium: aggregate
 * reports for yesterday and today (one source is Posthorn's sending address, one a forged source)
 * and RFC 8460's example TLS report, delivered over real SMTP to Posthorn's MX at the domain's
 * report addresses; the page draws the domain's DMARC pass rates as lines of a real size, lists
 * the forged IP with its count, the TLS failures per MX with their result types, and the advice
 * (docs/deliverability.md, docs/dashboard.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { tempDir } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";
import { sendRaw } from "../smtp/support.ts";
import { keepScreenshots, launchChromium, shoot, inviteWithPassword, signedInPage } from "../support/chromium.ts";
import { dmarcXml, gz, reportMail, rfc8460Example } from "../support/report-files.ts";
import { requireTool } from "../support/tools.ts";

const OURS = "192.0.2.7";
const FORGED = "203.0.113.66";
const DAY_S = 86_400;

describe.skipIf(!requireTool("chromium"))("DMARC and TLS reports on the Deliverability page in Chromium", () => {
  let h: OutboundHarness;
  let mx: RunningListener;
  let listener: ReturnType<typeof Bun.serve>;
  let browser: Browser;
  let page: Page;
  const shots = tempDir("dashboard-deliverability-reports-screenshots-");

  beforeAll(async () => {
    h = await startOutbound({ env: { POSTHORN_SENDING_ADDRESSES: OURS } });
    mx = await startInboundListener(h.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200 });
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.app.handle(req) });

    const overview = await h.request("GET", `/v1/domains/${h.domain.domainId}/deliverability/dmarc`);
    expect(overview.status).toBe(200);
    const { dmarc: dmarcAddress, tls_rpt: tlsAddress } = overview.json.report_addresses as { dmarc: string; tls_rpt: string };

    // Yesterday: all 100 of ours pass, 17 forged fail. Today: 20 of ours fail SPF (DKIM passes), 5 forged fail.
    const today = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S;
    const days = [
      { begin: today - DAY_S, rows: [{ ip: OURS, count: 100, dkim: "pass", spf: "pass" }, { ip: FORGED, count: 17, dkim: "fail", spf: "fail" }] },
      {
        begin: today,
        rows: [
          { ip: OURS, count: 80, dkim: "pass", spf: "pass" },
          { ip: OURS, count: 20, dkim: "pass", spf: "fail", spfAuth: "softfail" },
          { ip: FORGED, count: 5, dkim: "fail", spf: "fail" },
        ],
      },
    ] as const;
    for (const d of days) {
      const xml = dmarcXml({ org: "google.com", reportId: `${d.begin}.google`, begin: d.begin, end: d.begin + DAY_S - 1, domain: "sender.test", rows: d.rows.map((r) => ({ ...r, envelopeFrom: "sender.test" })) });
      const raw = await reportMail({ to: dmarcAddress, filename: `google.com!sender.test!${d.begin}!${d.begin + DAY_S - 1}.xml.gz`, contentType: "application/gzip", content: gz(xml) });
      expect((await sendRaw(mx.port, { from: "noreply-dmarc-support@google.com", to: [dmarcAddress] }, raw)).response).toStartWith("250");
    }
    const day = new Date(today * 1000).toISOString().slice(0, 10);
    const tls = await reportMail({
      from: "sts-reporting@company-x.example",
      to: tlsAddress,
      filename: `company-x.example!sender.test!${today}!${today + DAY_S - 1}!001.json.gz`,
      contentType: "application/tlsrpt+gzip",
      content: gz(JSON.stringify(rfc8460Example("sender.test", day))),
    });
    expect((await sendRaw(mx.port, { from: "sts-reporting@company-x.example", to: [tlsAddress] }, tls)).response).toStartWith("250");

    // Our own delivery of the same day, to the sink on loopback (STARTTLS, a certificate not valid for its name).
    h.routeToSink("dest.test");
    const sent = await h.send({ from: "app@sender.test", to: ["someone@dest.test"], subject: "own TLS", text: "beside the reports" });
    expect(sent.status).toBe(202);
    expect(await h.waitForStatus(sent.json.message_id, ["delivered"], 10_000)).toBe("delivered");

    await inviteWithPassword(h.request, "ops@example.com");

    browser = await launchChromium();
    page = await signedInPage(browser, `http://127.0.0.1:${listener.port}`, "ops@example.com");
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
    await mx?.stop();
    await h?.close();
  });

  test("the pass-rate chart's lines and dots have a size, and the forged IP, the TLS failures per MX and the advice are shown", async () => {
    await page.getByRole("link", { name: "Deliverability" }).click();
    const box = page.locator('.domain-reports[data-domain="sender.test"]');
    const chart = box.locator('figure.chart[data-chart="DMARC pass rates of sender.test"]');
    await chart.waitFor();

    // Two days with reports: each series a line across both and a dot per day, at its rate.
    for (const [series, values] of [
      ["ours_dmarc", [1, 1]],
      ["ours_spf", [1, 0.8]],
      ["ours_dkim", [1, 1]],
      ["elsewhere_dmarc", [0, 0]],
    ] as const) {
      const line = chart.locator(`polyline[data-series="${series}"]`);
      expect(await line.count()).toBe(1);
      const lb = (await line.boundingBox())!;
      expect(lb.width).toBeGreaterThan(100);
      const dots = chart.locator(`circle[data-series="${series}"]`);
      expect(await dots.count()).toBe(2);
      expect(await dots.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-value"))))).toEqual([...values]);
      for (const b of await dots.evaluateAll((els) => els.map((e) => {
          const r = e.getBoundingClientRect();
          return { width: r.width, height: r.height };
        }))) {
        expect(b.width).toBeGreaterThan(0);
        expect(b.height).toBeGreaterThan(0);
      }
    }
    // SPF falls from 100 % to 80 %: its line has a height too.
    expect((await chart.locator('polyline[data-series="ours_spf"]').boundingBox())!.height).toBeGreaterThan(10);
    expect(await chart.locator(".legend li").allTextContents()).toEqual(["Our mail: DMARC pass", "Our mail: SPF aligned", "Our mail: DKIM aligned", "Elsewhere: DMARC pass"]);

    const forged = box.locator(`table.unknown-sources tbody tr[data-ip="${FORGED}"]`);
    expect(await forged.locator("td").allTextContents()).toEqual([FORGED, "22", "0%", "google.com"]);
    expect(await box.locator("table.unknown-sources tbody tr").count()).toBe(1);
    expect(await box.locator(".reports-summary").textContent()).toContain("2 DMARC reports and 1 TLS report");

    expect(await box.locator("table.tls-failures tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)))).toEqual([
      ["mx2.mail.sender.test", "200", "starttls-not-supported (200)"],
      ["mx1.mail.sender.test", "100", "certificate-expired (100)"],
      ["mx-backup.mail.sender.test", "3", "validation-failure (3)"],
    ]);

    // Beside them, our own attempts of the same days per MX host by the TLS they used.
    expect(await box.locator("table.own-tls tbody tr").evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)))).toEqual([
      ["mx.sink.test", "0", "1", "0", "0"],
    ]);

    const advice = await box.locator(".advice li").allTextContents();
    expect(advice).toContain(
      `22 messages from ${FORGED}, not a Posthorn address, failed DMARC for sender.test: if it is a service sending for you, add ip4:${FORGED} to the SPF record of sender.test or have it sign with DKIM as sender.test; if not, it is spoofing, which p=quarantine or p=reject in the DMARC record stops.`,
    );
    expect(advice.some((a) => a.includes(`fails SPF: add ip4:${OURS} to the SPF record of sender.test`))).toBe(true);
    expect(advice).toContain("200 sessions to mx2.mail.sender.test failed (starttls-not-supported): mx2.mail.sender.test does not offer STARTTLS: enable it there.");
    await shoot(page, shots, "deliverability-reports");
  }, 30_000);
});
