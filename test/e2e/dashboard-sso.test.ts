/**
 * Single sign-on through a real OpenID provider on loopback (oidc-provider, started here), in
 * Debian's Chromium: "Sign in with SSO" on the sign-in page, the provider's login and consent
 * pages, back to the dashboard signed in. A new address becomes a member of the team with the
 * default role; a known address signs in as that user. Then the refusals: a wrong state, a wrong
 * nonce, another audience, a foreign signature, an expired token, an unverified address, the
 * provider's own error: each is refused and leaves no user and no session behind, and the browser
 * lands on the dashboard's sign-in page, which says why (an API client gets the JSON error).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, generateKeyPairSync } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createTestApp, tempDir } from "../helpers.ts";
import { keepScreenshots, launchChromium, shoot } from "../support/chromium.ts";
import { decodeJwt, freePort, signJwt, startOidcProvider, type TestProvider } from "../support/oidc-provider.ts";
import { requireTool } from "../support/tools.ts";

describe.skipIf(!requireTool("chromium"))("single sign-on (OpenID Connect) in the dashboard, in Chromium", () => {
  let handler: (req: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const posthorn = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handler(req) });
  const base = `http://127.0.0.1:${posthorn.port}`;
  const idpPort = freePort();
  const t = createTestApp({
    env: {
      POSTHORN_PUBLIC_URL: base,
      POSTHORN_OIDC_ISSUER: `http://127.0.0.1:${idpPort}`,
      POSTHORN_OIDC_CLIENT_ID: "posthorn",
      POSTHORN_OIDC_CLIENT_SECRET: "posthorn's client secret",
    },
  });
  handler = (req) => t.app.handle(req);
  let idp: TestProvider;
  let browser: Browser;
  const shots = tempDir("dashboard-sso-screenshots-");
  let ownerEmail: string;

  const count = async (table: string) => Number((await t.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);

  beforeAll(async () => {
    ownerEmail = (await t.sql.get<{ email: string }>("SELECT u.email FROM users u JOIN team_members tm ON tm.user_id = u.id WHERE tm.role = 'owner'"))!.email;
    idp = await startOidcProvider({
      port: idpPort,
      clients: [{ client_id: "posthorn", client_secret: "posthorn's client secret", redirect_uris: [`${base}/v1/auth/sso/callback`] }],
      accounts: {
        ada: { email: "Ada@Example.com", email_verified: true, name: "Ada Lovelace" },
        owner: { email: ownerEmail, email_verified: true },
        unverified: { email: "eve@example.com", email_verified: false },
      },
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    keepScreenshots(shots);
    await browser?.close();
    await idp?.close();
    posthorn.stop(true);
  });

  /** A browser of its own (no provider session yet), with the provider's login done as `login`. */
  async function viaProvider(login: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${base}/#/`);
    await page.getByRole("link", { name: "Sign in with SSO" }).click();
    // oidc-provider's development login page (any password), then its consent page.
    await page.locator("input[name=login]").waitFor();
    expect(page.url()).toStartWith(`${idp.issuer}/interaction/`);
    await page.locator("input[name=login]").fill(login);
    await page.locator("input[name=password]").fill("anything");
    await page.locator("button[type=submit]").click();
    await page.getByRole("button", { name: "Continue" }).click();
    return { context, page };
  }

  /**
   * Starts a sign-in as the dashboard's link does, through the browser context's own request
   * client (its cookies are the browser's: Posthorn's state cookie lands there), stopping at
   * Posthorn's 303: the provider's authorization URL, for a test to change before the browser goes.
   */
  async function authorizationUrl(context: BrowserContext): Promise<URL> {
    const res = await context.request.get(`${base}/v1/auth/sso/start`, { maxRedirects: 0 });
    expect(res.status()).toBe(303);
    return new URL(res.headers().location!);
  }
  const sessionCookie = async (context: BrowserContext) => (await context.cookies(base)).find((c) => c.name === "posthorn_session");

  test("a new, verified address signs in through the provider and joins the team with the default role", async () => {
    const users = await count("users");
    const { context, page } = await viaProvider("ada");
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await expect(page.locator("header .who span").textContent()).resolves.toBe("ada@example.com · Team A");
    await shoot(page, shots, "signed-in-by-sso");
    expect(await count("users")).toBe(users + 1);
    const member = await t.sql.get<{ name: string; role: string; status: string; password_hash: string | null }>(
      "SELECT u.name, tm.role, tm.status, u.password_hash FROM users u JOIN team_members tm ON tm.user_id = u.id WHERE u.email = 'ada@example.com'",
    );
    expect(member).toEqual({ name: "Ada Lovelace", role: "member", status: "active", password_hash: null });
    const session = await t.sql.get<{ second_factor: string }>("SELECT s.second_factor FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'ada@example.com'");
    expect(session!.second_factor).toBe("sso");
    // Its state was used up: the provider's answer cannot be replayed.
    expect(await count("sso_requests")).toBe(0);
    await context.close();
  });

  test("a known address signs in as that user: the owner, no new account", async () => {
    const users = await count("users");
    const { context, page } = await viaProvider("owner");
    await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
    await expect(page.locator("header .who span").textContent()).resolves.toBe(`${ownerEmail} · Team A`);
    expect(await count("users")).toBe(users);
    await context.close();
  });

  describe("refused, and nothing changed", () => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      // Signed in at the provider (as ada) but not at Posthorn: every further sign-in goes straight back.
      ({ context, page } = await viaProvider("ada"));
      await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
      await context.clearCookies({ name: "posthorn_session" });
    });
    afterAll(async () => {
      idp.tamper = null;
      await context?.close();
    });

    /**
     * Starts a sign-in; the callback refuses it and sends the browser to the dashboard's sign-in
     * page, whose message is returned. Expects no new user and no new session.
     */
    async function refused(start = `${base}/v1/auth/sso/start`): Promise<string> {
      const users = await count("users");
      const sessions = await count("sessions");
      const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/v1/auth/sso/callback`));
      await page.goto(start).catch(() => undefined);
      const res = await callback;
      expect(res.status()).toBe(303);
      expect(res.headers().location).toBe(`${base}/#/`);
      // Signed in after all, the dashboard shows no sign-in form and this fails.
      const alert = page.getByRole("form", { name: "Sign in" }).getByRole("alert");
      await alert.waitFor();
      expect(await count("users")).toBe(users);
      expect(await count("sessions")).toBe(sessions);
      expect(await sessionCookie(context)).toBeUndefined();
      // The message is shown once: the cookie that carried it is gone.
      expect((await context.cookies(base)).map((c) => c.name)).not.toContain("posthorn_sso_failure");
      return (await alert.textContent())!;
    }

    /**
     * Changes one parameter of the authorization request Posthorn sends the browser to: the
     * browser context's own request client asks /v1/auth/sso/start (its state cookie lands in the
     * browser) and the browser goes to the changed Location. The provider then answers as it would
     * to a request made so. (Not page.route: fulfilling a navigation's redirect there left the next
     * page's scripts unloaded one run in six.)
     */
    async function withAuthorizationParam(name: string, value: string) {
      const url = await authorizationUrl(context);
      url.searchParams.set(name, value);
      return await refused(url.toString());
    }

    test("a wrong state (the provider answers another state than this browser's)", async () => {
      expect(await withAuthorizationParam("state", "a-state-posthorn-never-made")).toBe("This sign-in was not started in this browser (the state does not match its cookie); start again.");
      await shoot(page, shots, "sso-refused-state");
    });

    test("a wrong nonce (the provider signed a token for another sign-in's nonce)", async () => {
      expect(await withAuthorizationParam("nonce", "another-sign-in's-nonce")).toBe("Single sign-on failed: the ID token's nonce is not the one this sign-in sent.");
    });

    test("another audience, signed by the provider's own key", async () => {
      idp.tamper = (token) => {
        const { header, payload } = decodeJwt(token);
        return signJwt(header, { ...payload, aud: "another-client" }, idp.rsaKey);
      };
      expect(await refused()).toBe("Single sign-on failed: the ID token is for another client (aud).");
    });

    test("a signature by a key the provider does not hold (same key id)", async () => {
      const foreign = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
      idp.tamper = (token) => {
        const { header, payload } = decodeJwt(token);
        return signJwt(header, payload, foreign);
      };
      expect(await refused()).toBe("Single sign-on failed: the ID token's signature does not verify.");
    });

    test("an expired token", async () => {
      idp.tamper = (token) => {
        const { header, payload } = decodeJwt(token);
        const now = Math.floor(Date.now() / 1000);
        return signJwt(header, { ...payload, iat: now - 7200, exp: now - 3600 }, idp.rsaKey);
      };
      expect(await refused()).toBe("Single sign-on failed: the ID token has expired.");
    });

    test("an unsigned token (alg none) and an HMAC one keyed with the client secret", async () => {
      idp.tamper = (token) => {
        const { payload } = decodeJwt(token);
        return `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.`;
      };
      expect(await refused()).toBe("Single sign-on failed: the ID token's algorithm none is not accepted (RS256, ES256).");
      idp.tamper = (token) => {
        const { payload } = decodeJwt(token);
        const input = `${Buffer.from(JSON.stringify({ alg: "HS256" })).toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
        return `${input}.${createHmac("sha256", "posthorn's client secret").update(input).digest("base64url")}`;
      };
      expect(await refused()).toBe("Single sign-on failed: the ID token's algorithm HS256 is not accepted (RS256, ES256).");
    });

    test("then, untampered, the same browser signs in; an ES256 token by the provider's EC key is accepted too", async () => {
      idp.tamper = (token) => {
        const { payload } = decodeJwt(token);
        return signJwt({ alg: "ES256", kid: "ec-1", typ: "JWT" }, payload, idp.ecKey);
      };
      await page.goto(`${base}/v1/auth/sso/start`);
      await page.getByRole("heading", { name: "Last 28 days" }).waitFor();
      expect(await sessionCookie(context)).toBeDefined();
    });
  });

  test("an address the provider does not vouch for (email_verified false) is refused", async () => {
    const users = await count("users");
    const context = await browser.newContext();
    const page = await context.newPage();
    const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/v1/auth/sso/callback`));
    await page.goto(`${base}/v1/auth/sso/start`);
    await page.locator("input[name=login]").fill("unverified");
    await page.locator("input[name=password]").fill("anything");
    await page.locator("button[type=submit]").click();
    await page.getByRole("button", { name: "Continue" }).click();
    const res = await callback;
    expect(res.status()).toBe(303);
    const alert = page.getByRole("form", { name: "Sign in" }).getByRole("alert");
    await expect(alert.textContent()).resolves.toBe("Single sign-on failed: the identity provider does not vouch for an email address (email_verified).");
    expect(await count("users")).toBe(users);
    await context.close();
  });

  test("the provider's own refusal (error=login_required to prompt=none without a session there) is shown on the sign-in page", async () => {
    const users = await count("users");
    const sessions = await count("sessions");
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${base}/#/`);
    await page.getByRole("link", { name: "Sign in with SSO" }).waitFor();
    // The link's sign-in, asked of the provider with prompt=none.
    const url = await authorizationUrl(context);
    url.searchParams.set("prompt", "none");
    const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/v1/auth/sso/callback`));
    await page.goto(url.toString());
    const res = await callback;
    expect(new URL(res.url()).searchParams.get("error")).toBe("login_required");
    expect(res.status()).toBe(303);
    const alert = page.getByRole("form", { name: "Sign in" }).getByRole("alert");
    await expect(alert.textContent()).resolves.toStartWith("Single sign-on failed: the identity provider answered login_required");
    await shoot(page, shots, "sso-refused-by-provider");
    // Shown once: a reload shows the sign-in page without it.
    await page.reload();
    await page.getByRole("link", { name: "Sign in with SSO" }).waitFor();
    await expect(alert.count()).resolves.toBe(0);
    expect([await count("users"), await count("sessions")]).toEqual([users, sessions]);
    await context.close();
  });

  test("an API client (no text/html) still gets the refusal as JSON: a wrong state 422, the provider's error 401 sso_failed", async () => {
    const start = await fetch(`${base}/v1/auth/sso/start`, { redirect: "manual" });
    expect(start.status).toBe(303);
    const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
    const cookie = `posthorn_sso=${state}`;
    const callback = (query: string) => fetch(`${base}/v1/auth/sso/callback?${query}`, { redirect: "manual", headers: { cookie, accept: "application/json" } });
    const wrong = await callback("state=another-state&code=x");
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as { errors: { state: string[] } }).errors.state).toEqual(["This sign-in was not started in this browser (the state does not match its cookie); start again."]);
    const denied = await callback(`state=${state}&error=access_denied&error_description=${encodeURIComponent("The user said no")}`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ message: "Single sign-on failed: the identity provider answered access_denied (The user said no).", error: "sso_failed" });
    expect(denied.headers.get("set-cookie") ?? "").not.toContain("posthorn_sso_failure");
  });

  test("a failure cookie Posthorn did not sign is not shown", async () => {
    const forged = `posthorn_sso_failure=${Buffer.from("Call 555-0100 to unlock your account").toString("base64url")}.0123456789abcdef0123456789abcdef`;
    const res = await fetch(`${base}/v1/auth/sso`, { headers: { cookie: forged } });
    expect(await res.json()).toEqual({ data: { enabled: true, failure: null } });
  });
});
