/**
 * The loop closed end to end: 200 messages sent through Posthorn to a loopback receiver (whose
 * outbound connections teach Posthorn its sending address), then DMARC aggregate reports about
 * them, with a forged source among them, delivered over real SMTP to Posthorn's own MX at the
 * domain's report address; the API shows the pass rates of our mail, the forged IP apart with
 * its count, and advice naming the fix.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";
import { sendRaw } from "../smtp/support.ts";
import { dmarcXml, gz, reportMail, zipOf } from "../support/report-files.ts";
import { drain, sendTo, statusCounts } from "../support/strict-sink.ts";

const RECEIVER = "gmail.test";
const MESSAGES = 200;
const FORGED = "203.0.113.66";

let h: OutboundHarness;
let mx: RunningListener;

beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink(RECEIVER);
  mx = await startInboundListener(h.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200 });
});

afterAll(async () => {
  await mx?.stop();
  await h?.close();
});

test(`${MESSAGES} messages sent, reports about them and a forged source received: the API shows our pass rates and the forged IP`, async () => {
  const t0 = Date.now();
  await sendTo(h, RECEIVER, MESSAGES, "user");
  await drain(h, RECEIVER, MESSAGES, 60_000);
  expect(statusCounts(h, RECEIVER)).toEqual({ delivered: MESSAGES });
  expect(h.sink.received.length).toBe(MESSAGES);

  // Posthorn learned the address its connections came from (loopback here).
  const path = `/v1/domains/${h.domain.domainId}/deliverability/dmarc`;
  const learned = await waitFor(async () => {
    const res = await h.request("GET", path);
    return (res.json.our_addresses as string[]).includes("127.0.0.1") ? res.json : null;
  });
  const address = learned.report_addresses.dmarc as string;
  expect(address).toMatch(/^dmarc\+[0-9a-f]{32}\.[0-9a-f]{16}@/);

  // The receivers' reports for the day: Google saw all 200 pass; Yahoo saw 24 of its 200 fail SPF
  // (DKIM kept them passing DMARC); both saw mail from a forged source that failed everything.
  const begin = Math.floor(Date.UTC(new Date(t0).getUTCFullYear(), new Date(t0).getUTCMonth(), new Date(t0).getUTCDate()) / 1000);
  const day = new Date(begin * 1000).toISOString().slice(0, 10);
  const envelope = "ph-bounces.sender.test";
  const google = dmarcXml({
    org: "google.com",
    reportId: `${begin}.google`,
    begin,
    end: begin + 86399,
    domain: "sender.test",
    rows: [
      { ip: "127.0.0.1", count: MESSAGES, dkim: "pass", spf: "pass", envelopeFrom: envelope },
      { ip: FORGED, count: 17, dkim: "fail", spf: "fail", envelopeFrom: "sender.test", disposition: "none" },
    ],
  });
  const yahoo = dmarcXml({
    org: "Yahoo",
    reportId: `${begin}.yahoo`,
    begin,
    end: begin + 86399,
    domain: "sender.test",
    rows: [
      { ip: "127.0.0.1", count: MESSAGES - 24, dkim: "pass", spf: "pass", envelopeFrom: envelope },
      { ip: "127.0.0.1", count: 24, dkim: "pass", spf: "fail", envelopeFrom: envelope, spfAuth: "softfail" },
      { ip: FORGED, count: 5, dkim: "fail", spf: "fail", envelopeFrom: "sender.test" },
    ],
  });
  for (const raw of [
    await reportMail({ to: address, filename: `google.com!sender.test!${begin}!${begin + 86399}.zip`, contentType: "application/zip", content: zipOf("report.xml", google) }),
    await reportMail({ to: address, from: "dmarchelp@yahooinc.com", filename: `yahoo.com!sender.test!${begin}!${begin + 86399}.xml.gz`, contentType: "application/gzip", content: gz(yahoo) }),
  ]) {
    const reply = await sendRaw(mx.port, { from: "noreply-dmarc-support@google.com", to: [address] }, raw);
    expect(reply.response).toStartWith("250");
  }

  const res = await h.request("GET", `${path}?from=${day}&to=${day}`);
  expect(res.status).toBe(200);
  const body = res.json;
  expect(body.reports).toBe(2);
  expect(body.total.ours).toMatchObject({ messages: 2 * MESSAGES, dmarc_pass: 2 * MESSAGES, dkim_aligned: 2 * MESSAGES, spf_aligned: 2 * MESSAGES - 24, dmarc_rate: 1, spf_rate: 0.94 });
  expect(body.total.elsewhere).toMatchObject({ messages: 22, dmarc_pass: 0, dmarc_rate: 0 });
  const reporters = Object.fromEntries(body.days[0].reporters.map((r: { org_name: string }) => [r.org_name, r]));
  expect(body.days[0].date).toBe(day);
  // Joined to our own sends of the day (the statistics): the 200 recipients delivered, beside the reports' 200 per reporter.
  expect(body.days[0].posthorn).toEqual({ sent: MESSAGES, delivered: MESSAGES });
  expect(body.posthorn).toEqual({ sent: MESSAGES, delivered: MESSAGES });
  expect(reporters["google.com"].ours).toMatchObject({ messages: MESSAGES, spf_rate: 1, dkim_rate: 1, dmarc_rate: 1 });
  expect(reporters["google.com"].elsewhere.sources).toEqual([
    { source_ip: FORGED, messages: 17, spf_aligned: 0, dkim_aligned: 0, dmarc_pass: 0, spf_rate: 0, dkim_rate: 0, dmarc_rate: 0, quarantined: 0, rejected: 0 },
  ]);
  expect(reporters.Yahoo.ours).toMatchObject({ messages: MESSAGES, spf_aligned: MESSAGES - 24, spf_rate: 0.88, dmarc_rate: 1 });
  expect(reporters.Yahoo.elsewhere.sources.map((s: { source_ip: string; messages: number }) => [s.source_ip, s.messages])).toEqual([[FORGED, 5]]);
  // The most messages first: 24 of ours failing SPF, then the 22 forged.
  expect(body.advice.map((a: { kind: string; message: string }) => [a.kind, a.message])).toEqual([
    ["spf_fails", "6 % of mail from 127.0.0.1 fails SPF: add ip4:127.0.0.1 to the SPF record of ph-bounces.sender.test."],
    [
      "unknown_source",
      `22 messages from ${FORGED}, not a Posthorn address, failed DMARC for sender.test: if it is a service sending for you, add ip4:${FORGED} to the SPF record of sender.test or have it sign with DKIM as sender.test; if not, it is spoofing, which p=quarantine or p=reject in the DMARC record stops.`,
    ],
  ]);
}, 120_000);
