import { afterAll, describe, expect, test } from "bun:test";
import { request as httpRequest } from "node:http";
import { createApp } from "../../src/app.ts";
import { AUTH_FAILURE_WINDOW_MS } from "../../src/auth/throttle.ts";
import { loadConfig } from "../../src/config.ts";
import { openDeps } from "../../src/runtime.ts";
import { createTestApp, engine, insertTestDomain, waitFor } from "../helpers.ts";

/** The default POSTHORN_AUTH_FAILURE_LIMIT (the test app turns the limit off unless a test sets it). */
const AUTH_FAILURES_PER_IP = loadConfig({}).authFailureLimit;

/** The limits as a user gets them: the defaults (the test app turns them off otherwise). */
const DEFAULTS = { POSTHORN_RATE_LIMIT_SEND: "", POSTHORN_RATE_LIMIT_API: "", POSTHORN_AUTH_FAILURE_LIMIT: "" };

const limitHeaders = (res: { headers: Headers }) => ({
  limit: res.headers.get("ratelimit-limit"),
  remaining: res.headers.get("ratelimit-remaining"),
  reset: res.headers.get("ratelimit-reset"),
});

const mail = (i: number) => ({ from: "app@shop.test", to: [`user${i}@example.net`], subject: `hello ${i}`, text: "hello there" });

describe("API rate limits, defaults", () => {
  const t = createTestApp({ env: DEFAULTS });
  insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: t.team.projectId, domain: "shop.test" });

  test("every answer of a limited endpoint says where its bucket stands: 100 per team on management, 200 per project on send; 4xx answers too", async () => {
    const team = await t.request("GET", "/v1/team");
    expect(team.status).toBe(200);
    expect(limitHeaders(team)).toEqual({ limit: "100", remaining: "99", reset: "1" });

    const sent = await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: mail(1) });
    expect(sent.status).toBe(202);
    expect(limitHeaders(sent)).toEqual({ limit: "200", remaining: "199", reset: "1" });

    // A 422 and a 404 of a limited endpoint carry them as well (their requests took a token; what
    // refilled since, at 100/s and 50/s, may have given it back).
    const invalid = await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: { from: "x" } });
    expect(invalid.status).toBe(422);
    expect(limitHeaders(invalid).limit).toBe("200");
    expect(Number(limitHeaders(invalid).remaining)).toBeWithin(190, 200);
    const missing = await t.request("GET", "/v1/domains/0190a4c2-0000-7000-8000-000000000000");
    expect(missing.status).toBe(404);
    expect(limitHeaders(missing).limit).toBe("100");
    expect(Number(limitHeaders(missing).remaining)).toBeWithin(90, 100);

    // No credentials: no bucket, so nothing to say; unauthenticated endpoints are not limited.
    const anonymous = await t.request("GET", "/v1/team", { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("ratelimit-limit")).toBeNull();
    expect((await t.request("GET", "/healthz", { token: null })).headers.get("ratelimit-limit")).toBeNull();
  });

  test("remaining counts down to 0, then 429 {message} with Retry-After and the headers; another team and the project's sends are not affected", async () => {
    const remaining: number[] = [];
    let refused: Awaited<ReturnType<typeof t.request>> | null = null;
    for (let i = 0; i < 1000 && !refused; i++) {
      const res = await t.request("GET", "/v1/projects");
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        remaining.push(Number(res.headers.get("ratelimit-remaining")));
      }
    }
    expect(refused).not.toBeNull();
    // It took about the burst (100, two spent above, plus what refilled at 50/s meanwhile).
    expect(remaining.length).toBeGreaterThanOrEqual(97);
    expect(remaining.at(-1)).toBe(0);
    expect(remaining[0]!).toBeGreaterThanOrEqual(90);
    expect(remaining[Math.floor(remaining.length / 2)]!).toBeWithin(20, 80);
    expect(refused!.json).toEqual({ message: "Too many requests.", error: "too_many_requests" });
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limitHeaders(refused!)).toMatchObject({ limit: "100", remaining: "0" });
    expect(Number(refused!.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);

    const other = t.addTeam();
    expect((await t.request("GET", "/v1/team", { token: other.teamToken })).status).toBe(200);
    expect((await t.request("POST", "/v1/send", { projectToken: t.team.projectToken, body: mail(2) })).status).toBe(202);

    // The bucket refills at 50/s: a moment later the team is served again.
    await Bun.sleep(100);
    expect((await t.request("GET", "/v1/team")).status).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  const t = createTestApp();

  test("documents the 429 with its headers on every operation that takes credentials", async () => {
    const doc = (await t.request("GET", "/openapi/json", { token: null })).json;
    expect(doc.components.responses.RateLimited.headers).toEqual({
      "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
      "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
      "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
      "Retry-After": { $ref: "#/components/headers/Retry-After" },
    });
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!op.security?.length) continue;
        operations++;
        expect({ op: `${method} ${path}`, has429: "429" in op.responses }).toEqual({ op: `${method} ${path}`, has429: true });
      }
    }
    expect(operations).toBeGreaterThan(30);
    expect(doc.paths["/v1/send"].post.responses["429"]).toEqual({ $ref: "#/components/responses/RateLimited" });
  });
});

describe("a batch refused by the limiter stores nothing", () => {
  // 1 request/s, burst 2.
  const t = createTestApp({ env: { POSTHORN_RATE_LIMIT_SEND: "1" } });
  insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: t.team.projectId, domain: "shop.test" });
  const count = async () => ({
    messages: (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n,
    jobs: (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs"))!.n,
    keys: (await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM idempotency_keys"))!.n,
  });

  test("the third batch in a second is a 429; no message, job or idempotency key of it exists; a second later the same batch is accepted", async () => {
    const batch = (n: number) => Array.from({ length: 50 }, (_, i) => mail(n * 100 + i));
    for (const n of [1, 2]) expect((await t.request("POST", "/v1/send/batch", { projectToken: t.team.projectToken, body: batch(n) })).status).toBe(202);
    const before = await count();
    expect(Number(before.messages)).toBe(100);

    const refused = await t.request("POST", "/v1/send/batch", { projectToken: t.team.projectToken, body: batch(3), headers: { "idempotency-key": "batch-3" } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(limitHeaders(refused)).toMatchObject({ limit: "2", remaining: "0" });
    expect(await count()).toEqual(before);

    await Bun.sleep(1000);
    const accepted = await t.request("POST", "/v1/send/batch", { projectToken: t.team.projectToken, body: batch(3), headers: { "idempotency-key": "batch-3" } });
    expect(accepted.status).toBe(202);
    expect(accepted.json).toHaveLength(50);
    expect(Number((await count()).messages)).toBe(150);
  });
});

/** A GET through a socket bound to `localAddress` (a second loopback address is a second client IP). */
function getFrom(localAddress: string, port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers, localAddress }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("failed API tokens are throttled per client IP", () => {
  const t = createTestApp({ env: DEFAULTS });
  const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
  afterAll(() => server.stop());
  const url = (path: string) => `http://127.0.0.1:${server.server!.port}${path}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  test(`after ${AUTH_FAILURES_PER_IP} wrong tokens in a minute that IP gets 429 with Retry-After, even with the right token, until the window passes; other IPs are served`, async () => {
    // No token at all guesses nothing and is not counted.
    for (let i = 0; i < 20; i++) expect((await fetch(url("/v1/team"))).status).toBe(401);
    for (let i = 0; i < AUTH_FAILURES_PER_IP; i++) {
      const wrong = i % 2 === 0 ? { headers: bearer(`ph_team_guess${i}`) } : { headers: { "x-service-token": `ph_guess${i}` } };
      expect((await fetch(url(i % 2 === 0 ? "/v1/team" : "/v1/send"), { method: i % 2 === 0 ? "GET" : "POST", ...wrong })).status).toBe(401);
    }
    const refused = await fetch(url("/v1/team"), { headers: bearer(t.team.teamToken) });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ message: "Too many requests.", error: "too_many_requests" });
    const retry = Number(refused.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(50);
    expect(retry).toBeLessThanOrEqual(AUTH_FAILURE_WINDOW_MS / 1000);
    expect((await fetch(url("/v1/send"), { method: "POST", headers: { "x-service-token": t.team.projectToken } })).status).toBe(429);
    expect(await t.sql.get("SELECT failures FROM auth_failures WHERE key = ?", ["ip:127.0.0.1"])).toEqual({ failures: AUTH_FAILURES_PER_IP });

    // Another client IP is not affected.
    expect((await getFrom("127.0.0.2", server.server!.port!, "/v1/team", bearer(t.team.teamToken))).status).toBe(200);

    // The window passes (moved back in the database): served again within the node's refresh of a second.
    await t.sql.run("UPDATE auth_failures SET window_started_at = window_started_at - ?", [AUTH_FAILURE_WINDOW_MS]);
    await waitFor(async () => (await fetch(url("/v1/team"), { headers: bearer(t.team.teamToken) })).status === 200, 5000, 100);
  }, 30_000);
});

describe("old failure counters", () => {
  const t = createTestApp({ env: DEFAULTS });
  const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
  afterAll(() => server.stop());

  test("are deleted once their window is long over (the table holds the last minutes' failures only)", async () => {
    const now = Date.now();
    for (const [key, age] of [["ip:198.51.100.1", 16 * 60_000], ["email:old@example.com", 20 * 60_000], ["email:recent@example.com", 5 * 60_000]] as const) {
      await t.sql.run("INSERT INTO auth_failures (key, failures, window_started_at) VALUES (?, 3, ?)", [key, now - age]);
    }
    // Any request with a client IP starts the node's refresh, which purges at most once a minute.
    expect((await fetch(`http://127.0.0.1:${server.server!.port}/v1/team`, { headers: { authorization: `Bearer ${t.team.teamToken}` } })).status).toBe(200);
    await waitFor(async () => (await t.sql.all("SELECT key FROM auth_failures")).length === 1, 5000, 50);
    expect(await t.sql.all("SELECT key FROM auth_failures")).toEqual([{ key: "email:recent@example.com" }]);
  });
});

describe.skipIf(engine !== "postgres")("two nodes on one PostgreSQL database", () => {
  const t = createTestApp({ env: { POSTHORN_RATE_LIMIT_SEND: "1", POSTHORN_RATE_LIMIT_API: "1", POSTHORN_AUTH_FAILURE_LIMIT: "" } });
  insertTestDomain(t.deps, { teamId: t.team.teamId, projectId: t.team.projectId, domain: "shop.test" });

  test("share one bucket per project and per team, and one failed-authentication counter per IP", async () => {
    // A second node: its own connection pool, its own app, the same database.
    const deps2 = await openDeps(t.deps.config);
    const node2 = createApp(deps2);
    const servers = [t.app.listen({ hostname: "127.0.0.1", port: 0 }), node2.listen({ hostname: "127.0.0.1", port: 0 })];
    try {
      const [a, b] = servers.map((s) => `http://127.0.0.1:${s.server!.port}`) as [string, string];
      const send = (base: string) =>
        fetch(`${base}/v1/send`, { method: "POST", headers: { "x-service-token": t.team.projectToken, "content-type": "application/json" }, body: JSON.stringify(mail(1)) });
      // The burst (2) taken on node A; node B refuses the next at once.
      expect((await send(a)).status).toBe(202);
      expect((await send(a)).status).toBe(202);
      const refused = await send(b);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("ratelimit-remaining")).toBe("0");
      expect((await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n).toBe(2);

      // Management: node B takes the burst, node A refuses.
      const team = (base: string) => fetch(`${base}/v1/team`, { headers: { authorization: `Bearer ${t.team.teamToken}` } });
      expect((await team(b)).status).toBe(200);
      expect((await team(b)).status).toBe(200);
      expect((await team(a)).status).toBe(429);

      // Wrong tokens counted on node A block the IP on node B too (B learns it within a second).
      for (let i = 0; i < AUTH_FAILURES_PER_IP; i++) expect((await fetch(`${a}/v1/team`, { headers: { authorization: `Bearer ph_team_guess${i}` } })).status).toBe(401);
      await waitFor(async () => (await team(b)).status === 429 && (await team(b)).headers.get("ratelimit-limit") === null, 5000, 100);
      // A guess on node B is counted there and refused.
      expect((await fetch(`${b}/v1/team`, { headers: { authorization: "Bearer ph_team_guess-b" } })).status).toBe(429);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await deps2.store.close();
    }
  }, 30_000);
});

describe.skipIf(engine !== "postgres")("two nodes on one PostgreSQL database, under load", () => {
  // 20 requests/s per team, burst 40: each node takes 4 tokens at a time from the shared bucket.
  const t = createTestApp({ env: { POSTHORN_RATE_LIMIT_API: "20" } });

  test("64 concurrent clients on both nodes get at most the burst plus the refill, and not much less", async () => {
    const deps2 = await openDeps(t.deps.config);
    const apps = [t.app, createApp(deps2)];
    try {
      let next = 0;
      let accepted = 0;
      let refused = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 64 }, async (_, c) => {
          while (next++ < 400) {
            const res = await apps[c % 2]!.handle(new Request("http://localhost/v1/team", { headers: { authorization: `Bearer ${t.team.teamToken}` } }));
            await res.arrayBuffer();
            if (res.status === 200) accepted++;
            else if (res.status === 429) refused++;
            else throw new Error(`status ${res.status}`);
          }
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      expect(accepted + refused).toBe(400);
      expect(accepted).toBeLessThanOrEqual(40 + Math.ceil(20 * seconds));
      expect(accepted).toBeGreaterThanOrEqual(32);
      expect(refused).toBeGreaterThan(0);
    } finally {
      await deps2.store.close();
    }
  }, 30_000);
});

describe("0 turns the limits off", () => {
  // The test app's settings: POSTHORN_RATE_LIMIT_SEND=0, POSTHORN_RATE_LIMIT_API=0, POSTHORN_AUTH_FAILURE_LIMIT=0.
  const t = createTestApp();
  const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
  afterAll(() => server.stop());

  test("no RateLimit headers, no 429 however fast, and wrong tokens are not throttled", async () => {
    const url = `http://127.0.0.1:${server.server!.port}/v1/team`;
    for (let i = 0; i < 300; i++) {
      const res = await t.request("GET", "/v1/team");
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBeNull();
    }
    for (let i = 0; i < 30; i++) expect((await fetch(url, { headers: { authorization: `Bearer ph_team_guess${i}` } })).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${t.team.teamToken}` } })).status).toBe(200);
    expect(await t.sql.all("SELECT key FROM auth_failures")).toEqual([]);
  });
});

describe("the client IP behind a reverse proxy", () => {
  const cases = [
    {
      name: "with POSTHORN_TRUSTED_PROXIES the nearest untrusted X-Forwarded-For address is the client (what the client wrote itself, further left, changes nothing): one client's failures do not block another's",
      proxies: "127.0.0.1/32, ::1",
      guessFrom: (i: number) => `198.51.100.${i}, 203.0.113.5`,
      refused: "203.0.113.5",
      served: "198.51.100.7",
      counted: "ip:203.0.113.5",
    },
    {
      name: "an IPv6 client is counted by its /64: walking through its addresses does not escape the throttle",
      proxies: "127.0.0.1",
      guessFrom: (i: number) => `2001:db8:7:8::${(i + 1).toString(16)}`,
      refused: "2001:db8:7:8:ffff::1",
      served: "2001:db8:7:9::1",
      counted: "ip:2001:db8:7:8::/64",
    },
    {
      name: "without it X-Forwarded-For is ignored: the TCP peer is the client",
      proxies: "",
      guessFrom: (i: number) => `203.0.113.${i}`,
      refused: "198.51.100.7",
      served: null,
      counted: "ip:127.0.0.1",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const t = createTestApp({ env: { POSTHORN_AUTH_FAILURE_LIMIT: "", POSTHORN_TRUSTED_PROXIES: c.proxies } });
      const server = t.app.listen({ hostname: "127.0.0.1", port: 0 });
      const get = (token: string, forwardedFor: string) =>
        fetch(`http://127.0.0.1:${server.server!.port}/v1/team`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": forwardedFor } });
      try {
        for (let i = 0; i < AUTH_FAILURES_PER_IP; i++) expect((await get(`ph_team_guess${i}`, c.guessFrom(i))).status).toBe(401);
        expect((await get(t.team.teamToken, c.refused)).status).toBe(429);
        if (c.served) expect((await get(t.team.teamToken, c.served)).status).toBe(200);
        expect((await t.sql.all<{ key: string }>("SELECT key FROM auth_failures")).map((r) => r.key)).toEqual([c.counted]);
      } finally {
        await server.stop();
      }
    });
  }

  test("a value that is no address or CIDR stops the start, naming the variable", () => {
    for (const bad of ["proxy.local", "10.0.0.0/33", "::1/129", "10.0.0.0/x"]) {
      expect(() => loadConfig({ POSTHORN_TRUSTED_PROXIES: bad })).toThrow(`POSTHORN_TRUSTED_PROXIES: "${bad}" is not an address or a CIDR like 10.0.0.0/8`);
    }
  });
});
