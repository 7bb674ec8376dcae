/**
 * Issue 46, named team tokens: the last use is recorded with its time AND the client's address,
 * taken from the real TCP peer (app.handle has no socket, so this runs a server on loopback), or
 * behind a trusted proxy (POSTHORN_TRUSTED_PROXIES) from X-Forwarded-For, never from the part of
 * that header a client wrote itself.
 */
import { describe, expect, test } from "bun:test";
import { createTestApp, engine, waitFor } from "../helpers.ts";

/** Makes a named token, calls GET /v1/projects with it over a real socket, and answers its listed last use once recorded. */
async function lastUseOverSocket(env: Record<string, string>, headers: Record<string, string>) {
  const t = createTestApp({ env });
  const made = await t.request("POST", "/v1/team/tokens", { body: { name: "Socket", permissions: ["projects:read"] } });
  expect(made.status).toBe(201);
  expect(made.json.data).toMatchObject({ last_used_at: null, last_used_ip: null });
  const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const before = Date.now();
    const res = await fetch(`http://127.0.0.1:${server.server!.port}/v1/projects`, { headers: { authorization: `Bearer ${made.json.token}`, ...headers } });
    expect(res.status).toBe(200);
    const row = await waitFor(async () => {
      const listed = (await t.request("GET", "/v1/team/tokens")).json.data.find((d: any) => d.id === made.json.data.id);
      return listed.last_used_ip ? listed : null;
    });
    expect(Date.parse(row.last_used_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(row.last_used_at)).toBeLessThanOrEqual(Date.now());
    return row.last_used_ip as string;
  } finally {
    await server.stop(true);
    await t.deps.store.close();
  }
}

describe(`named team tokens' last use over a real socket (${engine})`, () => {
  test("the TCP peer's address; X-Forwarded-For ignored without trusted proxies", async () => {
    expect(await lastUseOverSocket({}, { "x-forwarded-for": "198.51.100.9" })).toBe("127.0.0.1");
  }, 30_000);

  test("behind a trusted proxy: the nearest untrusted hop of X-Forwarded-For, not what the client wrote at its left", async () => {
    expect(await lastUseOverSocket({ POSTHORN_TRUSTED_PROXIES: "127.0.0.1/32" }, { "x-forwarded-for": "198.51.100.9, 203.0.113.7" })).toBe("203.0.113.7");
  }, 30_000);
});
