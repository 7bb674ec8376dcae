// Builds dist/posthorn: one executable with the runtime, code and SQL migrations inside.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
mkdirSync(join(root, "dist"), { recursive: true });
const result = await Bun.build({
  // Worker threads are entry points of their own; in the binary they sit beside main.ts under the
  // bundle root (src/), where src/mail/composer.ts, src/smtp/analyzer.ts and src/db/checkpointer.ts look for them.
  entrypoints: [
    join(root, "src", "main.ts"),
    join(root, "src", "mail", "compose-worker.ts"),
    join(root, "src", "smtp", "analysis-worker.ts"),
    join(root, "src", "db", "checkpoint-worker.ts"),
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
