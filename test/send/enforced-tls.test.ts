/**
 * settings.tls "enforced" (Lettermint's per-email TLS policy) and the route's tls setting as its
 * default: such a message goes only over STARTTLS with a certificate valid for the MX name; an MX
 * that cannot do it gets a soft bounce saying why, retried as usual, and never the message in
 * plaintext. Real SMTP sinks on loopback play the MX hosts: one offers STARTTLS with a test CA's
 * certificate for mx.good.test, one offers no STARTTLS at all (127.0.0.2, same port). The SMTP
 * agent (a child process) trusts the test CA the production way, NODE_EXTRA_CA_CERTS.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitFor } from "../helpers.ts";
import { makeTestCert, type TestCert } from "../webhooks/support.ts";
import { SENDER_DOMAIN, startOutbound, startSink, type OutboundHarness, type Sink } from "./harness.ts";

let h: OutboundHarness;
let cert: TestCert;
let tlsSink: Sink; // 127.0.0.1: STARTTLS, certificate for mx.good.test from the test CA
let plainSink: Sink; // 127.0.0.2: no STARTTLS
const caBefore = process.env.NODE_EXTRA_CA_CERTS;

beforeAll(async () => {
  cert = makeTestCert(["mx.good.test"]);
  // Read by the SMTP agent as it starts (on the first delivery), as in production.
  process.env.NODE_EXTRA_CA_CERTS = cert.caPath;
  tlsSink = await startSink({ tls: { key: cert.keyPem, cert: cert.certPem } });
  plainSink = await startSink({ host: "127.0.0.2", port: tlsSink.port, noSTARTTLS: true });
  // A short queue lifetime: the retries of a deferred message run out within the test.
  h = await startOutbound({ sink: tlsSink, env: { POSTHORN_QUEUE_LIFETIME: "2" } });
  for (const [domain, mx] of [
    ["good.test", "mx.good.test"],
    ["plain.test", "mx.plain.test"],
    ["wrongname.test", "mx.wrongname.test"],
  ]) h.dns.set(domain!, "MX", [{ exchange: mx!, priority: 10 }]);
  h.dns.set("mx.good.test", "A", ["127.0.0.1"]);
  h.dns.set("mx.wrongname.test", "A", ["127.0.0.1"]); // the certificate does not name it
  h.dns.set("mx.plain.test", "A", ["127.0.0.2"]);
});

afterAll(async () => {
  await h?.close();
  await tlsSink?.close();
  await plainSink?.close();
  if (caBefore === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
  else process.env.NODE_EXTRA_CA_CERTS = caBefore;
});

const mail = (to: string, extra: Record<string, unknown> = {}) => ({ from: `app@${SENDER_DOMAIN}`, to: [to], subject: `to ${to}`, text: "TLS policy test", ...extra });

async function send(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.send(mail(to, extra));
  expect(res.status).toBe(202);
  return res.json.message_id;
}

/** The first delivery outcome of the message in its history. */
const outcome = (id: string) =>
  waitFor(() => h.history(id).find((e) => ["message.delivered", "message.soft_bounced", "message.hard_bounced"].includes(e.kind)), 10_000);
const receivedBy = (s: Sink, to: string) => s.received.filter((m) => m.to.includes(to));
const storedPolicy = async (id: string) => (await h.sql.get<{ tls: string }>("SELECT tls FROM message_contents WHERE message_id = ?", [id]))!.tls;

describe("settings.tls enforced", () => {
  test("an MX offering STARTTLS with a certificate valid for its name: delivered over verified TLS", async () => {
    const id = await send("alice@good.test", { settings: { tls: "enforced" } });
    const o = await outcome(id);
    expect(o.kind).toBe("message.delivered");
    expect(o.data.tls).toMatchObject({ protocol: expect.stringMatching(/^TLSv1\.[23]$/), verified: true });
    expect(receivedBy(tlsSink, "alice@good.test")).toHaveLength(1);
    expect(receivedBy(tlsSink, "alice@good.test")[0]!.secure).toBe(true);
    expect(await storedPolicy(id)).toBe("enforced");
  });

  test("an MX without STARTTLS: soft bounce with the reason, retried until the queue lifetime, never sent in plaintext", async () => {
    const id = await send("bob@plain.test", { settings: { tls: "enforced" } });
    const o = await outcome(id);
    expect(o.kind).toBe("message.soft_bounced");
    expect(o.data.response).toMatchObject({ code: null, enhanced_code: "4.7.5" });
    expect(o.data.response.message).toStartWith(
      "TLS required by the sender (tls: enforced): mx.plain.test [127.0.0.2]: TLS required, the server does not offer STARTTLS",
    );
    expect(plainSink.connections).toBeGreaterThan(0); // it was asked, and it was not given the message
    // The usual retries, each refused the same way, until the queue lifetime ends it.
    expect(await h.waitForStatus(id, ["failed"], 10_000)).toBe("failed");
    const bounces = h.history(id).filter((e) => e.kind === "message.soft_bounced");
    expect(bounces.length).toBeGreaterThan(1);
    for (const b of bounces) expect(b.data.response.message).toStartWith("TLS required by the sender (tls: enforced): mx.plain.test");
    expect(receivedBy(plainSink, "bob@plain.test")).toEqual([]);
  });

  test("a certificate not valid for the MX name: soft bounce saying so, never sent", async () => {
    const id = await send("carol@wrongname.test", { settings: { tls: "enforced" } });
    const o = await outcome(id);
    expect(o.kind).toBe("message.soft_bounced");
    expect(o.data.response.enhanced_code).toBe("4.7.5");
    expect(o.data.response.message).toStartWith("TLS required by the sender (tls: enforced): mx.wrongname.test [127.0.0.1]: TLS required, TLS handshake failed:");
    expect(o.data.response.message).toContain("is not in the cert's altnames");
    await Bun.sleep(200);
    expect(receivedBy(tlsSink, "carol@wrongname.test")).toEqual([]);
  });

  test("opportunistic (the default): the same MX hosts take the message, in plaintext or unverified TLS", async () => {
    const plain = await send("dave@plain.test");
    expect((await outcome(plain)).kind).toBe("message.delivered");
    expect(receivedBy(plainSink, "dave@plain.test")[0]!.secure).toBe(false);
    expect(await storedPolicy(plain)).toBe("opportunistic");
    const wrong = await send("erin@wrongname.test", { settings: { tls: "opportunistic" } });
    const o = await outcome(wrong);
    expect(o.kind).toBe("message.delivered");
    expect(o.data.tls).toMatchObject({ verified: false });
  });

  test("tls outside the enum: a 422 with the error body, nothing stored", async () => {
    const before = Number((await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n);
    for (const tls of ["required", "ENFORCED", true, ""]) {
      const res = await h.send(mail("frank@good.test", { settings: { tls } }));
      expect({ tls, status: res.status }).toEqual({ tls, status: 422 });
      expect(res.json).toMatchObject({ error: "validation_failed", message: expect.any(String) });
      expect(Object.keys(res.json.errors)).toEqual(["settings"]);
    }
    const batch = await h.request("POST", "/v1/send/batch", {
      projectToken: h.team.projectToken,
      body: [mail("frank@good.test"), mail("frank@good.test", { settings: { tls: "strict" } })],
    });
    expect(batch.status).toBe(422);
    expect(Object.keys(batch.json.errors)).toEqual(["1.settings"]);
    expect(Number((await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n)).toBe(before);
  });
});

describe("through a relay (POSTHORN_DELIVERY=relay)", () => {
  test("enforced: the hop to the relay must be verified TLS; a relay without STARTTLS gets nothing, an opportunistic message goes", async () => {
    // The relay is the STARTTLS-less sink on 127.0.0.2: a loopback relay without credentials is otherwise used in plaintext.
    const viaRelay = await startOutbound({ dns: h.dns, sink: plainSink, env: { POSTHORN_DELIVERY: "relay", POSTHORN_RELAY_URL: `smtp://127.0.0.2:${plainSink.port}` } });
    try {
      const held = (await viaRelay.send(mail("ivan@good.test", { settings: { tls: "enforced" } }))).json.message_id as string;
      const o = await waitFor(() => viaRelay.history(held).find((e) => e.kind === "message.soft_bounced" || e.kind === "message.delivered"), 10_000);
      expect(o.kind).toBe("message.soft_bounced");
      expect(o.data.response.enhanced_code).toBe("4.7.5");
      expect(o.data.response.message).toStartWith("TLS required by the sender (tls: enforced): relay 127.0.0.2: TLS required, the server does not offer STARTTLS");
      const sent = (await viaRelay.send(mail("judy@good.test"))).json.message_id as string;
      expect(await viaRelay.waitForStatus(sent, ["delivered"], 10_000)).toBe("delivered");
      expect(receivedBy(plainSink, "judy@good.test")).toHaveLength(1);
      expect(receivedBy(plainSink, "ivan@good.test")).toEqual([]);
    } finally {
      await viaRelay.close();
    }
  });
});

describe("the route's tls setting", () => {
  test("enforced on the route is the default of its messages; a send's own settings.tls overrides it", async () => {
    const route = (await h.request("GET", `/v1/projects/${h.team.projectId}/routes`)).json.data.find((r: { route_type: string }) => r.route_type === "transactional");
    const put = await h.request("PUT", `/v1/routes/${route.id}`, { body: { settings: { tls: "enforced" } } });
    expect(put.status).toBe(200);
    expect(put.json.data.settings.tls).toBe("enforced");
    try {
      const held = await send("grace@plain.test");
      expect(await storedPolicy(held)).toBe("enforced");
      const o = await outcome(held);
      expect(o.kind).toBe("message.soft_bounced");
      expect(o.data.response.message).toStartWith("TLS required by the sender (tls: enforced): mx.plain.test");

      const overridden = await send("heidi@plain.test", { settings: { tls: "opportunistic" } });
      expect(await storedPolicy(overridden)).toBe("opportunistic");
      expect((await outcome(overridden)).kind).toBe("message.delivered");
      expect(receivedBy(plainSink, "heidi@plain.test")).toHaveLength(1);
      expect(receivedBy(plainSink, "grace@plain.test")).toEqual([]);
    } finally {
      await h.request("PUT", `/v1/routes/${route.id}`, { body: { settings: { tls: "opportunistic" } } });
    }
  });
});
