/**
 * GET …/deliverability/tls shows, beside what receivers report about failed TLS sessions (TLS-RPT),
 * Posthorn's own delivery attempts of the same days per MX host by the TLS they used (issue 47).
 * Real SMTP sinks on loopback play the MX hosts: 127.0.0.1 offers STARTTLS with a test CA's
 * certificate for mx.good.test (also the MX of wrongname.test, whose name it does not carry),
 * 127.0.0.2 offers no STARTTLS. The TLS report goes over SMTP to the domain's TLS-RPT address.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { syncReportRecords } from "../../src/reports/report-records.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import type { RunningListener } from "../../src/smtp/listener.ts";
import { waitFor } from "../helpers.ts";
import { SENDER_DOMAIN, startOutbound, startSink, type OutboundHarness, type Sink } from "../send/harness.ts";
import { sendRaw } from "../smtp/support.ts";
import { gz, reportMail, rfc8460Example } from "../support/report-files.ts";
import { makeTestCert } from "../webhooks/support.ts";

let h: OutboundHarness;
let tlsSink: Sink;
let plainSink: Sink;
let mx: RunningListener;
const caBefore = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  const cert = makeTestCert(["mx.good.test"]);
  process.env.NODE_EXTRA_CA_CERTS = cert.caPath;
  tlsSink = await startSink({ tls: { key: cert.keyPem, cert: cert.certPem } });
  plainSink = await startSink({ host: "127.0.0.2", port: tlsSink.port, noSTARTTLS: true });
  h = await startOutbound({ sink: tlsSink, env: { POSTHORN_QUEUE_LIFETIME: "2" } });
  for (const [domain, host] of [
    ["good.test", "mx.good.test"],
    ["plain.test", "mx.plain.test"],
    ["wrongname.test", "mx.wrongname.test"],
  ]) h.dns.set(domain!, "MX", [{ exchange: host!, priority: 10 }]);
  h.dns.set("mx.good.test", "A", ["127.0.0.1"]);
  h.dns.set("mx.wrongname.test", "A", ["127.0.0.1"]);
  h.dns.set("mx.plain.test", "A", ["127.0.0.2"]);
  mx = await startInboundListener(h.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200 });
});

afterAll(async () => {
  await mx?.stop();
  await h?.close();
  await tlsSink?.close();
  await plainSink?.close();
  if (caBefore === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = caBefore;
});

async function send(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.send({ from: `app@${SENDER_DOMAIN}`, to: [to], subject: `to ${to}`, text: "TLS outcomes", ...extra });
  expect(res.status).toBe(202);
  return res.json.message_id;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Own {
  date: string;
  mx_host: string | null;
  verified_tls: number;
  unverified_tls: number;
  plaintext: number;
  tls_failures: number;
}

/** The period's own rows summed per MX host (the test may straddle a UTC midnight). */
function perHost(own: Own[]): Record<string, Omit<Own, "date" | "mx_host">> {
  const out: Record<string, Omit<Own, "date" | "mx_host">> = {};
  for (const r of own) {
    const k = r.mx_host ?? "(none)";
    const s = (out[k] ??= { verified_tls: 0, unverified_tls: 0, plaintext: 0, tls_failures: 0 });
    s.verified_tls += r.verified_tls;
    s.unverified_tls += r.unverified_tls;
    s.plaintext += r.plaintext;
    s.tls_failures += r.tls_failures;
  }
  return out;
}

describe("our own TLS outcomes beside the TLS reports", () => {
  test("verified, unverified, plaintext and refused-for-TLS attempts per MX host and day, beside the report's failures per MX", async () => {
    const start = Date.now();
    const ids = [
      await send("alice@good.test"),
      await send("carol@wrongname.test"),
      await send("bob@plain.test"),
      await send("dave@plain.test", { settings: { tls: "enforced" } }),
    ];
    // Delivered three; the enforced one soft-bounces until its 2 s queue lifetime ends it.
    for (const id of ids.slice(0, 3)) expect(await h.waitForStatus(id, ["delivered"], 10_000)).toBe("delivered");
    expect(await h.waitForStatus(ids[3]!, ["failed"], 15_000)).toBe("failed");
    const refusals = h.history(ids[3]!).filter((e) => e.data.response?.enhanced_code === "4.7.5").length;
    expect(refusals).toBeGreaterThan(0);

    // The receiver's TLS report for the same day, over SMTP to the domain's TLS-RPT address.
    await syncReportRecords(h.deps.store, await serverSecretOf(h.deps.store), h.deps.config.inboundDomain);
    const dmarc = await h.request("GET", `/v1/domains/${h.domain.domainId}/deliverability/dmarc`);
    expect(dmarc.status).toBe(200);
    const tlsAddress = dmarc.json.report_addresses.tls_rpt as string;
    expect(tlsAddress).toStartWith("tlsrpt+");
    const today = day(Date.now());
    const raw = await reportMail({ to: tlsAddress, filename: "r.json.gz", contentType: "application/tlsrpt+gzip", content: gz(JSON.stringify(rfc8460Example(SENDER_DOMAIN, today))) });
    expect((await sendRaw(mx.port, { from: "sts-reporting@company-x.example", to: [tlsAddress] }, raw)).response).toStartWith("250");

    const from = day(start);
    const res = await waitFor(async () => {
      const r = await h.request("GET", `/v1/domains/${h.domain.domainId}/deliverability/tls?from=${from}&to=${today}`);
      return r.json?.by_mx?.length > 0 ? r : null;
    }, 5000);
    expect(res.status).toBe(200);
    // The receiver's view: failures per MX with their result types.
    expect(res.json.by_mx.map((m: { mx_host: string }) => m.mx_host)).toContain(`mx2.mail.${SENDER_DOMAIN}`);
    // Ours, of the same days.
    expect(res.json.own.every((r: Own) => r.date >= from && r.date <= today)).toBe(true);
    expect(perHost(res.json.own)).toEqual({
      "mx.good.test": { verified_tls: 1, unverified_tls: 0, plaintext: 0, tls_failures: 0 },
      "mx.wrongname.test": { verified_tls: 0, unverified_tls: 1, plaintext: 0, tls_failures: 0 },
      "mx.plain.test": { verified_tls: 0, unverified_tls: 0, plaintext: 1, tls_failures: 0 },
      "(none)": { verified_tls: 0, unverified_tls: 0, plaintext: 0, tls_failures: refusals },
    });

    // Bounded by the period: the day before holds none of it.
    const before = day(Date.parse(`${from}T00:00:00Z`) - 86_400_000);
    const earlier = await h.request("GET", `/v1/domains/${h.domain.domainId}/deliverability/tls?from=${before}&to=${before}`);
    expect(earlier.status).toBe(200);
    expect(earlier.json.own).toEqual([]);
  }, 40_000);
});
