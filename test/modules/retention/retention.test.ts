import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { newId } from "../../../src/ids.ts";
import { idAt, runRetentionSlice, startRetention, RETENTION_QUEUE, type RetentionOptions } from "../../../src/modules/retention/service.ts";
import { attachmentDownloadUrl } from "../../../src/auth/attachment-links.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { createTestApp, engine, insertTestDomain, tempDir } from "../../helpers.ts";
import { insertMessage, routeIdOf } from "../messages/fixtures.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";
import { subscribeEveryRoute } from "../../support/event-subscriber.ts";

// Fast enough for a test, still several transactions per pass (batch 2).
const FAST: RetentionOptions = { batch: 2, pauseMs: 0, sliceMs: 10_000, sweepIntervalMs: 60_000, reclaimPages: 500 };

let h: OutboundHarness;
beforeAll(async () => {
  h = await startOutbound();
  await subscribeEveryRoute(h.deps);
});
afterAll(async () => {
  await h.close();
});

const tick = () => Bun.sleep(5);

async function sendTo(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.send({ from: "app@sender.test", to: [to], subject: `For ${to}`, html: `<p>Hello ${to}</p>`, text: `Hello ${to}`, ...extra });
  expect(res.status).toBe(202);
  return res.json.message_id;
}

/** What retention may remove of a message, and what must stay. */
function footprint(id: string) {
  const c = h.sqlNow.get<{ html: string | null; text: string | null; raw: Uint8Array | null; headers: string }>(
    "SELECT html, text, raw, headers FROM message_contents WHERE message_id = ?",
    [id],
  );
  const attachments = h.sqlNow.all<{ filename: string; size: number; content: Uint8Array }>("SELECT filename, size, content FROM attachments WHERE message_id = ?", [id]);
  const eventIds = h.sqlNow.all<{ id: string }>("SELECT id FROM events WHERE message_id = ?", [id]).map((e) => e.id);
  const count = (sql: string) => h.sqlNow.get<{ n: number }>(sql, [id])!.n;
  return {
    html: c?.html ?? null,
    text: c?.text ?? null,
    raw: c?.raw ? c.raw.length : null,
    headers: c?.headers ?? null,
    attachments: attachments.map((a) => ({ filename: a.filename, size: a.size, stored: a.content.length })),
    events: eventIds.length,
    deliveries: count("SELECT count(*) AS n FROM webhook_deliveries WHERE event_id IN (SELECT id FROM events WHERE message_id = ?)"),
    history: count("SELECT count(*) AS n FROM message_events WHERE message_id = ?"),
    recipients: h.sqlNow.all<{ status: string }>("SELECT status FROM recipients WHERE message_id = ?", [id]).map((r) => r.status),
    status: h.messageStatus(id),
  };
}

/** A webhook of the message's route with one logged delivery of each of the message's events. */
function logWebhookDeliveries(id: string) {
  const m = h.sqlNow.get<{ team_id: string; route_id: string }>("SELECT team_id, route_id FROM messages WHERE id = ?", [id])!;
  const hook = newId();
  h.sqlNow.run(
    `INSERT INTO webhooks (id, team_id, route_id, name, url, events, enabled, secret, created_at, updated_at)
     VALUES (?, ?, ?, 'hook', 'https://hooks.example.test/x', '["message.delivered"]', 1, 'whsec_test', 0, 0)`,
    [hook, m.team_id, m.route_id],
  );
  for (const e of h.sqlNow.all<{ id: string; kind: string }>("SELECT id, kind FROM events WHERE message_id = ?", [id])) {
    h.sqlNow.run(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, attempt, outcome, status_code, duration_ms, response_excerpt, created_at)
       VALUES (?, ?, ?, ?, 1, 'succeeded', 200, 10, 'ok', ?)`,
      [newId(), hook, e.id, e.kind, Date.now()],
    );
  }
}

const attachment = { filename: "report.txt", content: Buffer.from("quarterly numbers ".repeat(50)).toString("base64"), content_type: "text/plain" };

describe("purge", () => {
  let old: string;
  let held: string;
  let recent: string;
  let firstCursor: { after?: string };
  let cutoff: number;

  test("final for longer than the window: bodies, source, attachment content, events and webhook logs go; the message and its statistics stay", async () => {
    h.routeToSink("old.test");
    h.routeToSink("held.test");
    h.routeToSink("recent.test");
    // held.test defers every attempt: that message stays soft_bounced (not final), however old.
    h.sink.onRcpt = (address) => (address.endsWith("@held.test") ? { code: 450, message: "4.2.0 Mailbox held for the test" } : null);
    old = await sendTo("a@old.test", { attachments: [attachment] });
    held = await sendTo("h@held.test");
    expect(await h.waitForStatus(old, ["delivered"])).toBe("delivered");
    expect(await h.waitForStatus(held, ["soft_bounced"])).toBe("soft_bounced");
    logWebhookDeliveries(old);
    await tick();
    cutoff = Date.now();
    await tick();
    recent = await sendTo("r@recent.test", { attachments: [attachment] });
    expect(await h.waitForStatus(recent, ["delivered"])).toBe("delivered");
    logWebhookDeliveries(recent);

    const before = { old: footprint(old), held: footprint(held), recent: footprint(recent) };
    expect(before.old.raw).toBeGreaterThan(0);
    expect(before.old.events).toBeGreaterThan(0);
    expect(before.old.deliveries).toBe(before.old.events);
    const project = await h.request("GET", `/v1/projects/${h.team.projectId}`);
    expect(project.status).toBe(200);

    const run = await runRetentionSlice(h.deps, cutoff, {}, FAST);
    expect(run.passDone).toBe(true);
    expect(run.purged).toBe(1);
    expect(run.transactions).toBeGreaterThan(0);
    firstCursor = run.cursor;

    const after = footprint(old);
    expect(after).toEqual({
      ...before.old,
      html: null,
      text: null,
      raw: null,
      headers: null,
      attachments: [{ filename: "report.txt", size: before.old.attachments[0]!.size, stored: 0 }],
      events: 0,
      deliveries: 0,
    });
    expect(after.history).toBe(before.old.history);
    // The recent message and the one still being retried are untouched.
    expect(footprint(recent)).toEqual(before.recent);
    const contents = (f: ReturnType<typeof footprint>) => ({ html: f.html, text: f.text, raw: f.raw, headers: f.headers });
    expect(contents(footprint(held))).toEqual(contents(before.held));
    expect(footprint(held).events).toBeGreaterThan(0);
    // Statistics (the project's counts) are the same as before the purge.
    expect((await h.request("GET", `/v1/projects/${h.team.projectId}`)).json).toEqual(project.json);
  });

  test("the API answers for a purged message: detail and history as before, source and HTML a 404 that says it was purged", async () => {
    const detail = await h.request("GET", `/v1/messages/${old}`);
    expect(detail.status).toBe(200);
    expect(detail.json.status).toBe("delivered");
    expect(detail.json.attachments).toEqual([expect.objectContaining({ filename: "report.txt", content_type: "text/plain" })]);
    const events = await h.request("GET", `/v1/messages/${old}/events`);
    expect(events.status).toBe(200);
    expect(events.json.data.length).toBeGreaterThan(0);
    for (const part of ["source", "html"]) {
      const res = await h.request("GET", `/v1/messages/${old}/${part}`);
      expect(res.status).toBe(404);
      expect(res.json.message).toMatch(/was purged on \d{4}-\d\d-\d\dT.*POSTHORN_RETENTION_DAYS/);
    }
    // A message that is kept still has both.
    expect((await h.request("GET", `/v1/messages/${recent}/source`)).status).toBe(200);
    expect((await h.request("GET", `/v1/messages/${recent}/html`)).status).toBe(200);
    // Another team's purged message is a plain 404, as any of its messages.
    const other = h.addTeam();
    const foreign = await h.request("GET", `/v1/messages/${old}/source`, { token: other.teamToken });
    expect(foreign.status).toBe(404);
    expect(foreign.json.message).toBe("Message not found.");
  });

  test("re-running changes nothing", async () => {
    const before = footprint(old);
    const run = await runRetentionSlice(h.deps, cutoff, {}, FAST);
    expect(run.passDone).toBe(true);
    expect(run.purged).toBe(0);
    expect(footprint(old)).toEqual(before);
  });

  test("mail queued from before the window still delivers, and is purged once final for longer than the window", async () => {
    const sent = h.sink.received.length;
    h.sink.onRcpt = null;
    expect(await h.waitForStatus(held, ["delivered"], 10_000)).toBe("delivered");
    expect(h.sink.received.slice(sent).some((m) => m.raw.includes("Hello h@held.test"))).toBe(true);
    await tick();
    // The next pass starts where the first kept a message, so it reaches the held one again.
    const run = await runRetentionSlice(h.deps, Date.now(), firstCursor, FAST);
    expect(run.passDone).toBe(true);
    expect(run.purged).toBe(2); // held and recent
    expect(footprint(held).raw).toBeNull();
    expect(footprint(recent).attachments[0]!.stored).toBe(0);
  });
});

test("inbound: a processed message is purged (raw source, its message.inbound event, its attachments' links answer that they were purged); one still pending is not", async () => {
  const t = createTestApp();
  const routeId = routeIdOf(t.deps, t.team.projectId, "inbound");
  const at = Date.now() - 1000;
  const raw = "From: a@example.net\r\nSubject: Hi\r\n\r\nHello";
  const attachments = [{ filename: "scan.pdf", contentType: "application/pdf", content: "%PDF-1.4 scanned" }];
  const processed = insertMessage(t.deps, { teamId: t.team.teamId, routeId, type: "inbound", status: "processed", createdAt: at, raw, attachments });
  const pending = insertMessage(t.deps, { teamId: t.team.teamId, routeId, type: "inbound", status: "pending", createdAt: at, raw, attachments });
  for (const id of [processed, pending]) {
    await t.sql.run("INSERT INTO events (id, team_id, route_id, message_id, kind, body, created_at) VALUES (?, ?, ?, ?, 'message.inbound', '{}', ?)", [newId(), t.team.teamId, routeId, id, at]);
  }
  const attachmentOf = async (id: string) => (await t.sql.get<{ id: string }>("SELECT id FROM attachments WHERE message_id = ?", [id]))!.id;
  const download = async (id: string) => {
    const { url } = attachmentDownloadUrl(await serverSecretOf(t.deps.store), "http://localhost", await attachmentOf(id));
    return t.app.handle(new Request(url));
  };
  expect((await download(processed)).status).toBe(200);

  const run = await runRetentionSlice(t.deps, Date.now(), {}, FAST);
  expect(run.purged).toBe(1);
  const source = await t.request("GET", `/v1/messages/${processed}/source`);
  expect(source.status).toBe(404);
  expect(source.json.message).toContain("Message source was purged on");
  const link = await download(processed);
  expect(link.status).toBe(404);
  expect(((await link.json()) as { message: string }).message).toContain("Attachment was purged on");
  expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE message_id = ?", [processed]))!.n).toBe(0);
  // The pending one (its job has not run) keeps everything.
  expect((await t.request("GET", `/v1/messages/${pending}/source`)).text).toBe(raw);
  expect((await download(pending)).status).toBe(200);
  expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE message_id = ?", [pending]))!.n).toBe(1);
  await t.deps.store.close();
});

test("the walk's bound: an id made of a time sorts above every id made before it, below every one made after", async () => {
  const t = Date.now();
  const earlier = Bun.randomUUIDv7("hex", t - 1);
  const same = Bun.randomUUIDv7("hex", t);
  expect(earlier < idAt(t)).toBe(true);
  expect(same > idAt(t)).toBe(true);
});

test("POSTHORN_RETENTION_DAYS: 30 by default, 0 keeps forever, below the webhook retry horizon refused", () => {
  expect(loadConfig({}).retentionDays).toBe(30);
  expect(loadConfig({ POSTHORN_RETENTION_DAYS: "0" }).retentionDays).toBe(0);
  expect(loadConfig({ POSTHORN_RETENTION_DAYS: "3" }).retentionDays).toBe(3);
  expect(() => loadConfig({ POSTHORN_RETENTION_DAYS: "2" })).toThrow(/POSTHORN_RETENTION_DAYS.*at least 3/);
  expect(() => loadConfig({ POSTHORN_RETENTION_DAYS: "-1" })).toThrow(/POSTHORN_RETENTION_DAYS/);
});

test("one retention job across starts; none with retention off", async () => {
  const on = createTestApp();
  await startRetention(on.deps);
  await startRetention(on.deps);
  expect((await on.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = ?", [RETENTION_QUEUE]))!.n).toBe(1);
  await on.deps.store.close();
  const off = createTestApp({ env: { POSTHORN_RETENTION_DAYS: "0" } });
  await startRetention(off.deps);
  expect((await off.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = ?", [RETENTION_QUEUE]))!.n).toBe(0);
  await off.deps.store.close();
});

test.skipIf(engine !== "sqlite")("SQLite: the file switches to incremental auto-vacuum once and shrinks after a purge", async () => {
  const dbPath = join(tempDir("retention-"), "posthorn.db");
  const t = createTestApp({ dbPath });
  insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: t.team.projectId, domain: "sender.test", status: "active" });
  const sqlite = (t.deps.store as unknown as { sqlite: import("bun:sqlite").Database }).sqlite;
  expect(t.deps.store.read.retention.useIncrementalVacuum()).toEqual({ vacuumed: true });
  expect(t.deps.store.read.retention.useIncrementalVacuum()).toEqual({ vacuumed: false });
  const body = "<p>" + "lorem ipsum dolor sit amet ".repeat(2000) + "</p>";
  for (let i = 0; i < 60; i++) {
    const res = await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: { from: "app@sender.test", to: [`u${i}@example.test`], subject: "big", html: body } });
    if (res.status !== 202) throw new Error(res.text);
  }
  // Sink delivery is not running here: make the messages final as delivery would.
  sqlite.run("UPDATE recipients SET status = 'delivered'");
  sqlite.run("UPDATE messages SET status = 'delivered'");
  const size = () => {
    sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
    return statSync(dbPath).size;
  };
  const before = size();
  await Bun.sleep(5);
  const run = await runRetentionSlice(t.deps, Date.now(), {}, { ...FAST, batch: 20 });
  expect(run.purged).toBe(60);
  expect(run.reclaimedPages).toBeGreaterThan(0);
  const after = size();
  expect(after).toBeLessThan(before * 0.6);
  expect((await t.deps.store.read.retention.footprint()).freePages).toBe(0);
  await t.deps.store.close();
});
