import { describe, expect, test } from "bun:test";
import { newId } from "../../../src/ids.ts";
import { messageListQuery } from "../../../src/modules/messages/service.ts";
import { createTestApp, engine, insertTestDomain, sqlNowOf } from "../../helpers.ts";
import { insertMessage, insertMessageEvent, insertRecipient, routeIdOf } from "./fixtures.ts";

const local = (url: string) => url.replace("http://localhost:8080", "");
const ids = (res: { json: { data: { id: string }[] } }) => res.json.data.map((m) => m.id);

describe("GET /v1/messages", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");
  const bc = routeIdOf(t.deps, projectId, "broadcast");
  const inbound = routeIdOf(t.deps, projectId, "inbound");
  const domain = insertTestDomain(t.deps, { teamId, projectId, domain: "shop.example.com" });
  const base = Date.parse("2024-05-01T00:00:00Z");
  const h = 3_600_000;
  // Ten messages, one per hour from 2024-05-01T00:00Z, with distinct attributes to filter on.
  const m = [
    insertMessage(t.deps, { teamId, projectId, routeId: tx, domainId: domain.domainId, status: "delivered", tag: "welcome", fromEmail: "hello@shop.example.com", subject: "Welcome aboard", createdAt: base }),
    insertMessage(t.deps, { teamId, projectId, routeId: tx, domainId: domain.domainId, status: "hard_bounced", tag: "receipt", fromEmail: "billing@shop.example.com", subject: "Your receipt #1", createdAt: base + h }),
    insertMessage(t.deps, { teamId, projectId, routeId: tx, domainId: domain.domainId, status: "delivered", tag: "receipt", fromEmail: "billing@shop.example.com", subject: "Your receipt #2", createdAt: base + 2 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: bc, domainId: domain.domainId, status: "opened", tag: "news", fromEmail: "news@shop.example.com", subject: "May newsletter", createdAt: base + 3 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: inbound, type: "inbound", status: "delivered", fromEmail: "Customer@Gmail.example", subject: "Re: Your receipt #2", createdAt: base + 4 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: inbound, type: "inbound", status: "policy_rejected", fromEmail: "spam@bad.example", subject: "WIN 100% FREE", createdAt: base + 5 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "pending", fromEmail: "hello@other.example", subject: "50%_off", createdAt: base + 6 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "queued", fromEmail: "hello@other.example", subject: "Password reset", createdAt: base + 24 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "suppressed", fromEmail: "hello@other.example", subject: "Password reset", createdAt: base + 48 * h }),
    insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "soft_bounced", fromEmail: "a@other.example", subject: "zzz", createdAt: base + 48 * h }),
  ];
  const b = t.addTeam();
  const bMessage = insertMessage(t.deps, { teamId: b.teamId, projectId: b.projectId, routeId: routeIdOf(t.deps, b.projectId, "transactional"), status: "delivered", subject: "Your receipt #B", createdAt: base });

  test("paginated MessageListData, newest first, only the caller's team", async () => {
    const res = await t.request("GET", "/v1/messages");
    expect(res.status).toBe(200);
    expect(res.json.per_page).toBe(30);
    expect(res.json.path).toBe("http://localhost:8080/v1/messages");
    expect(res.json).toMatchObject({ next_cursor: null, next_page_url: null, prev_cursor: null, prev_page_url: null });
    // Same created_at for the last two: the id breaks the tie.
    expect(ids(res)).toEqual([m[9], m[8], m[7], m[6], m[5], m[4], m[3], m[2], m[1], m[0]]);
    expect(ids(res)).not.toContain(bMessage);
    const item = res.json.data[9];
    expect(Object.keys(item).sort()).toEqual(
      ["bcc", "cc", "created_at", "from_email", "from_name", "id", "reply_to", "status", "subject", "tag", "to", "type", "status_changed_at", "scheduled_at", "tags"].sort(),
    );
    expect(item).toMatchObject({ type: "outbound", status: "delivered", tag: "welcome", subject: "Welcome aboard", to: [{ email: "rcpt@example.net", name: "" }], cc: [], bcc: [], reply_to: [], created_at: "2024-05-01T00:00:00.000Z" });
  });

  const filterCases: [string, number[]][] = [
    ["filter[type]=inbound", [5, 4]],
    ["filter[type]=outbound", [9, 8, 7, 6, 3, 2, 1, 0]],
    ["filter[status]=delivered", [4, 2, 0]],
    ["filter[status]=policy_rejected", [5]],
    ["filter[route_id]=ROUTE_BC", [3]],
    ["filter[route_id]=ROUTE_INBOUND", [5, 4]],
    ["filter[domain_id]=DOMAIN", [3, 2, 1, 0]],
    ["filter[tag]=receipt", [2, 1]],
    ["filter[from_email]=billing@", [2, 1]],
    ["filter[from_email]=GMAIL", [4]],
    ["filter[subject]=receipt", [4, 2, 1]],
    ["filter[subject]=%25_", [6]], // "%_" matches literally, not as wildcards
    ["filter[subject]=100%25", [5]],
    ["filter[from_date]=2024-05-02", [9, 8, 7]],
    ["filter[from_date]=2024-05-01T05:00:00Z", [9, 8, 7, 6, 5]],
    ["filter[to_date]=2024-05-01", [6, 5, 4, 3, 2, 1, 0]],
    ["filter[to_date]=2024-05-01T01:00:00.000Z", [1, 0]],
    ["filter[from_date]=2024-05-01T03:00:00%2B02:00&filter[to_date]=2024-05-01T03:00:00Z", [3, 2, 1]],
    ["filter[type]=outbound&filter[status]=delivered&filter[tag]=receipt", [2]],
    ["filter[route_id]=ROUTE_TX&filter[subject]=password", [8, 7]],
  ];
  for (const [q, expected] of filterCases) {
    test(q, async () => {
      const query = q.replace("ROUTE_BC", bc).replace("ROUTE_INBOUND", inbound).replace("ROUTE_TX", tx).replace("DOMAIN", domain.domainId);
      const res = await t.request("GET", `/v1/messages?${query}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected.map((i) => m[i]!));
    });
  }

  test("filters on another team's route or domain match nothing", async () => {
    const bRoute = routeIdOf(t.deps, b.projectId, "transactional");
    expect((await t.request("GET", `/v1/messages?filter[route_id]=${bRoute}`)).json.data).toEqual([]);
    expect((await t.request("GET", `/v1/messages?filter[route_id]=${newId()}`)).json.data).toEqual([]);
  });

  test("every sort key, ascending and descending, several keys", async () => {
    const expectSorted = async (sort: string, key: (x: any) => string | number, desc: boolean) => {
      const res = await t.request("GET", `/v1/messages?sort=${sort}`);
      expect(res.status).toBe(200);
      const values = res.json.data.map(key);
      const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(values).toEqual(desc ? sorted.reverse() : sorted);
    };
    await expectSorted("type", (x) => x.type, false);
    await expectSorted("-status", (x) => x.status, true);
    await expectSorted("from_email", (x) => x.from_email, false);
    await expectSorted("-subject", (x) => x.subject, true);
    await expectSorted("created_at", (x) => x.created_at, false);
    const byStatusChanged = await t.request("GET", "/v1/messages?sort=status_changed_at");
    expect(ids(byStatusChanged)).toEqual(m);
    const multi = await t.request("GET", "/v1/messages?sort=-type,subject");
    expect(multi.json.data.map((x: any) => `${x.type}:${x.subject}`)).toEqual([
      "outbound:50%_off",
      "outbound:May newsletter",
      "outbound:Password reset",
      "outbound:Password reset",
      "outbound:Welcome aboard",
      "outbound:Your receipt #1",
      "outbound:Your receipt #2",
      "outbound:zzz",
      "inbound:Re: Your receipt #2",
      "inbound:WIN 100% FREE",
    ]);
  });

  test("cursor pagination under every sort walks all rows once, and back", async () => {
    for (const sort of ["-created_at", "subject", "-status,from_email", "type"]) {
      const forward: string[] = [];
      let url: string | null = `/v1/messages?sort=${sort}&page[size]=3`;
      let lastPage: any;
      while (url) {
        const res = await t.request("GET", local(url));
        expect(res.status).toBe(200);
        forward.push(...ids(res));
        lastPage = res.json;
        url = res.json.next_page_url;
      }
      expect(forward).toHaveLength(10);
      expect(new Set(forward).size).toBe(10);
      const backward: string[] = [];
      url = lastPage.prev_page_url;
      while (url) {
        const res = await t.request("GET", local(url));
        backward.unshift(...ids(res));
        url = res.json.prev_page_url;
      }
      expect(backward).toEqual(forward.slice(0, 9));
    }
  });

  test("cursor walks combined with a date range and a filter return the same rows as one page", async () => {
    for (const q of ["filter[from_date]=2024-05-01T02:00:00Z&filter[to_date]=2024-05-03", "filter[type]=outbound&filter[to_date]=2024-05-02", "filter[subject]=e&sort=created_at"]) {
      const all = ids(await t.request("GET", `/v1/messages?${q}`));
      const walked: string[] = [];
      let url: string | null = `/v1/messages?${q}&page[size]=2`;
      let last: any;
      while (url) {
        const res = await t.request("GET", local(url));
        walked.push(...ids(res));
        last = res.json;
        url = res.json.next_page_url;
      }
      expect(walked).toEqual(all);
      expect(all.length).toBeGreaterThan(3);
      const lastStart = Math.floor((all.length - 1) / 2) * 2;
      expect(ids(await t.request("GET", local(last.prev_page_url)))).toEqual(all.slice(lastStart - 2, lastStart));
    }
  });

  // SQLite's query plan; PostgreSQL plans the same list with its own indexes.
  test.skipIf(engine === "postgres")("partial matches walk the search index (no table read per non-matching row)", async () => {
    const built = messageListQuery(teamId, { "filter[subject]": "receipt" });
    const sql = `${built.select} WHERE ${built.where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT 31`;
    const plan = (await t.sql.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, built.params)).map((r) => r.detail).join(" ");
    expect(plan).toContain("messages_team_search");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  test("page URLs keep the filters and sort", async () => {
    const res = await t.request("GET", "/v1/messages?filter[type]=outbound&sort=subject&page[size]=2");
    const next = new URL(res.json.next_page_url);
    expect(next.searchParams.get("filter[type]")).toBe("outbound");
    expect(next.searchParams.get("sort")).toBe("subject");
    expect(next.searchParams.get("page[size]")).toBe("2");
  });

  test("unknown sort key, filter name or filter value → 422 naming the parameter", async () => {
    const cases: [string, string][] = [
      ["sort=tag", "sort"],
      ["sort=-created", "sort"],
      ["sort=created_at,bogus", "sort"],
      ["filter[type]=sideways", "filter[type]"],
      ["filter[status]=bounced", "filter[status]"],
      ["filter[route_id]=not-a-uuid", "filter[route_id]"],
      ["filter[domain_id]=123", "filter[domain_id]"],
      ["filter[from_date]=yesterday", "filter[from_date]"],
      ["filter[from_date]=2024-13-45", "filter[from_date]"],
      ["filter[to_date]=2024-05-01T10:00", "filter[to_date]"],
      ["filter[from_date]=2024-05-03&filter[to_date]=2024-05-01", "filter[to_date]"],
      ["filter[tag]=" + "t".repeat(34), "filter[tag]"],
      ["filter[subject]=" + "s".repeat(256), "filter[subject]"],
      ["filter[recipient]=a@b.c", "filter[recipient]"],
      ["filter[Status]=delivered", "filter[Status]"],
      ["page[cursor]=abc", "page[cursor]"],
      ["page[size]=101", "page[size]"],
    ];
    for (const [q, field] of cases) {
      const res = await t.request("GET", `/v1/messages?${q}`);
      expect(res.status).toBe(422);
      expect(res.json.message).toContain(field);
    }
  });

  test("a cursor from one sort cannot be replayed with another", async () => {
    const res = await t.request("GET", "/v1/messages?page[size]=2");
    const replay = await t.request("GET", `/v1/messages?sort=-type,subject&page[cursor]=${res.json.next_cursor}`);
    expect(replay.status).toBe(422);
  });

  test("401 without a team token", async () => {
    expect((await t.request("GET", "/v1/messages", { token: null })).status).toBe(401);
    expect((await t.request("GET", "/v1/messages", { projectToken: t.team.projectToken })).status).toBe(401);
  });
});

describe("GET /v1/messages sorted by scheduled_at", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const tx = routeIdOf(t.deps, projectId, "transactional");
  const base = Date.parse("2024-05-01T00:00:00Z");
  const h = 3_600_000;
  // Created in one order, scheduled in another; one sent at once has no scheduled_at.
  const atOnce = insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "delivered", subject: "at once", createdAt: base + 3 * h });
  const late = insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "scheduled", subject: "late", createdAt: base });
  const early = insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "scheduled", subject: "early", createdAt: base + h });
  const middle = insertMessage(t.deps, { teamId, projectId, routeId: tx, status: "scheduled", subject: "middle", createdAt: base + 2 * h });
  const times = new Map([
    [late, base + 72 * h],
    [early, base + 24 * h],
    [middle, base + 48 * h],
  ]);
  for (const [id, at] of times) sqlNowOf(t.deps).run("UPDATE messages SET scheduled_at = ? WHERE id = ?", [at, id]);

  /** Every page of one row, forward by next_page_url; then back from the last by prev_page_url, which must give the same rows. */
  async function walk(sort: string): Promise<string[]> {
    const forward: string[] = [];
    let url: string | null = `/v1/messages?sort=${sort}&page[size]=1`;
    let last: any;
    while (url) {
      const res = await t.request("GET", local(url));
      expect(res.status).toBe(200);
      forward.push(...ids(res));
      last = res.json;
      url = res.json.next_page_url;
    }
    const backward: string[] = ids({ json: last });
    url = last.prev_page_url;
    while (url) {
      const res = await t.request("GET", local(url));
      expect(res.status).toBe(200);
      backward.unshift(...ids(res));
      url = res.json.prev_page_url;
    }
    expect(backward).toEqual(forward);
    return forward;
  }

  test("ascending: mail sent at once first, then by time; descending the reverse; page by page, forward and back", async () => {
    expect(await walk("scheduled_at")).toEqual([atOnce, early, middle, late]);
    expect(await walk("-scheduled_at")).toEqual([late, middle, early, atOnce]);
    const scheduled = await t.request("GET", "/v1/messages?sort=-scheduled_at&filter[status]=scheduled");
    expect(scheduled.json.data.map((x: any) => [x.subject, x.scheduled_at])).toEqual([
      ["late", new Date(base + 72 * h).toISOString()],
      ["middle", new Date(base + 48 * h).toISOString()],
      ["early", new Date(base + 24 * h).toISOString()],
    ]);
  });

  test("with another key after it: scheduled_at first, then that key", async () => {
    const res = await t.request("GET", "/v1/messages?sort=scheduled_at,-created_at");
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([atOnce, early, middle, late]);
  });
});

describe("cursor stability while messages arrive", () => {
  const t = createTestApp();
  const { teamId } = t.team;
  const start = Date.now() - 1000_000;
  const first = Array.from({ length: 25 }, (_, i) => insertMessage(t.deps, { teamId, subject: `old ${i}`, createdAt: start + i * 1000 }));

  test("new messages (even with the same timestamp) neither repeat nor hide rows on later pages", async () => {
    const seen: string[] = [];
    let res = await t.request("GET", "/v1/messages?page[size]=10");
    seen.push(...ids(res));
    // Arrivals between page requests, newest first: they sort before the cursor and must not shift the pages.
    for (let i = 0; i < 7; i++) insertMessage(t.deps, { teamId, subject: `new ${i}`, createdAt: Date.now() });
    // One arrival sharing the cursor row's created_at exactly.
    const boundary = (await t.sql.get<{ created_at: number }>("SELECT created_at FROM messages WHERE id = ?", [seen[9]!]))!.created_at;
    insertMessage(t.deps, { teamId, subject: "same ms", createdAt: boundary });
    while (res.json.next_page_url) {
      res = await t.request("GET", local(res.json.next_page_url));
      seen.push(...ids(res));
    }
    expect(seen).toEqual([...first].reverse());
  });
});

describe("GET /v1/messages/{id}, /events, /source", () => {
  const t = createTestApp();
  const { teamId, projectId } = t.team;
  const inbound = routeIdOf(t.deps, projectId, "inbound");
  const raw = "From: a@example.org\r\nTo: b@example.net\r\nSubject: Hi\r\nMessage-ID: <x@example.org>\r\n\r\nBody é\r\n";
  const id = insertMessage(t.deps, {
    teamId,
    projectId,
    routeId: inbound,
    type: "inbound",
    status: "delivered",
    tag: "support",
    fromEmail: "a@example.org",
    fromName: "Alice",
    subject: "Hi",
    to: [{ email: "b@example.net", name: "Bob" }],
    cc: [{ email: "c@example.net", name: "" }],
    replyTo: ["r@example.org"],
    metadata: { order: "42" },
    spamScore: 1.5,
    spamSymbols: [{ name: "DKIM_VALID", score: -0.1, options: ["example.org"], description: "DKIM signature valid" }],
    raw,
    attachments: [
      { filename: "invoice.pdf", contentType: "application/pdf", content: "%PDF-1.4 tiny" },
      { filename: "logo.png", contentType: "image/png", contentId: "logo@x", content: "png!" },
    ],
  });
  const noSource = insertMessage(t.deps, { teamId, projectId, status: "pending" });
  const r1 = insertRecipient(t.deps, id, "b@example.net", "delivered");
  const e0 = Date.now() - 10_000;
  const events = [
    insertMessageEvent(t.deps, { messageId: id, recipientId: null, kind: "message.inbound", status: "delivered", data: { spam_score: 1.5 }, createdAt: e0 + 2000 }),
    insertMessageEvent(t.deps, { messageId: id, recipientId: r1, kind: "message.created", status: "pending", createdAt: e0 }),
    insertMessageEvent(t.deps, { messageId: id, recipientId: r1, kind: "message.delivered", status: "delivered", data: { response: { code: 250 } }, createdAt: e0 + 1000 }),
  ];

  test("MessageData directly, with attachment metadata, metadata and spam details", async () => {
    const res = await t.request("GET", `/v1/messages/${id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(
      ["attachments", "bcc", "cc", "created_at", "from_email", "from_name", "id", "metadata", "reply_to", "route_id", "spam_score", "spam_symbols", "status", "status_changed_at", "subject", "tag", "to", "type", "scheduled_at", "tags"].sort(),
    );
    expect(res.json).toMatchObject({
      id,
      type: "inbound",
      status: "delivered",
      tag: "support",
      from_email: "a@example.org",
      from_name: "Alice",
      subject: "Hi",
      to: [{ email: "b@example.net", name: "Bob" }],
      cc: [{ email: "c@example.net", name: "" }],
      bcc: [],
      reply_to: ["r@example.org"],
      metadata: { order: "42" },
      route_id: inbound,
      spam_score: 1.5,
      spam_symbols: [{ name: "DKIM_VALID", score: -0.1, options: ["example.org"], description: "DKIM signature valid" }],
    });
    expect(res.json.attachments).toEqual([
      { size: 13, filename: "invoice.pdf", content_id: null, content_type: "application/pdf" },
      { size: 4, filename: "logo.png", content_id: "logo@x", content_type: "image/png" },
    ]);
    expect(res.text).not.toContain("%PDF");
    const pending = await t.request("GET", `/v1/messages/${noSource}`);
    expect(pending.json).toMatchObject({ attachments: [], spam_score: null, spam_symbols: [], metadata: {} });
  });

  test("events: the history oldest first, with the recipient; event is the service's type, kind Posthorn's", async () => {
    const res = await t.request("GET", `/v1/messages/${id}/events`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([events[1], events[2], events[0]]);
    expect(res.json.data[1]).toEqual({
      id: events[2],
      event: "delivered",
      kind: "message.delivered",
      status: "delivered",
      recipient: "b@example.net",
      data: { response: { code: 250 } },
      created_at: new Date(e0 + 1000).toISOString(),
      message_id: id,
      tag: "support",
      tags: [],
      metadata: { order: "42" },
      timestamp: new Date(e0 + 1000).toISOString(),
    });
    // Lettermint's paginator beside the spec's.
    expect(res.json.links).toEqual([]);
    expect(res.json.meta).toEqual({ path: res.json.path, per_page: 30, next_cursor: null, next_cursor_url: null, prev_cursor: null, prev_cursor_url: null });
    expect(res.json.data[2].recipient).toBeNull();
    expect(res.json.data.map((e: { event: string; kind: string }) => [e.kind, e.event])).toEqual([
      ["message.created", "queued"],
      ["message.delivered", "delivered"],
      ["message.inbound", "inbound_received"],
    ]);
    const paged = await t.request("GET", `/v1/messages/${id}/events?page[size]=2`);
    expect(ids(paged)).toEqual([events[1], events[2]]);
    expect(ids(await t.request("GET", local(paged.json.next_page_url)))).toEqual([events[0]]);
    expect((await t.request("GET", `/v1/messages/${noSource}/events`)).json.data).toEqual([]);
  });

  test("source: the stored MIME as message/rfc822, byte for byte; 404 while none is stored", async () => {
    const res = await t.app.handle(new Request(`http://localhost/v1/messages/${id}/source`, { headers: { authorization: `Bearer ${t.team.teamToken}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("message/rfc822");
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(raw))).toBe(true);
    const none = await t.request("GET", `/v1/messages/${noSource}/source`);
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ message: "Message source not found.", error: "not_found" });
  });

  test("401 and 404 on each", async () => {
    for (const suffix of ["", "/events", "/source"]) {
      expect((await t.request("GET", `/v1/messages/${id}${suffix}`, { token: null })).status).toBe(401);
      for (const unknown of [newId(), "nope"]) {
        const res = await t.request("GET", `/v1/messages/${unknown}${suffix}`);
        expect(res.status).toBe(404);
        expect(res.json).toEqual({ message: "Message not found.", error: "not_found" });
      }
    }
  });

  test("cross-team: team B's token on team A's message → 404 on each", async () => {
    const b = t.addTeam();
    for (const suffix of ["", "/events", "/source"]) {
      const res = await t.request("GET", `/v1/messages/${id}${suffix}`, { token: b.teamToken });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Message not found.", error: "not_found" });
    }
    expect(ids(await t.request("GET", "/v1/messages", { token: b.teamToken }))).toEqual([]);
  });
});
