/**
 * Queue control through the API against real parts: the app delivers over SMTP to a loopback
 * sink (through the loopback DNS server) that defers with 451 until told otherwise, and webhook
 * events go over HTTPS to a receiver that checks signatures with its own code.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { useWebhookSender, WebhookSender } from "../../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../../src/events/webhook-job.ts";
import { waitFor } from "../../helpers.ts";
import { startSink, startOutbound, SENDER_DOMAIN, type OutboundHarness, type Sink } from "../../send/harness.ts";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.ts";
import { makeTestCert, startReceiver, type Responder, type TestCert, type TestReceiver } from "../../webhooks/support.ts";

let dns: TestDnsServer;
let cert: TestCert;
const cleanups: (() => unknown)[] = [];

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  cert = makeTestCert(["hooks.example.test"]);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await dns.close();
});

// Not a rate reply (see isRateReply), so per-destination shaping does not pause the destination.
const DEFER = { code: 451, message: "4.3.0 Temporary local problem" };

/**
 * An app whose sink defers every recipient (until `sink.onRcpt` is cleared), with a first retry
 * a minute away so deferred mail stays queued, and a webhook receiving message.failed and
 * message.delivered.
 */
async function setup(opts: { dataDelayMs?: number; webhookScheduleMs?: number[] } = {}) {
  const sink: Sink = await startSink();
  sink.onRcpt = () => DEFER;
  sink.dataDelayMs = opts.dataDelayMs ?? 0;
  const h: OutboundHarness = await startOutbound({
    sink,
    dns,
    env: { POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" },
    outbound: { retryScheduleMs: [60_000] },
  });
  for (const d of ["one.test", "two.test"]) h.routeToSink(d);
  const sender = new WebhookSender({ dns: h.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 3000, dnsCacheMs: 0 });
  useWebhookSender(h.deps, sender);
  registerWebhookJobs(h.runner, h.deps, { sender, scheduleMs: opts.webhookScheduleMs ?? [50] });
  const receiver: TestReceiver = startReceiver(cert);
  cleanups.push(async () => {
    await h.close();
    sender.close();
    await receiver.stop();
    await sink.close();
  });
  const routeId = (await h.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [h.team.projectId]))!.id;
  const created = await h.request("POST", "/v1/webhooks", {
    body: { route_id: routeId, name: "receiver", url: receiver.url(), events: ["message.failed", "message.delivered"] },
  });
  expect(created.status).toBe(201);
  receiver.secret = created.json.data.secret;
  const send = async (to: string[]) => {
    const res = await h.send({ from: `app@${SENDER_DOMAIN}`, to, subject: `to ${to.join(" ")}`, text: "hello" });
    expect(res.status).toBe(202);
    return res.json.message_id as string;
  };
  /** Sends and waits until every recipient was deferred once. */
  const sendDeferred = async (to: string[]) => {
    const id = await send(to);
    await h.waitForStatus(id, ["soft_bounced"]);
    return id;
  };
  return { h, sink, receiver, routeId, webhookId: created.json.data.id as string, send, sendDeferred };
}

describe("GET /v1/queue", () => {
  test("lists deferred mail with next attempt and last reply; filters, cursor pages, no match is an empty page", async () => {
    const { h, routeId, sendDeferred } = await setup();
    const a = await sendDeferred(["x@one.test"]);
    const b = await sendDeferred(["y@two.test"]);
    const c = await sendDeferred(["z@ONE.test", "w@two.test"]);

    const first = await h.request("GET", "/v1/queue?page[size]=2");
    expect(first.status).toBe(200);
    expect(first.json.data.map((m: any) => m.id)).toEqual([a, b]); // oldest first
    const item = first.json.data[0];
    expect(item.recipients).toEqual([expect.objectContaining({ email: "x@one.test", status: "soft_bounced", attempts: 1 })]);
    expect(item.last_response).toMatchObject({ code: 451 });
    expect(item.route_id).toBe(routeId);
    expect(Date.parse(item.next_attempt_at)).toBeGreaterThan(Date.now() + 30_000);
    const second = await h.request("GET", `/v1/queue?page[size]=2&page[cursor]=${first.json.next_cursor}`);
    expect(second.json.data.map((m: any) => m.id)).toEqual([c]);
    expect(second.json.next_cursor).toBeNull();

    const one = await h.request("GET", "/v1/queue?filter[domain]=One.Test");
    expect(one.json.data.map((m: any) => m.id)).toEqual([a, c]);
    expect((await h.request("GET", `/v1/queue?filter[route_id]=${routeId}`)).json.data).toHaveLength(3);
    for (const q of ["filter[domain]=nomatch.test", "filter[route_id]=0190a0a0-0000-7000-8000-000000000000"]) {
      const none = await h.request("GET", `/v1/queue?${q}`);
      expect(none.status).toBe(200);
      expect(none.json.data).toEqual([]);
    }
    // filter[status]: the message's status; the deferred ones are soft_bounced, none is scheduled.
    expect((await h.request("GET", "/v1/queue?filter[status]=soft_bounced")).json.data.map((m: any) => m.id)).toEqual([a, b, c]);
    expect((await h.request("GET", "/v1/queue?filter[status]=scheduled")).json.data).toEqual([]);
    expect((await h.request("GET", "/v1/queue?filter[status]=delivered")).status).toBe(422);
    const unknown = await h.request("GET", "/v1/queue?filter[subject]=hello");
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.json.errors)).toEqual(["filter[subject]"]);
    expect((await h.request("GET", "/v1/queue?filter[route_id]=nope")).status).toBe(422);
    // Another team sees none of it.
    const other = h.addTeam();
    expect((await h.request("GET", "/v1/queue", { token: other.teamToken })).json.data).toEqual([]);
  });
});

describe("GET /v1/queue with recipients held back by shaping", () => {
  test("a recipient deferred alongside held ones is next attempted when the job comes back for them: its soft bounce says so", async () => {
    const sink: Sink = await startSink();
    // one.test's 421 4.7.28 is a rate reply: its destination pauses for 30 s. two.test defers (not a rate reply).
    sink.onRcpt = (a) => (a.endsWith("@one.test") ? { code: 421, message: "4.7.28 Slow down" } : DEFER);
    const h = await startOutbound({
      sink,
      dns,
      outbound: { retryScheduleMs: [120_000], shaping: { firstPauseMs: 30_000, maxPauseMs: 60_000, rampEveryMs: 50, quietMs: 1000 } },
    });
    cleanups.push(async () => {
      await h.close();
      await sink.close();
    });
    h.routeToSink("one.test");
    dns.set("two.test", "MX", [{ exchange: "mx.two.test", priority: 10 }]);
    dns.set("mx.two.test", "A", ["127.0.0.1"]);
    const send = async (to: string[]) => (await h.send({ from: `app@${SENDER_DOMAIN}`, to, subject: "held", text: "hello" })).json.message_id as string;
    await h.waitForStatus(await send(["a@one.test"]), ["soft_bounced"]); // pauses one.test's destination
    const t0 = Date.now();
    const id = await send(["b@one.test", "c@two.test"]); // b held back by the pause, c attempted and deferred
    await h.waitForStatus(id, ["soft_bounced"]);
    const [item] = (await h.request("GET", `/v1/queue?filter[domain]=two.test`)).json.data;
    expect(item.id).toBe(id);
    expect(item.recipients.map((r: any) => [r.email, r.status])).toEqual([
      ["b@one.test", "pending"],
      ["c@two.test", "soft_bounced"],
    ]);
    // The job comes back at b's slot, when the pause ends, not at c's scheduled retry two minutes away.
    const next = Date.parse(item.next_attempt_at);
    expect(next).toBeGreaterThan(t0 + 20_000);
    expect(next).toBeLessThan(t0 + 40_000);
    const events = (await h.request("GET", `/v1/messages/${id}/events`)).json.data as any[];
    const bounced = events.find((e) => e.kind === "message.soft_bounced" && e.recipient === "c@two.test");
    expect(Math.abs(Date.parse(bounced.data.next_attempt_at) - next)).toBeLessThan(1000);
  });
});

describe("message retry and cancel", () => {
  test("retry makes a deferred message deliver now, keeping its attempt count; then it is final: 409", async () => {
    const { h, sink, sendDeferred } = await setup();
    const id = await sendDeferred(["x@one.test"]);
    sink.onRcpt = null; // the receiver takes mail again; the next scheduled attempt is a minute away
    const started = Date.now();
    const res = await h.request("POST", `/v1/messages/${id}/retry`);
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("The message will be attempted now.");
    await h.waitForStatus(id, ["delivered"]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(h.recipients(id)[0]).toMatchObject({ status: "delivered", attempts: 2 });
    expect(sink.received).toHaveLength(1);

    for (const action of ["retry", "cancel-delivery"]) {
      const final = await h.request("POST", `/v1/messages/${id}/${action}`);
      expect(final.status).toBe(409);
      expect(final.json.message).toContain("delivered");
    }
    expect((await h.request("GET", "/v1/queue")).json.data).toEqual([]);
  });

  test("cancel fails the remaining recipients with reason cancelled, publishes message.failed and stops the job", async () => {
    const { h, receiver, sendDeferred } = await setup();
    const id = await sendDeferred(["x@one.test", "y@two.test"]);
    const res = await h.request("POST", `/v1/messages/${id}/cancel-delivery`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ cancelled: 2, queued: null });
    expect(h.messageStatus(id)).toBe("failed");
    expect(h.recipients(id).map((r) => r.status)).toEqual(["failed", "failed"]);
    const failed = h.history(id).filter((e) => e.kind === "message.failed");
    expect(failed.map((e) => e.data.reason)).toEqual(["cancelled", "cancelled"]);
    const events = await waitFor(() => {
      const got = receiver.deliveries.filter((d) => d.json?.event === "message.failed");
      return got.length === 2 ? got : null;
    });
    expect(events.every((d) => d.verified && d.json!.data.reason === "cancelled" && d.json!.data.message_id === id)).toBe(true);
    expect(await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'outbound'")).toEqual({ n: 0 });
  });

  test("unknown ids and another team's messages are 404; inbound messages are 409", async () => {
    const { h, sendDeferred } = await setup();
    const id = await sendDeferred(["x@one.test"]);
    const other = h.addTeam();
    for (const action of ["retry", "cancel-delivery"]) {
      const foreign = await h.request("POST", `/v1/messages/${id}/${action}`, { token: other.teamToken });
      expect(foreign.status).toBe(404);
      expect(foreign.json).toEqual({ message: "Message not found.", error: "not_found" });
      expect((await h.request("POST", `/v1/messages/0190a0a0-0000-7000-8000-000000000000/${action}`)).status).toBe(404);
      expect((await h.request("POST", `/v1/messages/not-an-id/${action}`)).status).toBe(404);
    }
    expect(h.recipients(id)[0]!.status).toBe("soft_bounced");
  });

  test("a cancel racing an attempt in flight: the cancel commits first, yet the late 250 records the delivery the receiver made", async () => {
    const { h, sink, receiver, send } = await setup();
    sink.onRcpt = null;
    // The sink holds its answer until the cancel has committed (or 3 s, if the test fails first).
    let answer!: () => void;
    sink.dataHold = Promise.race([new Promise<void>((resolve) => (answer = resolve)), Bun.sleep(3_000)]);
    const id = await send(["x@one.test"]);
    // The sink has the message and holds its answer: the job is leased, the recipient processed.
    await waitFor(() => sink.answering > 0 || null);
    expect(h.recipients(id)[0]!.status).toBe("processed");
    const res = await h.request("POST", `/v1/messages/${id}/cancel-delivery`);
    expect(res.json.data.cancelled).toBe(1);
    expect(h.recipients(id)[0]!.status).toBe("failed");
    answer();
    // The attempt ends (the sink answers 250) and its outcome commits after the cancel: the
    // receiver has the message, so it is delivered, not cancelled.
    await waitFor(() => sink.received.length === 1 || null);
    await waitFor(async () => ((await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'outbound'"))!.n === 0 ? true : null));
    await waitFor(() => (h.recipients(id)[0]!.status === "delivered" ? true : null));
    expect(h.messageStatus(id)).toBe("delivered");
    const kinds = h.history(id).map((e) => e.kind);
    expect(kinds.filter((k) => k === "message.failed" || k === "message.delivered")).toEqual(["message.failed", "message.delivered"]);
    await waitFor(() => (receiver.deliveries.length >= 2 ? true : null));
    // Both reach the webhook once; they go out side by side, so they may arrive in either order
    // (docs/webhooks.md), and their timestamps tell the order they happened in.
    const posted = receiver.deliveries.map((d) => d.json as { event: string; timestamp: string });
    expect(posted.map((p) => p.event).sort()).toEqual(["message.delivered", "message.failed"]);
    expect(posted.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp)).map((p) => p.event)).toEqual(["message.failed", "message.delivered"]);
    expect(await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM delivery_receipts")).toEqual({ n: 0 });
  });
});

describe("bulk retry and cancel", () => {
  test("filters choose the messages; cancel by domain takes only that domain's recipients; no match affects nothing", async () => {
    const { h, sink, sendDeferred } = await setup();
    const a = await sendDeferred(["x@one.test"]);
    const b = await sendDeferred(["y@two.test"]);
    const c = await sendDeferred(["z@one.test", "w@two.test"]);

    for (const action of ["retry", "cancel"]) {
      const none = await h.request("POST", `/v1/queue/${action}?filter[domain]=nomatch.test`);
      expect(none.status).toBe(200);
      expect(none.json.data).toEqual({ messages: 0, recipients: 0 });
      const typo = await h.request("POST", `/v1/queue/${action}?filter[domian]=one.test`);
      expect(typo.status).toBe(422);
    }
    expect((await h.request("GET", "/v1/queue")).json.data).toHaveLength(3);

    const cancelled = await h.request("POST", "/v1/queue/cancel?filter[domain]=one.test");
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data).toEqual({ messages: 2, recipients: 2 });
    expect(h.messageStatus(a)).toBe("failed");
    expect(h.recipients(c).map((r) => [r.email, r.status])).toEqual([
      ["w@two.test", "soft_bounced"],
      ["z@one.test", "failed"],
    ]);
    expect((await h.request("GET", "/v1/queue")).json.data.map((m: any) => m.id)).toEqual([b, c]);

    sink.onRcpt = null;
    const retried = await h.request("POST", "/v1/queue/retry");
    expect(retried.json.data).toEqual({ messages: 2, recipients: 2 });
    await h.waitForStatus(b, ["delivered"]);
    await h.waitForStatus(c, ["delivered"]);
    expect(h.recipients(c).map((r) => r.status)).toEqual(["delivered", "failed"]);
    // Another team's bulk actions do not reach this team's queue.
    const other = h.addTeam();
    expect((await h.request("POST", "/v1/queue/cancel", { token: other.teamToken })).json.data).toEqual({ messages: 0, recipients: 0 });
  });

  test("a bulk cancel larger than one batch cancels all, in several transactions", async () => {
    const { h, sink } = await setup();
    // Accepted but never attempted: the outbound runner is stopped first, so every message stays pending.
    await h.runner.stop(2000);
    const ids: string[] = [];
    for (let i = 0; i < 450; i++) {
      const res = await h.send({ from: `app@${SENDER_DOMAIN}`, to: [`r${i}@one.test`], subject: "bulk", text: "hello" });
      expect(res.json).toMatchObject({ message_id: expect.any(String) });
      ids.push(res.json.message_id);
    }
    const commits = h.deps.store.stats.commits;
    const res = await h.request("POST", "/v1/queue/cancel");
    expect(res.json.data).toEqual({ messages: 450, recipients: 450 });
    expect(h.deps.store.stats.commits - commits).toBeGreaterThanOrEqual(3);
    expect(await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM recipients WHERE status <> 'failed'")).toEqual({ n: 0 });
    // Their jobs were due (they might have been running): left to run, they finish without sending anything.
    h.runner.start();
    await waitFor(async () => ((await h.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'outbound'"))!.n === 0 ? true : null), 15_000);
    expect(sink.received).toHaveLength(0);
    expect(sink.connections).toBe(0);
  });
});

describe("POST /v1/webhooks/{id}/deliveries/{delivery_id}/redeliver", () => {
  /** A canceled message whose one webhook delivery (message.failed) is on record; `respond` answers it. */
  async function deliveredOnce(opts: Parameters<typeof setup>[0] & { respond?: Responder } = {}) {
    const s = await setup(opts);
    s.receiver.respond = opts.respond ?? null;
    const id = await s.sendDeferred(["x@one.test"]);
    await s.h.request("POST", `/v1/messages/${id}/cancel-delivery`);
    const log = await waitFor(async () => {
      const r = await s.h.request("GET", `/v1/webhooks/${s.webhookId}/deliveries`);
      return r.json.data.length === 1 ? r.json.data : null;
    });
    return { ...s, log };
  }

  test("sends the same event again, signed afresh, recorded as a new attempt; foreign ids are 404", async () => {
    const { h, receiver, webhookId, log } = await deliveredOnce();
    expect(receiver.deliveries).toHaveLength(1); // the log records an attempt once the receiver has answered
    const [first] = receiver.deliveries;
    // The signature's t is in seconds: once the clock is past the first one's second, a fresh one differs.
    await waitFor(() => Math.floor(Date.now() / 1000) > first!.t!, 2000, 10);
    const res = await h.request("POST", `/v1/webhooks/${webhookId}/deliveries/${log[0].id}/redeliver`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ success: true, status_code: 200, event_id: first!.json!.id });
    expect(receiver.deliveries).toHaveLength(2);
    const again = receiver.deliveries[1]!;
    expect(again.verified).toBe(true);
    expect(again.json!.id).toBe(first!.json!.id);
    expect(again.body).toBe(first!.body);
    expect(again.t).toBeGreaterThan(first!.t!);
    expect(again.headers["x-service-signature"]).not.toBe(first!.headers["x-service-signature"]);
    expect(again.attempt).toBe(2);
    const after = (await h.request("GET", `/v1/webhooks/${webhookId}/deliveries`)).json.data;
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ id: res.json.data.delivery_id, attempt: 2 });

    const other = h.addTeam();
    const foreign = await h.request("POST", `/v1/webhooks/${webhookId}/deliveries/${log[0].id}/redeliver`, { token: other.teamToken });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ message: "Webhook not found.", error: "not_found" });
    const unknown = await h.request("POST", `/v1/webhooks/${webhookId}/deliveries/0190a0a0-0000-7000-8000-000000000000/redeliver`);
    expect(unknown.json).toEqual({ message: "Webhook delivery not found.", error: "not_found" });
    expect(receiver.deliveries).toHaveLength(2);
  });

  test("a slow receiver holds no one else's writes while a redelivery waits for it", async () => {
    const { h, receiver, webhookId, log } = await deliveredOnce();
    // The receiver answers once the send below has been answered, or after 3 s: a send waiting
    // for the redelivery's outcome would take those 3 s.
    let answer!: () => void;
    const answered = Promise.race([new Promise<void>((resolve) => (answer = resolve)), Bun.sleep(3000)]);
    receiver.respond = async () => {
      await answered;
      return new Response("ok");
    };
    const redelivery = h.request("POST", `/v1/webhooks/${webhookId}/deliveries/${log[0].id}/redeliver`);
    try {
      await waitFor(() => (receiver.deliveries.length === 2 ? true : null));
      // The attempt is on record (its number taken) and out; a send meanwhile commits at once.
      const started = performance.now();
      const sent = await h.send({ from: `app@${SENDER_DOMAIN}`, to: ["y@one.test"], subject: "meanwhile", text: "hello" });
      expect(sent.status).toBe(202);
      expect(performance.now() - started).toBeLessThan(1500);
    } finally {
      answer();
    }
    expect((await redelivery).json.data).toMatchObject({ success: true, status_code: 200 });
  });

  test("a retry still queued when the event is redelivered goes out with the number after the redelivery's", async () => {
    // The first attempt fails and its retry waits 1.5 s.
    const { h, receiver, webhookId, log } = await deliveredOnce({
      webhookScheduleMs: [1500],
      respond: async () => new Response("busy", { status: 503 }),
    });
    expect(log[0]).toMatchObject({ attempt: 1, outcome: "failed", status_code: 503 });
    receiver.respond = null;
    const res = await h.request("POST", `/v1/webhooks/${webhookId}/deliveries/${log[0].id}/redeliver`);
    expect(res.json.data).toMatchObject({ success: true, status_code: 200 });
    await waitFor(() => (receiver.deliveries.length === 3 ? true : null), 5000);
    expect(receiver.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3]);
    // The retry's row reads failed without an answer until its outcome commits, after the receiver
    // has the request: read the log once every attempt on it has its answer.
    const after = await waitFor(async () => {
      const rows = (await h.request("GET", `/v1/webhooks/${webhookId}/deliveries`)).json.data as any[];
      return rows.length === 3 && rows.every((d) => d.status_code !== null) ? rows : null;
    });
    expect(after.map((d) => [d.attempt, d.outcome]).sort()).toEqual([
      [1, "failed"],
      [2, "succeeded"],
      [3, "succeeded"],
    ]);
  });

  test("concurrent redeliveries of one event each get their own attempt number, the one they were sent with", async () => {
    const { h, receiver, webhookId, log } = await deliveredOnce();
    const answers = await Promise.all(
      [1, 2, 3, 4].map(() => h.request("POST", `/v1/webhooks/${webhookId}/deliveries/${log[0].id}/redeliver`)),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(receiver.deliveries.map((d) => d.attempt).sort()).toEqual([1, 2, 3, 4, 5]);
    const after = (await h.request("GET", `/v1/webhooks/${webhookId}/deliveries`)).json.data as any[];
    expect(after.map((d) => d.attempt).sort()).toEqual([1, 2, 3, 4, 5]);
    // Each answer names the attempt it recorded, and that attempt went out with its own number.
    for (const a of answers) {
      const row = after.find((d) => d.id === a.json.data.delivery_id);
      expect(row).toMatchObject({ outcome: "succeeded", status_code: 200 });
    }
  });
});
