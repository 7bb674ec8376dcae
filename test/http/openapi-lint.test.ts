import { expect, test } from "bun:test";
import { join } from "node:path";
import { createTestApp, tempDir } from "../helpers.ts";

const root = join(import.meta.dir, "..", "..");

// The document is a contract: a standard linter (redocly, recommended rules, the pinned dev
// dependency) finds no error in it, and it carries what client generators need.
test("the OpenAPI document passes `redocly lint` (recommended rules) with 0 errors", async () => {
  const t = createTestApp({ env: { POSTHORN_PUBLIC_URL: "https://mail.posthorn.test" } });
  const doc = (await t.request("GET", "/openapi/json", { token: null })).json;
  const file = join(tempDir(), "openapi.json");
  await Bun.write(file, JSON.stringify(doc));
  const lint = Bun.spawnSync([join(root, "node_modules", ".bin", "redocly"), "lint", file, "--format=json"], { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: "off" } });
  const report = JSON.parse(lint.stdout.toString()) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string }[] };
  expect(report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  expect(report.totals.errors).toBe(0);

  // What the linter does not check and generated clients rely on.
  expect(doc.servers).toEqual([{ url: "https://mail.posthorn.test", description: expect.any(String) }]);
  const text = JSON.stringify(doc);
  expect(text).not.toContain('"format":"integer"'); // integers are integers, not string | number
  const perPage = doc.paths["/v1/domains"].get.responses["200"].content["application/json"].schema.properties.per_page;
  expect(perPage.type).toBe("integer");
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown>; requestBody?: { content: Record<string, unknown> } }>>)) {
    for (const [method, op] of Object.entries(methods)) {
      expect({ op: `${method} ${path}`, security: Array.isArray(op.security) }).toEqual({ op: `${method} ${path}`, security: true });
      if (op.requestBody) expect(Object.keys(op.requestBody.content)).toEqual(["application/json"]);
      // Every operation that takes a token documents the 401 it answers without one.
      if (op.security!.length > 0) expect({ op: `${method} ${path}`, has401: "401" in op.responses }).toEqual({ op: `${method} ${path}`, has401: true });
    }
  }
}, 60_000);
