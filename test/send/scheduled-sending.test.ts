/**
 * Scheduled sending (docs/sending.md, Scheduled sending): a send with scheduled_at waits as
 * `scheduled` and reaches a real SMTP server on loopback at its time, not before, and within 1 s
 * after; PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it, and once it
 * has left `scheduled` both are a 409. A cancel racing with the due time has one winner: a message
 * whose cancel got a 200 is never sent, one whose cancel got a 409 is sent once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SCHEDULED_QUEUE, registerScheduledJobs } from "../../src/sending/scheduled-job.ts";
import { SCHEDULE_WINDOW_MS } from "../../src/sending/schedule-time.ts";
import { engine, waitFor } from "../helpers.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { SENDER_DOMAIN, startOutbound, type OutboundHarness } from "./harness.ts";

let h: OutboundHarness;
const RCPT_DOMAIN = "scheduled.test";

beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink(RCPT_DOMAIN);
  registerScheduledJobs(h.runner, h.deps);
  h.runner.wake(SCHEDULED_QUEUE);
  await subscribeEveryRoute(h.deps);
  // One delivery first, so that the figures below are of scheduling, not of a cold server's first
  // delivery (compose worker, DNS, the first SMTP connection: ~700 ms on a loaded machine).
  const warm = (await h.send({ from: `hi@${SENDER_DOMAIN}`, to: [`warm@${RCPT_DOMAIN}`], subject: "Warm", text: "Warm up." })).json.message_id as string;
  await h.waitForStatus(warm, ["delivered"], 10_000);
});
afterAll(() => h.close());

let n = 0;
const email = (extra: Record<string, unknown> = {}) => ({ from: `hi@${SENDER_DOMAIN}`, to: [`r${++n}@${RCPT_DOMAIN}`], subject: `Scheduled ${n}`, text: "Later on.", ...extra });
/** The ISO form of `ms` with the given offset in minutes (e.g. +120 → "…+02:00"). */
const withOffset = (ms: number, minutes: number) => {
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 23);
  const sign = minutes < 0 ? "-" : "+";
  const a = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
};
const deliveredTo = (address: string) => h.sink.received.filter((m) => m.to.includes(address));
const patch = (id: string, body: unknown, init: { token?: string | null; projectToken?: string } = {}) => h.request("PATCH", `/v1/messages/${id}`, { body, ...init });
const cancel = (id: string, init: { token?: string | null; projectToken?: string } = {}) => h.request("POST", `/v1/messages/${id}/cancel`, init);
const jobsOf = (id: string) =>
  h.sqlNow.all<{ queue: string }>(
    engine === "postgres" ? "SELECT queue FROM jobs WHERE payload::jsonb ->> 'messageId' = ?" : "SELECT queue FROM jobs WHERE json_extract(payload, '$.messageId') = ?",
    [id],
  );
const count = (table: string) => h.sqlNow.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)!.n;

describe("scheduled sending", () => {
  test("a scheduled send is accepted as scheduled and reaches the MX within 1 s of its time, not before", async () => {
    const at = Date.now() + 2000;
    const body = email({ scheduled_at: withOffset(at, 120) });
    const res = await h.send(body);
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ message_id: expect.any(String), status: "scheduled", scheduled_at: new Date(at).toISOString() });
    const id = res.json.message_id as string;
    const got = await h.request("GET", `/v1/messages/${id}`);
    expect(got.json).toMatchObject({ status: "scheduled", scheduled_at: new Date(at).toISOString() });
    expect(h.recipients(id).map((r) => r.status)).toEqual(["scheduled"]);
    expect(jobsOf(id)).toEqual([{ queue: SCHEDULED_QUEUE }]);

    const mail = await waitFor(() => deliveredTo(body.to[0]!)[0], 6000, 5);
    const late = mail.at - at;
    await h.waitForStatus(id, ["delivered"]);
    const released = Number(h.sqlNow.get<{ t: number }>("SELECT created_at AS t FROM message_events WHERE message_id = ? AND kind = 'message.queued'", [id])!.t) - at;
    console.log(`scheduled send (${engine}): released ${released} ms and 250 from the MX ${late} ms after scheduled_at`);
    expect(released).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1000);
    const events = (await h.request("GET", `/v1/messages/${id}/events`)).json.data.map((e: { event: string }) => e.event);
    expect(events.slice(0, 2)).toEqual(["scheduled", "queued"]);
    expect(events).toContain("delivered");
    expect(h.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ? ORDER BY created_at, id", [id]).map((e) => e.kind).slice(0, 2)).toEqual([
      "message.created",
      "message.scheduled",
    ]);
    expect(deliveredTo(body.to[0]!)).toHaveLength(1);
  });

  test("reschedule later: not sent at the first time, sent within 1 s of the new one", async () => {
    const first = Date.now() + 1500;
    const body = email({ scheduled_at: new Date(first).toISOString() });
    const id = (await h.send(body)).json.message_id as string;
    const later = Date.now() + 3500;
    const res = await patch(id, { scheduled_at: withOffset(later, -330) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message_id: id, status: "scheduled", scheduled_at: new Date(later).toISOString() });
    expect(jobsOf(id)).toEqual([{ queue: SCHEDULED_QUEUE }]);
    await Bun.sleep(Math.max(0, first + 700 - Date.now()));
    expect(deliveredTo(body.to[0]!)).toHaveLength(0);
    expect(h.messageStatus(id)).toBe("scheduled");
    const mail = await waitFor(() => deliveredTo(body.to[0]!)[0], 6000, 5);
    console.log(`rescheduled later (${engine}): 250 ${mail.at - later} ms after the new scheduled_at`);
    expect(mail.at - later).toBeGreaterThanOrEqual(0);
    expect(mail.at - later).toBeLessThan(1000);
    const rescheduled = h.history(id).find((e) => e.kind === "message.rescheduled")!;
    expect(rescheduled.data).toMatchObject({ scheduled_at: new Date(later).toISOString(), previous_scheduled_at: new Date(first).toISOString() });
    expect(h.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ?", [id]).map((e) => e.kind)).toContain("message.rescheduled");
  });

  test("reschedule earlier: sent within 1 s of the new time, long before the first", async () => {
    const body = email({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    const id = (await h.send(body)).json.message_id as string;
    const sooner = Date.now() + 1200;
    expect((await patch(id, { scheduled_at: new Date(sooner).toISOString() })).status).toBe(200);
    const mail = await waitFor(() => deliveredTo(body.to[0]!)[0], 5000, 5);
    console.log(`rescheduled earlier (${engine}): 250 ${mail.at - sooner} ms after the new scheduled_at`);
    expect(mail.at - sooner).toBeGreaterThanOrEqual(0);
    expect(mail.at - sooner).toBeLessThan(1000);
  });

  test("cancel: canceled with its recipients, its job gone, never sent; then 409 for cancel and reschedule", async () => {
    const at = Date.now() + 1200;
    const body = email({ scheduled_at: new Date(at).toISOString() });
    const id = (await h.send(body)).json.message_id as string;
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message_id: id, status: "canceled", scheduled_at: new Date(at).toISOString() });
    expect(jobsOf(id)).toEqual([]);
    await Bun.sleep(at + 1000 - Date.now());
    expect(deliveredTo(body.to[0]!)).toHaveLength(0);
    expect(h.messageStatus(id)).toBe("canceled");
    expect(h.recipients(id).map((r) => r.status)).toEqual(["canceled"]);
    expect((await h.request("GET", `/v1/messages/${id}/events`)).json.data.map((e: { event: string }) => e.event)).toEqual(["scheduled", "canceled"]);
    expect(h.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ?", [id]).map((e) => e.kind)).toContain("message.canceled");
    const again = await cancel(id);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ message: expect.stringContaining("canceled"), error: "MESSAGE_NOT_SCHEDULED" });
    const moved = await patch(id, { scheduled_at: new Date(Date.now() + 60_000).toISOString() });
    expect(moved.status).toBe(409);
    expect(h.messageStatus(id)).toBe("canceled");
  });

  test("an address suppressed while the message waited is not sent to at its time; the others are", async () => {
    const at = Date.now() + 1500;
    const kept = `kept${++n}@${RCPT_DOMAIN}`;
    const gone = `gone${n}@${RCPT_DOMAIN}`;
    const id = (await h.send(email({ to: [kept, gone], scheduled_at: new Date(at).toISOString() }))).json.message_id as string;
    expect(h.recipients(id).map((r) => r.status)).toEqual(["scheduled", "scheduled"]);
    expect((await h.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "team", emails: [gone] } })).status).toBeLessThan(300);
    await h.waitForStatus(id, ["delivered"], 8000);
    await Bun.sleep(300);
    expect(deliveredTo(kept)).toHaveLength(1);
    expect(deliveredTo(gone)).toHaveLength(0);
    const byEmail = Object.fromEntries(h.recipients(id).map((r) => [r.email, r.status]));
    expect(byEmail).toEqual({ [kept]: "delivered", [gone]: "suppressed" });

    // Every recipient suppressed meanwhile: nothing is sent, the message ends suppressed, no outbound job.
    const alone = `alone${n}@${RCPT_DOMAIN}`;
    const id2 = (await h.send(email({ to: [alone], scheduled_at: new Date(Date.now() + 1200).toISOString() }))).json.message_id as string;
    await h.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "team", emails: [alone] } });
    await h.waitForStatus(id2, ["suppressed"], 8000);
    await Bun.sleep(300);
    expect(deliveredTo(alone)).toHaveLength(0);
    expect(jobsOf(id2)).toEqual([]);
  });

  test("409 with the error body once the message left scheduled (delivered), and for mail sent at once", async () => {
    const body = email({ scheduled_at: new Date(Date.now() + 300).toISOString() });
    const id = (await h.send(body)).json.message_id as string;
    await h.waitForStatus(id, ["delivered"]);
    for (const res of [await patch(id, { scheduled_at: new Date(Date.now() + 60_000).toISOString() }), await cancel(id)]) {
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ message: expect.stringContaining("delivered"), error: "MESSAGE_NOT_SCHEDULED" });
    }
    const now = (await h.send(email())).json.message_id as string;
    await h.waitForStatus(now, ["delivered"]);
    expect((await patch(now, { scheduled_at: new Date(Date.now() + 60_000).toISOString() })).status).toBe(409);
    expect(h.history(id).filter((e) => e.kind === "message.rescheduled" || e.kind === "message.canceled")).toEqual([]);
  });

  test("a cancel racing with the due time has one winner: 200 → never sent, 409 → sent once", async () => {
    const at = Date.now() + 1500;
    const bodies = Array.from({ length: 30 }, () => email({ scheduled_at: new Date(at).toISOString() }));
    const ids = await Promise.all(bodies.map(async (b) => (await h.send(b)).json.message_id as string));
    // Cancels spread from 150 ms before the due time to 450 ms after: some land before the release, some after.
    await Bun.sleep(at - 150 - Date.now());
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        await Bun.sleep(i * 20);
        return (await cancel(id)).status;
      }),
    );
    await Bun.sleep(1500);
    await waitFor(() => ids.every((id, i) => answers[i] === 200 || h.messageStatus(id) === "delivered"), 8000);
    const won = answers.filter((s) => s === 200).length;
    console.log(`cancel vs due time (${engine}): ${won} cancels won, ${answers.length - won} lost to the release`);
    // Both sides of the race were run.
    expect(won).toBeGreaterThan(0);
    expect(won).toBeLessThan(answers.length);
    for (const [i, id] of ids.entries()) {
      expect([200, 409]).toContain(answers[i]!);
      const sent = deliveredTo(bodies[i]!.to[0]!).length;
      if (answers[i] === 200) {
        expect(sent).toBe(0);
        expect(h.messageStatus(id)).toBe("canceled");
      } else {
        expect(sent).toBe(1);
        expect(h.messageStatus(id)).toBe("delivered");
      }
    }
  });

  test("batch: each email its own time, or now", async () => {
    const t1 = Date.now() + 1200;
    const body = [email({ scheduled_at: new Date(t1).toISOString() }), email(), email({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() })];
    const res = await h.request("POST", "/v1/send/batch", { projectToken: h.team.projectToken, body });
    expect(res.status).toBe(202);
    expect(res.json.map((r: { status: string }) => r.status)).toEqual(["scheduled", "pending", "scheduled"]);
    expect(res.json[0].scheduled_at).toBe(new Date(t1).toISOString());
    expect(res.json[1].scheduled_at).toBeUndefined();
    await waitFor(() => deliveredTo(body[1]!.to[0]!)[0], 5000);
    expect(deliveredTo(body[0]!.to[0]!)).toHaveLength(0);
    const mail = await waitFor(() => deliveredTo(body[0]!.to[0]!)[0], 5000, 5);
    expect(mail.at - t1).toBeGreaterThanOrEqual(0);
    expect(mail.at - t1).toBeLessThan(1000);
    expect(h.messageStatus(res.json[2].message_id)).toBe("scheduled");
    expect((await cancel(res.json[2].message_id)).status).toBe(200);
  });

  test("bad scheduled_at: malformed, no offset, past, too far, no such day → 422 with the error body, nothing stored", async () => {
    const before = { messages: count("messages"), jobs: count("jobs") };
    const soon = Date.now() + 60_000;
    const cases: [string, RegExp][] = [
      ["tomorrow at 9", /ISO 8601/],
      [new Date(soon).toISOString().slice(0, 19), /needs an offset/],
      ["2030-02-30T09:00:00Z", /ISO 8601/],
      ["2030-01-31T25:00:00Z", /ISO 8601/],
      [new Date(Date.now() - 1000).toISOString(), /in the future/],
      [new Date(Date.now() + SCHEDULE_WINDOW_MS + 60_000).toISOString(), /at most 30 days/],
    ];
    for (const [value, message] of cases) {
      const res = await h.send(email({ scheduled_at: value }));
      expect(res.status).toBe(422);
      expect(res.json.message).toBeString();
      expect(res.json.errors.scheduled_at[0]).toMatch(message);
    }
    const batch = await h.request("POST", "/v1/send/batch", { projectToken: h.team.projectToken, body: [email(), email({ scheduled_at: "2030-01-31T09:00" })] });
    expect(batch.status).toBe(422);
    expect(Object.keys(batch.json.errors)).toEqual(["1.scheduled_at"]);
    expect(count("messages")).toBe(before.messages);
    expect(count("jobs")).toBe(before.jobs);

    // A reschedule to such a time is refused the same way, and the message keeps its time.
    const at = Date.now() + 3_600_000;
    const id = (await h.send(email({ scheduled_at: new Date(at).toISOString() }))).json.message_id as string;
    for (const [value, message] of cases) {
      const res = await patch(id, { scheduled_at: value });
      expect(res.status).toBe(422);
      expect(res.json.errors.scheduled_at[0]).toMatch(message);
    }
    expect((await patch(id, {})).status).toBe(422);
    expect((await h.request("GET", `/v1/messages/${id}`)).json.scheduled_at).toBe(new Date(at).toISOString());
    expect(h.history(id).map((e) => e.kind)).toEqual(["message.created"]);
    expect((await cancel(id)).status).toBe(200);
  });

  test("either token: the project's own messages with its token; another team's or project's → 404", async () => {
    const id = (await h.send(email({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() }))).json.message_id as string;
    const other = h.addTeam();
    const later = { scheduled_at: new Date(Date.now() + 7_200_000).toISOString() };
    expect((await patch(id, later, { token: other.teamToken })).status).toBe(404);
    expect((await cancel(id, { token: null, projectToken: other.projectToken })).status).toBe(404);
    expect((await patch(id, later, { token: null })).status).toBe(401);
    expect((await cancel("00000000-0000-7000-8000-000000000000")).status).toBe(404);
    expect(h.messageStatus(id)).toBe("scheduled");
    const moved = await patch(id, later, { token: null, projectToken: h.team.projectToken });
    expect(moved.status).toBe(200);
    expect((await cancel(id, { token: null, projectToken: h.team.projectToken })).json.status).toBe("canceled");
  });
});
