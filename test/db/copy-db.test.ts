import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { openDeps } from "../../src/runtime.ts";
import { createTestApp, tempDir, testConfig } from "../helpers.ts";
import { testPostgres } from "../support/postgres.ts";
import { requireTool } from "../support/tools.ts";

const main = join(import.meta.dir, "..", "..", "src", "main.ts");

async function copyDb(dataDir: string, url: string) {
  const proc = Bun.spawn([process.execPath, main, "copy-db", "--to", url], {
    env: { ...process.env, POSTHORN_DATA_DIR: dataDir, POSTHORN_LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}

describe.skipIf(!requireTool("postgresql"))("posthorn copy-db --to postgres://…", () => {
  test("data made on SQLite is served by a PostgreSQL node with the same tokens; a second copy into it is refused", async () => {
    // On SQLite: a project, a domain, a webhook, a suppression, and a message with its queued job.
    const dir = tempDir();
    const a = createTestApp({ engine: "sqlite", dbPath: join(dir, "posthorn.db"), env: { POSTHORN_DATA_DIR: dir, POSTHORN_REQUIRE_VERIFIED_DOMAIN: "false" } });
    const project = (await a.request("POST", "/v1/projects", { body: { name: "Shop" } })).json.data;
    const domain = (await a.request("POST", "/v1/domains", { body: { domain: "shop.example" } })).json;
    expect((await a.request("PUT", `/v1/domains/${domain.id}/projects`, { body: { project_ids: [a.team.projectId] } })).status).toBe(200);
    const routeId = (await a.request("GET", `/v1/projects/${a.team.projectId}/routes`)).json.data.find((r: { route_type: string }) => r.route_type === "transactional").id;
    const hook = (await a.request("POST", "/v1/webhooks", { body: { route_id: routeId, name: "h", url: "https://hooks.example.com/x", events: ["message.delivered"] } })).json.data;
    expect((await a.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "team", email: "gone@example.net" } })).status).toBe(201);
    const sent = await a.request("POST", "/v1/send", {
      projectToken: a.team.projectToken,
      body: { from: "hello@shop.example", to: ["someone@example.net"], subject: "Hi", text: "Hello" },
    });
    expect(sent.status).toBe(202);
    const before = {
      projects: (await a.request("GET", "/v1/projects")).json,
      webhook: (await a.request("GET", `/v1/webhooks/${hook.id}`)).json,
      message: (await a.request("GET", `/v1/messages/${sent.json.message_id}`)).json,
      suppressions: (await a.request("GET", "/v1/suppressions")).json,
    };
    await a.deps.store.close();

    const url = await (await testPostgres()).createDatabase();
    const first = await copyDb(dir, url);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain("row counts match");

    // A PostgreSQL node answers the same tokens with the same data.
    const deps = await openDeps(testConfig({ POSTHORN_DATABASE_URL: url, POSTHORN_LOG_LEVEL: "error" }));
    try {
      const app = createApp(deps);
      const get = async (path: string, token = a.team.teamToken) => {
        const res = await app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}` } }));
        return { status: res.status, json: await res.json() };
      };
      expect((await get("/v1/projects")).json).toEqual(before.projects);
      expect((await get(`/v1/webhooks/${hook.id}`)).json).toEqual(before.webhook);
      expect((await get(`/v1/messages/${sent.json.message_id}`)).json).toEqual(before.message);
      expect((await get("/v1/suppressions")).json).toEqual(before.suppressions);
      expect((await get("/v1/projects", "ph_wrong")).status).toBe(401);
      expect(await deps.store.read.jobs.depth("outbound")).toBe(1);
      // The copied job ids are behind the sequence: a new job gets a fresh id.
      const copied = (await deps.store.write((tx) => tx.jobs.claim("outbound", 1, 1000)))[0]!;
      await deps.store.write((tx) => tx.jobs.enqueue("outbound", { messageId: "x" }));
      const fresh = (await deps.store.write((tx) => tx.jobs.claim("outbound", 1, 1000)))[0]!;
      expect(fresh.id).toBeGreaterThan(copied.id);
      expect(project.name).toBe("Shop");
    } finally {
      await deps.store.close();
    }

    const second = await copyDb(dir, url);
    expect(second.code).toBe(1);
    expect(second.err.trim()).toMatch(/^posthorn: copy-db: the PostgreSQL database is not empty \(table \w+ has rows\)/);
    expect(second.err.trim().split("\n")).toHaveLength(1);
  }, 60_000);
});
