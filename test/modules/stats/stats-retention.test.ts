import { afterAll, describe, expect, test } from "bun:test";
import { createTestApp } from "../../helpers.ts";
import { purgeStatRollups } from "../../../src/modules/retention/service.ts";

const DAY = 86_400_000;

describe("statistics rollups' retention", () => {
  const t = createTestApp({ env: { POSTHORN_RETENTION_DAYS: "30" } });
  afterAll(() => t.deps.store.close());

  test("rows older than 400 days go with the retention pass, younger ones (and their figures) stay", async () => {
    const now = Date.now();
    const key = { teamId: t.team.teamId, projectId: t.team.projectId, routeId: "r", messageType: "transactional", sendingDomain: "a.test", provider: "other", tag: "", bounceClass: "", enhancedCode: "", tags: [{ name: "campaign", value: "spring" }] };
    await t.deps.store.write(async (tx) => {
      await tx.stats.add(now - 402 * DAY, key, { sent: 5 });
      await tx.stats.add(now - 398 * DAY, key, { sent: 7 });
      await tx.stats.addAccepted(now - 402 * DAY, key, 5, 5);
      await tx.stats.addAccepted(now - 398 * DAY, key, 7, 7);
    });
    const count = async () => (await t.sql.get<{ n: number }>("SELECT (SELECT count(*) FROM stat_hours) + (SELECT count(*) FROM stat_days) + (SELECT count(*) FROM stat_accepts) + (SELECT count(*) FROM stat_provider_days) + (SELECT count(*) FROM stat_tag_days) AS n"))!.n;
    expect(Number(await count())).toBe(10);
    expect(await purgeStatRollups(t.deps, now)).toBe(5);
    expect(Number(await count())).toBe(5);
    const left = await t.sql.all<{ sent: number }>("SELECT sent FROM stat_hours");
    expect(left.map((r) => Number(r.sent))).toEqual([7]);
    const accepted = await t.sql.all<{ accepted: number }>("SELECT accepted FROM stat_accepts");
    expect(accepted.map((r) => Number(r.accepted))).toEqual([7]);
    expect(await purgeStatRollups(t.deps, now)).toBe(0);
  });
});
