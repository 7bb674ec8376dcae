import { expect, test } from "bun:test";
import { AUDIT_RETENTION_DAYS, auditRow } from "../../src/auth/audit.ts";
import { purgeAuditLog } from "../../src/modules/retention/service.ts";
import { createTestApp, engine } from "../helpers.ts";

const t = createTestApp();
const DAY = 86_400_000;

test(`audit rows older than ${AUDIT_RETENTION_DAYS} days are dropped by the retention pass, younger ones stay (${engine})`, async () => {
  const now = Date.now();
  const row = (ageDays: number, operation: string) =>
    auditRow({ teamId: t.team.teamId, actor: { kind: "cli", id: null, name: "root" }, operation, status: 200, ip: null, userAgent: null, now: now - ageDays * DAY });
  await t.deps.store.write(async (tx) => {
    await tx.auditLog.append(row(AUDIT_RETENTION_DAYS + 1, "old"));
    await tx.auditLog.append(row(AUDIT_RETENTION_DAYS - 1, "kept"));
  });
  expect(await purgeAuditLog(t.deps, now)).toBe(1);
  const left = await t.sql.all<{ operation: string }>("SELECT operation FROM audit_log WHERE team_id = ?", [t.team.teamId]);
  expect(left.map((r) => r.operation)).toEqual(["kept"]);
});
