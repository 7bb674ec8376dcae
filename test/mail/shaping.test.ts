/**
 * Per-destination shaping in detail: which replies are rate replies, the policies file, a
 * policy's concurrency and pace as a receiver sees them, and a pause written by another node.
 * Real SMTP to the harness's sink, DNS on loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { isRateReply, parseReply } from "../../src/mail/reply.ts";
import { parseDestinationPolicies, policyFor } from "../../src/pacing/destination-policy.ts";
import { Shaper } from "../../src/mail/shaping.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";

describe("rate replies", () => {
  test.each([
    ["421 4.7.28 Our system has detected an unusual rate of unsolicited mail", true],
    ["421 Service not available, closing transmission channel", true],
    ["450 4.7.28 rate limited", true],
    ["451 4.7.0 Too many messages from your IP, slow down", true],
    ["451 4.3.0 Try again later", true],
    ["452 4.2.2 Mailbox full, try again later", false],
    ["450 4.1.1 Recipient verification in progress, try later", false],
    ["451 4.7.1 Greylisted, please try again later", false],
    ["450 Greylisting in action, try again later", false],
    ["451 4.7.1 Message rate limit exceeded", true],
    ["451 4.7.1 Greylisted, please come back in 5 minutes", false],
    ["452 4.5.3 Too many recipients", false],
    ["450 4.2.1 Mailbox busy", false],
    ["550 5.7.1 Too many complaints; rejected", false],
    ["250 2.0.0 Ok", false],
  ])("%s → %p", (text, expected) => {
    expect(isRateReply(parseReply(text))).toBe(expected);
  });
  test("a local failure (no code) is not one", () => {
    expect(isRateReply({ code: null, enhanced_code: null, message: "connect ECONNREFUSED, rate" })).toBe(false);
  });
});

describe("POSTHORN_DESTINATION_POLICIES", () => {
  const file = (content: string) => {
    const path = join(tempDir("policies-"), "policies.json");
    writeFileSync(path, content);
    return path;
  };

  test("a valid file: domains lowercased, limits absent are null", () => {
    const c = loadConfig({ POSTHORN_DESTINATION_POLICIES: file('{"Gmail.com": {"concurrency": 5, "per_minute": 600}, "yahoo.com": {"per_minute": 120}}') });
    expect(c.destinationPolicies).toEqual({ "gmail.com": { concurrency: 5, per_minute: 600 }, "yahoo.com": { concurrency: null, per_minute: 120 } });
    expect(loadConfig({}).destinationPolicies).toEqual({});
  });

  test.each([
    ["not json", "not valid JSON"],
    ["[]", "expected an object"],
    ['{"gmail.com": 5}', '"gmail.com": expected an object'],
    ['{"gmail.com": {"concurrency": 0}}', "concurrency must be an integer from 1"],
    ['{"gmail.com": {"per_minute": 1.5}}', "per_minute must be an integer from 1"],
    ['{"gmail.com": {"rate": 5}}', 'unknown setting "rate"'],
    ['{"not a domain": {"concurrency": 1}}', "is not a domain name"],
  ])("%s is refused at start, naming the variable", (content, why) => {
    const path = file(content);
    let err: unknown;
    try {
      loadConfig({ POSTHORN_DESTINATION_POLICIES: path });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe("POSTHORN_DESTINATION_POLICIES");
    expect((err as Error).message).toContain(path);
    expect((err as Error).message).toContain(why);
  });

  test("a missing file is refused at start", () => {
    expect(() => loadConfig({ POSTHORN_DESTINATION_POLICIES: "/nonexistent/policies.json" })).toThrow("POSTHORN_DESTINATION_POLICIES: cannot read /nonexistent/policies.json: ENOENT");
  });

  test("a policy applies by recipient domain, or by a name the MX hosts are in", () => {
    const policies = parseDestinationPolicies('{"gmail.com": {"concurrency": 5}, "google.com": {"concurrency": 3}}');
    expect(policyFor(policies, ["gmail.com"], ["gmail-smtp-in.l.google.com"])?.concurrency).toBe(5);
    expect(policyFor(policies, ["company.example"], ["aspmx.l.google.com"])?.concurrency).toBe(3);
    expect(policyFor(policies, ["other.example"], ["mx.other.example"])).toBeNull();
  });
});

describe("limits as a receiver sees them", () => {
  let h: OutboundHarness;
  beforeAll(async () => {
    const dir = tempDir("policies-");
    writeFileSync(join(dir, "p.json"), JSON.stringify({ "slow.test": { concurrency: 2, per_minute: 600 } }));
    h = await startOutbound({ env: { POSTHORN_DESTINATION_POLICIES: join(dir, "p.json") } });
    h.routeToSink("slow.test");
  });
  afterAll(async () => {
    await h.close();
  });

  test("a policy's concurrency and pace hold: 2 at once, 10 a second, and nothing is an attempt more", async () => {
    h.sink.dataDelayMs = 150;
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, h.sink.answering)), 5);
    try {
      const body = Array.from({ length: 12 }, (_, i) => ({ from: "app@sender.test", to: [`r${i}@slow.test`], subject: "Paced", text: "Hello" }));
      const res = await h.request("POST", "/v1/send/batch", { projectToken: h.team.projectToken, body });
      expect(res.status).toBe(202);
      const ids = (res.json as { message_id: string }[]).map((r) => r.message_id);
      for (const id of ids) await h.waitForStatus(id, ["delivered"], 10_000);
      const times = h.sink.received.filter((m) => m.to[0]!.endsWith("@slow.test")).map((m) => m.at).sort((a, b) => a - b);
      expect(times.length).toBe(12);
      // 600 a minute: 12 messages take at least 11 × 100 ms.
      expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(1000);
      expect(most).toBeLessThanOrEqual(2);
      for (const id of ids) {
        expect(h.recipients(id)[0]!.attempts).toBe(1);
        // Held back by shaping leaves no trace in the history: no soft bounce, no second "processed".
        expect(h.history(id).map((e) => e.status)).toEqual(["pending", "queued", "processed", "delivered"]);
      }
    } finally {
      clearInterval(watch);
      h.sink.dataDelayMs = 0;
    }
  });

  test("a pause another node wrote is honoured: nothing goes there until it ends", async () => {
    h.routeToSink("paused.test");
    const res = await h.send({ from: "app@sender.test", to: ["a@paused.test"], subject: "Held", text: "Hello" });
    expect(res.status).toBe(202);
    await h.waitForStatus(res.json.message_id, ["delivered"]); // the destination is now known
    const until = Date.now() + 2500;
    await h.deps.store.write((tx) =>
      tx.destinations.save({
        name: "mx.sink.test",
        domains: JSON.stringify(["paused.test"]),
        concurrency: 1,
        per_minute: 600,
        paused_until: until,
        strikes: 1,
        last_reply: JSON.stringify({ code: 421, enhanced_code: "4.7.28", message: "rate limited" }),
        throttled_at: Date.now(),
        updated_by: "another-node",
        updated_at: Date.now(),
      }),
    );
    await Bun.sleep(1500); // every node reads the others' changes once a second
    const held = await h.send({ from: "app@sender.test", to: ["b@paused.test"], subject: "Held", text: "Hello" });
    const id = held.json.message_id;
    await Bun.sleep(300);
    expect(h.messageStatus(id)).toBe("pending"); // not attempted, not bounced
    const listed = await h.request("GET", "/v1/queue/destinations");
    expect(listed.status).toBe(200);
    expect((listed.json.data as any[]).find((d) => d.name === "mx.sink.test")).toMatchObject({ paused: true, concurrency: 1, per_minute: 600, strikes: 1, domains: ["paused.test"] });
    // Another team has no mail waiting there: it does not learn where this team's mail goes.
    const other = h.addTeam();
    expect((await h.request("GET", "/v1/queue/destinations", { token: other.teamToken })).json.data).toEqual([]);
    await h.waitForStatus(id, ["delivered"], 10_000);
    const at = h.sink.received.find((m) => m.raw.includes(id))!.at;
    expect(at).toBeGreaterThanOrEqual(until);
    expect(h.history(id).map((e) => e.status)).toEqual(["pending", "queued", "processed", "delivered"]);
  });

  test("GET /v1/queue/destinations needs a team token", async () => {
    expect((await h.request("GET", "/v1/queue/destinations", { token: null })).status).toBe(401);
    expect((await h.request("GET", "/v1/queue/destinations", { projectToken: h.team.projectToken })).status).toBe(401);
  });
});

describe("two nodes on one database", () => {
  let h: OutboundHarness;
  beforeAll(async () => {
    h = await startOutbound();
  });
  afterAll(async () => {
    await h.close();
  });

  test("a rate reply one node gets pauses the destination on the other within a second, with its lowered limits", async () => {
    const quiet = { warn() {}, info() {}, debug() {}, error() {} };
    const resolve = async () => ({ name: "mx1.far.test,mx2.far.test", hosts: ["mx1.far.test", "mx2.far.test"] });
    const opts = { firstPauseMs: 3000, refreshMs: 200 };
    const a = new Shaper({ store: h.deps.store, log: quiet, policies: {} }, resolve, opts);
    const b = new Shaper({ store: h.deps.store, log: quiet, policies: {} }, resolve, opts);
    try {
      const ok = { verdict: "delivered" as const, reply: { code: 250, enhanced_code: "2.0.0", message: "Ok" } };
      const rate = { verdict: "soft" as const, reply: { code: 421, enhanced_code: "4.7.28", message: "rate limited" } };
      // Both nodes send; node A's transaction meets the 421.
      const first = await b.admit("m0", ["far.test"]);
      expect(first.admitted).toEqual([true]);
      first.done("far.test", [ok]);
      const hit = await a.admit("m1", ["far.test"]);
      expect(hit.admitted).toEqual([true]);
      hit.done("far.test", [rate]);
      const reopens = hit.reopensAt("far.test")!;
      expect(reopens).toBeGreaterThan(Date.now() + 2000);
      // Node B hears of it from the database, without sending anything there.
      await waitFor(async () => {
        const t = await b.admit(`probe-${Math.random()}`, ["far.test"]);
        t.close();
        return !t.admitted[0];
      }, 2000);
      const held = await b.admit("m2", ["far.test"]);
      expect(held.admitted).toEqual([false]);
      expect(held.retryAt).toBeGreaterThanOrEqual(reopens);
      const row = (await h.deps.store.read.destinations.list(10)).find((d) => d.name === "mx1.far.test,mx2.far.test")!;
      expect(row).toMatchObject({ concurrency: 1, strikes: 1, paused_until: reopens });
      expect(JSON.parse(row.domains)).toEqual(["far.test"]);
    } finally {
      a.close();
      b.close();
    }
  });

  test("a pause written in the same millisecond as the version a node already took in still reaches it", async () => {
    const quiet = { warn() {}, info() {}, debug() {}, error() {} };
    const name = "mx.same-ms.test";
    const b = new Shaper({ store: h.deps.store, log: quiet, policies: {} }, async () => ({ name, hosts: [name] }), { refreshMs: 100 });
    try {
      const at = Date.now();
      const row = {
        name, domains: JSON.stringify(["same-ms.test"]), concurrency: null, per_minute: null, paused_until: null,
        strikes: 0, last_reply: null, throttled_at: null, updated_by: "node-a", updated_at: at,
      };
      // Node A records the destination, node B takes that version in, then A's pause lands with the same stamp.
      await h.deps.store.write((tx) => tx.destinations.save(row));
      await Bun.sleep(300);
      const until = at + 5_000;
      await h.deps.store.write((tx) =>
        tx.destinations.save({ ...row, concurrency: 1, paused_until: until, strikes: 1, throttled_at: at, last_reply: JSON.stringify({ code: 421, enhanced_code: "4.7.28", message: "rate limited" }) }),
      );
      await waitFor(async () => {
        const t = await b.admit(`probe-${Math.random()}`, ["same-ms.test"]);
        t.close();
        return !t.admitted[0];
      }, 2000);
      expect((await b.admit("m", ["same-ms.test"])).retryAt).toBeGreaterThanOrEqual(until);
    } finally {
      b.close();
    }
  });
});
