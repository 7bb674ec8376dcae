/**
 * Writes the dashboard's API types, src/web/app/api-types.ts, from the OpenAPI document: the app
 * is built in-process over an in-memory SQLite database (nothing listens, nothing is sent), its
 * GET /openapi/json is read and given to openapi-typescript (the pinned devDependency). The
 * dashboard's views name the shapes they read as aliases of these types (src/web/app/api.ts), so
 * a field the API stops answering, or answers with another type, is a type error in the dashboard.
 *
 *   bun scripts/dashboard-api-types.ts           # rewrite the file
 *
 * scripts/build.ts runs it before building; test/http/dashboard-api-types.test.ts fails when the
 * committed file differs from what this script generates now.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createDeps } from "../src/runtime.ts";

export const API_TYPES_PATH = join(import.meta.dir, "..", "src", "web", "app", "api-types.ts");
export const REGENERATE = "bun scripts/dashboard-api-types.ts";

const HEADER = `/**
 * GENERATED FILE — do not edit. The types of the Posthorn API as its OpenAPI document
 * (GET /openapi/json) declares them, made by openapi-typescript.
 * Regenerate after changing a route's schema: ${REGENERATE}
 * (scripts/build.ts does it too; test/http/dashboard-api-types.test.ts fails when this file is stale).
 */
`;

/** The OpenAPI document of the app as this checkout builds it. Settings are fixed, not read from the environment, so the output depends on the code only. */
export async function openapiDocumentOfApp(): Promise<OpenAPI3> {
  const dataDir = mkdtempSync(join(tmpdir(), "posthorn-openapi-"));
  try {
    const config = loadConfig({
      POSTHORN_DATA_DIR: dataDir,
      POSTHORN_LOG_LEVEL: "silent",
      POSTHORN_HOSTNAME: "localhost",
      POSTHORN_PUBLIC_URL: "http://localhost:8080",
      POSTHORN_SMTP_PORT: "0",
      POSTHORN_SUBMISSION_PORT: "0",
    });
    const deps = createDeps(config, { dbPath: ":memory:" });
    const res = await createApp(deps).handle(new Request("http://localhost/openapi/json"));
    if (!res.ok) throw new Error(`GET /openapi/json answered ${res.status}`);
    return (await res.json()) as OpenAPI3;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The text of src/web/app/api-types.ts for the current code. */
export async function generateApiTypes(): Promise<string> {
  const ast = await openapiTS(await openapiDocumentOfApp(), { silent: true });
  return HEADER + "\n" + astToString(ast);
}

if (import.meta.main) {
  const text = await generateApiTypes();
  writeFileSync(API_TYPES_PATH, text);
  console.log(`wrote ${API_TYPES_PATH} (${text.split("\n").length} lines)`);
}
