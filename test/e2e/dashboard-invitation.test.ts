/**
 * Invitations in the dashboard, in Debian's Chromium: a user who already has an account (a member
 * of another team) opens the invitation link, is refused with a wrong password and joins with their
 * own; signed in, they accept a second invitation with their session; as the new team's owner they
 * invite someone, see the link shown once and the pending member, and revoke the invitation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { createTestApp, tempDir } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot } from "../support/chromium.ts";
import { requireTool } from "../support/tools.ts";

describe.skipIf(!requireTool("chromium"))("invitations in the dashboard, in Chromium", () => {
  const t = createTestApp();
  let listener: ReturnType<typeof Bun.serve>;
  let base: string;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const shots = tempDir("dashboard-invitation-screenshots-");
  const tokenOf = (url: string) => url.split("/").pop()!;
  const who = () => page.locator("header .who span");

  beforeAll(async () => {
    listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => t.app.handle(req) });
    base = `http://127.0.0.1:${listener.port}`;
    // Erin has an account: a member of team B, with her own password.
    const b = t.addTeam("Team B");
    const fromB = await t.request("POST", "/v1/team/members", { token: b.teamToken, body: { email: "erin@example.com" } });
    expect((await t.request("POST", "/v1/auth/password", { token: null, body: { token: tokenOf(fromB.json.password_url), password: "erin's own password" } })).status).toBe(200);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    listener?.stop(true);
  });

  test("signed out, the invitation link asks for the invited user's own password: a wrong one is refused, hers joins team A", async () => {
    const invited = await t.request("POST", "/v1/team/members", { body: { email: "erin@example.com", role: "owner" } });
    expect(invited.json.password_url).toBeNull();
    await page.goto(`${base}/#/accept-invitation/${tokenOf(invited.json.invitation_url)}`);
    await page.getByRole("heading", { name: "Join a team" }).waitFor();
    await page.getByLabel("Your password").fill("not her password");
    await page.getByRole("button", { name: "Accept the invitation" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The password is incorrect.");
    await shoot(page, shots, "accept-invitation");
    await page.getByLabel("Your password").fill("erin's own password");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await expect(who().textContent()).resolves.toBe("erin@example.com · Team A");
  });

  test("signed in, a second invitation is accepted with the session, and the session moves to that team", async () => {
    const c = t.addTeam("Team C");
    const invited = await t.request("POST", "/v1/team/members", { token: c.teamToken, body: { email: "erin@example.com" } });
    await page.goto(`${base}/#/accept-invitation/${tokenOf(invited.json.invitation_url)}`);
    await page.getByText("You are signed in as erin@example.com").waitFor();
    await expect(page.getByLabel("Your password").count()).resolves.toBe(0);
    await page.getByRole("button", { name: "Accept the invitation" }).click();
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await expect(who().textContent()).resolves.toBe("erin@example.com · Team C");
  });

  test("an owner invites a new address: the password link is shown once, the member is pending until revoked", async () => {
    // A session in team A, where she is an owner (the dashboard's sign-in picks her first team, B).
    const signedIn = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email: "erin@example.com", password: "erin's own password", team_id: t.team.teamId } });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    await page.context().addCookies([{ name: "posthorn_session", value: cookie.slice(cookie.indexOf("=") + 1), url: base }]);
    await page.goto(`${base}/#/members`);
    await page.reload();
    await expect(who().textContent()).resolves.toBe("erin@example.com · Team A");
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByLabel("Email").fill("frank@example.com");
    await form.getByRole("button", { name: "Invite" }).click();
    await page.getByText(/Password link for frank@example\.com/).waitFor();
    await expect(page.locator(".once code").textContent()).resolves.toMatch(/#\/set-password\/[\w-]{43}$/);
    const row = page.getByRole("row", { name: /frank@example\.com/ });
    await expect(row.textContent()).resolves.toContain("invited, not yet accepted");
    await shoot(page, shots, "members-pending");
    await row.getByRole("button", { name: "Revoke the invitation of frank@example.com" }).click();
    await row.waitFor({ state: "detached" });
    expect(dialogs).toContain("Revoke the invitation of frank@example.com?");
    const left = (await t.request("GET", "/v1/team/members")).json.data.map((m: { user: { email: string } }) => m.user.email);
    expect(left).not.toContain("frank@example.com");
  });

  test("a member whose role lacks members:manage sees no invite form and no remove buttons, and the API refuses them; made admin, they see both", async () => {
    const invited = await t.request("POST", "/v1/team/members", { body: { email: "gina@example.com", role: "member" } });
    expect((await t.request("POST", "/v1/auth/password", { token: null, body: { token: tokenOf(invited.json.password_url), password: "gina's own password" } })).status).toBe(200);
    const signedIn = await t.request("POST", "/v1/auth/sign-in", { token: null, body: { email: "gina@example.com", password: "gina's own password", team_id: t.team.teamId } });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    await page.context().clearCookies();
    await page.context().addCookies([{ name: "posthorn_session", value: cookie.slice(cookie.indexOf("=") + 1), url: base }]);
    await page.goto(`${base}/#/members`);
    await page.reload();
    await expect(who().textContent()).resolves.toBe("gina@example.com · Team A");
    await page.getByText("Your role does not allow inviting or removing members (members:manage).").waitFor();
    await expect(page.getByRole("form", { name: "Invite a member" }).count()).resolves.toBe(0);
    await expect(page.getByRole("button", { name: /^Remove / }).count()).resolves.toBe(0);
    await shoot(page, shots, "members-as-member");
    // The hidden action is refused by the API too, from the same session.
    const refused = await page.evaluate(
      async (csrf) => {
        const res = await fetch("/v1/team/members", { method: "POST", headers: { "content-type": "application/json", "x-csrf-token": csrf }, body: JSON.stringify({ email: "hank@example.com" }) });
        return { status: res.status, body: await res.json() };
      },
      signedIn.json.data.csrf_token as string,
    );
    expect(refused).toEqual({ status: 403, body: { message: "Your role does not have the members:manage permission this request needs.", error: "missing_permission" } });
    expect((await t.request("GET", "/v1/team/members")).json.data.map((m: { user: { email: string } }) => m.user.email)).not.toContain("hank@example.com");

    // Made admin: the form is there on the next load, with the roles an admin may give (not owner).
    await t.request("PUT", `/v1/team/members/${invited.json.data.id}/assignment`, { body: { role_id: "admin", project_access: { scope: "all" } } });
    await page.reload();
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.waitFor();
    await expect(form.getByLabel("Role").locator("option").allTextContents()).resolves.toEqual(["Admin", "Member"]);
    await expect(page.getByRole("button", { name: /^Remove / }).count()).resolves.toBeGreaterThan(0);
    // A role made since (here through the API) is offered when the view is opened again, without reloading the page.
    expect((await t.request("POST", "/v1/team/roles", { body: { name: "Support desk", permissions: ["messages:read"] } })).status).toBe(201);
    await page.goto(`${base}/#/domains`);
    await page.getByRole("heading", { name: "Domains" }).first().waitFor();
    await page.goto(`${base}/#/members`);
    await page.getByRole("form", { name: "Invite a member" }).getByLabel("Role").locator("option", { hasText: "Support desk" }).waitFor({ state: "attached", timeout: 5000 });
  });

  test("API tokens: created with a role and shown once, working as that role; rotated (the old secret refused) and revoked", async () => {
    // Still signed in as gina, now an admin (team_tokens:* are hers).
    await page.reload();
    const form = page.getByRole("form", { name: "Create an API token" });
    await form.getByLabel("Token name").fill("Reporting");
    await form.getByLabel("Token role").selectOption("member");
    await form.getByRole("button", { name: "Create token" }).click();
    const shown = page.locator(".once code");
    await shown.waitFor();
    const first = (await shown.textContent())!;
    expect(first).toMatch(/^ph_team_/);
    const row = page.getByRole("row", { name: /Reporting/ });
    await expect(row.textContent()).resolves.toContain("member");
    await shoot(page, shots, "api-tokens");
    // It works as a member: reads projects, may not delete one.
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}`, { token: first })).status).toBe(200);
    expect((await t.request("DELETE", `/v1/projects/${t.team.projectId}`, { token: first })).status).toBe(403);
    // Listed without its secret.
    expect(await page.locator("table").last().textContent()).not.toContain(first);

    await row.getByRole("button", { name: "Rotate Reporting" }).click();
    await page.getByText("New secret of Reporting").waitFor();
    const second = (await shown.textContent())!;
    expect(second).not.toBe(first);
    expect(dialogs).toContain("Rotate Reporting? Its current secret stops working at once.");
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}`, { token: first })).status).toBe(401);
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}`, { token: second })).status).toBe(200);

    await row.getByRole("button", { name: "Revoke Reporting" }).click();
    await row.waitFor({ state: "detached" });
    expect((await t.request("GET", `/v1/projects/${t.team.projectId}`, { token: second })).status).toBe(401);
  });
});
