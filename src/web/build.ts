/**
 * Builds the dashboard (src/web/app) with Bun's bundler and prints {js, css} as JSON on stdout.
 * Run by the macro in assets.ts: when `bun build --compile` bundles the server, and when the
 * server is run from source (npm start, tests), so there is no build step to forget and nothing
 * built is committed.
 */
import { join } from "node:path";

const result = await Bun.build({
  entrypoints: [join(import.meta.dir, "app", "main.tsx")],
  target: "browser",
  format: "esm",
  minify: true,
  sourcemap: "none",
  define: { "process.env.NODE_ENV": JSON.stringify("production") },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const js = result.outputs.filter((o) => o.path.endsWith(".js"));
const css = result.outputs.filter((o) => o.path.endsWith(".css"));
if (js.length !== 1 || css.length > 1) {
  console.error(`dashboard build: expected one script and at most one stylesheet, got ${result.outputs.map((o) => o.path).join(", ")}`);
  process.exit(1);
}
process.stdout.write(JSON.stringify({ js: await js[0]!.text(), css: css[0] ? await css[0].text() : "" }));
