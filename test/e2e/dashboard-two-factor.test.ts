/**
 * Two-factor sign-in in the dashboard, in Debian's Chromium: the owner sets it up on the Security
 * page (key shown once, confirmed with a code, recovery codes shown once), signs in with a code,
 * is refused the same code again, and gets in with a recovery code, which is then used up. With
 * the team requiring it, a member without it sees only the set-up until it is done.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { base32Decode, hotp, totpStep } from "../../src/auth/totp.ts";
import { newId } from "../../src/ids.ts";
import { createTestApp, tempDir } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

const PASSWORD = "owner's own password";

describe.skipIf(!requireTool("chromium"))("two-factor sign-in in the dashboard, in Chromium", () => {
  const t = createTestApp();
  let listener: ReturnType<typeof Bun.serve>;
  let base: string;
  let browser: Browser;
  let page: Page;
  let email: string;
  let secret: string;
  let confirmedStep: number;
  let recovery: string[];
  const shots = tempDir("dashboard-two-factor-screenshots-");
  const who = () => page.locator("header .who span");

  beforeAll(async () => {
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.app.handle(req) });
    base = `http://127.0.0.1:${listener.port}`;
    const owner = (await t.sql.get<{ id: string; email: string }>(
      "SELECT u.id, u.email FROM users u JOIN team_members tm ON tm.user_id = u.id WHERE tm.team_id = ? AND tm.role = 'owner'",
      [t.team.teamId],
    ))!;
    email = owner.email;
    const hash = await Bun.password.hash(PASSWORD, { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
    await t.deps.store.write((tx) => tx.accounts.setPassword(owner.id, hash, Date.now()));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
  });

  async function signIn(address: string, code?: string) {
    await page.goto(`${base}/#/`);
    await page.reload(); // a fresh form, whatever the last test left in it
    await page.getByLabel("Email").fill(address);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    if (code !== undefined) {
      await page.getByLabel("Authentication code").fill(code);
      await page.getByRole("button", { name: "Verify" }).click();
    }
  }

  async function signOut() {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("form", { name: "Sign in" }).waitFor();
  }

  test("set up on the Security page: the key is confirmed with a code, the recovery codes are shown once", async () => {
    await signIn(email);
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await page.getByRole("link", { name: "Security" }).click();
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    secret = (await page.locator("[data-secret]").textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expect(page.getByRole("link", { name: "Open in an authenticator app" }).getAttribute("href")).resolves.toStartWith("otpauth://totp/");
    // A wrong code leaves it off.
    await page.getByLabel("Code from the app").fill("000000");
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The code is incorrect, expired or was used already.");
    confirmedStep = totpStep(Date.now());
    await page.getByLabel("Code from the app").fill(hotp(base32Decode(secret), confirmedStep));
    await page.getByRole("button", { name: "Confirm" }).click();
    const list = page.getByRole("list", { name: "Recovery codes" });
    await list.waitFor();
    recovery = (await list.locator("code").allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    await shoot(page, shots, "recovery-codes");
    await page.getByRole("button", { name: "I have stored them" }).click();
    await page.getByText("10 recovery codes left.").waitFor();
  });

  test("signing in asks for the code after the password; the same code again is refused; a recovery code works once", async () => {
    await signOut();
    const code = hotp(base32Decode(secret), confirmedStep + 1);
    await signIn(email, code);
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await expect(who().textContent()).resolves.toBe(`${email} · Team A`);

    await signOut();
    await signIn(email, code);
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The code is incorrect, expired or was used already.");
    await expect(who().count()).resolves.toBe(0);
    await shoot(page, shots, "replayed-code");
    await page.getByLabel("Authentication code").fill(recovery[0]!);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await page.getByRole("link", { name: "Security" }).click();
    await page.getByText("9 recovery codes left.").waitFor();

    await signOut();
    await signIn(email, recovery[0]!);
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The code is incorrect, expired or was used already.");
    await expect(t.sql.get<{ n: number }>("SELECT count(*) AS n FROM user_recovery_codes").then((r) => Number(r!.n))).resolves.toBe(9);
  });

  test("the owner requires it: a member without it sees only the set-up, and the API refuses their session elsewhere", async () => {
    await signIn(email, recovery[1]!);
    await page.getByRole("link", { name: "Security" }).click();
    await page.getByRole("button", { name: "Require it for the team" }).click();
    await page.getByText("every member must use two-factor sign-in").waitFor();
    await signOut();

    const memberId = newId();
    const hash = await Bun.password.hash(PASSWORD, { algorithm: "argon2id", memoryCost: 1024, timeCost: 1 });
    await t.deps.store.write(async (tx) => {
      await tx.accounts.insertUser({ id: memberId, name: "Mia", email: "mia@example.com", password_hash: hash, created_at: Date.now() });
      await tx.accounts.addMember({ id: newId(), team_id: t.team.teamId, user_id: memberId, role: "member", created_at: Date.now() });
    });
    await signIn("mia@example.com");
    await page.getByText("Your team requires two-factor sign-in. Set it up to continue.").waitFor();
    await expect(page.getByRole("navigation", { name: "Sections" }).count()).resolves.toBe(0);
    const refused = await page.evaluate(async () => {
      const res = await fetch("/v1/domains", { credentials: "same-origin" });
      return { status: res.status, body: await res.json() };
    });
    expect(refused).toMatchObject({ status: 403, body: { error: "two_factor_enrolment_required" } });
    await shoot(page, shots, "must-enrol");
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    const memberSecret = (await page.locator("[data-secret]").textContent())!.trim();
    await page.getByLabel("Code from the app").fill(hotp(base32Decode(memberSecret), totpStep(Date.now())));
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByRole("button", { name: "I have stored them" }).click();
    await page.getByRole("navigation", { name: "Sections" }).waitFor();
    await expect(who().textContent()).resolves.toBe("mia@example.com · Team A");
  });
});
