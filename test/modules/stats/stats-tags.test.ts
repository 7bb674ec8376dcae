import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";
const today = () => new Date().toISOString().slice(0, 10);

describe("statistics: name-value tags as an analytics dimension (tag:<name>)", () => {
  let h: OutboundHarness;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startOutbound();
    h.routeToSink("gmail.com");
    h.routeToSink("dest.test");
    h.sink.onRcpt = (address) => (address === "bob@dest.test" ? { code: 550, message: "5.1.1 No such user here" } : null);
    for (const [to, tags] of [
      ["ann@gmail.com", [{ name: "campaign", value: "spring" }, { name: "plan", value: "pro" }]],
      ["bob@dest.test", [{ name: "campaign", value: "spring" }]],
      ["cy@dest.test", [{ name: "campaign", value: "autumn" }, { name: "plan", value: "free" }]],
      ["dan@dest.test", undefined],
    ] as const) {
      const sent = await h.send({ from: "hello@sender.test", to: [to], subject: "Hi", html: "<p>Hi</p>", tags, settings: { track_opens: true } });
      expect(sent.status).toBe(202);
      ids.push(sent.json.message_id);
    }
    for (const id of ids) await h.waitForStatus(id, ["delivered", "hard_bounced"]);
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000");
    const secret = await serverSecretOf(h.deps.store);
    const rcpt = h.recipients(ids[0]!)[0]!;
    const res = await h.app.handle(new Request(`http://localhost/t/o/${trackingToken(secret, { kind: "open", messageId: ids[0]!, recipientId: rcpt.id })}`, { headers: { "user-agent": CHROME } }));
    expect(res.status).toBe(200);
  });
  afterAll(() => h?.close());

  const analytics = (body: Record<string, unknown>) => h.request("POST", "/v1/analytics", { body: { metrics: ["sent", "delivered", "bounced", "human_opens"], from: today(), to: today(), ...body } });

  test("grouped by tag:campaign: each value's sent, delivered, bounced and opens; an untagged message is in no group", async () => {
    const res = await analytics({ include: ["summary", "breakdown"], group_by: ["tag:campaign"] });
    expect(res.status).toBe(200);
    const by = Object.fromEntries(res.json.data.breakdown.map((r: any) => [r.dimensions["tag:campaign"], r.metrics]));
    expect(by).toEqual({ spring: { sent: 2, delivered: 1, bounced: 1, human_opens: 1 }, autumn: { sent: 1, delivered: 1, bounced: 0, human_opens: 0 } });
    // A query that names a tag counts the messages carrying it, its summary too; without one, all four.
    expect(res.json.data.summary.metrics.sent).toBe(3);
    expect((await analytics({})).json.data.summary.metrics.sent).toBe(4);
  });

  test("filtered by tag:plan, grouped by day and message type; the single tag dimension stays as it was", async () => {
    const pro = await analytics({ include: ["summary", "breakdown"], group_by: ["day", "message_type"], filters: [{ dimension: "tag:plan", operator: "eq", values: ["pro"] }] });
    expect(pro.status).toBe(200);
    expect(pro.json.data.summary.metrics).toEqual({ sent: 1, delivered: 1, bounced: 0, human_opens: 1 });
    expect(pro.json.data.breakdown).toEqual([expect.objectContaining({ dimensions: { day: today(), message_type: "transactional" }, metrics: { sent: 1, delivered: 1, bounced: 0, human_opens: 1 } })]);
    const notFree = await analytics({ filters: [{ dimension: "tag:plan", operator: "not_in", values: ["free"] }, { dimension: "tag:plan", operator: "is_not_null" }] });
    expect(notFree.json.data.summary.metrics.sent).toBe(1);
    const single = await analytics({ include: ["breakdown"], group_by: ["tag"] });
    expect(single.json.data.breakdown.map((r: any) => [r.dimensions.tag, r.metrics.sent])).toEqual([[null, 4]]);
  });

  test("bad tag dimensions are 422s naming them", async () => {
    const bad = async (body: Record<string, unknown>, field: string, words: string[]) => {
      const res = await analytics(body);
      expect(res.status).toBe(422);
      expect(typeof res.json.message).toBe("string");
      expect(Object.keys(res.json.errors ?? {})).toContain(field);
      for (const w of words) expect(res.json.errors[field].join(" ")).toContain(w);
    };
    await bad({ include: ["breakdown"], group_by: ["tag:"] }, "group_by", ["tag:"]);
    await bad({ include: ["breakdown"], group_by: ["tag:no spaces"] }, "group_by", ["tag:no spaces"]);
    await bad({ include: ["breakdown"], group_by: ["tags"] }, "group_by", ["tags", "tag:<name>"]);
    await bad({ include: ["breakdown"], group_by: ["tag:campaign", "tag:plan"] }, "group_by", ["One tag name"]);
    await bad({ include: ["breakdown"], group_by: ["tag:campaign", "provider_family"] }, "group_by", ["provider_family"]);
    await bad({ filters: [{ dimension: "tag:campaign", operator: "eq", values: ["spring"] }, { dimension: "bounce_classification", operator: "is_null" }] }, "group_by", ["bounce_classification"]);
    await bad({ metrics: ["messages"], include: ["breakdown"], group_by: ["tag:campaign"] }, "metrics", ["messages"]);
    await bad({ filters: [{ dimension: "tag:campaign", operator: "is_null" }] }, "filters.0.operator", ["is_null"]);
    await bad({ interval: "hour", include: ["time_series"], filters: [{ dimension: "tag:campaign", operator: "eq", values: ["spring"] }] }, "interval", ["tag:campaign"]);
    await bad({ filters: [{ dimension: "tag:bad!", operator: "eq", values: ["x"] }] }, "filters.0.dimension", ["tag:bad!"]);
  });
});
