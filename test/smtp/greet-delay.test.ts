import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startInbound, type InboundHarness } from "./support.ts";

/** Connects and says EHLO at once, before any greeting; the first reply. */
function talkFirst(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1" }, () => socket.write("EHLO early.talker\r\n"));
    socket.setEncoding("latin1");
    socket.once("data", (chunk: string) => {
      socket.destroy();
      resolve(chunk);
    });
    socket.on("error", reject);
  });
}

/** Connects and waits for the greeting, as a client should: how long it took. */
function greetingAfterMs(port: number): Promise<{ ms: number; greeting: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = connect({ port, host: "127.0.0.1" });
    socket.setEncoding("latin1");
    socket.once("data", (chunk: string) => {
      socket.end("QUIT\r\n");
      resolve({ ms: performance.now() - t0, greeting: chunk });
    });
    socket.on("error", reject);
  });
}

describe("MX greeting delay (POSTHORN_SMTP_GREET_DELAY_MS)", () => {
  let h: InboundHarness | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });

  test("with a delay, the greeting waits for it and a client that talks first is refused", async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_GREET_DELAY_MS: "600" } });
    expect(await talkFirst(h.port)).toMatch(/^421 .*You talk too soon/);
    const polite = await greetingAfterMs(h.port);
    expect(polite.greeting).toMatch(/^220 /);
    expect(polite.ms).toBeGreaterThanOrEqual(550);
  });

  test("with 0, the greeting comes at once", async () => {
    h = await startInbound({ env: { POSTHORN_SMTP_GREET_DELAY_MS: "0" } });
    const polite = await greetingAfterMs(h.port);
    expect(polite.greeting).toMatch(/^220 /);
    expect(polite.ms).toBeLessThan(300);
  });

  test("by default there is no pause: the greeting comes at once", async () => {
    h = await startInbound();
    expect(h.deps.config.smtpGreetDelayMs).toBe(0);
    const polite = await greetingAfterMs(h.port);
    expect(polite.greeting).toMatch(/^220 /);
    expect(polite.ms).toBeLessThan(300);
  });
});
