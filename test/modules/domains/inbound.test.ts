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
  t.deps.sqlite.query<{ id: string }, [string, string]>("SELECT id FROM routes WHERE project_id = ? AND route_type = ?").get(projectId, type)!.id;
// The routes module sets inbound_domain through PUT /v1/routes; here it is set directly.
const setInboundDomain = (routeId: string, domain: string | null) =>
  t.deps.sqlite.query("UPDATE routes SET inbound_domain = ?, inbound_domain_verified_at = NULL WHERE id = ?").run(domain, routeId);
const verifiedAt = (routeId: string) =>
  t.deps.sqlite.query<{ v: number | null }, [string]>("SELECT inbound_domain_verified_at AS v FROM routes WHERE id = ?").get(routeId)!.v;
const verify = (routeId: string, token?: string) => t.request("POST", `/v1/routes/${routeId}/verify-inbound-domain`, { token });

describe("POST /v1/routes/{id}/verify-inbound-domain", () => {
  test("MX pointing to POSTHORN_HOSTNAME → verified, inbound_domain_verified_at set", async () => {
    const route = routeOf(t.team.projectId, "inbound");
    setInboundDomain(route, "In.Customer.TEST");
    dns.set("in.customer.test", "MX", [{ exchange: `${HOST}.`, priority: 10 }]);
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
      const route = app.deps.sqlite.query<{ id: string }, [string]>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'").get(app.team.projectId)!.id;
      const domain = `fail${++i}.customer.test`;
      app.deps.sqlite.query("UPDATE routes SET inbound_domain = ? WHERE id = ?").run(domain, route);
      arrange(domain);
      const res = await app.request("POST", `/v1/routes/${route}/verify-inbound-domain`);
      expect(res.status).toBe(200);
      expect(res.json.data.verified).toBe(false);
      expect(res.json.data.message).toMatch(message);
      expect(app.deps.sqlite.query<{ v: number | null }, [string]>("SELECT inbound_domain_verified_at AS v FROM routes WHERE id = ?").get(route)!.v).toBeNull();
    });
  }

  test("a domain already verified for another route (another team) cannot be taken over", async () => {
    const first = routeOf(t.team.projectId, "inbound");
    setInboundDomain(first, "shared.customer.test");
    dns.set("shared.customer.test", "MX", [{ exchange: HOST, priority: 10 }]);
    expect((await verify(first)).json.data.verified).toBe(true);
    const b = t.addTeam();
    const theirs = routeOf(b.projectId, "inbound");
    setInboundDomain(theirs, "shared.customer.test");
    const res = await verify(theirs, b.teamToken);
    expect(res.json.data).toEqual({ verified: false, message: "shared.customer.test is already verified as the inbound domain of another route." });
    expect(verifiedAt(theirs)).toBeNull();
  });

  test("a route that is not inbound, or has no inbound domain → 422", async () => {
    const transactional = routeOf(t.team.projectId, "transactional");
    const r1 = await verify(transactional);
    expect(r1.status).toBe(422);
    expect(r1.json.errors.route_type[0]).toBe("Only inbound routes have an inbound domain to verify.");
    const app = createTestApp();
    const inbound = app.deps.sqlite.query<{ id: string }, [string]>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'").get(app.team.projectId)!.id;
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
      expect(res.json).toEqual({ message: "Route not found." });
    }
  });

  test("without a token → 401", async () => {
    expect((await verify(routeOf(t.team.projectId, "inbound"), null as unknown as string)).status).toBe(401);
  });
});
