import { afterEach, describe, expect, test } from "bun:test";
import { metricsText } from "../../src/modules/health/service.ts";
import { InflowGate } from "../../src/smtp/inflow-gate.ts";
import { waitFor } from "../helpers.ts";
import { compose, RawSmtpClient, sendRaw, startInbound, type InboundHarness } from "./support.ts";

/** How long one MAIL FROM takes to be answered on a fresh session, and the reply. */
async function timedMailFrom(port: number): Promise<{ ms: number; code: number; client: RawSmtpClient }> {
  const { client } = await RawSmtpClient.connect(port);
  await client.send("EHLO flood.test");
  const t0 = performance.now();
  const reply = await client.send("MAIL FROM:<alice@sender.test>");
  return { ms: performance.now() - t0, code: reply.code, client };
}

/**
 * Puts processing behind: with one inbound job at a time and slow DNS answers, the first of two
 * messages holds the job and the second waits in the queue, past any allowance under 500 ms.
 */
async function lagBehind(h: InboundHarness): Promise<Buffer> {
  const raw = await compose({ from: "alice@sender.test", to: h.inboundAddress, subject: "flood", text: "hello" });
  h.dns.delayMs = 1500;
  for (let i = 0; i < 2; i++) expect((await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw)).response).toStartWith("250");
  await Bun.sleep(500);
  return raw;
}

const processedCount = async (h: InboundHarness) =>
  (await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages WHERE type = 'inbound' AND status = 'processed'"))!.n;

/** Finishes a held session's message, lets DNS answer at once again, and waits until all three are processed. */
async function deliverHeldAndCatchUp(h: InboundHarness, client: RawSmtpClient, raw: Buffer): Promise<void> {
  expect((await client.send(`RCPT TO:<${h.inboundAddress}>`)).code).toBe(250);
  expect((await client.send("DATA")).code).toBe(354);
  expect((await client.message(raw)).code).toBe(250);
  await client.send("QUIT");
  h.dns.delayMs = 0;
  expect(await waitFor(async () => ((await processedCount(h)) === 3 ? true : null), 20_000)).toBe(true);
}

describe("MX flow control (POSTHORN_SMTP_INFLOW_LAG_MS)", () => {
  let h: InboundHarness | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });

  test("while processing lags, a new MAIL FROM is held up to a second, then accepted; nothing is refused or lost", async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_INFLOW_LAG_MS: "200" }, jobs: { concurrency: 1 } });
    const idle = await timedMailFrom(h.port);
    expect(idle.code).toBe(250);
    expect(idle.ms).toBeLessThan(300);
    await idle.client.send("QUIT");

    const logged: string[] = [];
    const { warn, info } = h.deps.log;
    h.deps.log.warn = (msg, fields) => (logged.push(`warn ${msg}`), warn(msg, fields));
    h.deps.log.info = (msg, fields) => (logged.push(`info ${msg}`), info(msg, fields));
    const raw = await lagBehind(h);
    const held = await timedMailFrom(h.port);
    expect(held.code).toBe(250);
    expect(held.ms).toBeGreaterThanOrEqual(900);
    expect(held.ms).toBeLessThan(1500);
    // What an operator sees of it: one warning as the hold began, one line once everyone was let in, and /metrics.
    expect(logged.filter((l) => l.includes("MAIL FROMs are held"))).toEqual(["warn inbound processing lags behind: new MAIL FROMs are held (at most a second each)"]);
    expect(logged.filter((l) => l.includes("flow control let"))).toHaveLength(1);
    const metrics = await metricsText(h.deps);
    expect(metrics).toMatch(/^posthorn_smtp_inflow_held_total\{node="[^"]+"\} 1$/m);
    expect(metrics).toMatch(/^posthorn_smtp_inflow_holding\{node="[^"]+"\} 0$/m);
    expect(Number(metrics.match(/^posthorn_smtp_inflow_lag_seconds\{[^}]*\} (\S+)$/m)![1])).toBeGreaterThan(0.2);
    await deliverHeldAndCatchUp(h, held.client, raw);
    // Caught up: no hold any more.
    const after = await timedMailFrom(h.port);
    expect(after.code).toBe(250);
    expect(after.ms).toBeLessThan(300);
    await after.client.send("QUIT");
  }, 30_000);

  test("set to 0, nothing is held however far processing lags", async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_INFLOW_LAG_MS: "0" }, jobs: { concurrency: 1 } });
    expect(h.deps.config.smtpInflowLagMs).toBe(0);
    expect(await metricsText(h.deps)).not.toContain("posthorn_smtp_inflow");
    await lagBehind(h);
    const mail = await timedMailFrom(h.port);
    expect(mail.code).toBe(250);
    expect(mail.ms).toBeLessThan(300);
    await mail.client.send("QUIT");
    h.dns.delayMs = 0;
  }, 30_000);

  test("a client that hangs up while held costs nothing: the next session is held and accepted as usual", async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_INFLOW_LAG_MS: "200" }, jobs: { concurrency: 1 } });
    const raw = await lagBehind(h);
    const { client: quitter } = await RawSmtpClient.connect(h.port);
    await quitter.send("EHLO flood.test");
    quitter.write("MAIL FROM:<alice@sender.test>\r\n");
    await Bun.sleep(100);
    quitter.close(); // while its MAIL FROM is held
    await Bun.sleep(1200); // its hold has run out on a closed connection

    const next = await timedMailFrom(h.port);
    expect(next.code).toBe(250);
    expect(next.ms).toBeGreaterThanOrEqual(900);
    await deliverHeldAndCatchUp(h, next.client, raw);
  }, 30_000);

  test("by default the allowance is one second of lag", async () => {
    h = await startInbound();
    expect(h.deps.config.smtpInflowLagMs).toBe(1000);
    expect(await metricsText(h.deps)).toContain("posthorn_smtp_inflow_held_total");
  });
});

describe("InflowGate", () => {
  test("held sessions go as soon as the lag is back under the limit, long before their time is up", async () => {
    let due: number | null = Date.now() - 5_000;
    const gate = new InflowGate(async () => due, { maxLagMs: 1000, maxDelayMs: 3000, refreshMs: 20 });
    const t0 = performance.now();
    const admitted = Promise.all([gate.admit(), gate.admit(), gate.admit()]);
    await Bun.sleep(100);
    expect(gate.holding).toBe(3);
    due = null; // the queue drained
    await admitted;
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(gate.holding).toBe(0);
    await gate.admit(); // and the next one is not held
    expect(gate.heldTotal).toBe(3);
  });

  test("when processing never catches up, each session goes after the longest hold, in arrival order", async () => {
    const gate = new InflowGate(async () => Date.now() - 60_000, { maxLagMs: 1000, maxDelayMs: 200, refreshMs: 20 });
    const order: number[] = [];
    const t0 = performance.now();
    const first = gate.admit().then(() => order.push(1));
    await Bun.sleep(50);
    const second = gate.admit().then(() => order.push(2));
    await first;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect(order).toEqual([1]);
    await second;
    expect(order).toEqual([1, 2]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(240);
  });

  test("a failed read of the queue keeps the last lag: an open gate stays open, a closed one keeps holding", async () => {
    let fail = false;
    let due: number | null = null;
    const gate = new InflowGate(
      async () => {
        if (fail) throw new Error("database is locked");
        return due;
      },
      { maxLagMs: 1000, maxDelayMs: 150, refreshMs: 0 },
    );
    fail = true;
    const t0 = performance.now();
    await gate.admit();
    expect(performance.now() - t0).toBeLessThan(100);

    fail = false;
    due = Date.now() - 5_000;
    await gate.admit(); // held the whole 150 ms
    fail = true;
    const t1 = performance.now();
    await gate.admit();
    expect(performance.now() - t1).toBeGreaterThanOrEqual(140);
  });
});
