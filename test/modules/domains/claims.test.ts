/**
 * Claims on shared names need proof (issue 41, finding 2): one team's row for a name (a sending
 * domain, a route's inbound domain) must not cost another team anything until it is backed by
 * DNS proof (its own DKIM record, its own TXT token); a verified claim is never undone by
 * another team's registration; public suffixes are refused. Real SMTP sockets to the MX
 * listener, real DNS answers from the loopback server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestApp } from "../../helpers.ts";
import { RawSmtpClient, startInbound, type InboundHarness } from "../../smtp/support.ts";

let h: InboundHarness;
let app: TestApp;
beforeAll(async () => {
  h = await startInbound();
  app = h.app;
});
afterAll(() => h.stop());

type Team = { teamToken: string; projectId: string; projectToken: string };
type Rec = { purpose: string; type: string; fqdn: string; content: string };

const as = (team: Team) => team.teamToken;
const inboundRouteOf = async (team: Team) =>
  (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound' AND is_default = 1", [team.projectId]))!.id;

/** The RCPT answer the MX listener gives for `address`, over a real socket. */
async function rcpt(address: string): Promise<string> {
  const { client } = await RawSmtpClient.connect(h.port);
  try {
    await client.send("EHLO client.test");
    await client.send("MAIL FROM:<someone@sender.test>");
    return (await client.send(`RCPT TO:<${address}>`)).text;
  } finally {
    client.close();
  }
}

const publish = (records: Rec[]) => {
  for (const r of records) {
    if (r.type === "MX") h.dns.set(r.fqdn, "MX", [{ exchange: r.content, priority: 10 }]);
    else h.dns.set(r.fqdn, "TXT", [r.content]);
  }
};

const putInboundDomain = (team: Team, routeId: string, domain: string | null) =>
  app.request("PUT", `/v1/routes/${routeId}`, { token: as(team), body: { inbound_settings: { inbound_domain: domain } } });
const verifyInbound = async (team: Team, routeId: string) =>
  (await app.request("POST", `/v1/routes/${routeId}/verify-inbound-domain`, { token: as(team) })).json.data as { verified: boolean; message: string };
const routeVerifiedAt = async (team: Team, routeId: string): Promise<string | null> =>
  (await app.request("GET", `/v1/routes/${routeId}`, { token: as(team) })).json.inbound_domain_verified_at;

/** The team's inbound route receiving at `name`: set, MX and TXT published, verified. */
async function receiveAt(team: Team, routeId: string, name: string) {
  const put = await putInboundDomain(team, routeId, name);
  expect([name, put.status]).toEqual([name, 200]);
  publish(put.json.data.inbound_domain_records);
  expect(await verifyInbound(team, routeId)).toEqual({ verified: true, message: "Inbound domain verified successfully." });
}

const registerDomain = async (team: Team, name: string) => {
  const res = await app.request("POST", "/v1/domains", { token: as(team), body: { domain: name } });
  expect([name, res.status]).toEqual([name, 201]);
  return res.json as { id: string; status: string; dns_records: Rec[] };
};
const verifyDomain = async (team: Team, id: string) => (await app.request("POST", `/v1/domains/${id}/dns-records/verify`, { token: as(team) })).json;
const domainStatus = async (team: Team, id: string) => (await app.request("GET", `/v1/domains/${id}`, { token: as(team) })).json.sending_status as string;

describe("an unverified claim blocks nobody", () => {
  test("the attack: A receives at in.claim1.test; B registers claim1.test (and in.claim1.test) → A's RCPT is still 250, its verification kept and redone", async () => {
    const a = app.team;
    const b = app.addTeam("Team B");
    const aRoute = await inboundRouteOf(a);
    await receiveAt(a, aRoute, "in.claim1.test");
    expect(await rcpt("orders@in.claim1.test")).toStartWith("250 ");
    const verifiedAt = await routeVerifiedAt(a, aRoute);
    expect(verifiedAt).toBeString();

    await registerDomain(b, "claim1.test");
    await registerDomain(b, "in.claim1.test");
    // Before the fix: "550 5.7.1 Relaying denied…", A's verification cleared and refused again.
    expect(await rcpt("orders@in.claim1.test")).toStartWith("250 ");
    expect(await routeVerifiedAt(a, aRoute)).toBe(verifiedAt);
    expect(await verifyInbound(a, aRoute)).toEqual({ verified: true, message: "Inbound domain verified successfully." });
    expect(await rcpt("orders@in.claim1.test")).toStartWith("250 ");

    // B's own route cannot take the name A verified, in the API or at verification.
    const bRoute = await inboundRouteOf(b);
    const taken = await putInboundDomain(b, bRoute, "in.claim1.test");
    expect(taken.status).toBe(409);
    expect(taken.json.message).toBe("The inbound domain in.claim1.test is already verified as the inbound domain of another route.");
  });

  test("B registered claim2.test first and never proved it: A may still set and verify in.claim2.test and receive there", async () => {
    const a = app.team;
    const b = app.addTeam("Team B2");
    await registerDomain(b, "claim2.test");
    await registerDomain(b, "ph-bounces.claim2-other.test");
    const aRoute = await inboundRouteOf(a);
    // Before the fix: 409 "… a sending domain registered by another team …".
    await receiveAt(a, aRoute, "in.claim2.test");
    expect(await rcpt("x@in.claim2.test")).toStartWith("250 ");
    await receiveAt(a, aRoute, "claim2.test");
    expect(await rcpt("x@claim2.test")).toStartWith("250 ");
  });

  test("B set in.claim3.test on its route without proof: A may set it too and verify it; then B cannot verify it, even with its own token published", async () => {
    const a = app.team;
    const b = app.addTeam("Team B3");
    const bRoute = await inboundRouteOf(b);
    const squat = await putInboundDomain(b, bRoute, "in.claim3.test");
    expect(squat.status).toBe(200);
    const aRoute = await inboundRouteOf(a);
    // Before the fix: 409 "The inbound domain in.claim3.test is already used by another route."
    await receiveAt(a, aRoute, "in.claim3.test");
    expect(await rcpt("x@in.claim3.test")).toStartWith("250 ");
    publish(squat.json.data.inbound_domain_records);
    expect(await verifyInbound(b, bRoute)).toEqual({ verified: false, message: "in.claim3.test is already verified as the inbound domain of another route." });
    expect(await routeVerifiedAt(b, bRoute)).toBeNull();
  });
});

describe("a verified claim counts, and is not undone by another team", () => {
  test("A verified claim4.test with its DKIM record: B's registration of the same name stays pending and changes nothing of A's; B's routes under it → 409", async () => {
    const a = app.team;
    const b = app.addTeam("Team B4");
    const aDomain = await registerDomain(a, "claim4.test");
    publish(aDomain.dns_records);
    expect((await verifyDomain(a, aDomain.id)).data.sending_status).toBe("active");
    await app.request("PUT", `/v1/domains/${aDomain.id}/projects`, { token: as(a), body: { project_ids: [a.projectId] } });
    const send = () =>
      app.request("POST", "/v1/send", { projectToken: a.projectToken, body: { from: "hello@claim4.test", to: ["someone@dest.test"], subject: "Hi", text: "Hello" } });
    expect((await send()).status).toBe(202);

    const bDomain = await registerDomain(b, "claim4.test");
    // A's records are all published; B's own DKIM key is not among them: no proof, no status.
    const bCheck = await verifyDomain(b, bDomain.id);
    expect(bCheck.verified).toBe(false);
    expect(bCheck.data.sending_status).not.toBe("active");
    expect(await domainStatus(a, aDomain.id)).toBe("active");
    expect((await send()).status).toBe(202);

    const bRoute = await inboundRouteOf(b);
    for (const name of ["claim4.test", "in.claim4.test"]) {
      const res = await putInboundDomain(b, bRoute, name);
      expect([name, res.status]).toEqual([name, 409]);
      expect(res.json.message).toContain("a sending domain verified by another team");
    }
    // B's own (unverified) row makes the return-path name B's bounces: refused for that reason.
    const bounce = await putInboundDomain(b, bRoute, "ph-bounces.claim4.test");
    expect(bounce.status).toBe(409);
    expect(bounce.json.message).toContain("is the return-path (bounce) domain of the sending domain claim4.test");
    // A itself receives under its verified domain.
    await receiveAt(a, await inboundRouteOf(a), "in.claim4.test");
    expect(await rcpt("x@in.claim4.test")).toStartWith("250 ");
  });

  test("A receives at in.claim5.test; B then proves claim5.test with its own DKIM record → A keeps receiving and re-verifies; a new name of A's under it is B's", async () => {
    const a = app.team;
    const b = app.addTeam("Team B5");
    const aRoute = await inboundRouteOf(a);
    await receiveAt(a, aRoute, "in.claim5.test");
    const bDomain = await registerDomain(b, "claim5.test");
    publish(bDomain.dns_records);
    expect((await verifyDomain(b, bDomain.id)).data.sending_status).toBe("active");

    expect(await rcpt("x@in.claim5.test")).toStartWith("250 ");
    expect(await verifyInbound(a, aRoute)).toEqual({ verified: true, message: "Inbound domain verified successfully." });
    expect(await rcpt("x@in.claim5.test")).toStartWith("250 ");
    const other = await putInboundDomain(a, aRoute, "new.claim5.test");
    expect(other.status).toBe(409);
    expect(other.json.message).toBe(
      "The inbound domain new.claim5.test is under claim5.test, a sending domain verified by another team; only that team can receive mail at it or at names under it.",
    );
  });
});

describe("public suffixes are refused (the Public Suffix List, through tldts)", () => {
  const suffixes = ["co.uk", "CO.UK.", "github.io", "blogspot.com", "com.au", "s3.amazonaws.com", "anything.ck"];
  const registrable = ["example.co.uk", "someone.github.io", "www.ck", "claim6.test"];

  test("POST /v1/domains → 422 on domain for a public suffix (ICANN or private section); a name under one is accepted", async () => {
    const b = app.addTeam("Team B6");
    for (const name of suffixes) {
      const res = await app.request("POST", "/v1/domains", { token: as(b), body: { domain: name } });
      expect([name, res.status]).toEqual([name, 422]);
      expect(Object.keys(res.json.errors)).toEqual(["domain"]);
      expect(res.json.message).toMatch(/is a public suffix/);
    }
    for (const name of registrable) await registerDomain(b, name);
    expect((await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM domains WHERE domain IN ('co.uk', 'github.io', 'blogspot.com', 'com.au', 's3.amazonaws.com', 'anything.ck')"))!.n).toBe(0);
  });

  test("PUT /v1/routes/{id} → 422 on inbound_settings.inbound_domain for a public suffix", async () => {
    const b = app.addTeam("Team B7");
    const route = await inboundRouteOf(b);
    for (const name of suffixes) {
      const res = await putInboundDomain(b, route, name);
      expect([name, res.status]).toEqual([name, 422]);
      expect(Object.keys(res.json.errors)).toEqual(["inbound_settings.inbound_domain"]);
      expect(res.json.message).toMatch(/is a public suffix/);
    }
    expect((await app.request("GET", `/v1/routes/${route}`, { token: as(b) })).json.inbound_domain).toBeNull();
    for (const name of ["in.example.co.uk", "someone.github.io"]) expect([name, (await putInboundDomain(b, route, name)).status]).toEqual([name, 200]);
  });
});
