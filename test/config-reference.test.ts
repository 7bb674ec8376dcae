import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { CONFIG_PATH, generateConfigReference, REFERENCE_PATH } from "../scripts/config-reference.ts";

test("docs/configuration.md is what scripts/config-reference.ts writes from src/config.ts", () => {
  const generated = generateConfigReference(readFileSync(CONFIG_PATH, "utf8"));
  const committed = readFileSync(REFERENCE_PATH, "utf8");
  if (committed !== generated) {
    throw new Error("docs/configuration.md is out of date with src/config.ts: run `bun scripts/config-reference.ts` and commit the result");
  }
  expect(committed).toBe(generated);
});

test("every setting of src/config.ts is in the reference, with its variable, its default and what it accepts", () => {
  const source = readFileSync(CONFIG_PATH, "utf8");
  const doc = generateConfigReference(source);
  const variables = [...new Set([...source.matchAll(/"(POSTHORN_[A-Z_]+)"/g)].map((m) => m[1]!))];
  expect(variables.length).toBeGreaterThan(40);
  for (const v of variables) expect(doc).toContain(`### ${v}\n`);
  expect(doc).toContain("### POSTHORN_HTTP_PORT\n\nDefault: `8080`. Accepts a whole number from 0 to 65535.");
  expect(doc).toContain("### POSTHORN_INBOUND_DOMAIN\n\nDefault: `inbound.<POSTHORN_HOSTNAME>`.");
  expect(doc).toContain("### POSTHORN_DELIVERY\n\nDefault: `direct`. Accepts one of `direct`, `relay`, `sink`.");
});

test("a setting added to src/config.ts shows up, described by its doc comment; a changed default changes the reference", () => {
  const source = readFileSync(CONFIG_PATH, "utf8");
  const added = source
    .replace("  webhookConcurrency: Type.Integer(", "  /** Seconds between two sweeps of the example queue. */\n  exampleSweepSeconds: Type.Integer({ minimum: 1, maximum: 60 }),\n  webhookConcurrency: Type.Integer(")
    .replace('  webhookConcurrency: "POSTHORN_WEBHOOK_CONCURRENCY",', '  exampleSweepSeconds: "POSTHORN_EXAMPLE_SWEEP_SECONDS",\n  webhookConcurrency: "POSTHORN_WEBHOOK_CONCURRENCY",')
    .replace('    webhookConcurrency: int(env, "POSTHORN_WEBHOOK_CONCURRENCY", 64),', '    exampleSweepSeconds: int(env, "POSTHORN_EXAMPLE_SWEEP_SECONDS", 7),\n    webhookConcurrency: int(env, "POSTHORN_WEBHOOK_CONCURRENCY", 64),');
  expect(added).not.toBe(source);
  expect(generateConfigReference(added)).toContain(
    "### POSTHORN_EXAMPLE_SWEEP_SECONDS\n\nDefault: `7`. Accepts a whole number from 1 to 60.\n\nSeconds between two sweeps of the example queue.\n",
  );
  const changed = source.replace('int(env, "POSTHORN_HTTP_PORT", 8080)', 'int(env, "POSTHORN_HTTP_PORT", 8081)');
  expect(changed).not.toBe(source);
  expect(generateConfigReference(changed)).toContain("### POSTHORN_HTTP_PORT\n\nDefault: `8081`.");
  // A variable read under another name than ENV_NAMES says is refused, not documented wrong.
  const misnamed = source.replace('int(env, "POSTHORN_HTTP_PORT", 8080)', 'int(env, "POSTHORN_API_PORT", 8080)');
  expect(() => generateConfigReference(misnamed)).toThrow(/POSTHORN_API_PORT/);
});
