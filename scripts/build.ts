// Builds dist/posthorn: one executable with the runtime, code and SQL migrations inside.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");

// The dashboard is bundled into the binary (src/web/assets.ts). First its API types are made
// again from this code's OpenAPI document (scripts/dashboard-api-types.ts) and the dashboard is
// type-checked against them: no binary whose dashboard reads a field the API does not answer.
for (const [what, cmd] of [
  ["dashboard API types", [process.execPath, join(root, "scripts", "dashboard-api-types.ts")]],
  ["dashboard type check", [join(root, "node_modules", ".bin", "tsc"), "--noEmit", "-p", join(root, "src", "web", "app")]],
] as const) {
  const step = Bun.spawnSync([...cmd], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (step.exitCode !== 0) {
    console.error(`build: ${what} failed (exit ${step.exitCode})`);
    process.exit(1);
  }
}

mkdirSync(join(root, "dist"), { recursive: true });
const result = await Bun.build({
  // Worker threads are entry points of their own; in the binary they sit beside main.ts under the
  // bundle root (src/), where src/mail/compose-pool.ts, src/smtp/analysis-pool.ts, src/db/background-checkpointer.ts and src/reports/report-reader.ts look for them.
  entrypoints: [
    join(root, "src", "main.ts"),
    join(root, "src", "mail", "compose-thread.ts"),
    join(root, "src", "smtp", "analysis-thread.ts"),
    join(root, "src", "db", "checkpoint-thread.ts"),
    join(root, "src", "reports", "report-thread.ts"),
  ],
  compile: { outfile: join(root, "dist", "posthorn") },
  // Identifiers stay unminified: Elysia reads handler source to decide which request parts to parse.
  minify: { whitespace: true, syntax: true, identifiers: false },
  sourcemap: "none",
  // Production mode is also set at start (src/main.ts); defining it here lets the bundler drop development-only branches.
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
  target: "bun",
  // Each dynamic import its own chunk inside the binary, loaded when first imported: the SMTP
  // agent process and the CLI's short commands no longer parse the whole server (6.4 MB of JS in
  // one file), nor serve the ACME client or the inbound parsers before they are needed.
  splitting: true,
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log("built dist/posthorn");
