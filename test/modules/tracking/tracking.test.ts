import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";
import { subscribeEveryRoute } from "../../support/event-subscriber.ts";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const GOOGLE_PROXY = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";
const LINK = "https://shop.example/orders/42?utm_source=mail&x=%20y#top";

describe("tracking URLs: every hit observed, only people move the status", () => {
  let h: OutboundHarness;
  let messageId: string;
  let rcpt: Record<string, string>;
  let secret: string;
  const token = (kind: "open" | "click", email: string, link = 0) =>
    kind === "open"
      ? trackingToken(secret, { kind, messageId, recipientId: rcpt[email]! })
      : trackingToken(secret, { kind, messageId, recipientId: rcpt[email]!, link });
  const hit = (path: string, init: { method?: string; ua?: string } = {}) =>
    h.app.handle(new Request(`http://localhost${path}`, { method: init.method ?? "GET", headers: init.ua === undefined ? {} : { "user-agent": init.ua } }));
  const statusOf = async (email: string) => (await h.sql.get<{ status: string }>("SELECT status FROM recipients WHERE id = ?", [rcpt[email]!]))!.status;
  const events = async (kind: string) =>
    (await h.sql.all<{ body: string }>("SELECT body FROM events WHERE kind = ? AND message_id = ? ORDER BY created_at, id", [kind, messageId])).map((e) => JSON.parse(e.body).data);

  beforeAll(async () => {
    h = await startOutbound();
    await subscribeEveryRoute(h.deps);
    h.routeToSink("dest.test");
    const sent = await h.send({ from: "hello@sender.test", to: ["ann@dest.test", "bob@dest.test", "cy@dest.test", "dee@dest.test"], subject: "Order", html: "<p>Hi</p>" });
    messageId = sent.json.message_id;
    await h.waitForStatus(messageId, ["delivered"]);
    rcpt = Object.fromEntries(h.recipients(messageId).map((r) => [r.email, r.id]));
    secret = await serverSecretOf(h.deps.store);
    await h.deps.store.write((tx) => tx.tracking.addLinks(messageId, [LINK, "https://shop.example/b", "https://shop.example/c"]));
    // The 250s came a minute ago: later hits are not "seconds after delivery".
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [messageId]);
  });
  afterAll(() => h.close());

  test("a person's open: the pixel (a GIF, not cached), the recipient opened, message.opened machine:false first:true", async () => {
    const res = await hit(`/t/o/${token("open", "ann@dest.test")}`, { ua: CHROME });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect([...new Uint8Array(await res.arrayBuffer())].slice(0, 6)).toEqual([...Buffer.from("GIF89a")]);
    expect(await statusOf("ann@dest.test")).toBe("opened");
    const [opened] = await events("message.opened");
    expect(opened).toMatchObject({ message_id: messageId, recipient: "ann@dest.test", status: "opened", user_agent: CHROME, first: true, machine: false, machine_reason: null });
    // A second open by the same person is observed, published with first:false, and moves nothing.
    await hit(`/t/o/${token("open", "ann@dest.test")}`, { ua: CHROME });
    expect((await events("message.opened")).at(-1)).toMatchObject({ recipient: "ann@dest.test", first: false, machine: false });
  });

  test("Google's image proxy and a HEAD are machines: recorded and published with machine:true, status unchanged", async () => {
    expect((await hit(`/t/o/${token("open", "bob@dest.test")}`, { ua: GOOGLE_PROXY })).status).toBe(200);
    const head = await hit(`/t/o/${token("open", "bob@dest.test")}`, { method: "HEAD", ua: CHROME });
    expect(head.status).toBe(200);
    expect(await statusOf("bob@dest.test")).toBe("delivered");
    const bobs = (await events("message.opened")).filter((e) => e.recipient === "bob@dest.test");
    expect(bobs.map((e) => [e.machine, e.machine_reason, e.first])).toEqual([
      [true, "privacy_proxy", true],
      [true, "head_request", false],
    ]);
    const hits = await h.sql.all<{ machine: number; machine_reason: string }>("SELECT machine, machine_reason FROM tracking_hits WHERE recipient_id = ? ORDER BY created_at", [rcpt["bob@dest.test"]!]);
    expect(hits).toEqual([
      { machine: 1, machine_reason: "privacy_proxy" },
      { machine: 1, machine_reason: "head_request" },
    ]);
  });

  test("a person's click: 302 to the exact original URL, the recipient clicked", async () => {
    const res = await hit(`/t/c/${token("click", "cy@dest.test", 0)}`, { ua: CHROME });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(LINK);
    expect(await statusOf("cy@dest.test")).toBe("clicked");
    expect((await events("message.clicked")).at(-1)).toMatchObject({ recipient: "cy@dest.test", url: LINK, first: true, machine: false, status: "clicked" });
    // The second link of the same token family goes to its own URL.
    expect((await hit(`/t/c/${token("click", "cy@dest.test", 1)}`, { ua: CHROME })).headers.get("location")).toBe("https://shop.example/b");
  });

  test("forged, altered, foreign or unknown tokens: a 404 page, never a Location", async () => {
    const good = token("click", "ann@dest.test", 0);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
    const forged = [
      flip(good, good.length - 1), // signature
      flip(good, 5), // ids
      good.slice(0, -3), // truncated
      good + "AA", // extended
      token("click", "ann@dest.test", 7), // a link index the message does not have
      token("open", "ann@dest.test"), // an open token on the click path
      trackingToken(secret, { kind: "click", messageId: "01a20b5d-d67c-77a9-8b99-0bd0886ecb3b", recipientId: rcpt["ann@dest.test"]!, link: 0 }), // another message
      trackingToken("another-secret", { kind: "click", messageId, recipientId: rcpt["ann@dest.test"]!, link: 0 }),
      "",
      "..%2F..%2Fetc",
      "x".repeat(5000),
    ];
    for (const t of forged) {
      const res = await hit(`/t/c/${t}`, { ua: CHROME });
      expect({ t, status: res.status, location: res.headers.get("location") }).toEqual({ t, status: 404, location: null });
    }
    const statuses = new Set<number>();
    // 10,000 random tokens: any length and alphabet, and half of them of a real token's length
    // in its alphabet (base64url), so they reach the signature check.
    const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
    const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).join("") + "é€\u0000 ";
    for (let i = 0; i < 10_000; i++) {
      const t = i % 2 ? pick(B64URL, i % 4 === 1 ? 58 : 60) : encodeURIComponent(pick(printable, Math.floor(Math.random() * 200)));
      statuses.add((await hit(`/t/${i % 3 ? "c" : "o"}/${t}`)).status);
    }
    expect([...statuses]).toEqual([404]);
  });

  test("a burst over three links within a second: the third is link_burst, and the two before it are re-judged as the same machine", async () => {
    const statuses = [];
    for (const link of [0, 1, 2]) {
      await hit(`/t/c/${token("click", "dee@dest.test", link)}`, { ua: CHROME });
      statuses.push(await statusOf("dee@dest.test"));
    }
    // The first click looked like a person's and moved the status; a status once moved stays.
    expect(statuses).toEqual(["clicked", "clicked", "clicked"]);
    const hits = await h.sql.all<{ machine: number; machine_reason: string | null }>(
      "SELECT machine, machine_reason FROM tracking_hits WHERE recipient_id = ? ORDER BY created_at, id",
      [rcpt["dee@dest.test"]!],
    );
    expect(hits).toEqual([
      { machine: 1, machine_reason: "link_burst" },
      { machine: 1, machine_reason: "link_burst" },
      { machine: 1, machine_reason: "link_burst" },
    ]);
    expect((await events("message.clicked")).filter((e) => e.recipient === "dee@dest.test").map((e) => e.machine)).toEqual([false, false, true]);
  });

  test("a 12 KB User-Agent is stored and published cut to 512 characters; the rules still read it whole", async () => {
    // Chrome's own string padded to 12 KB: a person (not a machine) by the rules, which read all of it.
    const long = `${CHROME} ${"x".repeat(12_000)}`;
    const res = await hit(`/t/o/${token("open", "cy@dest.test")}`, { ua: long });
    expect(res.status).toBe(200);
    const rows = await h.sql.all<{ user_agent: string }>("SELECT user_agent FROM tracking_hits WHERE recipient_id = ? AND kind = 'open'", [rcpt["cy@dest.test"]!]);
    expect(rows.map((r) => r.user_agent)).toEqual([long.slice(0, 512)]);
    const published = (await events("message.opened")).filter((e) => e.recipient === "cy@dest.test");
    expect(published.map((e) => [e.user_agent, e.machine])).toEqual([[long.slice(0, 512), false]]);
  });

  test("a route's opens and clicks come from its hits; deleting the route keeps them, counted under no route", async () => {
    // A message on a route of its own, opened by a person.
    const route = await h.request("POST", `/v1/projects/${h.team.projectId}/routes`, { body: { name: "Receipts", route_type: "transactional" } });
    expect(route.status).toBe(201);
    const routeId = route.json.data.id as string;
    const sent = await h.send({ from: "hello@sender.test", to: ["eve@dest.test"], subject: "Receipt", html: "<p>Hi</p>", route: routeId });
    const id = sent.json.message_id as string;
    await h.waitForStatus(id, ["delivered"]);
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [id]);
    const [eve] = h.recipients(id);
    expect((await hit(`/t/o/${trackingToken(secret, { kind: "open", messageId: id, recipientId: eve!.id })}`, { ua: CHROME })).status).toBe(200);
    expect((await hit(`/t/o/${trackingToken(secret, { kind: "open", messageId: id, recipientId: eve!.id })}`, { ua: GOOGLE_PROXY })).status).toBe(200);
    const stats = await h.request("GET", `/v1/routes/${routeId}?include=statistics`);
    expect(stats.json.statistics).toMatchObject({ messages_total: 1, opens_human: 1, opens_machine: 1, clicks_human: 0, clicks_machine: 0 });

    const before = (await h.request("GET", `/v1/projects/${h.team.projectId}`)).json.last_28_days;
    expect((await h.request("DELETE", `/v1/routes/${routeId}`)).status).toBe(200);
    // The hits stay with the message (now on no route): in no route's or project's figures, as the message itself.
    expect(await h.sql.all("SELECT route_id FROM tracking_hits WHERE message_id = ?", [id])).toEqual([{ route_id: null }, { route_id: null }]);
    const after = (await h.request("GET", `/v1/projects/${h.team.projectId}`)).json.last_28_days;
    expect([after.opens_human, after.opens_machine]).toEqual([before.opens_human - 1, before.opens_machine - 1]);
  });
});
