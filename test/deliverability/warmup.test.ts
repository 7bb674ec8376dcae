/**
 * Warm-up (issue 47): a sending domain's daily cap holds mail in the queue, not refused, and
 * releases it the next UTC day. The outbound stage's clock is set by the test to 12 s before a
 * UTC midnight (day 1 of the warm-up, cap 50; day 2, cap 100), so the day changes while the test
 * runs; the mail goes over real SMTP to a loopback sink. Day 1: 50 broadcast messages (broadcast
 * may use 45 of the 50), then 25 transactional (the remaining 5); exactly 50 delivered before
 * midnight, the other 25 held (pending, their next attempt at midnight) and delivered after it,
 * transactional before broadcast; none lost or sent twice. Both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { nextUtcDay, utcDay } from "../../src/mail/warmup.ts";
import { engine, waitFor } from "../helpers.ts";
import { startOutbound, type OutboundHarness } from "../send/harness.ts";
import { clearOfUtcMidnight } from "../support/utc-midnight.ts";

const DAY_MS = 86_400_000;
/**
 * How long before midnight day 1's sending starts: its 75 sends and 50 deliveries took 3.7 s at load 13
 * (printed below); 12 s leaves three times that (it was 25 s, the rest of which the test only waited out).
 */
const BEFORE_MIDNIGHT_MS = 12_000;
const BROADCAST_DELAY_MS = 2000;

// The warm-up's day 1: a UTC day three days ahead; the clock runs from 12 s before its end.
const day1 = nextUtcDay(Date.now()) + 2 * DAY_MS;
const midnight = day1 + DAY_MS;
let offset = 0;
const clock = () => Date.now() + offset;

let h: OutboundHarness;

beforeAll(async () => {
  h = await startOutbound({ outbound: { now: clock, broadcastReleaseDelayMs: BROADCAST_DELAY_MS } });
  h.routeToSink("dest.test");
});
afterAll(async () => {
  await h.close();
});

const sendMany = async (n: number, route: string, prefix: string) => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await h.send({ from: "news@sender.test", to: [`${prefix}${i}@dest.test`], subject: `${route} ${i}`, text: "hello", route });
    expect(res.status).toBe(202);
    ids.push(res.json.message_id);
  }
  return ids;
};
const clockAt = (realMs: number) => realMs + offset;
const countsOf = async () =>
  Object.fromEntries(
    (await h.sql.all<{ day: string; sent: number }>("SELECT day, sent FROM warmup_counts WHERE domain_id = ? ORDER BY day", [h.domain.domainId])).map((r) => [r.day, Number(r.sent)]),
  );

describe("warm-up", () => {
  test("the API refuses a bad schedule or start with a 422 and stores nothing", async () => {
    const path = `/v1/domains/${h.domain.domainId}/warmup`;
    for (const body of [{ enabled: true, schedule: [] }, { enabled: true, schedule: [50, 0] }, { enabled: true, schedule: [1.5] }, { enabled: "yes" }, { enabled: true, started_at: "2026-01-01" }, { enabled: true, pace: 3 }]) {
      const res = await h.request("PUT", path, { body });
      expect(res.status).toBe(422);
      expect(res.json.message).toBeString();
    }
    expect(await h.sql.get("SELECT * FROM domain_warmups")).toBeNull();
    expect((await h.request("GET", path)).json).toMatchObject({ enabled: false, cap_today: null, schedule: [50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 102400] });
    expect((await h.request("PUT", "/v1/domains/00000000-0000-4000-8000-000000000000/warmup", { body: { enabled: true } })).status).toBe(404);
  });

  test("a cap of 50 on day 1: exactly 50 delivered that day, broadcast held first, the rest the next day, none lost", async () => {
    const put = await h.request("PUT", `/v1/domains/${h.domain.domainId}/warmup`, { body: { enabled: true, schedule: [50, 100], started_at: new Date(day1 + 8 * 3600_000).toISOString() } });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ enabled: true, schedule: [50, 100], started_at: new Date(day1 + 8 * 3600_000).toISOString() });

    offset = midnight - BEFORE_MIDNIGHT_MS - Date.now();
    const broadcast = await sendMany(50, "broadcast", "b");
    // Broadcast may use 45 of the 50: the other 5 are held.
    await waitFor(() => h.sink.received.length === 45, 15_000);
    await Bun.sleep(300);
    expect(h.sink.received.length).toBe(45);
    const transactional = await sendMany(25, "transactional", "t");
    await waitFor(() => h.sink.received.length === 50, 15_000);
    await Bun.sleep(500);
    console.log(`warm-up (${engine}): day 1's 75 sends and 50 deliveries done ${midnight - clock()} ms before midnight (of ${BEFORE_MIDNIGHT_MS} ms)`);
    expect(clock()).toBeLessThan(midnight); // all of that on day 1
    expect(h.sink.received.length).toBe(50);
    expect(await countsOf()).toEqual({ [utcDay(day1)]: 50 });

    // Held, not refused: pending in the queue, next attempt at midnight (broadcast a little later).
    const held = [...broadcast, ...transactional].filter((id) => h.recipients(id)[0]!.status === "pending");
    expect(held).toHaveLength(25);
    expect(held.filter((id) => broadcast.includes(id))).toHaveLength(5);
    const queue = await h.request("GET", "/v1/queue?page[size]=100");
    expect(queue.status).toBe(200);
    for (const id of held) {
      const m = queue.json.data.find((q: any) => q.id === id);
      expect(m).toBeDefined();
      const due = clockAt(Date.parse(m.next_attempt_at));
      expect(due - midnight).toBeGreaterThanOrEqual(-50);
      expect(due - midnight).toBeLessThan((broadcast.includes(id) ? BROADCAST_DELAY_MS : 0) + 100);
    }
    const view = await h.request("GET", `/v1/domains/${h.domain.domainId}/warmup`);
    expect(view.json).toMatchObject({ held: 25 });

    // Day 2 (cap 100): the 20 transactional at midnight, then the 5 broadcast.
    await waitFor(() => h.sink.received.length === 75, BEFORE_MIDNIGHT_MS + 20_000, 50);
    await Bun.sleep(500);
    expect(h.sink.received.length).toBe(75);
    const rcpt = (m: { to: string[] }) => m.to[0]!;
    const byDay = (before: boolean) => h.sink.received.filter((m) => clockAt(m.at) < midnight === before).map(rcpt);
    expect(byDay(true)).toHaveLength(50);
    expect(byDay(true).filter((r) => r.startsWith("b"))).toHaveLength(45);
    const day2 = h.sink.received.filter((m) => clockAt(m.at) >= midnight).sort((a, b) => a.at - b.at);
    expect(day2.map(rcpt).map((r) => r[0]).join("")).toBe("t".repeat(20) + "b".repeat(5));
    expect(clockAt(day2.at(-1)!.at) - midnight).toBeGreaterThanOrEqual(BROADCAST_DELAY_MS);
    // None lost, none twice.
    expect(new Set(h.sink.received.map(rcpt)).size).toBe(75);
    for (const id of [...broadcast, ...transactional]) await h.waitForStatus(id, ["delivered"], 5000);
    expect(await countsOf()).toEqual({ [utcDay(day1)]: 50, [utcDay(midnight)]: 25 });
  }, 90_000);

  test("a held message stays queued with its reason and release time in the queue view; the warm-up view counts it", async () => {
    offset = 0; // the real clock from here: today is day 1 of a one-day schedule of 1 recipient
    // The queue and warm-up views read the real clock: the whole test on one UTC day.
    await clearOfUtcMidnight(60_000, "warm-up queue view test");
    const path = `/v1/domains/${h.domain.domainId}/warmup`;
    expect((await h.request("PUT", path, { body: { enabled: true, schedule: [1], started_at: new Date().toISOString() } })).status).toBe(200);
    const before = h.sink.received.length;
    const sent = await sendMany(2, "transactional", "q");
    // Whichever is attempted first takes the day's one place; the other is held until midnight.
    await waitFor(async () => (await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'outbound' AND run_at > ?", [Date.now() + 60_000]))!.n === 1, 10_000);
    const second = sent.find((id) => h.recipients(id)[0]!.status === "pending")!;
    await h.waitForStatus(sent.find((id) => id !== second)!, ["delivered"], 10_000);
    expect(h.sink.received.length).toBe(before + 1);
    const queue = await h.request("GET", "/v1/queue?page[size]=100");
    const held = queue.json.data.find((m: any) => m.id === second);
    // At the next UTC midnight (the runner's delay is reckoned from the attempt's clock: a few ms late).
    expect(Math.abs(Date.parse(held.next_attempt_at) - nextUtcDay(Date.now()))).toBeLessThan(1000);
    expect(held.held_reason).toBe(`Held by the sending domain's warm-up: day 1's cap of 1 recipients is reached; it goes at ${held.next_attempt_at}.`);
    expect(held.recipients[0].status).toBe("pending");
    const view = (await h.request("GET", path)).json;
    expect(view).toMatchObject({ enabled: true, day: 1, cap_today: 1, broadcast_cap_today: 1, sent_today: 1, held: 1, complete: false, next_release_at: new Date(nextUtcDay(Date.now())).toISOString() });
    // Turned off: the held message is taken at its next run, not before (nothing else changes).
    expect((await h.request("PUT", path, { body: { enabled: false } })).json).toMatchObject({ enabled: false, cap_today: null, held: 0 });
  }, 90_000);
});
