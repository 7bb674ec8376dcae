/** Debian's Chromium for the dashboard's browser tests, driven by playwright-core (no browser download). */
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Dialog, type Page } from "playwright-core";
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

/** The password the dashboard tests give the people they invite. */
export const DASHBOARD_PASSWORD = "correct horse battery";

type ApiCall = (method: string, path: string, opts: { body?: unknown; token?: string | null }) => Promise<{ status: number; json: any }>;

/**
 * Invites `email` into the team as `role` (with the harness's team token) and sets the password
 * their invitation's link asks for, as the invited person would: they can sign in afterwards.
 */
export async function inviteWithPassword(request: ApiCall, email: string, role = "owner", password = DASHBOARD_PASSWORD): Promise<void> {
  const invited = await request("POST", "/v1/team/members", { body: { email, role } });
  if (invited.status !== 201) throw new Error(`inviting ${email}: ${invited.status} ${JSON.stringify(invited.json)}`);
  const token = /#\/set-password\/(.+)$/.exec(invited.json.password_url)![1]!;
  const set = await request("POST", "/v1/auth/password", { token: null, body: { token, password } });
  if (set.status >= 300) throw new Error(`setting ${email}'s password: ${set.status} ${JSON.stringify(set.json)}`);
}

/**
 * A new page of `browser` on the dashboard at `base` (1280×900 unless told, 10 s for each step),
 * signed in through the sign-in form as `email` and showing the overview. `onDialog` answers the
 * page's confirm() and alert() dialogs.
 */
export async function signedInPage(
  browser: Browser,
  base: string,
  email: string,
  opts: { password?: string; viewport?: { width: number; height: number }; onDialog?: (d: Dialog) => void } = {},
): Promise<Page> {
  const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  if (opts.onDialog) page.on("dialog", opts.onDialog);
  await page.goto(`${base}/`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(opts.password ?? DASHBOARD_PASSWORD);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
  return page;
}
