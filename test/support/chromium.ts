/** Debian's Chromium for the dashboard's browser tests, driven by playwright-core (no browser download). */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { hasTool } from "./tools.ts";

/** The browser's path, or null where it is not installed (tests ask through `requireTool("chromium")`; `.ci/run` installs it). */
export const chromiumPath = hasTool("chromium") ? Bun.which("chromium") : null;

/** Chromium's own chatter off, and no name resolved by it: every page in the tests is on an IP literal. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-domain-reliability",
  "--disable-sync",
  "--no-first-run",
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE 127.0.0.2",
];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: chromiumPath!, args: CHROMIUM_ARGS, timeout: 30_000 });

/** A full-page screenshot into the run's scratch dir `dir`, its path printed. */
export async function shoot(page: Page, dir: string, name: string): Promise<void> {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

/** The scratch dir goes with the run: a reviewer who wants the pictures names a directory to keep them in (POSTHORN_KEEP_SCREENSHOTS). */
export function keepScreenshots(dir: string): void {
  const keep = process.env.POSTHORN_KEEP_SCREENSHOTS;
  if (!keep) return;
  mkdirSync(keep, { recursive: true });
  cpSync(dir, keep, { recursive: true });
  console.log(`screenshots kept in ${keep}`);
}
