import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const GOOGLE_PROXY = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)";

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe("statistics: GET /v1/stats, GET /v1/team/usage and POST /v1/analytics from the rollups", () => {
  let h: OutboundHarness;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startOutbound();
    h.routeToSink("gmail.com");
    h.routeToSink("dest.test");
    // bob's mailbox does not exist: a hard bounce with an enhanced status code.
    h.sink.onRcpt = (address) => (address === "bob@dest.test" ? { code: 550, message: "5.1.1 No such user here" } : null);
    for (const [to, tag] of [
      ["ann@gmail.com", "welcome"],
      ["bob@dest.test", null],
      ["cy@dest.test", "welcome"],
    ] as const) {
      const sent = await h.send({ from: "hello@sender.test", to: [to], subject: "Hi", html: '<p>Hi <a href="https://shop.example/a">a</a></p>', tag, settings: { track_opens: true, track_clicks: true } });
      expect(sent.status).toBe(202);
      ids.push(sent.json.message_id);
    }
    for (const id of ids) await h.waitForStatus(id, ["delivered", "hard_bounced"]);
    // Opens a minute after the 250s (so not "seconds after delivery"): ann in Chrome, cy through Google's image proxy.
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000");
    const secret = await serverSecretOf(h.deps.store);
    const open = async (id: string, ua: string) => {
      const rcpt = h.recipients(id)[0]!;
      const res = await h.app.handle(new Request(`http://localhost/t/o/${trackingToken(secret, { kind: "open", messageId: id, recipientId: rcpt.id })}`, { headers: { "user-agent": ua } }));
      expect(res.status).toBe(200);
    };
    await open(ids[0]!, CHROME);
    await open(ids[0]!, CHROME);
    await open(ids[2]!, GOOGLE_PROXY);
  });
  afterAll(() => h?.close());

  test("GET /v1/stats: totals and one row per day; people, privacy proxies and machines apart; include_machine adds them", async () => {
    const res = await h.request("GET", `/v1/stats?from=${daysAgo(2)}&to=${today()}`);
    expect(res.status).toBe(200);
    expect(res.json.daily.map((d: { date: string }) => d.date)).toEqual([daysAgo(2), daysAgo(1), today()]);
    expect(res.json.totals).toMatchObject({
      sent: 3,
      delivered: 2,
      hard_bounced: 1,
      spam_complaints: 0,
      opened: 1,
      human_opened: 1,
      privacy_opened: 1,
      machine_opened: 0,
      observed_opened: 2,
      clicked: 0,
      inbound: { received: 0 },
      transactional: null,
      broadcast: null,
    });
    expect(res.json.daily[0]).toMatchObject({ sent: 0, delivered: 0, opened: 0 });
    expect(res.json.daily[2]).toMatchObject({ sent: 3, delivered: 2 });
    const withMachine = await h.request("GET", `/v1/stats?from=${today()}&to=${today()}&include_machine=true`);
    expect(withMachine.json.totals.opened).toBe(2);
    const project = await h.request("GET", `/v1/stats?from=${today()}&to=${today()}&project_id=${h.team.projectId}`);
    expect(project.json.totals.transactional).toEqual({ sent: 3, hard_bounced: 1, spam_complaints: 0 });
    expect(project.json.totals.broadcast).toEqual({ sent: 0, hard_bounced: 0, spam_complaints: 0 });
  });

  test("GET /v1/stats: bad ranges are 422 with the error body, another team's project is 404", async () => {
    for (const [q, field] of [
      [`from=${today()}&to=${daysAgo(1)}`, "to"],
      [`from=${daysAgo(400)}&to=${today()}`, "to"],
      [`from=2026-02-30&to=${today()}`, "from"],
      [`to=${today()}`, "from"],
      [`from=${today()}`, "to"],
    ] as const) {
      const res = await h.request("GET", `/v1/stats?${q}`);
      expect(res.status).toBe(422);
      expect(typeof res.json.message).toBe("string");
      expect(Object.keys(res.json.errors)).toContain(field);
    }
    const other = h.addTeam();
    const res = await h.request("GET", `/v1/stats?from=${today()}&to=${today()}&project_id=${other.projectId}`);
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("Project not found.");
    // That team sees none of this team's figures.
    const theirs = await h.request("GET", `/v1/stats?from=${today()}&to=${today()}`, { token: other.teamToken });
    expect(theirs.json.totals.sent).toBe(0);
  });

  test("GET /v1/team/usage: messages accepted this calendar month, and the 12 months before", async () => {
    const res = await h.request("GET", "/v1/team/usage");
    expect(res.status).toBe(200);
    expect(res.json.current_period.usage).toBe(3);
    expect(res.json.current_period.period_start).toBe(`${today().slice(0, 7)}-01T00:00:00.000Z`);
    expect(Date.parse(res.json.current_period.last_incremented_at)).toBeGreaterThan(Date.now() - 600_000);
    expect(res.json.historical_usage).toHaveLength(12);
    expect(res.json.historical_usage[0].usage).toBe(0);
  });

  test("POST /v1/analytics: by provider family, by bounce class, with a comparison; latency percentiles", async () => {
    const res = await h.request("POST", "/v1/analytics", {
      body: {
        metrics: ["delivered", "bounced", "human_opens", "privacy_opens", "delivery_rate", "delivery_latency_p50_ms", "delivery_latency_samples"],
        from: daysAgo(1),
        to: today(),
        include: ["summary", "breakdown", "time_series"],
        group_by: ["provider_family"],
        compare: "previous_period",
        include_trend: true,
      },
    });
    expect(res.status).toBe(200);
    const { summary, breakdown, time_series } = res.json.data;
    expect(summary.metrics).toMatchObject({ delivered: 2, bounced: 1, human_opens: 1, privacy_opens: 1, delivery_latency_samples: 2 });
    expect(summary.metrics.delivery_rate).toBeCloseTo(2 / 3);
    expect(summary.rate_bases.delivery_rate).toEqual({ numerator: 2, denominator: 3 });
    expect(summary.metrics.delivery_latency_p50_ms).toBeGreaterThan(0);
    expect(summary.previous.metrics.delivered).toBe(0);
    expect(summary.change.delivered.absolute).toBe(2);
    expect(time_series).toHaveLength(2);
    const by = Object.fromEntries(breakdown.map((r: any) => [r.dimensions.provider_family, r]));
    expect(by.google.metrics).toMatchObject({ delivered: 1, bounced: 0, human_opens: 1 });
    expect(by.other.metrics).toMatchObject({ delivered: 1, bounced: 1, privacy_opens: 1 });
    expect(by.google.trend).toHaveLength(2);
    expect(res.json.meta).toMatchObject({ alignment: "day", timezone: "UTC", interval: "day" });

    const bounces = await h.request("POST", "/v1/analytics", {
      body: {
        metrics: ["bounced"],
        from: today(),
        to: today(),
        include: ["breakdown"],
        group_by: ["bounce_classification", "enhanced_status_code"],
        filters: [{ dimension: "bounce_classification", operator: "is_not_null" }],
      },
    });
    expect(bounces.status).toBe(200);
    expect(bounces.json.data.breakdown).toEqual([expect.objectContaining({ dimensions: { bounce_classification: "invalid_recipient", enhanced_status_code: "5.1.1" }, metrics: { bounced: 1 } })]);

    const byDay = await h.request("POST", "/v1/analytics", {
      body: { metrics: ["messages"], from: today(), to: today(), include: ["breakdown"], group_by: ["day", "tag"], filters: [{ dimension: "project_id", operator: "eq", values: [h.team.projectId] }] },
    });
    expect(byDay.status).toBe(200);
    const tags = Object.fromEntries(byDay.json.data.breakdown.map((r: any) => [r.dimensions.tag, r.metrics.messages]));
    expect(tags).toEqual({ welcome: 2, null: 1 });
    expect(byDay.json.data.breakdown[0].dimensions.day).toBe(today());
  });

  test("POST /v1/analytics: unknown metrics and dimensions are named in a 422; bad windows are 422; another team's project is 404", async () => {
    const bad = async (body: Record<string, unknown>, field: string, words?: string[]) => {
      const res = await h.request("POST", "/v1/analytics", { body: { metrics: ["delivered"], from: today(), to: today(), ...body } });
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors ?? {})).toContain(field);
      for (const w of words ?? []) expect(res.json.errors[field].join(" ")).toContain(w);
    };
    await bad({ metrics: ["delivered", "bogus_metric", "opens_per_moon"] }, "metrics", ["bogus_metric", "opens_per_moon"]);
    await bad({ include: ["breakdown"], group_by: ["provider_family", "planet"] }, "group_by", ["planet"]);
    await bad({ filters: [{ dimension: "planet", operator: "eq", values: ["x"] }] }, "filters.0.dimension", ["planet"]);
    await bad({ filters: [{ dimension: "tag", operator: "eq", values: ["a", "b"] }] }, "filters.0.values");
    await bad({ from: today(), to: daysAgo(3) }, "to");
    await bad({ from: undefined }, "from");
    await bad({ to: undefined }, "to");
    await bad({ from: daysAgo(120), to: today() }, "to", ["90 days"]);
    await bad({ from: "yesterday" }, "from");
    await bad({ interval: "hour", include: ["time_series"], filters: [{ dimension: "provider_family", operator: "eq", values: ["google"] }] }, "interval");
    await bad({ timezone: "Europe/Amsterdam" }, "timezone");
    const unknownField = await h.request("POST", "/v1/analytics", { body: { metrics: ["delivered"], from: today(), to: today(), colour: "red" } });
    expect(unknownField.status).toBe(422);
    expect(Object.keys(unknownField.json.errors)).toEqual(["colour"]);

    const other = h.addTeam("Team C");
    const res = await h.request("POST", "/v1/analytics", {
      body: { metrics: ["delivered"], from: today(), to: today(), filters: [{ dimension: "project_id", operator: "eq", values: [other.projectId] }] },
    });
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("Project not found.");
  });
});
