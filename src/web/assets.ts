/**
 * The dashboard's script and stylesheet, built by Bun's bundler from src/web/app. Import it as a
 * macro (`with { type: "macro" }`): the build then runs while the server's code is bundled (in
 * `bun build --compile`, so the binary carries the result as string constants) or transpiled
 * (from source). A macro may not call Bun.build itself, so it runs build.ts in a child bun.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

export interface DashboardAssets {
  js: string;
  css: string;
  /** A digest of both, for cache-busting asset URLs. */
  version: string;
}

export function dashboardAssets(): DashboardAssets {
  const build = Bun.spawnSync([process.execPath, join(import.meta.dir, "build.ts")], { stdout: "pipe", stderr: "pipe", env: { ...process.env, BUN_BE_BUN: "1" } });
  if (build.exitCode !== 0) throw new Error(`the dashboard did not build:\n${build.stderr.toString()}`);
  const { js, css } = JSON.parse(build.stdout.toString()) as { js: string; css: string };
  return { js, css, version: createHash("sha256").update(js).update("\0").update(css).digest("hex").slice(0, 12) };
}
