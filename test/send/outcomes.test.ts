import { afterAll, beforeAll, expect, test } from "bun:test";
import { waitFor } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { freePort } from "../support/ports.ts";
import { startOutbound, type OutboundHarness } from "./harness.ts";

let dns: TestDnsServer;
let h: OutboundHarness;
beforeAll(async () => {
  dns = await startDnsServer();
  h = await startOutbound({ dns });
  await subscribeEveryRoute(h.deps);
});
afterAll(async () => {
  await h.close();
  await dns.close();
});

const mail = (to: string, extra: Record<string, unknown> = {}) => ({ from: "app@sender.test", to: [to], subject: "Hello", text: "Hello there", ...extra });

async function sendOne(to: string): Promise<string> {
  const res = await h.send(mail(to));
  expect(res.status).toBe(202);
  return res.json.message_id;
}

const jobRow = (messageId: string) => {
  const messageIdOf = h.sqlNow.dialect === "postgres" ? "(payload::jsonb ->> 'messageId')" : "json_extract(payload, '$.messageId')";
  return h.sqlNow.get<{ run_at: number; attempts: number; last_error: string | null }>(
    `SELECT run_at, attempts, last_error FROM jobs WHERE queue = 'outbound' AND ${messageIdOf} = ?`,
    [messageId],
  );
};

test("451 at RCPT, then 250: soft_bounced, retried, delivered", async () => {
  h.routeToSink("greylist.test");
  let refusals = 0;
  h.sink.onRcpt = (address) => (address === "grey@greylist.test" && refusals++ === 0 ? { code: 451, message: "4.7.1 Greylisted, please come back" } : null);
  const id = await sendOne("grey@greylist.test");
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  const statuses = h.history(id).map((e) => e.status);
  expect(statuses).toEqual(["pending", "queued", "processed", "soft_bounced", "processed", "delivered"]);
  const bounce = h.history(id).find((e) => e.status === "soft_bounced")!;
  expect(bounce.data.response).toEqual({ code: 451, enhanced_code: "4.7.1", message: "Greylisted, please come back" });
  expect(bounce.data.next_attempt_at).toBeString();
  expect(h.recipients(id)[0]!.attempts).toBe(2);
  const events = h.sqlNow.all<{ kind: string; body: string }>("SELECT kind, body FROM events WHERE message_id = ?", [id]);
  expect(events.filter((e) => e.kind === "message.sent").length).toBe(1); // the retry is in the history only
  const bounced = events.find((e) => e.kind === "message.bounced")!;
  expect(JSON.parse(bounced.body).data.bounce_type).toBe("soft");
  h.sink.onRcpt = null;
});

test("451 after DATA, then 250: retried and delivered once", async () => {
  h.routeToSink("busy.test");
  let refusals = 0;
  h.sink.onData = (m) => (m.to[0] === "x@busy.test" && refusals++ === 0 ? { code: 451, message: "4.3.0 Try later" } : null);
  const id = await sendOne("x@busy.test");
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  expect(h.sink.received.filter((m) => m.raw.includes(id)).length).toBe(1);
  h.sink.onData = null;
});

test("several destination domains: each gets its copy on the first attempt; a retry goes only to the one that deferred", async () => {
  h.routeToSink("first.test");
  h.routeToSink("second.test");
  let refusals = 0;
  h.sink.onRcpt = (address) => (address === "b@second.test" && refusals++ === 0 ? { code: 451, message: "4.7.1 Try again later" } : null);
  const res = await h.send(mail("a@first.test", { cc: ["b@second.test"] }));
  const id = res.json.message_id;
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  const copies = (rcpt: string) => h.sink.received.filter((m) => m.raw.includes(id) && m.to.includes(rcpt)).length;
  expect([copies("a@first.test"), copies("b@second.test")]).toEqual([1, 1]);
  expect(h.recipients(id).map((r) => [r.email, r.status, r.attempts])).toEqual([
    ["a@first.test", "delivered", 1],
    ["b@second.test", "delivered", 2],
  ]);
  h.sink.onRcpt = null;
});

test("a 250 is on record at once: a job re-run after a crash takes the receipt and does not send again", async () => {
  h.routeToSink("receipt.test");
  const id = await sendOne("r@receipt.test");
  await h.waitForStatus(id, ["delivered"]);
  const copies = () => h.sink.received.filter((m) => m.raw.includes(id)).length;
  expect(copies()).toBe(1);
  const receipts = () => h.sqlNow.get<{ n: number }>("SELECT count(*) AS n FROM delivery_receipts")!.n;
  expect(receipts()).toBe(0); // the outcome's commit removed it
  // What a crash between the 250 and the outcome's commit leaves: the recipient processed, its
  // receipt written, the job still queued.
  const rid = h.recipients(id)[0]!.id;
  h.sqlNow.run("UPDATE recipients SET status = 'processed' WHERE id = ?", [rid]);
  h.sqlNow.run("INSERT INTO delivery_receipts (recipient_id, reply, host, created_at) VALUES (?, ?, 'mx.sink.test', ?)", [
    rid,
    JSON.stringify({ code: 250, enhanced_code: "2.0.0", message: "Ok: queued as R1" }),
    Date.now(),
  ]);
  await h.deps.queue.enqueue("outbound", { messageId: id }, { maxAttempts: 1000 });
  await waitFor(() => h.recipients(id)[0]!.status === "delivered" && receipts() === 0);
  expect(copies()).toBe(1);
  const last = h.history(id).at(-1)!;
  expect(last.status).toBe("delivered");
  expect(last.data.response).toEqual({ code: 250, enhanced_code: "2.0.0", message: "Ok: queued as R1" });
});

test("a remote's 'try again in N' sets the next attempt", async () => {
  h.routeToSink("slow.test");
  h.sink.onRcpt = (address) => (address === "later@slow.test" ? { code: 450, message: "4.2.0 Mailbox busy, try again in 30 seconds" } : null);
  const before = Date.now();
  const id = await sendOne("later@slow.test");
  await h.waitForStatus(id, ["soft_bounced"]);
  const job = await waitFor(() => jobRow(id));
  expect(job.run_at - before).toBeGreaterThanOrEqual(29_000);
  expect(job.last_error).toContain("try again in 30 seconds");
  h.sink.onRcpt = null;
});

test("550 at RCPT: hard_bounced with the remote reply, a team suppression, and the next send is suppressed", async () => {
  h.routeToSink("strict.test");
  h.sink.onRcpt = (address) => (address === "nobody@strict.test" ? { code: 550, message: "5.1.1 <nobody@strict.test>: Recipient address rejected: User unknown" } : null);
  const res = await h.send(mail("nobody@strict.test", { cc: ["ok@strict.test"] }));
  const id = res.json.message_id;
  await waitFor(() => h.recipients(id).every((r) => ["delivered", "hard_bounced"].includes(r.status)));
  expect(h.recipients(id).map((r) => [r.email, r.status])).toEqual([
    ["nobody@strict.test", "hard_bounced"],
    ["ok@strict.test", "delivered"],
  ]);
  expect(h.messageStatus(id)).toBe("delivered");
  const bounce = h.history(id).find((e) => e.status === "hard_bounced")!;
  expect(bounce.data.response).toEqual({ code: 550, enhanced_code: "5.1.1", message: "<nobody@strict.test>: Recipient address rejected: User unknown" });
  const sup = h.sqlNow.get<{ scope: string; reason: string }>("SELECT scope, reason FROM suppressions WHERE email = ?", ["nobody@strict.test"]);
  expect(sup).toEqual({ scope: "team", reason: "hard_bounce" });
  expect(jobRow(id)).toBeNull();
  h.sink.onRcpt = null;

  const again = await h.send(mail("nobody@strict.test"));
  expect(again.status).toBe(202);
  expect(again.json.status).toBe("suppressed");
  expect(h.messageStatus(again.json.message_id)).toBe("suppressed");
  const kinds = h.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ?", [again.json.message_id]).map((e) => e.kind);
  expect(kinds).toEqual(["message.created", "message.suppressed"]);
});

test("a refused envelope sender (MAIL FROM) bounces without suppressing the recipient", async () => {
  h.routeToSink("picky.test");
  h.sink.onMailFrom = () => ({ code: 550, message: "5.7.1 Sender domain has a poor reputation" });
  const id = await sendOne("someone@picky.test");
  expect(await h.waitForStatus(id, ["hard_bounced"])).toBe("hard_bounced");
  h.sink.onMailFrom = null;
  expect(h.sqlNow.get("SELECT 1 AS one FROM suppressions WHERE email = 'someone@picky.test'")).toBeNull();
  // The connection survives a refused transaction: the next message goes through.
  const next = await sendOne("someone@picky.test");
  expect(await h.waitForStatus(next, ["delivered"])).toBe("delivered");
});

test("null MX and a nonexistent domain: hard_bounced without any connection", async () => {
  dns.set("nullmx.test", "MX", [{ exchange: ".", priority: 0 }]);
  const a = await sendOne("someone@nullmx.test");
  const b = await sendOne("someone@no-such-domain.test");
  expect(await h.waitForStatus(a, ["hard_bounced"])).toBe("hard_bounced");
  expect(await h.waitForStatus(b, ["hard_bounced"])).toBe("hard_bounced");
  expect(JSON.parse(h.recipients(a)[0]!.last_response!).message).toContain("null MX");
  expect(h.sink.received.some((m) => m.to.includes("someone@nullmx.test"))).toBe(false);
});

test("MX preference order with failover: the first host refuses connections, the second delivers", async () => {
  // 127.0.0.2 is loopback too, but nothing listens there on the sink's port.
  dns.set("failover.test", "MX", [
    { exchange: "mx-backup.failover.test", priority: 20 },
    { exchange: "mx-primary.failover.test", priority: 10 },
  ]);
  dns.set("mx-primary.failover.test", "A", ["127.0.0.2"]);
  dns.set("mx-backup.failover.test", "A", ["127.0.0.1"]);
  const id = await sendOne("f@failover.test");
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  const delivered = h.history(id).find((e) => e.status === "delivered")!;
  expect(delivered.data.mx).toBe("mx-backup.failover.test");
});

test("unreachable host: soft_bounced with a retry scheduled", async () => {
  dns.set("down.test", "MX", [{ exchange: "mx.down.test", priority: 10 }]);
  dns.set("mx.down.test", "A", ["127.0.0.2"]);
  const id = await sendOne("d@down.test");
  await h.waitForStatus(id, ["soft_bounced"]);
  const r = h.recipients(id)[0]!;
  expect(r.status).toBe("soft_bounced");
  const reply = JSON.parse(r.last_response!);
  expect(reply.code).toBeNull();
  expect(reply.message).toContain("127.0.0.2");
  const job = await waitFor(() => jobRow(id));
  expect(job.last_error).toContain("d@down.test");
  expect(job.run_at).toBeGreaterThan(Date.now() - 1000);
});

test("DNS failure (SERVFAIL) is temporary: soft_bounced and retried", async () => {
  dns.set("flaky.test", "MX", [{ exchange: "mx.sink.test", priority: 10 }]);
  dns.fail("flaky.test", "SERVFAIL");
  const id = await sendOne("f@flaky.test");
  await h.waitForStatus(id, ["soft_bounced"]);
  dns.fail("flaky.test", null);
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
});

test("queue lifetime exceeded: failed, with the last reply kept", async () => {
  const short = await startOutbound({ dns, env: { POSTHORN_QUEUE_LIFETIME: "1", POSTHORN_MX_PORT: String(await freePort()) } });
  await subscribeEveryRoute(short.deps);
  try {
    short.routeToSink("never.test");
    const res = await short.send(mail("n@never.test"));
    const id = res.json.message_id;
    expect(await short.waitForStatus(id, ["failed"], 5000)).toBe("failed");
    const hist = short.history(id).map((e) => e.status);
    expect(hist.filter((s) => s === "soft_bounced").length).toBeGreaterThanOrEqual(1);
    expect(hist[hist.length - 1]).toBe("failed");
    const failed = short.history(id).at(-1)!;
    expect(failed.data.reason).toContain("queue lifetime");
    expect(failed.data.response.message).toContain("ECONNREFUSED");
    const kinds = short.sqlNow.all<{ kind: string }>("SELECT kind FROM events WHERE message_id = ?", [id]).map((e) => e.kind);
    expect(kinds).toContain("message.failed");
  } finally {
    await short.close();
  }
});
