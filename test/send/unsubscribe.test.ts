/**
 * Issue 41, finding 4: the unsubscribe link of broadcast mail names one recipient. A broadcast
 * to alice, cc bob and bcc a secret address gave all three copies one message-wide link, whose
 * page showed all three addresses (the Bcc among them) and whose one-click POST suppressed all
 * three. Now each copy's List-Unsubscribe (RFC 8058) carries its own link, covered by DKIM, that
 * shows and unsubscribes that recipient only; the pages cannot be framed. A message-wide link of
 * mail sent before lists nobody and unsubscribes only an address it is asked for, if that address
 * received the message. Everything over real sockets: the API and the links on an HTTP listener,
 * the copies read from the recipient's MX (the loopback sink).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { messageUnsubscribeToken } from "../../src/auth/unsubscribe-tokens.ts";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { waitFor } from "../helpers.ts";
import { subscribeEveryRoute } from "../support/event-subscriber.ts";
import { startOutbound, type OutboundHarness } from "./harness.ts";

let h: OutboundHarness;
let listener: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(async () => {
  // The links must name the listener, so it is up before the app.
  let handle: (req: Request) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handle(req) });
  base = `http://127.0.0.1:${listener.port}`;
  h = await startOutbound({ env: { POSTHORN_PUBLIC_URL: base } });
  handle = (req) => h.app.handle(req);
  await subscribeEveryRoute(h.deps);
  h.routeToSink("dest.test");
});
afterAll(async () => {
  listener.stop(true);
  await h.close();
});

const ALICE = "alice@dest.test";
const BOB = "bob@dest.test";
const SECRET = "secret-bcc@dest.test";

const sendBroadcast = async (body: Record<string, unknown>) => {
  const res = await fetch(`${base}/v1/send`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": h.team.projectToken },
    body: JSON.stringify({ from: "news@sender.test", subject: "News", html: "<p>news</p>", route: "broadcast", ...body }),
  });
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { message_id: string }).message_id;
  await h.waitForStatus(id, ["delivered"]);
  return id;
};
/** The copy the sink got for `email` and its List-Unsubscribe URL. */
const copyOf = (messageId: string, email: string) => {
  const mail = h.sink.received.find((m) => m.to.includes(email) && m.raw.includes(messageId))!;
  const header = mail.raw.toString("latin1").split("\r\n\r\n")[0]!.replace(/\r\n[ \t]+/g, " ");
  return { mail, header, url: /^List-Unsubscribe: <([^>]+)>/m.exec(header)![1]! };
};
const suppressed = async () =>
  (await h.sql.all<{ email: string }>("SELECT email FROM suppressions WHERE reason = 'unsubscribe' ORDER BY email")).map((r) => r.email);
const shown = (html: string) => [ALICE, BOB, SECRET, "carol@dest.test", "dan@dest.test"].filter((e) => html.includes(e));
const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

async function dkimPasses(raw: Buffer) {
  const resolver = new DnsResolver([h.dns.server]);
  const result = await dkimVerify(raw, {
    resolver: async (name: string, type: string) => {
      if (type !== "TXT") throw Object.assign(new Error("no"), { code: "ENOTFOUND" });
      return (await resolver.txt(name)).map((r) => [r]);
    },
  });
  return result.results.map((r) => r.status.result);
}

describe("a broadcast to alice, cc bob, bcc a secret address", () => {
  let id: string;
  beforeAll(async () => {
    id = await sendBroadcast({ to: [ALICE], cc: [BOB], bcc: [SECRET] });
  });

  test("each copy carries its own one-click link, signed by DKIM", async () => {
    const urls = new Set<string>();
    for (const email of [ALICE, BOB, SECRET]) {
      const { mail, header, url } = copyOf(id, email);
      expect(url.startsWith(`${base}/v1/unsubscribe/`)).toBe(true);
      expect(header).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
      expect(await dkimPasses(mail.raw)).toEqual(["pass"]);
      urls.add(url);
    }
    expect(urls.size).toBe(3);
  });

  test("alice's link shows only alice, one-click POST unsubscribes only alice; the pages cannot be framed", async () => {
    const { url } = copyOf(id, ALICE);
    const page = await fetch(url);
    const html = await page.text();
    expect(page.status).toBe(200);
    // Before the fix: all 3 addresses shown (the Bcc among them).
    expect(shown(html)).toEqual([ALICE]);
    for (const res of [page]) {
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    }
    expect(await suppressed()).toEqual([]); // a GET changes nothing

    const post = await fetch(url, form({ "List-Unsubscribe": "One-Click" }));
    expect(post.status).toBe(200);
    expect(post.headers.get("x-frame-options")).toBe("DENY");
    expect(post.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(shown(await post.text())).toEqual([ALICE]);
    // Before the fix: all 3 suppressed.
    expect(await suppressed()).toEqual([ALICE]);
    expect(h.recipients(id).map((r) => [r.email, r.status])).toEqual([
      [ALICE, "unsubscribed"],
      [BOB, "delivered"],
      [SECRET, "delivered"],
    ]);
    const unsubscribed = await waitFor(async () => {
      const rows = await h.sql.all<{ body: string }>("SELECT body FROM events WHERE kind = 'message.unsubscribed' AND message_id = ?", [id]);
      return rows.length ? rows.map((r) => JSON.parse(r.body).data.recipient) : null;
    });
    expect(unsubscribed).toEqual([ALICE]);
  });

  test("the secret Bcc's own link shows and unsubscribes that address alone", async () => {
    const { url } = copyOf(id, SECRET);
    expect(shown(await (await fetch(url)).text())).toEqual([SECRET]);
    expect((await fetch(url, form({ "List-Unsubscribe": "One-Click" }))).status).toBe(200);
    expect(await suppressed()).toEqual([ALICE, SECRET]);
    expect(h.recipients(id).find((r) => r.email === BOB)!.status).toBe("delivered");
  });

  test("a link altered in its signature or recipient is a 404", async () => {
    const { url } = copyOf(id, BOB);
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === "a" ? "b" : "a") + s.slice(i + 1);
    const path = new URL(url).pathname;
    for (const bad of [flip(path, path.length - 1), flip(path, "/v1/unsubscribe/r.".length + 3), path.replace("/r.", "/")]) {
      expect((await fetch(`${base}${bad}`, form({ "List-Unsubscribe": "One-Click" }))).status).toBe(404);
    }
    expect(await suppressed()).toEqual([ALICE, SECRET]);
  });
});

describe("the message-wide link of mail sent before", () => {
  test("on several recipients: lists nobody; one-click without an address changes nothing; an address unsubscribes it only if it received the message", async () => {
    const id = await sendBroadcast({ to: ["carol@dest.test"], cc: ["dan@dest.test"] });
    const url = `${base}/v1/unsubscribe/${messageUnsubscribeToken(await serverSecretOf(h.deps.store), id)}`;
    const before = await suppressed();

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const html = await page.text();
    expect(shown(html)).toEqual([]);
    expect(html).toContain('name="email"');

    const oneClick = await fetch(url, form({ "List-Unsubscribe": "One-Click" }));
    expect(oneClick.status).toBe(422);
    expect(shown(await oneClick.text())).toEqual([]);
    expect(await suppressed()).toEqual(before);

    // The address typed in (a GET form) is confirmed, whoever it is; the POST carries it.
    const asked = await (await fetch(`${url}?email=${encodeURIComponent("DAN@dest.test")}`)).text();
    expect(asked).toContain("DAN@dest.test");
    expect(asked).toContain('method="post"');
    expect(await suppressed()).toEqual(before);
    // An address that did not receive it: the same answer, nothing suppressed.
    const stranger = await fetch(`${url}?email=stranger%40dest.test`, form({ "List-Unsubscribe": "One-Click" }));
    const dan = await fetch(`${url}?email=DAN%40dest.test`, form({ "List-Unsubscribe": "One-Click" }));
    expect([stranger.status, dan.status]).toEqual([200, 200]);
    expect((await stranger.text()).replace("stranger@dest.test", "X")).toBe((await dan.text()).replace("dan@dest.test", "X"));
    expect(await suppressed()).toEqual([...before, "dan@dest.test"].sort());
    expect(h.recipients(id).map((r) => [r.email, r.status])).toEqual([
      ["carol@dest.test", "delivered"],
      ["dan@dest.test", "unsubscribed"],
    ]);
  });

  test("on one recipient: it names that recipient exactly and one-click unsubscribes it", async () => {
    const id = await sendBroadcast({ to: ["erin@dest.test"] });
    const url = `${base}/v1/unsubscribe/${messageUnsubscribeToken(await serverSecretOf(h.deps.store), id)}`;
    expect(await (await fetch(url)).text()).toContain("erin@dest.test");
    expect((await fetch(url, form({ "List-Unsubscribe": "One-Click" }))).status).toBe(200);
    expect(await suppressed()).toContain("erin@dest.test");
    expect(h.recipients(id)[0]!.status).toBe("unsubscribed");
  });
});
