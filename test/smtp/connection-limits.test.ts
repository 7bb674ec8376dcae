/**
 * Issue 41, finding 6: one client cannot hold every SMTP slot. Connections per client address
 * (POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT) on the MX and on submission, and sessions that only
 * idle (NOOP/RSET loops, POSTHORN_SMTP_IDLE_TIMEOUT_SECONDS). Real sockets on loopback; the other
 * client binds its socket to 127.0.0.2, another address of the loopback range.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSubmissionListener } from "../../src/smtp/submission.ts";
import { createTestApp } from "../helpers.ts";
import { RawSmtpClient, startInbound, type InboundHarness } from "./support.ts";

const PER_CLIENT = 5;
const SLOTS = 20;

describe("MX: connections per client", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT) }, listener: { maxClients: SLOTS } });
  });
  afterAll(() => h.stop());

  test(`one address opening every slot (${SLOTS}) gets ${PER_CLIENT}, the rest 421 4.7.0; another address still gets in and delivers`, async () => {
    const mine = [];
    for (let i = 0; i < SLOTS; i++) mine.push(await RawSmtpClient.connect(h.port, "127.0.0.1", "127.0.0.1"));
    const greeted = mine.filter((c) => c.greeting.code === 220);
    const refused = mine.filter((c) => c.greeting.code === 421);
    expect(greeted).toHaveLength(PER_CLIENT);
    expect(refused).toHaveLength(SLOTS - PER_CLIENT);
    expect(refused[0]!.greeting.text).toMatch(/^421 4\.7\.0 .*Too many connections from your address/);
    await Promise.all(refused.map((c) => c.client.closedPromise));

    const other = await RawSmtpClient.connect(h.port, "127.0.0.1", "127.0.0.2");
    expect(other.greeting.code).toBe(220);
    const { final } = await other.client.transaction("someone@sender.test", [h.inboundAddress], "Subject: hi\r\n\r\nhello\r\n");
    expect(final?.code).toBe(250);
    other.client.close();

    // A slot given back is the client's again.
    greeted[0]!.client.close();
    await greeted[0]!.client.closedPromise;
    const again = await RawSmtpClient.connect(h.port, "127.0.0.1", "127.0.0.1");
    expect(again.greeting.code).toBe(220);
    for (const c of [...greeted.slice(1), again]) c.client.close();
  });
});

describe("MX: sessions that only idle", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_IDLE_TIMEOUT_SECONDS: "1" } });
  });
  afterAll(() => h.stop());

  test("a NOOP/RSET loop is answered 421 4.4.2 and closed past the idle time; a client sending mail meanwhile is not", async () => {
    const idler = (await RawSmtpClient.connect(h.port)).client;
    const worker = (await RawSmtpClient.connect(h.port)).client;
    expect((await idler.send("EHLO idler.test")).code).toBe(250);
    const started = Date.now();
    let last = { code: 250, text: "" } as { code: number; text: string };
    let delivered = 0;
    // Bounded: 20 rounds of 150 ms, 3 s, three times the idle time.
    for (let i = 0; i < 20 && last.code === 250; i++) {
      last = await idler.send(i % 2 ? "RSET" : "NOOP");
      const { final } = await worker.transaction("someone@sender.test", [h.inboundAddress], `Subject: ${i}\r\n\r\nhello\r\n`);
      if (final?.code === 250) delivered++;
      await worker.send("RSET");
      await Bun.sleep(150);
    }
    expect(last.code).toBe(421);
    expect(last.text).toMatch(/^421 4\.4\.2 .*Idle for too long/);
    const after = Date.now() - started;
    expect(after).toBeGreaterThanOrEqual(1000);
    expect(after).toBeLessThan(2500);
    await idler.closedPromise;
    expect(idler.closed).toBe(true);
    // The worker made progress at every round and is still served.
    expect(worker.closed).toBe(false);
    expect(delivered).toBeGreaterThanOrEqual(5);
    expect((await worker.send("NOOP")).code).toBe(250);
    worker.close();
  });
});

describe("submission: connections per client", () => {
  test(`one address gets ${PER_CLIENT} connections, the next 421 4.7.0; another address still gets in`, async () => {
    const t = createTestApp({ env: { POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT) } });
    const listener = await startSubmissionListener(t.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100, maxClients: SLOTS });
    try {
      const mine = [];
      for (let i = 0; i < PER_CLIENT + 3; i++) mine.push(await RawSmtpClient.connect(listener.port, "127.0.0.1", "127.0.0.1"));
      expect(mine.map((c) => c.greeting.code)).toEqual([...Array(PER_CLIENT).fill(220), 421, 421, 421]);
      expect(mine[PER_CLIENT]!.greeting.text).toMatch(/^421 4\.7\.0 /);
      const other = await RawSmtpClient.connect(listener.port, "127.0.0.1", "127.0.0.2");
      expect(other.greeting.code).toBe(220);
      expect((await other.client.send("EHLO other.test")).code).toBe(250);
      for (const c of [...mine, other]) c.client.close();
    } finally {
      await listener.stop();
    }
  });
});
