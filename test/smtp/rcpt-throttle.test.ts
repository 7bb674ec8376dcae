/**
 * Guessing at RCPT: refused RCPTs are throttled per client IP, so a VERP signature (or a route
 * address) cannot be found by trying; and the 40-bit VERP addresses of mail sent before the
 * upgrade are still accepted, but only for the week after it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testConfig } from "../helpers.ts";
import { signValue, serverSecretOf } from "../../src/secrets.ts";
import { clientKey } from "../../src/auth/throttle.ts";
import { RcptFailureThrottle } from "../../src/smtp/rcpt-throttle.ts";
import { insertDeliveredOutbound, RawSmtpClient, startInbound, type InboundHarness } from "./support.ts";

const THROTTLED = "421 4.7.0 Too many refused recipients from your address, try again later";

/** `n` well-formed VERP addresses with wrong signatures for the recipient of `verp`. */
const wrongSignatures = (verp: string, n: number) => {
  const [local, domain] = verp.split("@") as [string, string];
  const [b, id] = local.split(".");
  return Array.from({ length: n }, (_, i) => `${b}.${id}.${(i + 1).toString(16).padStart(20, "0")}@${domain}`);
};

async function session(port: number, localAddress?: string) {
  const { client } = await RawSmtpClient.connect(port, "127.0.0.1", localAddress);
  await client.send("EHLO bouncer.test");
  await client.send("MAIL FROM:<>");
  return client;
}

test("the limit is 20 refused RCPTs by default; 0 turns it off", () => {
  expect(testConfig().smtpRcptFailureLimit).toBe(20);
  expect(testConfig({ POSTHORN_SMTP_RCPT_FAILURE_LIMIT: "0" }).smtpRcptFailureLimit).toBe(0);
  expect(() => testConfig({ POSTHORN_SMTP_RCPT_FAILURE_LIMIT: "-1" })).toThrow("POSTHORN_SMTP_RCPT_FAILURE_LIMIT");
});

describe("MX listener: refused RCPTs are throttled per client IP", () => {
  let h: InboundHarness;
  beforeAll(async () => {
    h = await startInbound();
  });
  afterAll(() => h.stop());

  test("after 20 wrong VERP signatures, the right one gets the same 421 as a wrong one; other IPs are still served", async () => {
    const team = { teamId: h.app.team.teamId, projectId: h.app.team.projectId };
    const o = await insertDeliveredOutbound(h.deps, team);
    const wrong = wrongSignatures(o.verp, 21);

    const a = await session(h.port);
    // Before the limit the answers are true: the right signature is accepted.
    expect((await a.send(`RCPT TO:<${o.verp}>`)).code).toBe(250);
    for (const addr of wrong.slice(0, 20)) expect((await a.send(`RCPT TO:<${addr}>`)).text).toBe("550 5.1.1 No such mailbox here");
    // Now right and wrong are answered alike, and the connection is closed.
    expect((await a.send(`RCPT TO:<${o.verp}>`)).text).toBe(THROTTLED);
    await a.closedPromise;

    // From the same IP, in a new connection: still the same answer for the right address, a
    // wrong one, and an inbound route's address.
    for (const addr of [o.verp, wrong[20]!, h.inboundAddress]) {
      const again = await session(h.port);
      expect((await again.send(`RCPT TO:<${addr}>`)).text).toBe(THROTTLED);
      await again.closedPromise;
    }

    // Another client IP (127.0.0.2 is loopback too) has its own count.
    const other = await session(h.port, "127.0.0.2");
    expect((await other.send(`RCPT TO:<${o.verp}>`)).code).toBe(250);
    expect((await other.send(`RCPT TO:<${wrong[0]}>`)).code).toBe(550);
    other.close();
  });
});

test("POSTHORN_SMTP_RCPT_FAILURE_LIMIT=0: no throttling", async () => {
  const h = await startInbound({ env: { POSTHORN_SMTP_RCPT_FAILURE_LIMIT: "0" } });
  try {
    const o = await insertDeliveredOutbound(h.deps, { teamId: h.app.team.teamId, projectId: h.app.team.projectId });
    const client = await session(h.port);
    for (const addr of wrongSignatures(o.verp, 30)) expect((await client.send(`RCPT TO:<${addr}>`)).code).toBe(550);
    expect((await client.send(`RCPT TO:<${o.verp}>`)).code).toBe(250);
    client.close();
  } finally {
    await h.stop();
  }
});

test("a limit of 3: the fourth RCPT after three refusals is throttled", async () => {
  const h = await startInbound({ env: { POSTHORN_SMTP_RCPT_FAILURE_LIMIT: "3" } });
  try {
    const client = await session(h.port);
    for (let i = 0; i < 3; i++) expect((await client.send(`RCPT TO:<nobody${i}@gmail.com>`)).code).toBe(550);
    expect((await client.send(`RCPT TO:<${h.inboundAddress}>`)).text).toBe(THROTTLED);
  } finally {
    await h.stop();
  }
});

describe("MX listener: legacy 40-bit VERP addresses", () => {
  let h: InboundHarness;
  let secret: string;
  beforeAll(async () => {
    // The listener records the cutover (its first start with 80-bit signatures) as now.
    h = await startInbound();
    secret = await serverSecretOf(h.deps.store);
  });
  afterAll(() => h.stop());

  const legacyOf = (verp: string) => {
    const [local, domain] = verp.split("@") as [string, string];
    const hex = local.split(".")[1]!;
    return `b.${hex}.${signValue(secret, "verp", hex, 10)}@${domain}`;
  };

  test("accepted for a recipient created before the upgrade in the last 7 days; refused when older, newer or forged", async () => {
    const team = { teamId: h.app.team.teamId, projectId: h.app.team.projectId };
    const sentBefore = await insertDeliveredOutbound(h.deps, { ...team, recipientId: Bun.randomUUIDv7("hex", Date.now() - 3600_000) });
    const tooOld = await insertDeliveredOutbound(h.deps, { ...team, recipientId: Bun.randomUUIDv7("hex", Date.now() - 8 * 24 * 3600_000) });
    const sentAfter = await insertDeliveredOutbound(h.deps, team);
    const client = await session(h.port);
    expect((await client.send(`RCPT TO:<${legacyOf(sentBefore.verp)}>`)).code).toBe(250);
    expect((await client.send(`RCPT TO:<${legacyOf(sentBefore.verp).toUpperCase()}>`)).code).toBe(250);
    expect((await client.send(`RCPT TO:<${legacyOf(tooOld.verp)}>`)).text).toBe("550 5.1.1 No such mailbox here");
    expect((await client.send(`RCPT TO:<${legacyOf(sentAfter.verp)}>`)).text).toBe("550 5.1.1 No such mailbox here");
    // The new form works for all three.
    for (const o of [sentBefore, tooOld, sentAfter]) expect((await client.send(`RCPT TO:<${o.verp}>`)).code).toBe(250);
    // A legacy address on another team's bounce domain is refused like a new one would be.
    const [local] = legacyOf(sentBefore.verp).split("@");
    expect((await client.send(`RCPT TO:<${local}@ph-bounces.elsewhere.test>`)).code).toBe(550);
    client.close();
  });
});

describe("RcptFailureThrottle", () => {
  test("a bucket of `limit` refusals refilled at `limit` per window", () => {
    let now = 0;
    const t = new RcptFailureThrottle(4, 1000, 100, () => now);
    expect(t.throttled("a")).toBe(false);
    expect([t.refused("a"), t.refused("a"), t.refused("a")]).toEqual([false, false, false]);
    expect(t.throttled("a")).toBe(false);
    expect(t.refused("a")).toBe(true);
    expect(t.throttled("a")).toBe(true);
    expect(t.throttled("b")).toBe(false);
    now = 249; // 0.996 of a refusal earned back
    expect(t.throttled("a")).toBe(true);
    now = 250;
    expect(t.throttled("a")).toBe(false);
    expect(t.refused("a")).toBe(true);
    now = 10_000;
    expect(t.throttled("a")).toBe(false);
  });

  test("no more lookups run at once than refusals are left: the others wait, and are throttled once the running ones used them up, or go on when they were accepted", async () => {
    const t = new RcptFailureThrottle(3, 60_000, 100, () => 0);
    expect([t.acquire("a"), t.acquire("a"), t.acquire("a")]).toEqual([true, true, true]);
    const waiting = [t.acquire("a"), t.acquire("a")];
    expect(waiting.every((w) => w instanceof Promise)).toBe(true);
    // One running lookup was a right address: a waiting one takes its place.
    t.release("a");
    expect(await waiting[0]).toBe(true);
    // The three running now are refused: the last waiting one never runs.
    for (let i = 0; i < 3; i++) {
      t.refused("a");
      t.release("a");
    }
    expect(await waiting[1]).toBe(false);
    expect(t.acquire("a")).toBe(false);
    // Another client is not held up.
    expect(t.acquire("b")).toBe(true);
  });

  test("memory is bounded: beyond maxClients the least recently refused client is forgotten", () => {
    const t = new RcptFailureThrottle(1, 60_000, 3, () => 0);
    for (const k of ["a", "b", "c"]) t.refused(k);
    expect(["a", "b", "c"].map((k) => t.throttled(k))).toEqual([true, true, true]);
    t.refused("a"); // a is now the most recent
    t.refused("d");
    expect(t.size).toBe(3);
    expect(["a", "b", "c", "d"].map((k) => t.throttled(k))).toEqual([true, false, true, true]);
    for (let i = 0; i < 1000; i++) t.refused(`x${i}`);
    expect(t.size).toBe(3);
  });

  test("clients are counted by IPv4 address and by IPv6 /64", () => {
    expect(clientKey("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:DB8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0db8:0001:0002::")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});
