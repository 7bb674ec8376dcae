/**
 * The last owner stays (brief H5), also when two owners are removed or step down at the same
 * time: each request alone sees another owner, so both are let through unless the second waits
 * for the first (PostgreSQL runs the two transactions side by side; SQLite writes one at a time).
 */
import { expect, test } from "bun:test";
import { hashPassword } from "../../src/auth/passwords.ts";
import { newId } from "../../src/ids.ts";
import { createTestApp, engine, type TestApp } from "../helpers.ts";

/** A second active owner of the team (besides the team's first). */
async function owner(t: TestApp, teamId: string): Promise<string> {
  const userId = newId();
  const memberId = newId();
  const now = Date.now();
  await t.sql.run("INSERT INTO users (id, name, email, password_hash, password_changed_at, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
    userId,
    "Owner",
    `o-${newId().slice(-10)}@example.com`,
    await hashPassword("last owner test password"),
    now,
    now,
  ]);
  await t.sql.run("INSERT INTO team_members (id, team_id, user_id, role, status, joined_at, created_at) VALUES (?, ?, ?, 'owner', 'active', ?, ?)", [
    memberId,
    teamId,
    userId,
    now,
    now,
  ]);
  return memberId;
}

const owners = async (t: TestApp, teamId: string) =>
  Number((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM team_members WHERE team_id = ? AND role = 'owner' AND status = 'active'", [teamId]))!.n);

test(`two owners removed or demoted at the same time: one of the two requests is a 409 last_owner, the team keeps an owner (${engine})`, async () => {
  const t = createTestApp();
  const ways: [string, (id: string) => Promise<{ status: number; json: any }>][] = [
    ["removed", (id) => t.request("DELETE", `/v1/team/members/${id}`)],
    ["demoted", (id) => t.request("PUT", `/v1/team/members/${id}/assignment`, { body: { role_id: "admin", project_access: { scope: "all" } } })],
  ];
  for (const [how, change] of ways) {
    for (let round = 0; round < 5; round++) {
      // Each round starts from two owners: the first one and a new one.
      if ((await owners(t, t.team.teamId)) === 1) await owner(t, t.team.teamId);
      const ids = (await t.request("GET", "/v1/team/members?page[size]=100")).json.data.filter((m: { role: string; status: string }) => m.role === "owner" && m.status === "active").map((m: { id: string }) => m.id);
      expect([how, round, ids.length]).toEqual([how, round, 2]);
      const answers = await Promise.all(ids.map((id: string) => change(id)));
      expect([how, round, await owners(t, t.team.teamId)]).toEqual([how, round, 1]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.json.error).toBe("last_owner");
    }
  }
});
