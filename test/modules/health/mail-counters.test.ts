/**
 * /metrics' mail counters (docs/install.md#health-and-metrics): outbound recipients by route and
 * outcome, tracking by verdict, inbound by outcome, read from the statistics rollups; counted from
 * the node's first scrape. And docs/grafana-dashboard.json queries only metrics /metrics has.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { mailCounters } from "../../../src/modules/health/mail-counters.ts";
import { metricsText } from "../../../src/modules/health/service.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { GTUBE } from "../../../src/smtp/spam.ts";
import { waitFor } from "../../helpers.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";
import { compose, dkimSigned, sendRaw, startInbound } from "../../smtp/support.ts";

const CHROME_UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLE_PROXY_UA = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";

/** A sample's value from Prometheus text, by metric name and labels (all given labels must match); 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

let h: OutboundHarness;
let routeId: string;
beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink("mail.test");
  routeId = (await h.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [h.team.projectId]))!.id;
});
afterAll(() => h?.close());

const send = async (to: string, extra: Record<string, unknown> = {}) => {
  const res = await h.send({ from: "app@sender.test", to: [to], subject: "Hello", text: "Hello there", ...extra });
  expect(res.status).toBe(202);
  return res.json.message_id as string;
};

describe("mail counters in /metrics", () => {
  test("outbound recipients by route and outcome and tracking by verdict, counted from the first scrape", async () => {
    // Delivered before the first scrape: not counted (the counters start at this node's first scrape).
    const before = await send("early@mail.test");
    await h.waitForStatus(before, ["delivered"]);
    const first = await metricsText(h.deps);
    expect(first).toContain("# TYPE posthorn_outbound_recipients_total counter");
    expect(sample(first, "posthorn_outbound_recipients_total", { route_id: routeId, outcome: "delivered" })).toBe(0);

    let deferrals = 0;
    h.sink.onRcpt = (address) =>
      address === "nobody@mail.test" ? { code: 550, message: "5.1.1 No such user" } : address === "later@mail.test" && deferrals++ === 0 ? { code: 451, message: "4.7.1 Greylisted" } : null;
    const ok = await send("ann@mail.test", { html: "<p>Hello</p>", track_opens: true });
    await send("bob@mail.test");
    const hard = await send("nobody@mail.test");
    const soft = await send("later@mail.test");
    await h.waitForStatus(ok, ["delivered"]);
    await h.waitForStatus(hard, ["hard_bounced"]);
    await h.waitForStatus(soft, ["delivered"]);
    h.sink.onRcpt = null;
    // Google's image proxy opens the tracked one: a privacy-proxy open.
    const recipientId = h.recipients(ok)[0]!.id;
    const secret = await serverSecretOf(h.deps.store);
    const open = await h.request("GET", `/t/o/${trackingToken(secret, { kind: "open", messageId: ok, recipientId })}`, { token: null, headers: { "user-agent": GOOGLE_PROXY_UA } });
    expect(open.status).toBe(200);

    const text = await metricsText(h.deps);
    const outcome = (o: string) => sample(text, "posthorn_outbound_recipients_total", { route_id: routeId, type: "transactional", outcome: o });
    expect(["sent", "retried", "delivered", "soft_bounced", "hard_bounced", "complained"].map((o) => [o, outcome(o)])).toEqual([
      ["sent", 4],
      ["retried", 1],
      ["delivered", 3],
      ["soft_bounced", 1],
      ["hard_bounced", 1],
      ["complained", 0],
    ]);
    expect(sample(text, "posthorn_tracking_hits_total", { route_id: routeId, kind: "open", verdict: "privacy_proxy" })).toBe(1);
    expect(sample(text, "posthorn_tracking_recipients_total", { route_id: routeId, kind: "open", verdict: "privacy_proxy" })).toBe(1);
    expect(sample(text, "posthorn_tracking_hits_total", { route_id: routeId, kind: "open", verdict: "human" })).toBe(0);
    // Labels are bounded: route, type and a fixed outcome (no message, recipient or domain).
    const labelNames = new Set([...text.matchAll(/^posthorn_(?:outbound|tracking|inbound)_\w+_total\{([^}]*)\}/gm)].flatMap((m) => [...m[1]!.matchAll(/(\w+)=/g)].map((x) => x[1])));
    expect([...labelNames].sort()).toEqual(["kind", "node", "outcome", "route_id", "type", "verdict"]);

  }, 30_000);

  test("a link burst re-judges a reader's clicks as a machine's: the human clicks counter keeps its value instead of going down (no false reset)", async () => {
    const links = [0, 1, 2].map((i) => `<a href="https://sender.test/page-${i}">link ${i}</a>`).join(" ");
    const id = await send("reader@mail.test", { html: `<p>${links}</p>`, track_clicks: true });
    await h.waitForStatus(id, ["delivered"]);
    // The 250 came a minute ago, so the clicks are not "seconds after delivery".
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000 WHERE message_id = ?", [id]);
    const recipientId = h.recipients(id)[0]!.id;
    const secret = await serverSecretOf(h.deps.store);
    const click = (link: number) => h.request("GET", `/t/c/${trackingToken(secret, { kind: "click", messageId: id, recipientId, link })}`, { token: null, headers: { "user-agent": CHROME_UA } });
    const clicks = async (verdict: string) => sample(await metricsText(h.deps), "posthorn_tracking_hits_total", { route_id: routeId, kind: "click", verdict });
    const [human0, machine0] = [await clicks("human"), await clicks("machine")];
    expect((await click(0)).status).toBe(302);
    expect((await click(1)).status).toBe(302);
    expect(await clicks("human")).toBe(human0 + 2);
    // The third link within the second: a burst; the two clicks before it are re-judged (the rollup moves them).
    expect((await click(2)).status).toBe(302);
    const moved = await h.sql.get<{ n: number | string }>("SELECT coalesce(sum(clicks_human), 0) AS n FROM stat_hours WHERE route_id = ?", [routeId]);
    expect(Number(moved!.n)).toBe(human0);
    expect(await clicks("machine")).toBe(machine0 + 3);
    expect(await clicks("human")).toBe(human0 + 2);
  }, 30_000);

  test("three hours later the hours seen so far are folded into the running sum: the same figures (last: the node's clock moves on)", async () => {
    const now = await mailCounters(h.deps);
    expect(now.length).toBeGreaterThan(0);
    const later = await mailCounters(h.deps, Date.now() + 3 * 3_600_000);
    expect(later).toEqual(now);
  });

  test("docs/grafana-dashboard.json: valid, and every metric it queries is in /metrics", async () => {
    const dashboard = await Bun.file(`${import.meta.dir}/../../../docs/grafana-dashboard.json`).json();
    const text = await metricsText(h.deps);
    const exposed = new Set([...text.matchAll(/^# TYPE (\w+) /gm)].map((m) => m[1]));
    const queries: string[] = [
      ...dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => {
        expect(p.targets.length).toBeGreaterThan(0);
        return p.targets.map((t) => t.expr);
      }),
      ...dashboard.templating.list.map((v: { definition?: string }) => v.definition ?? ""),
    ];
    const used = new Set(queries.flatMap((q) => [...q.matchAll(/\bposthorn_\w+/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThanOrEqual(8);
    expect([...used].filter((m) => !exposed.has(m))).toEqual([]);
    // Each panel's id is its own.
    const ids = dashboard.panels.map((p: { id: number }) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("inbound counters in /metrics", () => {
  test("received and quarantined by route: a clean message and a GTUBE one held as spam", async () => {
    const inbound = await startInbound();
    try {
      const type = { route_id: inbound.inboundRouteId, type: "inbound" };
      const first = await metricsText(inbound.deps);
      expect(sample(first, "posthorn_inbound_messages_total", { ...type, outcome: "received" })).toBe(0);
      const deliver = async (subject: string, text: string) => {
        const raw = await dkimSigned(await compose({ from: "alice@sender.test", to: inbound.inboundAddress, subject, text }), inbound.sender);
        const info = await sendRaw(inbound.port, { from: "alice@sender.test", to: [inbound.inboundAddress] }, raw);
        return /Queued as (\S+)/.exec(info.response)![1]!;
      };
      const statusOf = async (id: string) => {
        const res = await inbound.app.request("GET", `/v1/messages/${id}`);
        return (res.json?.data ?? res.json)?.status as string | undefined;
      };
      const clean = await deliver("Hello", "Just saying hello.");
      const spam = await deliver("WIN A PRIZE", `Win now!\n\n${GTUBE}\n`);
      await waitFor(async () => (await statusOf(spam)) === "quarantined" && (await statusOf(clean)) !== "queued" && (await statusOf(clean)) !== "pending", 10_000);
      await waitFor(async () => sample(await metricsText(inbound.deps), "posthorn_inbound_messages_total", { ...type, outcome: "received" }) === 2, 10_000);
      const text = await metricsText(inbound.deps);
      expect(sample(text, "posthorn_inbound_messages_total", { ...type, outcome: "quarantined" })).toBe(1);
      // Inbound mail is not outbound: no outbound series for the inbound route.
      expect(text).not.toContain(`posthorn_outbound_recipients_total{node="${inbound.deps.config.nodeName}",route_id="${inbound.inboundRouteId}"`);
    } finally {
      await inbound.stop();
    }
  }, 30_000);
});
