/**
 * GET /metrics carries every team's mail figures by route (outcomes, bounces, complaints, opens):
 * an outsider must not read them (brief H5). Without POSTHORN_METRICS_TOKEN it answers clients on
 * loopback and private networks only; with it, also a client that sends it as a Bearer token.
 * The client's address is taken as for rate limits (the TCP peer, or behind a trusted proxy the
 * nearest untrusted hop of X-Forwarded-For), so this runs a server on loopback behind a "proxy".
 */
import { describe, expect, test } from "bun:test";
import { createTestApp, engine } from "../helpers.ts";

const TOKEN = "metrics-scrape-token-0123456789";

async function scrape(env: Record<string, string>, requests: { forwardedFor?: string; token?: string }[]) {
  const t = createTestApp({ env: { POSTHORN_TRUSTED_PROXIES: "127.0.0.1/32", ...env } });
  const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const out: { status: number; text: string }[] = [];
    for (const r of requests) {
      const headers: Record<string, string> = {};
      if (r.forwardedFor) headers["x-forwarded-for"] = r.forwardedFor;
      if (r.token) headers.authorization = `Bearer ${r.token}`;
      const res = await fetch(`http://127.0.0.1:${server.server!.port}/metrics`, { headers });
      out.push({ status: res.status, text: await res.text() });
    }
    return out;
  } finally {
    await server.stop(true);
    await t.deps.store.close();
  }
}

describe(`/metrics is not for outsiders (${engine})`, () => {
  test("without a metrics token: a client on the internet is a 403 without a figure; loopback and private networks are answered", async () => {
    const [outsider, loopback, lan, lan6] = await scrape({}, [{ forwardedFor: "203.0.113.7" }, {}, { forwardedFor: "10.20.30.40" }, { forwardedFor: "fd00::5" }]);
    expect(outsider!.status).toBe(403);
    expect(outsider!.text).not.toContain("posthorn_");
    expect(JSON.parse(outsider!.text).message).toContain("POSTHORN_METRICS_TOKEN");
    for (const inside of [loopback, lan, lan6]) {
      expect(inside!.status).toBe(200);
      expect(inside!.text).toContain("posthorn_jobs_pending");
    }
  }, 30_000);

  test("with POSTHORN_METRICS_TOKEN: a client on the internet with the token is answered, without it or with another a 401", async () => {
    const [right, none, wrong, lan] = await scrape({ POSTHORN_METRICS_TOKEN: TOKEN }, [
      { forwardedFor: "203.0.113.7", token: TOKEN },
      { forwardedFor: "203.0.113.7" },
      { forwardedFor: "203.0.113.7", token: `${TOKEN}x` },
      { forwardedFor: "192.168.1.2" },
    ]);
    expect(right!.status).toBe(200);
    expect(right!.text).toContain("posthorn_jobs_pending");
    for (const refused of [none, wrong]) {
      expect(refused!.status).toBe(401);
      expect(refused!.text).not.toContain("posthorn_");
    }
    expect(lan!.status).toBe(200);
  }, 30_000);

  test("behind a proxy that is not trusted: a forwarded request is from outside, whatever the proxy's own address", async () => {
    const t = createTestApp();
    const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${server.server!.port}/metrics`;
      const forwarded: Record<string, string>[] = [{ "x-forwarded-for": "203.0.113.7" }, { forwarded: "for=203.0.113.7" }, { "x-real-ip": "203.0.113.7" }];
      for (const headers of forwarded) {
        const res = await fetch(url, { headers });
        expect([JSON.stringify(headers), res.status]).toEqual([JSON.stringify(headers), 403]);
      }
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await server.stop(true);
      await t.deps.store.close();
    }
  }, 30_000);
});
