/**
 * The dashboard reads the API through types generated from the OpenAPI document
 * (src/web/app/api-types.ts, by scripts/dashboard-api-types.ts). When a route's schema changes
 * and the file is not regenerated, or the dashboard reads a field the document does not declare,
 * one of these fails — instead of a view showing `undefined` in a browser.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { API_TYPES_PATH, generateApiTypes, REGENERATE } from "../../scripts/dashboard-api-types.ts";

const root = join(import.meta.dir, "..", "..");

test("src/web/app/api-types.ts is what the OpenAPI document generates now", async () => {
  const generated = await generateApiTypes();
  const committed = readFileSync(API_TYPES_PATH, "utf8");
  if (committed !== generated) {
    const a = committed.split("\n");
    const b = generated.split("\n");
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    throw new Error(
      `src/web/app/api-types.ts is stale: the OpenAPI document changed since it was generated.\n` +
        `Regenerate it with \`${REGENERATE}\`, then fix what \`npx tsc --noEmit -p src/web/app\` reports.\n` +
        `First difference, line ${i + 1}:\n  committed: ${a[i] ?? "(end of file)"}\n  generated: ${b[i] ?? "(end of file)"}`,
    );
  }
  // It is the API's, not an empty shell: the operations the dashboard calls are in it.
  expect(generated).toContain('"/v1/webhooks/{id}/deliveries": {');
  expect(generated).toContain('"/v1/auth/session": {');
});

test("the dashboard type-checks against the generated API types (a field it reads that the API does not answer is an error)", () => {
  const tsc = Bun.spawnSync([join(root, "node_modules", ".bin", "tsc"), "--noEmit", "-p", join(root, "src", "web", "app")], { cwd: root, stdout: "pipe", stderr: "pipe" });
  expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
  expect(tsc.exitCode).toBe(0);
}, 60_000);
