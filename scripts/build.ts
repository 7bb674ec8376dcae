// Builds dist/posthorn: one executable with the runtime, code and SQL migrations inside.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
mkdirSync(join(root, "dist"), { recursive: true });
const result = await Bun.build({
  entrypoints: [join(root, "src", "main.ts")],
  compile: { outfile: join(root, "dist", "posthorn") },
  // Identifiers stay unminified: Elysia reads handler source to decide which request parts to parse.
  minify: { whitespace: true, syntax: true, identifiers: false },
  sourcemap: "none",
  target: "bun",
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log("built dist/posthorn");
