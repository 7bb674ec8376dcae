import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DnsResolver } from "../../../src/dns/resolver.ts";
import { createTestApp, type TestApp } from "../../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.ts";

let dns: TestDnsServer;
let t: TestApp;
const HOST = "mx.posthorn.test";

beforeAll(async () => {
  dns = await startDnsServer();
  t = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
  t.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
});
afterAll(() => dns.close());

const routeOf = (projectId: string, type: string) =>
  t.sqlNow.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = ?", [projectId, type])!.id;
// The routes module sets inbound_domain through PUT /v1/routes; here it is set directly.
const setInboundDomain = (routeId: string, domain: string | null) =>
  t.sqlNow.run("UPDATE routes SET inbound_domain = ?, inbound_domain_verified_at = NULL WHERE id = ?", [domain, routeId]);
const verifiedAt = (routeId: string) =>
  t.sqlNow.get<{ v: number | null }>("SELECT inbound_domain_verified_at AS v FROM routes WHERE id = ?", [routeId])!.v;
const verify = (routeId: string, token?: string) => t.request("POST", `/v1/routes/${routeId}/verify-inbound-domain`, { token });
type InboundRecord = { purpose: string; type: string; fqdn: string; content: string };
/** The records GET /v1/routes/{id} asks the route's owner to publish. */
const recordsOf = async (app: TestApp, routeId: string, token?: string): Promise<InboundRecord[]> =>
  (await app.request("GET", `/v1/routes/${routeId}`, { token })).json.inbound_domain_records;
/** Publishes the route's records as asked (or only some of them). */
async function publish(app: TestApp, routeId: string, opts: { token?: string; only?: "MX" | "TXT" } = {}) {
  for (const r of await recordsOf(app, routeId, opts.token)) {
    if (opts.only && r.type !== opts.only) continue;
    if (r.type === "MX") dns.set(r.fqdn, "MX", [{ exchange: `${r.content}.`, priority: 10 }]);
    else dns.set(r.fqdn, "TXT", [r.content]);
  }
}

describe("POST /v1/routes/{id}/verify-inbound-domain", () => {
  test("MX pointing to POSTHORN_HOSTNAME → verified, inbound_domain_verified_at set", async () => {
    const route = routeOf(t.team.projectId, "inbound");
    setInboundDomain(route, "In.Customer.TEST");
    const records = await recordsOf(t, route);
    expect(records).toEqual([
      { purpose: "inbound_mx", type: "MX", fqdn: "in.customer.test", content: HOST },
      { purpose: "inbound_verification", type: "TXT", fqdn: "_posthorn-verification.in.customer.test", content: expect.stringMatching(/^posthorn-verification=[0-9a-f]{32}$/) },
    ]);
    await publish(t, route);
    const before = Date.now();
    const res = await verify(route);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { verified: true, message: "Inbound domain verified successfully." } });
    expect(verifiedAt(route)).toBeGreaterThanOrEqual(before);
  });

  const failing: [string, (name: string) => void, RegExp][] = [
    ["no MX record", () => {}, /No MX record found at .*Publish an MX record pointing to mx\.posthorn\.test/],
    ["MX to another host", (n) => dns.set(n, "MX", [{ exchange: "mx.google.test", priority: 1 }]), /points to mx\.google\.test, not mx\.posthorn\.test/],
    [
      "our host only as backup",
      (n) => dns.set(n, "MX", [{ exchange: "mx.google.test", priority: 1 }, { exchange: HOST, priority: 50 }]),
      /only a backup MX/,
    ],
    ["SERVFAIL", (n) => (dns.set(n, "MX", [{ exchange: HOST, priority: 1 }]), dns.fail(n, "SERVFAIL")), /DNS server failed .*SERVFAIL/],
    ["timeout", (n) => dns.fail(n, "TIMEOUT"), /did not answer in time/],
  ];
  let i = 0;
  for (const [name, arrange, message] of failing) {
    test(`${name} → verified false with the reason, nothing recorded`, async () => {
      const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
      app.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
      const route = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [app.team.projectId]))!.id;
      const domain = `fail${++i}.customer.test`;
      await app.sql.run("UPDATE routes SET inbound_domain = ? WHERE id = ?", [domain, route]);
      arrange(domain);
      const res = await app.request("POST", `/v1/routes/${route}/verify-inbound-domain`);
      expect(res.status).toBe(200);
      expect(res.json.data.verified).toBe(false);
      expect(res.json.data.message).toMatch(message);
      expect((await app.sql.get<{ v: number | null }>("SELECT inbound_domain_verified_at AS v FROM routes WHERE id = ?", [route]))!.v).toBeNull();
    });
  }

  test("a domain already verified for another route (another team) cannot be taken over", async () => {
    const first = routeOf(t.team.projectId, "inbound");
    setInboundDomain(first, "shared.customer.test");
    await publish(t, first);
    expect((await verify(first)).json.data.verified).toBe(true);
    const b = t.addTeam();
    const theirs = routeOf(b.projectId, "inbound");
    setInboundDomain(theirs, "shared.customer.test");
    // Even with its own token published next to the first route's.
    const mine = (await recordsOf(t, theirs, b.teamToken))[1]!;
    dns.set(mine.fqdn, "TXT", [(await recordsOf(t, first))[1]!.content, mine.content]);
    const res = await verify(theirs, b.teamToken);
    expect(res.json.data).toEqual({ verified: false, message: "shared.customer.test is already verified as the inbound domain of another route." });
    expect(verifiedAt(theirs)).toBeNull();
  });

  describe("the TXT token proves control of the name; an MX alone does not", () => {
    let n = 0;
    const fresh = () => {
      const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
      app.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
      const route = app.sqlNow.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [app.team.projectId])!.id;
      const domain = `txt${++n}.customer.test`;
      app.sqlNow.run("UPDATE routes SET inbound_domain = ? WHERE id = ?", [domain, route]);
      const check = async () => {
        const res = await app.request("POST", `/v1/routes/${route}/verify-inbound-domain`);
        expect(res.status).toBe(200);
        const at = (await app.sql.get<{ v: number | null }>("SELECT inbound_domain_verified_at AS v FROM routes WHERE id = ?", [route]))!.v;
        return { ...(res.json.data as { verified: boolean; message: string }), at };
      };
      return { app, route, domain, check };
    };

    test("MX without the TXT record → verified false, naming the record and the value to publish", async () => {
      const { app, route, domain, check } = fresh();
      await publish(app, route, { only: "MX" });
      const txt = (await recordsOf(app, route))[1]!;
      const r = await check();
      expect(r.verified).toBe(false);
      expect(r.message).toBe(`No TXT record found at _posthorn-verification.${domain}. Publish a TXT record there with the content "${txt.content}".`);
      expect(r.at).toBeNull();
    });

    test("neither record → both reasons", async () => {
      const { check, domain } = fresh();
      const r = await check();
      expect(r.verified).toBe(false);
      expect(r.message).toContain(`No MX record found at ${domain}.`);
      expect(r.message).toContain(`No TXT record found at _posthorn-verification.${domain}.`);
    });

    test("a wrong token, another route's token or the token of another domain → verified false with what was found", async () => {
      const { app, route, domain, check } = fresh();
      await publish(app, route, { only: "MX" });
      // Another route's token for this same name (same server, same secret), and this route's
      // token for another name.
      const other = (await app.request("POST", `/v1/projects/${app.team.projectId}/routes`, { body: { name: "Other", route_type: "inbound" } })).json.data.id;
      await app.sql.run("UPDATE routes SET inbound_domain = ? WHERE id = ?", [domain, other]);
      const othersToken = (await recordsOf(app, other))[1]!.content;
      await app.sql.run("UPDATE routes SET inbound_domain = ? WHERE id = ?", [`x.${domain}`, route]);
      const otherDomainToken = (await recordsOf(app, route))[1]!.content;
      await app.sql.run("UPDATE routes SET inbound_domain = ? WHERE id = ?", [domain, route]);
      const own = (await recordsOf(app, route))[1]!.content;
      expect(new Set([othersToken, otherDomainToken, own]).size).toBe(3);
      for (const wrong of ["posthorn-verification=0123456789abcdef0123456789abcdef", othersToken, otherDomainToken, `${own}x`, "v=spf1 -all"]) {
        dns.set(`_posthorn-verification.${domain}`, "TXT", [wrong]);
        const r = await check();
        expect(r.verified).toBe(false);
        expect(r.message).toContain(`The TXT record at _posthorn-verification.${domain} does not hold the expected value "${own}". Found "${wrong}".`);
        expect(r.at).toBeNull();
      }
      dns.set(`_posthorn-verification.${domain}`, "TXT", ["v=spf1 -all", own]);
      expect((await check()).verified).toBe(true);
    });

    test("the token split into several strings of one TXT record, with other records beside it, counts", async () => {
      const { app, route, domain, check } = fresh();
      await publish(app, route, { only: "MX" });
      const own = (await recordsOf(app, route))[1]!.content;
      dns.set(`_posthorn-verification.${domain}`, "TXT", ["google-site-verification=abc", [own.slice(0, 30), own.slice(30)]]);
      expect((await check()).verified).toBe(true);
    });

    test("a DNS failure on the TXT name → verified false with the reason", async () => {
      const { app, route, domain, check } = fresh();
      await publish(app, route);
      dns.fail(`_posthorn-verification.${domain}`, "SERVFAIL");
      try {
        const r = await check();
        expect(r.verified).toBe(false);
        expect(r.message).toMatch(/DNS server failed for the TXT lookup of _posthorn-verification\..*SERVFAIL/);
      } finally {
        dns.fail(`_posthorn-verification.${domain}`, null);
      }
    });
  });

  describe("ownership: a sending domain another team verified claims its name and every name under it; one only registered claims nothing", () => {
    const putDomain = (app: TestApp, routeId: string, domain: string, token?: string) =>
      app.request("PUT", `/v1/routes/${routeId}`, { token, body: { inbound_settings: { inbound_domain: domain } } });
    const register = async (app: TestApp, domain: string, token?: string) => {
      const res = await app.request("POST", "/v1/domains", { token, body: { domain } });
      expect(res.status).toBe(201);
      return res.json as { id: string; dns_records: InboundRecord[] };
    };
    /** Registers the domain and proves it: its records published as asked, then verified (active). */
    const registerVerified = async (app: TestApp, domain: string, token?: string) => {
      const d = await register(app, domain, token);
      for (const r of d.dns_records) {
        if (r.type === "MX") dns.set(r.fqdn, "MX", [{ exchange: r.content, priority: 10 }]);
        else dns.set(r.fqdn, "TXT", [r.content]);
      }
      expect((await app.request("POST", `/v1/domains/${d.id}/dns-records/verify`, { token })).json.data.sending_status).toBe("active");
    };
    const at = (app: TestApp, routeId: string) =>
      app.sqlNow.get<{ v: number | null }>("SELECT inbound_domain_verified_at AS v FROM routes WHERE id = ?", [routeId])!.v;

    test("set before the other team verified the parent: verification refuses it even with MX and TXT published", async () => {
      const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
      app.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
      const b = app.addTeam();
      const theirs = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [b.projectId]))!.id;
      expect((await putDomain(app, theirs, "x.later-reg.test", b.teamToken)).status).toBe(200);
      await publish(app, theirs, { token: b.teamToken });
      await registerVerified(app, "Later-Reg.test");
      const res = await app.request("POST", `/v1/routes/${theirs}/verify-inbound-domain`, { token: b.teamToken });
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({
        verified: false,
        message:
          "x.later-reg.test cannot be verified: x.later-reg.test is under later-reg.test, a sending domain verified by another team; only that team can receive mail at it or at names under it.",
      });
      expect(at(app, theirs)).toBeNull();
    });

    test("a route marked verified after the other team's domain was (state from an older version) loses its verification at the next check", async () => {
      const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
      app.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
      await registerVerified(app, "old-state.test");
      const b = app.addTeam();
      const theirs = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [b.projectId]))!.id;
      await app.sql.run("UPDATE routes SET inbound_domain = 'ph-bounces.old-state.test', inbound_domain_verified_at = ? WHERE id = ?", [Date.now() + 1, theirs]);
      await publish(app, theirs, { token: b.teamToken });
      const res = await app.request("POST", `/v1/routes/${theirs}/verify-inbound-domain`, { token: b.teamToken });
      expect(res.json.data.verified).toBe(false);
      expect(res.json.data.message).toContain("is under old-state.test, a sending domain verified by another team");
      expect(at(app, theirs)).toBeNull();
    });

    test("registering a domain clears only the own team's route on its return-path name; other teams' verified routes at or under it stay, and verify again", async () => {
      const app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
      app.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
      const b = app.addTeam();
      const route = (teamProject: string) =>
        app.sqlNow.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [teamProject])!.id;
      const mine = route(app.team.projectId);
      const theirs = route(b.projectId);
      const mineToo = (await app.request("POST", `/v1/projects/${app.team.projectId}/routes`, { body: { name: "Second", route_type: "inbound" } })).json.data.id;
      const bystander = (await app.request("POST", `/v1/projects/${b.projectId}/routes`, { token: b.teamToken, body: { name: "Other", route_type: "inbound" } })).json.data.id;
      const cases: [string, string, string | undefined][] = [
        [theirs, "in.b-later.test", b.teamToken],
        [mine, "own.b-later.test", undefined],
        [mineToo, "ph-bounces.b-later.test", undefined],
        [bystander, "in.notb-later.test", b.teamToken],
      ];
      for (const [id, domain, token] of cases) {
        expect((await putDomain(app, id, domain, token)).status).toBe(200);
        await publish(app, id, { token });
        const res = await app.request("POST", `/v1/routes/${id}/verify-inbound-domain`, { token });
        expect([domain, res.json.data.verified]).toEqual([domain, true]);
      }
      const theirsAt = at(app, theirs);
      await registerVerified(app, "b-later.test");
      // A's own route on its new bounce name loses its verification (A's own act); B's route under
      // A's domain, verified first, keeps it, as do A's own name and a name that only ends alike.
      expect((await app.request("GET", `/v1/routes/${mineToo}`)).json.inbound_domain_verified_at).toBeNull();
      expect(at(app, theirs)).toBe(theirsAt);
      expect((await app.request("GET", `/v1/routes/${mine}`)).json.inbound_domain_verified_at).toBeString();
      expect((await app.request("GET", `/v1/routes/${bystander}`, { token: b.teamToken })).json.inbound_domain_verified_at).toBeString();
      // B verifies again (its verification keeps its first time); A's bounce name cannot.
      const again = await app.request("POST", `/v1/routes/${theirs}/verify-inbound-domain`, { token: b.teamToken });
      expect(again.json.data.verified).toBe(true);
      expect(at(app, theirs)).toBe(theirsAt);
      const bounce = await app.request("POST", `/v1/routes/${mineToo}/verify-inbound-domain`);
      expect(bounce.json.data).toEqual({
        verified: false,
        message:
          "ph-bounces.b-later.test cannot be verified: ph-bounces.b-later.test is the return-path (bounce) domain of the sending domain b-later.test; mail to it is handled as bounces and cannot go to a route.",
      });
    });
  });

  test("a route that is not inbound, or has no inbound domain → 422", async () => {
    const transactional = routeOf(t.team.projectId, "transactional");
    const r1 = await verify(transactional);
    expect(r1.status).toBe(422);
    expect(r1.json.errors.route_type[0]).toBe("Only inbound routes have an inbound domain to verify.");
    const app = createTestApp();
    const inbound = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [app.team.projectId]))!.id;
    const r2 = await app.request("POST", `/v1/routes/${inbound}/verify-inbound-domain`);
    expect(r2.status).toBe(422);
    expect(Object.keys(r2.json.errors)).toEqual(["inbound_domain"]);
  });

  test("another team's route, an unknown id or a malformed id → 404", async () => {
    const route = routeOf(t.team.projectId, "inbound");
    const b = t.addTeam();
    for (const id of [route, "0190a0b0-0000-7000-8000-000000000000", "nope"]) {
      const res = await verify(id, b.teamToken);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ message: "Route not found.", error: "not_found" });
    }
  });

  test("without a token → 401", async () => {
    expect((await verify(routeOf(t.team.projectId, "inbound"), null as unknown as string)).status).toBe(401);
  });
});
