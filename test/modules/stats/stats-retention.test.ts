import { afterAll, describe, expect, test } from "bun:test";
import { createTestApp } from "../../helpers.ts";
import { purgeStatRollups } from "../../../src/modules/retention/service.ts";

const DAY = 86_400_000;

describe("statistics rollups' retention", () => {
  const t = createTestApp({ env: { POSTHORN_RETENTION_DAYS: "30" } });
  afterAll(() => t.deps.store.close());

  test("rows older than 400 days go with the retention pass, younger ones (and their figures) stay", async () => {
    const now = Date.now();
    const key = { teamId: t.team.teamId, projectId: t.team.projectId, routeId: "r", messageType: "transactional", sendingDomain: "a.test", provider: "other", tag: "", bounceClass: "", enhancedCode: "" };
    await t.deps.store.write(async (tx) => {
      await tx.stats.add(now - 402 * DAY, key, { accepted: 5 });
      await tx.stats.add(now - 398 * DAY, key, { accepted: 7 });
    });
    const count = async () => (await t.sql.get<{ n: number }>("SELECT (SELECT count(*) FROM stat_hours) + (SELECT count(*) FROM stat_days) AS n"))!.n;
    expect(Number(await count())).toBe(4);
    expect(await purgeStatRollups(t.deps, now)).toBe(2);
    const left = await t.sql.all<{ accepted: number }>("SELECT accepted FROM stat_hours");
    expect(left.map((r) => Number(r.accepted))).toEqual([7]);
    expect(await purgeStatRollups(t.deps, now)).toBe(0);
  });
});
