import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createTestApp } from "../helpers.ts";

describe("single sign-on settings", () => {
  test("an http issuer only on loopback; the issuer and the client id go together; the default role is member or admin", () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return null;
      } catch (err) {
        return err instanceof ConfigError ? err.message : String(err);
      }
    };
    expect(refused({ POSTHORN_OIDC_ISSUER: "http://idp.example.com", POSTHORN_OIDC_CLIENT_ID: "posthorn" })).toBe("POSTHORN_OIDC_ISSUER: must be https (http only on a loopback host)");
    expect(refused({ POSTHORN_OIDC_ISSUER: "https://idp.example.com" })).toBe("POSTHORN_OIDC_CLIENT_ID: required with POSTHORN_OIDC_ISSUER");
    expect(refused({ POSTHORN_OIDC_CLIENT_ID: "posthorn" })).toBe("POSTHORN_OIDC_ISSUER: required with POSTHORN_OIDC_CLIENT_ID");
    expect(refused({ POSTHORN_OIDC_ISSUER: "https://idp.example.com", POSTHORN_OIDC_CLIENT_ID: "p", POSTHORN_OIDC_DEFAULT_ROLE: "owner" })).toStartWith("POSTHORN_OIDC_DEFAULT_ROLE:");
    for (const issuer of ["http://127.0.0.1:9000", "http://localhost:9000/realms/x", "http://[::1]:9000", "https://idp.example.com/"]) {
      expect(loadConfig({ POSTHORN_OIDC_ISSUER: issuer, POSTHORN_OIDC_CLIENT_ID: "p" }).oidcIssuer).toBe(issuer);
    }
    expect(loadConfig({ POSTHORN_OIDC_ALLOWED_DOMAINS: "Example.com, @corp.example" }).oidcAllowedDomains).toEqual(["example.com", "corp.example"]);
  });

  test("without an issuer, the sign-in page is told so and the flow's endpoints are 404s", async () => {
    const t = createTestApp();
    expect((await t.request("GET", "/v1/auth/sso", { token: null })).json).toEqual({ data: { enabled: false, failure: null } });
    expect((await t.request("GET", "/v1/auth/sso/start", { token: null })).status).toBe(404);
    expect((await t.request("GET", "/v1/auth/sso/callback?state=x&code=y", { token: null })).status).toBe(404);
  });

  test("a client may start 30 sign-ins in 10 minutes (each stores a row), then 429", async () => {
    const t = createTestApp({ env: { POSTHORN_OIDC_ISSUER: "http://127.0.0.1:9", POSTHORN_OIDC_CLIENT_ID: "posthorn" } });
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await fetch(`http://127.0.0.1:${server.server!.port}/v1/auth/sso/start`, { redirect: "manual" })).status);
      // Nothing listens on port 9: the discovery fails (401 sso_failed), but each start was counted.
      expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
      expect(statuses[30]).toBe(429);
      expect(await t.sql.get("SELECT failures FROM auth_failures WHERE key = ?", ["sso:127.0.0.1"])).toEqual({ failures: 30 });
    } finally {
      await server.stop(true);
    }
  });
});
