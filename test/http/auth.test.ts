import { describe, expect, test } from "bun:test";
import { UnauthenticatedError } from "../../src/errors.ts";
import { TokenAuthenticator } from "../../src/auth/tokens.ts";
import { rotateProjectToken } from "../../src/modules/projects/service.ts";
import { createTestApp, waitFor } from "../helpers.ts";

describe("token auth on GET /v1/ping", () => {
  const t = createTestApp();

  test("valid team token → 200 with the team", async () => {
    const res = await t.request("GET", "/v1/ping");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token_type: "team", team_id: t.team.teamId, project_id: null });
  });

  test("valid project token → 200 with the project", async () => {
    const res = await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ token_type: "project", team_id: t.team.teamId, project_id: t.team.projectId });
  });

  const unauthenticated: [string, Record<string, string>][] = [
    ["missing", {}],
    ["malformed scheme", { authorization: `Basic ${btoa("a:b")}` }],
    ["bearer without token", { authorization: "Bearer " }],
    ["wrong team token", { authorization: "Bearer ph_team_notarealtokennotarealtokennotarealtoken1" }],
    ["project token as bearer", { authorization: "Bearer PROJECT" }],
    ["team token as x-service-token", { "x-service-token": "TEAM" }],
    ["wrong project token", { "x-service-token": "ph_notarealtokennotarealtokennotarealtoken12" }],
    ["oversized token", { authorization: `Bearer ph_team_${"a".repeat(5000)}` }],
  ];
  for (const [name, headers] of unauthenticated) {
    test(`${name} → 401 JSON`, async () => {
      const h = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k, v.replace("PROJECT", t.team.projectToken).replace("TEAM", t.team.teamToken)]),
      );
      const res = await t.request("GET", "/v1/ping", { token: null, headers: h });
      expect(res.status).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.json).toEqual({ message: "Unauthenticated.", error: "unauthenticated" });
    });
  }

  test("a rotated project token → 401, the new one → 200", async () => {
    const t2 = createTestApp();
    const fresh = await t2.deps.store.write((tx) => rotateProjectToken(tx, t2.team.projectId));
    expect((await t2.request("GET", "/v1/ping", { projectToken: t2.team.projectToken })).status).toBe(401);
    expect((await t2.request("GET", "/v1/ping", { projectToken: fresh })).status).toBe(200);
  });

  test("tokens are stored only as SHA-256 digests", async () => {
    const rows = await t.sql.all<{ token_hash: string }>("SELECT token_hash FROM teams UNION ALL SELECT token_hash FROM projects");
    for (const r of rows) {
      expect(r.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.token_hash).not.toContain(t.team.teamToken);
    }
  });

  test("last use of a project token is recorded", async () => {
    await t.request("GET", "/v1/ping", { projectToken: t.team.projectToken });
    const row = await waitFor(
      async () => (await t.sql.get<{ token_last_used_at: number | null }>("SELECT token_last_used_at FROM projects WHERE id = ?", [t.team.projectId]))?.token_last_used_at,
    );
    expect(row).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe("auth runs before body validation", () => {
  const t = createTestApp();
  test("no token and an invalid body → 401, not 422", async () => {
    const res = await t.request("POST", "/v1/suppressions", { token: null, body: { reason: "nonsense" } });
    expect(res.status).toBe(401);
    const send = await t.request("POST", "/v1/send", { token: null, body: { subject: 1 } });
    expect(send.status).toBe(401);
  });
  test("a team token on the sending endpoint → 401", async () => {
    const res = await t.request("POST", "/v1/send", { body: { from: "a@b.c", to: ["x@y.z"], subject: "s", text: "hello" } });
    expect(res.status).toBe(401);
  });
});

describe("token checks through the store", () => {
  const t = createTestApp();
  const auth = new TokenAuthenticator(t.deps);

  test("accept the tokens and stamp the last use", async () => {
    expect(await auth.authenticateTeam(t.team.teamToken, "192.0.2.7")).toEqual({ kind: "team", teamId: t.team.teamId });
    expect(await auth.authenticateProject(t.team.projectToken, null)).toEqual({ kind: "project", teamId: t.team.teamId, projectId: t.team.projectId, smtpEnabled: false });
    const ip = await waitFor(async () =>
      (await t.sql.get<{ ip: string | null }>("SELECT token_last_used_ip AS ip FROM teams WHERE id = ?", [t.team.teamId]))?.ip,
    );
    expect(ip).toBe("192.0.2.7");
  });

  test("a token rotated elsewhere (another node, the CLI) stops working within a second; the new one works at once", async () => {
    const t2 = createTestApp();
    const auth2 = new TokenAuthenticator(t2.deps);
    expect((await auth2.authenticateProject(t2.team.projectToken, null)).projectId).toBe(t2.team.projectId);
    // The shared database changes under this process, which is not told.
    const fresh = await t2.deps.store.write((tx) => rotateProjectToken(tx, t2.team.projectId));
    expect((await auth2.authenticateProject(fresh, null)).projectId).toBe(t2.team.projectId);
    const t0 = Date.now();
    await waitFor(() => auth2.authenticateProject(t2.team.projectToken, null).then(() => false, (e) => e instanceof UnauthenticatedError), 5000, 50);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  test("forget() drops a remembered token at once", async () => {
    const t2 = createTestApp();
    const auth2 = new TokenAuthenticator(t2.deps);
    await auth2.authenticateProject(t2.team.projectToken, null);
    await t2.sql.run("UPDATE projects SET smtp_enabled = 1 WHERE id = ?", [t2.team.projectId]);
    expect((await auth2.authenticateProject(t2.team.projectToken, null)).smtpEnabled).toBe(false); // remembered
    auth2.forget(t2.team.projectId);
    expect((await auth2.authenticateProject(t2.team.projectToken, null)).smtpEnabled).toBe(true);
    // Read within a second of the forget (the change may still be committing on PostgreSQL): not remembered.
    await t2.sql.run("UPDATE projects SET smtp_enabled = 0 WHERE id = ?", [t2.team.projectId]);
    expect((await auth2.authenticateProject(t2.team.projectToken, null)).smtpEnabled).toBe(false);
  });

  test("refuse wrong, swapped and malformed tokens", async () => {
    for (const check of [
      () => auth.authenticateTeam("ph_team_notarealtokennotarealtokennotarealtoken1", null),
      () => auth.authenticateTeam(t.team.projectToken, null),
      () => auth.authenticateProject(t.team.teamToken, null),
      () => auth.authenticateProject(undefined, null),
    ]) {
      await expect(check()).rejects.toBeInstanceOf(UnauthenticatedError);
    }
  });
});
