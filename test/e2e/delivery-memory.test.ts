/**
 * POSTHORN_DELIVERY_MEMORY_MB bounds what a large send to many recipients holds (issue 41, finding
 * 9). With tracking every recipient's copy is composed and signed for it; without, one copy is
 * handed to the SMTP agent once per recipient's transaction. Before the bound every copy was
 * composed and held at once, in the server and in its agent: memory grew with recipients × size
 * (a 25 MiB message to 20 tracked recipients passed 20 GB and was never delivered). Now the copies
 * in flight fit the setting, and the RSS the server and its agent gain stays within a few times the
 * setting, whatever the number of recipients. A real server (bun src/main.ts serve) delivering over
 * loopback SMTP through a loopback DNS server (test/e2e/fixtures/large-tracked-send.ts).
 */
import { expect, test } from "bun:test";
import { largeTrackedSend } from "./fixtures/large-tracked-send.ts";

const MIB = 1024 * 1024;
const SETTING_MB = 16;
const env = { POSTHORN_DELIVERY_MEMORY_MB: String(SETTING_MB) };
const mb = (kb: number) => kb / 1024;

// 24 copies of ~8 MB held at once are ~200 MB before any garbage of composing them, in each
// process; the bounds leave room for the one copy in flight, its garbage, and noise. Measured
// (RSS gained, server / agent): before the bound 645 / 258 MB tracked, 412 / 216 MB untracked;
// with it 120-152 / 64-75 MB tracked and 91-127 / 75-95 MB untracked over six runs on a loaded
// 2-core machine.
test(
  `a 6 MiB message with tracking to 24 recipients: all delivered, the server within a few times POSTHORN_DELIVERY_MEMORY_MB=${SETTING_MB}`,
  async () => {
    const r = await largeTrackedSend({ contentBytes: 6 * MIB, recipients: 24, env, timeoutMs: 90_000 });
    console.log(`tracked: server ${mb(r.serverBaseKb).toFixed(0)} → ${mb(r.serverPeakKb).toFixed(0)} MB, agent ${mb(r.agentBaseKb).toFixed(0)} → ${mb(r.agentPeakKb).toFixed(0)} MB, ${r.seconds.toFixed(1)} s`);
    expect(r.delivered).toBe(24);
    expect(mb(r.serverPeakKb - r.serverBaseKb)).toBeLessThan(16 * SETTING_MB);
    expect(mb(r.agentPeakKb - r.agentBaseKb)).toBeLessThan(10 * SETTING_MB);
  },
  120_000,
);

test(
  `a 6 MiB message without tracking to 24 recipients: the agent is handed as many copies at once as POSTHORN_DELIVERY_MEMORY_MB=${SETTING_MB} holds, not 24`,
  async () => {
    const r = await largeTrackedSend({ contentBytes: 6 * MIB, recipients: 24, env, timeoutMs: 90_000, tracking: false });
    console.log(`untracked: server ${mb(r.serverBaseKb).toFixed(0)} → ${mb(r.serverPeakKb).toFixed(0)} MB, agent ${mb(r.agentBaseKb).toFixed(0)} → ${mb(r.agentPeakKb).toFixed(0)} MB, ${r.seconds.toFixed(1)} s`);
    expect(r.delivered).toBe(24);
    expect(mb(r.serverPeakKb - r.serverBaseKb)).toBeLessThan(16 * SETTING_MB);
    expect(mb(r.agentPeakKb - r.agentBaseKb)).toBeLessThan(10 * SETTING_MB);
  },
  120_000,
);

test(
  "small mail is delivered while a large tracked message takes its turns: the large one never holds all of POSTHORN_DELIVERY_MEMORY_MB",
  async () => {
    const r = await largeTrackedSend({ contentBytes: 6 * MIB, recipients: 24, env, timeoutMs: 90_000, smallDuring: 20 });
    console.log(`small during large: ${r.largeLeftWhenSmallDone} of 24 large copies still undelivered when the 20 small messages were, ${r.seconds.toFixed(1)} s`);
    expect(r.delivered).toBe(24);
    expect(r.largeLeftWhenSmallDone).toBeGreaterThan(0);
  },
  120_000,
);
