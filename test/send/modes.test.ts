import { expect, test } from "bun:test";
import { relayTargetOf } from "../../src/mail/smtp-delivery.ts";
import { closeOutbound } from "../../src/mail/outbound-job.ts";
import { startOutbound, startSink } from "./harness.ts";

const mail = (to: string) => ({ from: "app@sender.test", to: [to], subject: "Relayed", text: "via the smarthost" });

test("relay mode: everything goes to POSTHORN_RELAY_URL, authenticated, whatever the recipient domain", async () => {
  const relay = await startSink({ auth: { user: "posthorn", pass: "s3cr:et/" }, hideSTARTTLS: true });
  const h = await startOutbound({
    sink: relay,
    env: { POSTHORN_DELIVERY: "relay", POSTHORN_RELAY_URL: `smtp://posthorn:${encodeURIComponent("s3cr:et/")}@127.0.0.1:${relay.port}` },
  });
  try {
    // No MX records exist for these domains: relay mode never looks them up.
    const a = await h.send(mail("one@anywhere.example"));
    const b = await h.send(mail("two@elsewhere.example"));
    expect(await h.waitForStatus(a.json.message_id, ["delivered"])).toBe("delivered");
    expect(await h.waitForStatus(b.json.message_id, ["delivered"])).toBe("delivered");
    expect(relay.received.map((m) => m.to[0]).sort()).toEqual(["one@anywhere.example", "two@elsewhere.example"]);
    expect(relay.received[0]!.from).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{20}@ph-bounces\.sender\.test$/);
  } finally {
    await h.close();
    await relay.close();
  }
});

test("relay mode with wrong credentials: soft_bounced, not lost", async () => {
  const relay = await startSink({ auth: { user: "posthorn", pass: "right" }, hideSTARTTLS: true });
  const h = await startOutbound({
    sink: relay,
    env: { POSTHORN_DELIVERY: "relay", POSTHORN_RELAY_URL: `smtp://posthorn:wrong@127.0.0.1:${relay.port}` },
  });
  try {
    const a = await h.send(mail("one@anywhere.example"));
    expect(await h.waitForStatus(a.json.message_id, ["soft_bounced"])).toBe("soft_bounced");
    expect(relay.received.length).toBe(0);
    expect(h.recipients(a.json.message_id)[0]!.last_response).toContain("535");
  } finally {
    await h.close();
    await relay.close();
  }
});

test("relay URLs: smtps implies TLS on 465, credentials are decoded, non-loopback relays require TLS for AUTH", () => {
  expect(relayTargetOf("smtps://u%40x:p%3Aw@relay.example.net")).toMatchObject({
    host: "relay.example.net",
    port: 465,
    secure: true,
    auth: { user: "u@x", pass: "p:w" },
    verifyCertificate: true,
    requireTLS: true,
  });
  expect(relayTargetOf("smtp://127.0.0.1:2525")).toMatchObject({ host: "127.0.0.1", port: 2525, secure: false, auth: null, requireTLS: false });
});

test("sink mode: composed, signed and recorded as delivered; nothing is sent", async () => {
  const probe = await startSink();
  const h = await startOutbound({ sink: probe, env: { POSTHORN_DELIVERY: "sink" } });
  try {
    const res = await h.send(mail("x@dest.example"));
    const id = res.json.message_id;
    expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
    expect(probe.connections).toBe(0);
    const raw = h.sqlNow.get<{ raw: Uint8Array }>("SELECT raw FROM message_contents WHERE message_id = ?", [id])!.raw;
    expect(Buffer.from(raw).toString("latin1")).toStartWith("DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=sender.test;");
    expect(h.history(id).map((e) => e.status)).toEqual(["pending", "queued", "processed", "delivered"]);
  } finally {
    await h.close();
    await probe.close();
  }
});

test("shutdown lets a delivery under way finish and record its reply before connections close", async () => {
  const h = await startOutbound();
  try {
    h.routeToSink("slowmx.test");
    h.sink.dataDelayMs = 400;
    const res = await h.send(mail("x@slowmx.test"));
    const id = res.json.message_id;
    await h.waitForStatus(id, ["processed"]);
    // The order of RunningServer.stop: background pieces (this), the runner, then the store.
    await closeOutbound(h.deps);
    expect(h.sink.received.length).toBe(1); // the transaction under way completed before the pools closed
    await h.runner.stop(2000);
    // The runner frees a job's slot when its handler returns; the outcome commits just after.
    expect(await h.waitForStatus(id, ["delivered"], 2000)).toBe("delivered");
  } finally {
    h.sink.dataDelayMs = 0;
    await h.close();
  }
});
