/**
 * Issue 46, project access: the figures that span a team's projects (GET /v1/stats,
 * POST /v1/analytics, GET /v1/team/usage, GET /v1/queue/destinations) answer a member or a named
 * token limited to selected projects with the figures of those projects only, where the first pass
 * refused them (403 project_access). A project of the team that is not theirs, named in a filter,
 * stays a 404. The team's own token still sees the whole team.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, engine, insertTestDomain } from "../helpers.ts";

describe(`figures narrowed to a token's projects (${engine})`, () => {
  const t = createTestApp();
  const today = new Date().toISOString().slice(0, 10);
  const window = `from=${today}&to=${today}`;
  let mine: string;
  let theirs: string;
  let theirProjectToken: string;
  let limited: string;
  const as = (token: string, method: string, path: string, body?: unknown) => t.request(method, path, { token, body });

  beforeAll(async () => {
    mine = t.team.projectId;
    const created = (await t.request("POST", "/v1/projects", { body: { name: "Not mine" } })).json;
    theirs = created.data.id;
    theirProjectToken = created.token ?? created.data.token;
    const now = Date.now();
    const key = (projectId: string) => ({ teamId: t.team.teamId, projectId, routeId: "", messageType: "transactional", sendingDomain: "s.test", provider: "other", tag: "", bounceClass: "", enhancedCode: "" });
    await t.deps.store.write(async (tx) => {
      await tx.stats.add(now, key(mine), { sent: 3, delivered: 2 });
      await tx.stats.add(now, key(theirs), { sent: 40, delivered: 40 });
      await tx.stats.addAccepted(now, key(mine), 3, 3);
      await tx.stats.addAccepted(now, key(theirs), 40, 40);
    });
    const made = await t.request("POST", "/v1/team/tokens", { body: { name: "Mine only", role_id: "member", project_ids: [mine] } });
    expect(made.status).toBe(201);
    limited = made.json.token;
  });

  test("GET /v1/stats without project_id: the limited token's projects only; the team token: all", async () => {
    const narrowed = await as(limited, "GET", `/v1/stats?${window}`);
    expect([narrowed.status, narrowed.json?.totals?.sent, narrowed.json?.totals?.delivered]).toEqual([200, 3, 2]);
    const whole = await t.request("GET", `/v1/stats?${window}`);
    expect([whole.status, whole.json.totals.sent]).toEqual([200, 43]);
    expect((await as(limited, "GET", `/v1/stats?project_id=${mine}&${window}`)).json.totals.sent).toBe(3);
    expect((await as(limited, "GET", `/v1/stats?project_id=${theirs}&${window}`)).status).toBe(404);
  });

  test("POST /v1/analytics: counted over the limited token's projects; another project in a filter is a 404", async () => {
    const query = { metrics: ["sent", "messages"], from: today, to: today };
    const narrowed = await as(limited, "POST", "/v1/analytics", query);
    expect([narrowed.status, narrowed.json?.data?.summary?.metrics]).toEqual([200, { sent: 3, messages: 3 }]);
    expect((await t.request("POST", "/v1/analytics", { body: query })).json.data.summary.metrics).toEqual({ sent: 43, messages: 43 });
    const byProject = await as(limited, "POST", "/v1/analytics", { ...query, include: ["breakdown"], group_by: ["project_id"] });
    expect(byProject.json.data.breakdown.map((b: any) => b.dimensions.project_id)).toEqual([mine]);
    for (const filter of [{ dimension: "project_id", operator: "eq", values: [theirs] }, { dimension: "project_id", operator: "in", values: [mine, theirs] }]) {
      const refused = await as(limited, "POST", "/v1/analytics", { ...query, filters: [filter] });
      expect([filter.operator, refused.status]).toEqual([filter.operator, 404]);
    }
    // Excluding their own project leaves nothing, never another project's figures.
    const excluded = await as(limited, "POST", "/v1/analytics", { ...query, filters: [{ dimension: "project_id", operator: "not_in", values: [mine] }] });
    expect(excluded.json.data.summary.metrics).toEqual({ sent: 0, messages: 0 });
  });

  test("GET /v1/team/usage: the messages of the limited token's projects", async () => {
    const narrowed = await as(limited, "GET", "/v1/team/usage");
    expect([narrowed.status, narrowed.json?.current_period?.usage]).toEqual([200, 3]);
    expect((await t.request("GET", "/v1/team/usage")).json.current_period.usage).toBe(43);
  });

  test("GET /v1/queue/destinations: only the destinations the limited token's projects' queued mail waits for", async () => {
    insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: mine, domain: "mine-sender.test", status: "active" });
    expect(typeof theirProjectToken).toBe("string");
    insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: theirs, domain: "their-sender.test", status: "active" });
    const send = async (projectToken: string, from: string, to: string) =>
      expect((await t.request("POST", "/v1/send", { projectToken, body: { from, to: [to], subject: "Queued", text: "Hello" } })).status).toBe(202);
    await send(t.team.projectToken, "app@mine-sender.test", "a@mine-dest.test");
    await send(theirProjectToken, "app@their-sender.test", "b@their-dest.test");
    await t.sql.run("INSERT INTO destinations (name, domains, strikes, updated_by, updated_at) VALUES (?, ?, 0, 'test', ?), (?, ?, 0, 'test', ?)", [
      "mx.mine-dest.test",
      JSON.stringify(["mine-dest.test"]),
      Date.now(),
      "mx.their-dest.test",
      JSON.stringify(["their-dest.test"]),
      Date.now(),
    ]);
    const names = async (token: string) => {
      const res = await as(token, "GET", "/v1/queue/destinations");
      expect(res.status).toBe(200);
      return res.json.data.map((d: any) => d.name).sort();
    };
    expect(await names(t.team.teamToken)).toEqual(["mx.mine-dest.test", "mx.their-dest.test"]);
    expect(await names(limited)).toEqual(["mx.mine-dest.test"]);
  });
});
