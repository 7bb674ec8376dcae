import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { addSuppression } from "../../src/events/message-status.ts";
import { acceptMessages } from "../../src/sending/acceptance.ts";
import { createTestApp, engine, insertTestDomain, type TestApp } from "../helpers.ts";

let app: TestApp;
const DOMAIN = "mail.example.com";
const freshApp = () => {
  app = createTestApp();
  insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: DOMAIN, status: "active" });
};

const valid = (extra: Record<string, unknown> = {}) => ({ from: `hello@${DOMAIN}`, to: ["a@dest.example"], subject: "Hi", text: "Hello!", ...extra });
const send = (body: unknown, headers?: Record<string, string>) => app.request("POST", "/v1/send", { projectToken: app.team.projectToken, body, headers });
const batch = (body: unknown, headers?: Record<string, string>) => app.request("POST", "/v1/send/batch", { projectToken: app.team.projectToken, body, headers });
const count = async (table: string) => (await app.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;

describe("POST /v1/send", () => {
  beforeEach(freshApp);
  test("202 with message_id and status pending; message, recipients and its outbound job stored", async () => {
    const res = await send(valid({ from: `Hello Team <hello@${DOMAIN}>`, cc: ["C <c@dest.example>"], bcc: ["b@dest.example"], tag: "welcome mail_1-x", metadata: { user: "42" } }));
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ message_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: "pending" });
    const m = await app.sql.get<Record<string, unknown>>("SELECT from_email, from_name, tag, status, metadata, message_id_header, type FROM messages WHERE id = ?", [
      res.json.message_id,
    ]);
    expect(m).toEqual({
      from_email: `hello@${DOMAIN}`,
      from_name: "Hello Team",
      tag: "welcome mail_1-x",
      status: "pending",
      metadata: '{"user":"42"}',
      message_id_header: `${res.json.message_id}@${DOMAIN}`,
      type: "outbound",
    });
    const rcpts = await app.sql.all<{ email: string; kind: string; status: string }>("SELECT email, kind, status FROM recipients WHERE message_id = ? ORDER BY email", [res.json.message_id]);
    expect(rcpts).toEqual([
      { email: "a@dest.example", kind: "to", status: "pending" },
      { email: "b@dest.example", kind: "bcc", status: "pending" },
      { email: "c@dest.example", kind: "cc", status: "pending" },
    ]);
    expect((await app.deps.queue.depth("outbound"))).toBe(1);
  });

  test("the project token is required; a team token is not a sending token", async () => {
    expect((await app.request("POST", "/v1/send", { token: null, body: valid() })).status).toBe(401);
    expect((await app.request("POST", "/v1/send", { token: app.team.teamToken, body: valid() })).status).toBe(401);
    expect((await app.request("POST", "/v1/send", { projectToken: "ph_wrong", body: valid() })).status).toBe(401);
  });

  test("malformed JSON → 400; oversized body → 413", async () => {
    const bad = await send("{not json");
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBeString();
    const big = createTestApp({ env: { POSTHORN_MAX_BODY_BYTES: "2048" } });
    const res = await big.request("POST", "/v1/send", { projectToken: big.team.projectToken, body: valid({ text: "x".repeat(5000) }) });
    expect(res.status).toBe(413);
  });

  test("a display name is allowed in from, to, cc and reply_to", async () => {
    const res = await send(valid({ from: `"Doe, Jane" <hello@${DOMAIN}>`, to: ["Bob <bob@dest.example>"], reply_to: ["Help <help@dest.example>"] }));
    expect(res.status).toBe(202);
  });

  test("a domain of another team, or one not attached to the project, cannot send", async () => {
    const other = app.addTeam();
    insertTestDomain(app.deps, { teamId: other.teamId, projectId: other.projectId, domain: "theirs.example", status: "active" });
    insertTestDomain(app.deps, { teamId: app.team.teamId, domain: "unattached.example", status: "active" });
    expect((await send(valid({ from: "x@theirs.example" }))).status).toBe(422);
    const res = await send(valid({ from: "x@unattached.example" }));
    expect(res.status).toBe(422);
    expect(res.json.errors.from[0]).toContain("not a sending domain of this project");
  });

  test("an unverified domain cannot send unless POSTHORN_REQUIRE_VERIFIED_DOMAIN is off", async () => {
    insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: "pending.example", status: "pending" });
    const res = await send(valid({ from: "x@pending.example" }));
    expect(res.status).toBe(422);
    expect(res.json.errors.from[0]).toContain("not verified");
    const relaxed = createTestApp({ env: { POSTHORN_REQUIRE_VERIFIED_DOMAIN: "false" } });
    insertTestDomain(relaxed.deps, { teamId: relaxed.team.teamId, projectId: relaxed.team.projectId, domain: "pending.example", status: "pending" });
    const ok = await relaxed.request("POST", "/v1/send", { projectToken: relaxed.team.projectToken, body: valid({ from: "x@pending.example" }) });
    expect(ok.status).toBe(202);
  });

  test("route by slug picks that route; default is the transactional route; broadcast forbids custom List-Unsubscribe", async () => {
    const routes = Object.fromEntries(
      (await app.sql.all<{ slug: string; id: string }>("SELECT slug, id FROM routes WHERE project_id = ?", [app.team.projectId])).map((r) => [r.slug, r.id]),
    );
    const a = await send(valid({ route: "broadcast" }));
    const b = await send(valid());
    const routeOf = async (id: string) => (await app.sql.get<{ route_id: string }>("SELECT route_id FROM messages WHERE id = ?", [id]))!.route_id;
    expect(await routeOf(a.json.message_id)).toBe(routes.broadcast);
    expect(await routeOf(b.json.message_id)).toBe(routes.transactional);
    const c = await send(valid({ route: "broadcast", headers: { "List-Unsubscribe": "<https://x.example/u>" } }));
    expect(c.status).toBe(422);
    const d = await send(valid({ headers: { "List-Unsubscribe": "<https://x.example/u>" } }));
    expect(d.status).toBe(202);
  });

  test("suppressed recipients (team, project and route scope) are dropped; all suppressed → status suppressed", async () => {
    const routeId = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND slug = 'transactional'", [app.team.projectId]))!.id;
    await addSuppression(app.deps.store.read, { teamId: app.team.teamId, scope: "team", email: "t@dest.example", reason: "manual" });
    await addSuppression(app.deps.store.read, { teamId: app.team.teamId, scope: "project", projectId: app.team.projectId, email: "p@dest.example", reason: "manual" });
    await addSuppression(app.deps.store.read, { teamId: app.team.teamId, scope: "route", routeId, email: "r@dest.example", reason: "unsubscribe" });
    const partial = await send(valid({ to: ["T@dest.example", "ok@dest.example"], cc: ["p@dest.example"], bcc: ["r@dest.example"] }));
    expect(partial.json.status).toBe("pending");
    const rows = await app.sql.all<{ email: string; status: string }>("SELECT email, status FROM recipients WHERE message_id = ? ORDER BY lower(email)", [partial.json.message_id]);
    expect(rows).toEqual([
      { email: "ok@dest.example", status: "pending" },
      { email: "p@dest.example", status: "suppressed" },
      { email: "r@dest.example", status: "suppressed" },
      { email: "T@dest.example", status: "suppressed" },
    ]);
    const all = await send(valid({ to: ["t@dest.example"] }));
    expect(all.status).toBe(202);
    expect(all.json.status).toBe("suppressed");
    expect((await app.deps.queue.depth("outbound"))).toBe(1); // only the partial one goes on
    // A route suppression applies to that route only.
    const other = await send(valid({ to: ["r@dest.example"], route: "broadcast" }));
    expect(other.json.status).toBe("pending");
  });
});

describe("POST /v1/send: bad input is a 422 naming the field, and nothing is stored", () => {
  // One app for all of these: none of them may store anything.
  beforeAll(() => {
    app = createTestApp();
    insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: DOMAIN, status: "active" });
  });
  const invalid: [string, Record<string, unknown>, string][] = [
    ["missing from", { from: undefined }, "from"],
    ["bad from", { from: "not an address" }, "from"],
    ["two from addresses", { from: `a@${DOMAIN}, b@${DOMAIN}` }, "from"],
    ["missing to", { to: undefined }, "to"],
    ["empty to", { to: [] }, "to"],
    ["bad to address", { to: ["ok@x.example", "bad@"] }, "to.1"],
    ["bad cc", { cc: ["x"] }, "cc.0"],
    ["bad bcc", { bcc: ["a@b"] }, "bcc.0"],
    ["bad reply_to", { reply_to: ["@x.example"] }, "reply_to.0"],
    ["subject too long", { subject: "s".repeat(999) }, "subject"],
    ["subject with CRLF", { subject: "Hi\r\nBcc: victim@x.example" }, "subject"],
    ["tag too long", { tag: "t".repeat(34) }, "tag"],
    ["tag charset", { tag: "no/slashes" }, "tag"],
    ["html too short", { html: "<b" }, "html"],
    ["text too short", { text: "hi" }, "text"],
    ["neither html nor text", { text: undefined }, "html"],
    ["header injection in a value", { headers: { "X-Note": "a\r\nBcc: victim@x.example" } }, "headers.X-Note"],
    ["header injection in a name", { headers: { "X-A\r\nBcc": "v" } }, "headers.X-A\r\nBcc"],
    ["header name with a colon", { headers: { "X-A:B": "v" } }, "headers.X-A:B"],
    ["From override", { headers: { From: "ceo@bank.example" } }, "headers.From"],
    ["to override (any case)", { headers: { tO: "x@y.example" } }, "headers.tO"],
    ["Message-ID override", { headers: { "Message-ID": "<x@y>" } }, "headers.Message-ID"],
    ["DKIM-Signature override", { headers: { "DKIM-Signature": "v=1" } }, "headers.DKIM-Signature"],
    ["Return-Path override", { headers: { "Return-Path": "<x@y.example>" } }, "headers.Return-Path"],
    ["Content-Type override", { headers: { "Content-Type": "text/plain" } }, "headers.Content-Type"],
    ["headers not strings", { headers: { "X-A": 1 } }, "headers"],
    ["metadata not strings", { metadata: { a: { b: 1 } } }, "metadata"],
    ["attachment not base64", { attachments: [{ filename: "a.txt", content: "%%%" }] }, "attachments.0.content"],
    ["attachment without filename", { attachments: [{ content: "aGVsbG8=" }] }, "attachments"],
    ["attachment bad content_id", { attachments: [{ filename: "a.png", content: "aGVsbG8=", content_id: "a b" }] }, "attachments.0.content_id"],
    ["attachment bad content_type", { attachments: [{ filename: "a.png", content: "aGVsbG8=", content_type: "png" }] }, "attachments.0.content_type"],
    ["501 recipients", { to: Array.from({ length: 501 }, (_, i) => `r${i}@x.example`) }, "to"],
    ["route unknown", { route: "nope" }, "route"],
    ["inbound route", { route: "inbound" }, "route"],
    ["from domain not the project's", { from: "me@elsewhere.example" }, "from"],
  ];
  for (const [name, patch, field] of invalid) {
    test(`422: ${name}`, async () => {
      const body: Record<string, unknown> = { ...valid(), ...patch };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const res = await send(body);
      expect(res.status).toBe(422);
      expect(res.json.message).toBeString();
      expect(Object.keys(res.json.errors)).toContain(field);
      expect(await count("messages")).toBe(0);
    });
  }

  test("refused sends among good ones sent at the same moment (on SQLite in one group commit) refuse only themselves", async () => {
    const before = await count("messages");
    const bodies = Array.from({ length: 24 }, (_, i) => (i % 3 === 1 ? valid({ route: "nope" }) : i % 3 === 2 ? valid({ from: "me@elsewhere.example" }) : valid()));
    const statuses = (await Promise.all(bodies.map((b) => send(b)))).map((r) => r.status);
    expect(statuses).toEqual(bodies.map((_, i) => (i % 3 === 0 ? 202 : 422)));
    expect(await count("messages")).toBe(before + 8);
  });
});

describe("POST /v1/send/batch", () => {
  beforeEach(freshApp);
  test("one entry per email, in order", async () => {
    const res = await batch([valid({ subject: "one" }), valid({ subject: "two" }), valid({ subject: "three" })]);
    expect(res.status).toBe(202);
    expect(res.json.length).toBe(3);
    const subjects = [];
    for (const r of res.json as { message_id: string }[]) subjects.push((await app.sql.get<{ subject: string }>("SELECT subject FROM messages WHERE id = ?", [r.message_id]))!.subject);
    expect(subjects).toEqual(["one", "two", "three"]);
    expect(res.json.every((r: { status: string }) => r.status === "pending")).toBe(true);
  });

  test("atomic: one invalid email → 422 keyed by index, nothing accepted", async () => {
    const items = Array.from({ length: 5 }, (_, i) => valid({ subject: `m${i}` }));
    items[3] = valid({ subject: "x".repeat(1000) });
    items[4] = valid({ from: "x@not-ours.example" });
    const res = await batch(items);
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toContain("3.subject");
    expect(await count("messages")).toBe(0);
    const res2 = await batch([valid(), valid({ from: "x@not-ours.example" })]);
    expect(res2.status).toBe(422);
    expect(Object.keys(res2.json.errors)).toEqual(["1.from"]);
    expect(await count("messages")).toBe(0);
    expect(await count("jobs")).toBe(0);
  });

  test("500 emails are accepted; 501 or an empty batch is a 422", async () => {
    expect((await batch(Array.from({ length: 501 }, () => valid()))).status).toBe(422);
    expect((await batch([])).status).toBe(422);
    expect((await batch(valid())).status).toBe(422);
    const ok = await batch(Array.from({ length: 500 }, (_, i) => valid({ to: [`r${i}@dest.example`] })));
    expect(ok.status).toBe(202);
    expect(ok.json.length).toBe(500);
    expect(await count("messages")).toBe(500);
  });
});

describe("Idempotency-Key", () => {
  beforeEach(freshApp);
  test("same key and body → the first response again, nothing stored twice", async () => {
    const first = await send(valid(), { "Idempotency-Key": "order-1" });
    const again = await send(valid(), { "Idempotency-Key": "order-1" });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.json).toEqual(first.json);
    expect(await count("messages")).toBe(1);
  });

  test("same key, other body → 409; other key → new message", async () => {
    await send(valid(), { "Idempotency-Key": "k" });
    const conflict = await send(valid({ subject: "changed" }), { "Idempotency-Key": "k" });
    expect(conflict.status).toBe(409);
    expect(conflict.json.message).toContain("Idempotency-Key");
    expect((await send(valid(), { "Idempotency-Key": "k2" })).status).toBe(202);
    expect(await count("messages")).toBe(2);
  });

  test("concurrent repeats with one key send once; the others get its answer or a 409 while it is processed", async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => batch([valid(), valid()], { "Idempotency-Key": "burst" })));
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted.length).toBeGreaterThan(0);
    expect(new Set(accepted.map((a) => JSON.stringify(a.json))).size).toBe(1);
    for (const a of answers.filter((a) => a.status !== 202)) expect([a.status, a.json.message]).toEqual([409, expect.stringContaining("still being processed")]);
    expect(await count("messages")).toBe(2);
    // Once answered, a repeat replays.
    expect((await batch([valid(), valid()], { "Idempotency-Key": "burst" })).json).toEqual(accepted[0]!.json);
  });

  test("keys are per project and expire after 24 h; a rejected request does not use up its key", async () => {
    const other = app.addTeam();
    insertTestDomain(app.deps, { teamId: other.teamId, projectId: other.projectId, domain: "b.example", status: "active" });
    await send(valid(), { "Idempotency-Key": "shared" });
    const b = await app.request("POST", "/v1/send", { projectToken: other.projectToken, body: valid({ from: "x@b.example" }), headers: { "Idempotency-Key": "shared" } });
    expect(b.status).toBe(202);
    await app.sql.run("UPDATE idempotency_keys SET expires_at = ?", [Date.now() - 1]);
    const later = await send(valid({ subject: "new day" }), { "Idempotency-Key": "shared" });
    expect(later.status).toBe(202);
    expect((await send(valid({ subject: "x".repeat(2000) }), { "Idempotency-Key": "fresh" })).status).toBe(422);
    expect((await send(valid(), { "Idempotency-Key": "fresh" })).status).toBe(202);
  });

  test("a key longer than 255 characters is a 422; the single and batch endpoints do not share answers", async () => {
    expect((await send(valid(), { "Idempotency-Key": "k".repeat(256) })).status).toBe(422);
    await send(valid(), { "Idempotency-Key": "both" });
    expect((await batch([valid()], { "Idempotency-Key": "both" })).status).toBe(409);
  });
});

describe("durability", () => {
  beforeEach(freshApp);
  // SQLite's group-commit writer; on PostgreSQL each request's unit is a transaction of its own.
  test.skipIf(engine === "postgres")("concurrent sends share group commits (one fsync serves many requests)", async () => {
    const before = { ...app.deps.store.stats };
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => send(valid({ subject: `c${i}` }))));
    expect(results.every((r) => r.status === 202)).toBe(true);
    const commits = app.deps.store.stats.commits - before.commits;
    expect(commits).toBeLessThan(16);
    expect(app.deps.store.stats.largestBatch).toBeGreaterThan(4);
    expect(await count("messages")).toBe(64);
  });

  test("acceptMessages works without HTTP (for SMTP submission) and names errors by index in batch mode", async () => {
    const principal = { teamId: app.team.teamId, projectId: app.team.projectId };
    const [one] = await acceptMessages(app.deps, principal, [valid()]);
    expect(one!.status).toBe("pending");
    try {
      await acceptMessages(app.deps, principal, [valid(), { ...valid(), to: ["nope"] }], { batch: true });
      throw new Error("expected a ValidationError");
    } catch (err) {
      expect((err as { errors: Record<string, string[]> }).errors).toHaveProperty(["1.to.0"]);
    }
  });
});
