/**
 * The sign-in throttle under concurrency: every attempt reserves its place in the counters (per
 * address, per client IP) in one statement before its password is hashed, so parallel attempts
 * cannot all pass the check before the first failure is counted, and once the counters are full
 * an attempt is a 429 that costs no Argon2.
 */
import { describe, expect, test } from "bun:test";
import { hashPassword, verifyPassword } from "../../../src/auth/passwords.ts";
import { SIGN_IN_FAILURES_PER_EMAIL } from "../../../src/auth/sessions.ts";
import { loadConfig } from "../../../src/config.ts";
import { createApp } from "../../../src/app.ts";
import { createTestApp, type TestApp } from "../../helpers.ts";

const AUTH_FAILURES_PER_IP = loadConfig({}).authFailureLimit;
const PASSWORD = "correct horse battery";

async function ownerWithPassword(t: TestApp): Promise<string> {
  const owner = (await t.sql.get<{ id: string; email: string }>(
    "SELECT u.id, u.email FROM users u JOIN team_members tm ON tm.user_id = u.id WHERE tm.team_id = ? AND tm.role = 'owner'",
    [t.team.teamId],
  ))!;
  const hash = await hashPassword(PASSWORD);
  await t.deps.store.write((tx) => tx.accounts.setPassword(owner.id, hash, Date.now()));
  return owner.email;
}

/** The process's CPU (all threads, Argon2's included) in seconds. */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** The CPU one password verification costs here (Argon2id, the defaults), the median of 3. */
async function verifyCost(): Promise<number> {
  const hash = await hashPassword("a calibration password");
  const costs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = cpuSeconds();
    await verifyPassword("not the password", hash);
    costs.push(cpuSeconds() - before);
  }
  return costs.sort((a, b) => a - b)[1]!;
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ((acc[s] = (acc[s] ?? 0) + 1), acc), {});

describe("concurrent sign-ins cannot pass the throttle", () => {
  test(`60 parallel attempts on one address, the right password at number 45: at most ${SIGN_IN_FAILURES_PER_EMAIL} are verified, the rest (the right one too) are 429s`, async () => {
    const t = createTestApp();
    const email = await ownerWithPassword(t);
    // Two apps on the same database, as two nodes would be; half of the attempts go to each.
    const node2 = createApp(t.deps);
    const cost = await verifyCost();
    const before = cpuSeconds();
    const attempts = Array.from({ length: 60 }, (_, i) => {
      const password = i === 44 ? PASSWORD : `wrong password ${i}`;
      const body = JSON.stringify({ email, password });
      const request = new Request("http://localhost/v1/auth/sign-in", { method: "POST", headers: { "content-type": "application/json", "content-length": String(body.length) }, body });
      return (i % 2 === 0 ? t.app : node2).handle(request).then((res) => res.status);
    });
    const statuses = await Promise.all(attempts);
    const cpu = cpuSeconds() - before;
    const counts = tally(statuses);
    console.log(`60 parallel sign-ins: ${JSON.stringify(counts)}, the right one ${statuses[44]}; CPU ${cpu.toFixed(2)} s (one verification ${cost.toFixed(3)} s)`);

    expect(statuses[44]).toBe(429);
    expect(counts[201] ?? 0).toBe(0);
    // Verified = answered other than 429: exactly the allowed number.
    expect(counts[401]).toBe(SIGN_IN_FAILURES_PER_EMAIL);
    expect(counts[429]).toBe(60 - SIGN_IN_FAILURES_PER_EMAIL);
    // And the CPU says the same: the allowed verifications, not 60 (within twice their cost alone: Argon2
    // runs slower side by side than in the calibration, and the requests cost some of their own).
    expect(cpu).toBeLessThan(2 * SIGN_IN_FAILURES_PER_EMAIL * cost);
    expect(await t.sql.get("SELECT failures FROM auth_failures WHERE key = ?", [`email:${email}`])).toEqual({ failures: SIGN_IN_FAILURES_PER_EMAIL });
  }, 60_000);

  test(`200 parallel attempts for unknown addresses from one IP: ${AUTH_FAILURES_PER_IP} cost a password verification, the rest are 429s that cost none`, async () => {
    const t = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "" } });
    await ownerWithPassword(t);
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.server!.port}/v1/auth/sign-in`;
      const flood = (round: string) =>
        Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `nobody-${round}-${i}@example.com`, password: "not it at all" }) }).then(
              (res) => res.status,
            ),
          ),
        );
      const cost = await verifyCost();
      let before = cpuSeconds();
      const statuses = await flood("a");
      const cpu = cpuSeconds() - before;
      // The same again once the IP is over its limit: what 200 requests cost besides the hashing.
      before = cpuSeconds();
      const again = await flood("b");
      const http = cpuSeconds() - before;
      const counts = tally(statuses);
      console.log(
        `200 parallel sign-ins for unknown addresses: ${JSON.stringify(counts)}; CPU ${cpu.toFixed(2)} s, 200 more once refused ${http.toFixed(2)} s (one verification ${cost.toFixed(3)} s)`,
      );

      expect(counts[401]).toBe(AUTH_FAILURES_PER_IP);
      expect(counts[429]).toBe(200 - AUTH_FAILURES_PER_IP);
      expect(tally(again)).toEqual({ 429: 200 });
      // Beyond what the requests cost anyway, the allowed verifications, not 200 (within twice their cost
      // alone: side by side Argon2 runs slower than in the calibration, the first connections cost more).
      expect(cpu - http).toBeLessThan(2 * AUTH_FAILURES_PER_IP * cost);
      expect(await t.sql.get("SELECT failures FROM auth_failures WHERE key = ?", ["ip:127.0.0.1"])).toEqual({ failures: AUTH_FAILURES_PER_IP });
    } finally {
      await server.stop();
    }
  }, 120_000);
});
