// MTA-STS (RFC 8461) policy handling on its own: the TXT record and policy parsers, MX pattern
// matching, the HTTPS fetch against real loopback policy servers that misbehave (redirects, huge
// bodies, wrong types, silence, wrong certificates), and the per-domain cache. Delivery under a
// policy, end to end, is in test/e2e/mta-sts.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { createLogger } from "../../src/log.ts";
import { fetchPolicy, MAX_AGE_LIMIT_S, MtaStsPolicies, mxMatches, parsePolicy, parseStsRecord, POLICY_BODY_LIMIT } from "../../src/mail/mta-sts.ts";
import { waitFor } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, type TestCert } from "../webhooks/support.ts";

const GOOD = "version: STSv1\nmode: enforce\nmx: mx.good.test\nmx: *.pool.good.test\nmax_age: 86400\n";

describe("the TXT record", () => {
  test("one v=STSv1 record with an id; other TXT records are someone else's", () => {
    expect(parseStsRecord(["v=STSv1; id=20240101T000000"])).toEqual({ ok: true, value: { id: "20240101T000000" } });
    expect(parseStsRecord(["v=spf1 -all", "v=STSv1;id=abc;", "google-site-verification=x"])).toEqual({ ok: true, value: { id: "abc" } });
    expect(parseStsRecord(["v=STSv1 ;\tid=abc ; ext_1=v.a-l"])).toEqual({ ok: true, value: { id: "abc" } });
    expect(parseStsRecord(["v=STSv1; id=first; id=second"])).toEqual({ ok: true, value: { id: "first" } });
    expect(parseStsRecord(["v=spf1 -all"])).toBeNull();
    expect(parseStsRecord([])).toBeNull();
  });

  test("several records, no id, a bad id or a malformed field: no policy, with the reason", () => {
    const reasons = [
      ["v=STSv1; id=a", "v=STSv1; id=b"],
      ["v=STSv1;"],
      ["v=STSv1; id=has-dash"],
      [`v=STSv1; id=${"a".repeat(33)}`],
      ["v=STSv1; id=ok; =novalue"],
      ["v=STSv1; id=ok; ;"],
      ["v=STSv1; id=ok; bad name=1"],
    ].map((records) => {
      const r = parseStsRecord(records);
      expect(r?.ok).toBe(false);
      return r && !r.ok ? r.reason : "";
    });
    expect(reasons[0]).toBe("2 MTA-STS TXT records where one is allowed");
    expect(reasons[1]).toBe("TXT record without an id");
    expect(reasons[2]).toContain("is not 1 to 32 letters and digits");
  });
});

describe("the policy body", () => {
  test("a policy with LF or CRLF lines, extensions ignored, the first of a repeated field", () => {
    expect(parsePolicy(GOOD)).toEqual({ ok: true, value: { mode: "enforce", mx: ["mx.good.test", "*.pool.good.test"], maxAge: 86400, capped: false } });
    const crlf = parsePolicy("version: STSv1\r\nmode: testing\r\nmx: MX.Good.Test.\r\nmax_age:604800\r\nfuture_field: anything at all\r\nmode: enforce\r\n");
    expect(crlf).toEqual({ ok: true, value: { mode: "testing", mx: ["mx.good.test"], maxAge: 604800, capped: false } });
    expect(parsePolicy("version: STSv1\nmode: none\nmax_age: 0")).toEqual({ ok: true, value: { mode: "none", mx: [], maxAge: 0, capped: false } });
  });

  test("a max_age above the RFC's year is capped; one of more than 10 digits is refused", () => {
    const big = parsePolicy(GOOD.replace("86400", "9999999999"));
    expect(big).toEqual({ ok: true, value: expect.objectContaining({ maxAge: MAX_AGE_LIMIT_S, capped: true }) });
    expect(parsePolicy(GOOD.replace("86400", "99999999999999999999"))).toEqual({ ok: false, reason: 'max_age "99999999999999999999" is not a number of at most 10 digits' });
    expect(parsePolicy(GOOD.replace("86400", "-1")).ok).toBe(false);
    expect(parsePolicy(GOOD.replace("86400", "1e9")).ok).toBe(false);
  });

  test("malformed policies are refused with their reason", () => {
    const cases: [string, string][] = [
      [GOOD.replace("STSv1", "STSv2"), 'version "STSv2" is not STSv1'],
      [GOOD.replace("version: STSv1\n", ""), "no version field"],
      [GOOD.replace("mode: enforce", "mode: ENFORCE"), 'mode "ENFORCE" is not enforce, testing or none'],
      [GOOD.replace("mode: enforce\n", ""), "no mode field"],
      [GOOD.replace("max_age: 86400\n", ""), "no max_age field"],
      ["version: STSv1\nmode: enforce\nmax_age: 60\n", "mode enforce without any mx field"],
      [GOOD.replace("mx: mx.good.test", "mx: mx..good.test"), 'mx "mx..good.test" is not a host name or *.host name'],
      [GOOD.replace("mx: mx.good.test", "mx: *.*.good.test"), 'mx "*.*.good.test" is not a host name or *.host name'],
      [GOOD.replace("mx: mx.good.test", "mx: localhost"), 'mx "localhost" is not a host name or *.host name'],
      ["<html><body>Not found</body></html>", 'line 1 is not "key: value": "<html><body>Not found</body></html>"'],
      ["", "no version field"],
    ];
    for (const [body, reason] of cases) expect(parsePolicy(body)).toEqual({ ok: false, reason });
  });
});

test("MX patterns: exact names, and a wildcard for exactly one more label", () => {
  expect(mxMatches("mx.good.test", "mx.good.test")).toBe(true);
  expect(mxMatches("mx.good.test", "MX.GOOD.TEST.")).toBe(true);
  expect(mxMatches("mx.good.test", "mx2.good.test")).toBe(false);
  expect(mxMatches("*.good.test", "a.good.test")).toBe(true);
  expect(mxMatches("*.good.test", "good.test")).toBe(false);
  expect(mxMatches("*.good.test", "b.a.good.test")).toBe(false);
  expect(mxMatches("*.good.test", "a.evilgood.test")).toBe(false);
});

// --- fetching, against policy servers on loopback ---

let dns: TestDnsServer;
let cert: TestCert;
let server: Server<undefined>;
let requests: string[] = [];
const names = ["good", "redirect", "missing", "html", "big", "chunked", "silent", "trickle", "v2", "huge-age", "cached", "flaky", "gone", "nonepolicy"];
/** What each mta-sts.<name>.test answers. */
const answers: Record<string, () => Response | Promise<Response>> = {
  good: () => new Response(GOOD, { headers: { "content-type": "text/plain; charset=utf-8" } }),
  redirect: () => new Response(null, { status: 301, headers: { location: "https://mta-sts.good.test/.well-known/mta-sts.txt" } }),
  missing: () => new Response("not here", { status: 404, headers: { "content-type": "text/plain" } }),
  html: () => new Response(GOOD, { headers: { "content-type": "text/html" } }),
  big: () => new Response(GOOD + "x".repeat(1 << 20), { headers: { "content-type": "text/plain" } }),
  // No Content-Length and a body that never ends: only stopping the read at the limit gets an answer.
  chunked: () =>
    new Response(
      new ReadableStream({
        async pull(c) {
          await Bun.sleep(1);
          c.enqueue(new TextEncoder().encode("x: y\n".repeat(3277)));
        },
      }),
      { headers: { "content-type": "text/plain" } },
    ),
  silent: () => new Promise<Response>(() => {}),
  // The headers come at once, the body never ends.
  trickle: () =>
    new Response(
      new ReadableStream({
        async pull(c) {
          await Bun.sleep(100);
          c.enqueue(new TextEncoder().encode("version: STSv1\n"));
        },
      }),
      { headers: { "content-type": "text/plain" } },
    ),
  v2: () => new Response(GOOD.replace("STSv1", "STSv2"), { headers: { "content-type": "text/plain" } }),
  "huge-age": () => new Response(GOOD.replace("86400", "4000000000"), { headers: { "content-type": "text/plain" } }),
};

beforeAll(async () => {
  dns = await startDnsServer();
  cert = makeTestCert([...names.map((n) => `mta-sts.${n}.test`)]);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: cert.certPem, key: cert.keyPem },
    fetch(req) {
      const host = (req.headers.get("host") ?? "").replace(/:\d+$/, "");
      requests.push(`${host}${new URL(req.url).pathname}`);
      const name = /^mta-sts\.([^.]+)\.test$/.exec(host)?.[1] ?? "";
      return answers[name]?.() ?? new Response("no such host", { status: 421 });
    },
  });
  for (const n of names) dns.set(`mta-sts.${n}.test`, "A", ["127.0.0.1"]);
  // A policy host whose certificate is for other names.
  dns.set("mta-sts.othercert.test", "A", ["127.0.0.1"]);
});
afterAll(async () => {
  await server.stop(true);
  await dns.close();
});

/** Each lookup asks the DNS server (the resolver caches answers for their TTL), so tests can change records. */
const freshDns = () => {
  const base = new DnsResolver([dns.server], { timeoutMs: 500, tries: 1 });
  return { txt: (n: string) => base.fresh().txt(n), addresses: (n: string) => base.fresh().addresses(n) };
};
const fetchOpts = (extra: { timeoutMs?: number; ca?: string | undefined } = {}) => ({ dns: freshDns(), port: server.port!, ca: cert.caPem, timeoutMs: 2000, ...extra });

describe("fetching a policy over HTTPS", () => {
  test("a good policy from mta-sts.<domain>/.well-known/mta-sts.txt, the certificate checked on that name", async () => {
    requests = [];
    expect(await fetchPolicy("good.test", fetchOpts())).toEqual({ ok: true, value: expect.objectContaining({ mode: "enforce", mx: ["mx.good.test", "*.pool.good.test"] }) });
    expect(requests).toEqual(["mta-sts.good.test/.well-known/mta-sts.txt"]);
  });

  test("hostile or broken servers are refused with a reason, and nothing throws", async () => {
    const refused = async (domain: string, extra: Parameters<typeof fetchOpts>[0] = {}) => {
      const r = await fetchPolicy(domain, fetchOpts(extra));
      expect(r.ok).toBe(false);
      return r.ok ? "" : r.reason;
    };
    requests = [];
    expect(await refused("redirect.test")).toBe("HTTP 301 redirect to https://mta-sts.good.test/.well-known/mta-sts.txt; redirects are not followed");
    expect(requests).toEqual(["mta-sts.redirect.test/.well-known/mta-sts.txt"]); // the redirect was not followed
    expect(await refused("missing.test")).toBe("HTTP 404 from mta-sts.missing.test");
    expect(await refused("html.test")).toBe('served as "text/html", not text/plain');
    expect(await refused("big.test")).toBe(`policy of ${GOOD.length + (1 << 20)} bytes, more than ${POLICY_BODY_LIMIT}`);
    expect(await refused("chunked.test")).toBe(`policy larger than ${POLICY_BODY_LIMIT} bytes`);
    expect(await refused("v2.test")).toBe('malformed policy: version "STSv2" is not STSv1');
    expect(await refused("nowhere.test")).toContain("mta-sts.nowhere.test");
    expect(await refused("othercert.test")).toContain("request to mta-sts.othercert.test (127.0.0.1) failed");
    // Without the test CA the certificate does not verify: the default store does not know it.
    expect(await refused("good.test", { ca: undefined })).toContain("request to mta-sts.good.test (127.0.0.1) failed");
  });

  test("a server that does not answer, or never finishes its body, times out", async () => {
    let started = performance.now();
    const silent = await fetchPolicy("silent.test", fetchOpts({ timeoutMs: 400 }));
    expect(silent).toEqual({ ok: false, reason: "no complete answer from mta-sts.silent.test within 400 ms" });
    expect(performance.now() - started).toBeLessThan(2000);
    started = performance.now();
    const trickle = await fetchPolicy("trickle.test", fetchOpts({ timeoutMs: 400 }));
    expect(trickle).toEqual({ ok: false, reason: "no complete answer from mta-sts.trickle.test within 400 ms" });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("the policy cache", () => {
  const logged: any[] = [];
  let clock = Date.parse("2026-01-01T00:00:00Z");
  const policies = () =>
    new MtaStsPolicies({ ...fetchOpts(), log: createLogger("info", (l) => logged.push(JSON.parse(l))), now: () => clock });
  const fetchesOf = (name: string) => requests.filter((r) => r.startsWith(`mta-sts.${name}.test`)).length;

  test("no TXT record: no policy, no fetch, and the absence is remembered for a minute", async () => {
    const p = policies();
    requests = [];
    const asked = dns.stats.queries;
    expect(await p.policyFor("good.test")).toBeNull();
    expect(dns.stats.queries).toBe(asked + 1);
    expect(await p.policyFor("good.test")).toBeNull();
    expect(dns.stats.queries).toBe(asked + 1);
    clock += 60_000;
    expect(await p.policyFor("good.test")).toBeNull();
    expect(dns.stats.queries).toBe(asked + 2);
    expect(requests).toEqual([]);
  });

  test("fetched once per TXT id, then served from the cache while the policy server is down", async () => {
    const p = policies();
    requests = [];
    dns.set("_mta-sts.cached.test", "TXT", ["v=STSv1; id=one"]);
    answers.cached = answers.good!;
    const first = await p.policyFor("cached.test");
    expect(first).toMatchObject({ domain: "cached.test", id: "one", mode: "enforce", mx: ["mx.good.test", "*.pool.good.test"], maxAge: 86400 });
    expect(await p.policyFor("Cached.Test")).toEqual(first);
    expect(fetchesOf("cached")).toBe(1);

    // The server goes down and the TXT id changes: the refetch fails, the cached policy applies.
    answers.cached = () => new Response("down", { status: 503, headers: { "content-type": "text/plain" } });
    dns.set("_mta-sts.cached.test", "TXT", ["v=STSv1; id=two"]);
    logged.length = 0;
    expect(await p.policyFor("cached.test")).toEqual(first);
    expect(fetchesOf("cached")).toBe(2);
    expect(logged).toContainEqual(
      expect.objectContaining({ level: "warn", msg: "MTA-STS policy refused", domain: "cached.test", id: "two", reason: "HTTP 503 from mta-sts.cached.test" }),
    );
    expect(logged.find((l) => l.msg === "MTA-STS policy refused").applies).toContain("the cached policy one (enforce)");
    // …and is not asked again under that id for a while.
    expect(await p.policyFor("cached.test")).toEqual(first);
    expect(fetchesOf("cached")).toBe(2);

    // The TXT record disappears: the cached policy still applies until it expires.
    dns.remove("_mta-sts.cached.test", "TXT");
    expect(await p.policyFor("cached.test")).toEqual(first);
    clock += 86_400_000;
    expect(await p.policyFor("cached.test")).toBeNull();
  });

  test("a policy of mode none replaces an enforce one and means no policy", async () => {
    const p = policies();
    dns.set("_mta-sts.nonepolicy.test", "TXT", ["v=STSv1; id=a"]);
    answers.nonepolicy = answers.good!;
    expect((await p.policyFor("nonepolicy.test"))?.mode).toBe("enforce");
    answers.nonepolicy = () => new Response("version: STSv1\nmode: none\nmax_age: 86400\n", { headers: { "content-type": "text/plain" } });
    dns.set("_mta-sts.nonepolicy.test", "TXT", ["v=STSv1; id=b"]);
    expect(await p.policyFor("nonepolicy.test")).toBeNull();
  });

  test("without a cached policy, a failed fetch or a malformed record means no policy, logged", async () => {
    const p = policies();
    logged.length = 0;
    dns.set("_mta-sts.v2.test", "TXT", ["v=STSv1; id=x"]);
    expect(await p.policyFor("v2.test")).toBeNull();
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: "MTA-STS policy refused", domain: "v2.test", reason: 'malformed policy: version "STSv2" is not STSv1', applies: "none: delivery as without MTA-STS" }),
    );
    dns.set("_mta-sts.flaky.test", "TXT", ["v=STSv1; id=a", "v=STSv1; id=b"]);
    expect(await p.policyFor("flaky.test")).toBeNull();
    expect(logged).toContainEqual(expect.objectContaining({ msg: "MTA-STS record unusable", domain: "flaky.test", reason: "2 MTA-STS TXT records where one is allowed" }));
    dns.set("_mta-sts.gone.test", "TXT", ["v=STSv1; id=a"]);
    dns.fail("_mta-sts.gone.test", "SERVFAIL");
    expect(await p.policyFor("gone.test")).toBeNull();
  });

  test("a max_age beyond the RFC's limit is capped, and said so in the log", async () => {
    const p = policies();
    logged.length = 0;
    dns.set("_mta-sts.huge-age.test", "TXT", ["v=STSv1; id=a"]);
    const policy = await p.policyFor("huge-age.test");
    expect(policy?.maxAge).toBe(MAX_AGE_LIMIT_S);
    expect(policy!.expiresAt - policy!.fetchedAt).toBe(MAX_AGE_LIMIT_S * 1000);
    expect(logged).toContainEqual(expect.objectContaining({ level: "warn", msg: "MTA-STS max_age above the RFC 8461 limit; capped", domain: "huge-age.test" }));
  });

  test("a policy in use is fetched again in the background once a day old, and replaced when that works", async () => {
    const p = policies();
    dns.set("_mta-sts.huge-age.test", "TXT", ["v=STSv1; id=r1"]);
    requests = [];
    const first = await p.policyFor("huge-age.test");
    clock += 23 * 3600_000;
    expect(await p.policyFor("huge-age.test")).toEqual(first);
    expect(fetchesOf("huge-age")).toBe(1);
    clock += 3600_000;
    expect(await p.policyFor("huge-age.test")).toEqual(first); // answered from the cache at once…
    await waitFor(() => fetchesOf("huge-age") === 2); // …while it is fetched again
    await waitFor(async () => (await p.policyFor("huge-age.test"))!.fetchedAt === clock);
  });

  test("concurrent deliveries to one domain share one fetch", async () => {
    const p = policies();
    requests = [];
    dns.set("_mta-sts.good.test", "TXT", ["v=STSv1; id=c1"]);
    const all = await Promise.all(Array.from({ length: 20 }, () => p.policyFor("good.test")));
    expect(new Set(all.map((x) => x?.id))).toEqual(new Set(["c1"]));
    expect(fetchesOf("good")).toBe(1);
    dns.remove("_mta-sts.good.test", "TXT");
  });
});
