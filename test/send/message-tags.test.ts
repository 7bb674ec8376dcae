/**
 * Name-value tags (Lettermint's `tags`, beside the spec's single `tag`): sent with POST /v1/send
 * and batch items, stored, shown in the message, its list item and events, carried by every
 * webhook event of the message, and filterable in GET /v1/messages with filter[tags][n][name] and
 * filter[tags][n][value], through an index. Bad tags are a 422 with the error body and store nothing.
 * The app delivers to a loopback MX sink and posts its webhooks to a loopback HTTPS receiver.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { useWebhookSender, WebhookSender } from "../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { messageListQuery } from "../../src/modules/messages/service.ts";
import { engine, waitFor } from "../helpers.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";
import { SENDER_DOMAIN, startOutbound, type OutboundHarness } from "./harness.ts";

let h: OutboundHarness;
let receiver: TestReceiver;
let sender: WebhookSender;

beforeAll(async () => {
  h = await startOutbound({ env: { POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" } });
  h.routeToSink("dest.test");
  const cert = makeTestCert(["hooks.example.test"]);
  h.dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  sender = new WebhookSender({ dns: h.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 3000, dnsCacheMs: 0 });
  useWebhookSender(h.deps, sender);
  registerWebhookJobs(h.runner, h.deps, { sender, scheduleMs: [50, 50, 50] });
  receiver = startReceiver(cert);
  const routeId = (await h.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [h.team.projectId]))!.id;
  const hook = await h.request("POST", "/v1/webhooks", {
    body: {
      route_id: routeId,
      name: "tags",
      url: receiver.url(),
      events: ["message.created", "message.sent", "message.delivered", "message.scheduled", "message.rescheduled", "message.canceled"],
    },
  });
  expect(hook.status).toBe(201);
  receiver.secret = hook.json.data.secret;
});

afterAll(async () => {
  await h.close();
  sender.close();
  await receiver.stop();
});

const mail = (extra: Record<string, unknown> = {}) => ({ from: `app@${SENDER_DOMAIN}`, to: ["rcpt@dest.test"], subject: "Tagged", text: "Hello tags", ...extra });
const count = async (table: string) => Number((await h.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);
const ids = (res: { json: { data: { id: string }[] } }) => res.json.data.map((m) => m.id);
const list = (query: string) => h.request("GET", `/v1/messages?${query}`);

describe("tags on a message", () => {
  const tags = [
    { name: "campaign", value: "spring-2026" },
    { name: "Tier", value: "gold" },
    { name: "tier", value: "GOLD_1" },
  ];
  let id = "";

  test("sent with a tag, stored in order and shown in the message, its list item and its events", async () => {
    const res = await h.send(mail({ tag: "welcome", tags }));
    expect(res.status).toBe(202);
    id = res.json.message_id;
    await h.waitForStatus(id, ["delivered"]);

    const detail = await h.request("GET", `/v1/messages/${id}`);
    expect(detail.json).toMatchObject({ tag: "welcome", tags });
    const item = (await list("page[size]=100")).json.data.find((m: { id: string }) => m.id === id);
    expect(item).toMatchObject({ tag: "welcome", tags });
    const events = (await h.request("GET", `/v1/messages/${id}/events?page[size]=100`)).json.data as { kind: string; tags: unknown; data: { tags?: unknown } }[];
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(["message.created", "message.sent", "message.delivered"]));
    for (const e of events) {
      expect(e.tags).toEqual(tags);
      expect(e.data.tags).toEqual(tags);
    }
  });

  test("every webhook event of the message carries its tags beside tag and metadata", async () => {
    const got = await waitFor(() => {
      const mine = receiver.deliveries.filter((d) => d.json?.data?.message_id === id);
      return mine.length >= 3 ? mine : null;
    }, 10_000);
    expect(got.map((d) => d.json!.event).sort()).toEqual(["message.created", "message.delivered", "message.sent"]);
    for (const d of got) {
      expect(d.verified).toBe(true);
      expect(d.json!.data).toMatchObject({ tag: "welcome", tags, metadata: {} });
    }
  });

  test("a scheduled message's events carry its tags too: created, scheduled, rescheduled, canceled", async () => {
    const hour = 3_600_000;
    const res = await h.send(mail({ tags, scheduled_at: new Date(Date.now() + hour).toISOString() }));
    expect(res.status).toBe(202);
    const sid = res.json.message_id;
    expect((await h.request("PATCH", `/v1/messages/${sid}`, { body: { scheduled_at: new Date(Date.now() + 2 * hour).toISOString() } })).status).toBe(200);
    expect((await h.request("POST", `/v1/messages/${sid}/cancel`)).status).toBe(200);
    const got = await waitFor(() => {
      const mine = receiver.deliveries.filter((d) => d.json?.data?.message_id === sid);
      return mine.length >= 4 ? mine : null;
    }, 10_000);
    expect(got.map((d) => d.json!.event).sort()).toEqual(["message.canceled", "message.created", "message.rescheduled", "message.scheduled"]);
    for (const d of got) expect(d.json!.data).toMatchObject({ tags, metadata: {} });
    const events = (await h.request("GET", `/v1/messages/${sid}/events?page[size]=100`)).json.data as { kind: string; tags: unknown; data: { tags?: unknown } }[];
    for (const e of events) expect([e.kind, e.tags, e.data.tags]).toEqual([e.kind, tags, tags]);
  });

  test("a message without tags shows an empty list", async () => {
    const res = await h.send(mail());
    expect((await h.request("GET", `/v1/messages/${res.json.message_id}`)).json.tags).toEqual([]);
  });
});

describe("filter[tags] in GET /v1/messages", () => {
  const sent: Record<string, string> = {};

  beforeAll(async () => {
    const batch = await h.request("POST", "/v1/send/batch", {
      projectToken: h.team.projectToken,
      body: [
        mail({ subject: "a", tags: [{ name: "list", value: "news" }, { name: "lang", value: "de" }] }),
        mail({ subject: "b", tags: [{ name: "list", value: "news" }, { name: "lang", value: "en" }] }),
        mail({ subject: "c", tags: [{ name: "list", value: "offers" }, { name: "lang", value: "de" }], tag: "promo" }),
        mail({ subject: "d", tags: [{ name: "list", value: "news" }] }),
        mail({ subject: "e" }),
      ],
    });
    expect(batch.status).toBe(202);
    ["a", "b", "c", "d", "e"].forEach((s, i) => (sent[s] = batch.json[i].message_id));
  });

  const of = (...subjects: string[]) => subjects.map((s) => sent[s]);

  test("one pair, several pairs (all must match), a name alone, combined with other filters; newest first", async () => {
    expect(ids(await list("filter[tags][0][name]=list&filter[tags][0][value]=news"))).toEqual(of("d", "b", "a"));
    expect(ids(await list("filter[tags][0][name]=list&filter[tags][0][value]=news&filter[tags][1][name]=lang&filter[tags][1][value]=de"))).toEqual(of("a"));
    expect(ids(await list("filter[tags][0][name]=lang&filter[tags][1][name]=list&filter[tags][1][value]=news"))).toEqual(of("b", "a"));
    expect(ids(await list("filter[tags][0][name]=lang"))).toEqual(of("c", "b", "a"));
    expect(ids(await list("filter[tags][0][name]=lang&filter[tags][0][value]=de&filter[tag]=promo"))).toEqual(of("c"));
    expect(ids(await list("filter[tags][0][name]=lang&filter[tags][0][value]=de&filter[subject]=a"))).toEqual(of("a"));
    expect(ids(await list("filter[tags][0][name]=list&filter[tags][0][value]=news&sort=subject"))).toEqual(of("a", "b", "d"));
    // Exact and case-sensitive.
    expect(ids(await list("filter[tags][0][name]=List&filter[tags][0][value]=news"))).toEqual([]);
    expect(ids(await list("filter[tags][0][name]=list&filter[tags][0][value]=new"))).toEqual([]);
    // Another team's token sees none of them.
    const b = h.addTeam();
    expect(ids(await h.request("GET", "/v1/messages?filter[tags][0][name]=list", { token: b.teamToken }))).toEqual([]);
  });

  test("pages walk the filtered list once, forward and back, and their URLs keep every pair", async () => {
    const q = "filter[tags][0][name]=list&filter[tags][0][value]=news&filter[tags][1][name]=list&page[size]=1";
    const walked: string[] = [];
    let res = await list(q);
    walked.push(...ids(res));
    while (res.json.next_page_url) {
      const next = new URL(res.json.next_page_url);
      expect(next.searchParams.get("filter[tags][1][name]")).toBe("list");
      res = await h.request("GET", `${next.pathname}${next.search}`);
      walked.push(...ids(res));
    }
    expect(walked).toEqual(of("d", "b", "a"));
    const prev = new URL(res.json.prev_page_url);
    expect(ids(await h.request("GET", `${prev.pathname}${prev.search}`))).toEqual(of("b"));
  });

  // SQLite's query plan; PostgreSQL plans the same list with its own indexes.
  test.skipIf(engine === "postgres")("a name-value pair walks message_tags_team_tag in the list's order: no scan, no sort", async () => {
    const built = messageListQuery(h.team.teamId, { "filter[tags][0][name]": "list", "filter[tags][0][value]": "news", "filter[status]": "delivered" } as never);
    const order = built.sort.map((k) => `${k.column} ${k.desc ? "DESC" : "ASC"}`).join(", ");
    const sql = `${built.select} WHERE ${built.where.join(" AND ")} ORDER BY ${order} LIMIT 31`;
    const plan = (await h.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, built.params)).map((r) => r.detail).join(" | ");
    expect(plan).toContain("USING COVERING INDEX message_tags_team_tag (team_id=? AND name=? AND value=?)");
    expect(plan).toMatch(/SEARCH m USING INDEX sqlite_autoindex_messages_1 \(id=\?\)/);
    expect(plan).not.toContain("SCAN");
    expect(plan).not.toContain("TEMP B-TREE");
    // A name alone given first: the walk still starts from the pair with a value.
    const mixed = messageListQuery(h.team.teamId, { "filter[tags][0][name]": "lang", "filter[tags][1][name]": "list", "filter[tags][1][value]": "news" } as never);
    const mixedSql = `${mixed.select} WHERE ${mixed.where.join(" AND ")} ORDER BY ${mixed.sort.map((k) => `${k.column} ${k.desc ? "DESC" : "ASC"}`).join(", ")} LIMIT 31`;
    const mixedPlan = (await h.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${mixedSql}`, mixed.params)).map((r) => r.detail).join(" | ");
    expect(mixedPlan).toContain("USING COVERING INDEX message_tags_team_tag (team_id=? AND name=? AND value=?)");
    expect(mixedPlan).not.toContain("TEMP B-TREE");
  });

  test("bad pairs are a 422 naming the parameter", async () => {
    const cases: [string, string][] = [
      ["filter[tags][0][name]=has space", "filter[tags][0][name]"],
      ["filter[tags][0][name]=" + "n".repeat(33), "filter[tags][0][name]"],
      ["filter[tags][0][name]=a&filter[tags][0][value]=" + "v".repeat(65), "filter[tags][0][value]"],
      ["filter[tags][0][value]=news", "filter[tags][0][name]"],
      ["filter[tags][20][name]=list", "filter[tags][20][name]"],
      ["filter[tags][0][label]=list", "filter[tags][0][label]"],
      ["filter[tags]=list", "filter[tags]"],
    ];
    for (const [q, field] of cases) {
      const res = await list(q.replace(/ /g, "%20"));
      expect({ q, status: res.status, error: res.json.error }).toEqual({ q, status: 422, error: "validation_failed" });
      expect(Object.keys(res.json.errors)).toContain(field);
    }
  });
});

describe("bad tags are a 422 with the error body, and nothing is stored", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i}`, value: `v${i}` }));

  test("the service's rules: at most 20 (19 beside a tag), names and values of ASCII letters, digits, _ and -, unique names", async () => {
    const before = { messages: await count("messages"), tags: await count("message_tags") };
    const cases: [Record<string, unknown>, string][] = [
      [{ tags: many(21) }, "tags"],
      [{ tags: many(20), tag: "legacy" }, "tags"],
      [{ tags: [{ name: "has space", value: "x" }] }, "tags.0.name"],
      [{ tags: [{ name: "ok", value: "x" }, { name: "café", value: "x" }] }, "tags.1.name"],
      [{ tags: [{ name: "a.b", value: "x" }] }, "tags.0.name"],
      [{ tags: [{ name: "", value: "x" }] }, "tags.0.name"],
      [{ tags: [{ name: "n".repeat(33), value: "x" }] }, "tags.0.name"],
      [{ tags: [{ name: "__Lettermint_source", value: "x" }] }, "tags.0.name"],
      [{ tags: [{ name: "env", value: "" }] }, "tags.0.value"],
      [{ tags: [{ name: "env", value: "a/b" }] }, "tags.0.value"],
      [{ tags: [{ name: "env", value: "v".repeat(65) }] }, "tags.0.value"],
      [{ tags: [{ name: "env", value: "a" }, { name: "env", value: "b" }] }, "tags.1.name"],
      [{ tags: [{ name: "env" }] }, "tags"],
      [{ tags: "env:prod" }, "tags"],
    ];
    for (const [extra, field] of cases) {
      const res = await h.send(mail(extra));
      expect({ extra, status: res.status }).toEqual({ extra, status: 422 });
      expect(res.json).toMatchObject({ error: "validation_failed", message: expect.any(String) });
      expect(Object.keys(res.json.errors)).toEqual([field]);
    }
    // In a batch, keyed by the item, and the good item is not sent either.
    const batch = await h.request("POST", "/v1/send/batch", { projectToken: h.team.projectToken, body: [mail({ tags: many(2) }), mail({ tags: [{ name: "a b", value: "x" }] })] });
    expect(batch.status).toBe(422);
    expect(Object.keys(batch.json.errors)).toEqual(["1.tags.0.name"]);
    expect({ messages: await count("messages"), tags: await count("message_tags") }).toEqual(before);
  });

  test("20 tags, or 19 beside a tag, are taken; names differing only in case are two names", async () => {
    const a = await h.send(mail({ tags: many(20) }));
    expect(a.status).toBe(202);
    expect((await h.request("GET", `/v1/messages/${a.json.message_id}`)).json.tags).toEqual(many(20));
    expect((await h.send(mail({ tags: many(19), tag: "legacy" }))).status).toBe(202);
    expect((await h.send(mail({ tags: [{ name: "Env", value: "a" }, { name: "env", value: "b" }] }))).status).toBe(202);
  });
});
