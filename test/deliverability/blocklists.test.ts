/**
 * Blocklist checks (issue 47): the sending addresses (configured, IPv4 and IPv6) and the verified
 * domains are looked up on a schedule in DNSBL/DBL zones served by a real DNS server on loopback
 * (POSTHORN_DNS_SERVERS), with the zones' real names so that their documented answers are read as
 * in production. A listing reaches real HTTPS webhook receivers within one check interval as
 * deliverability.listed (the addresses' to every sending team, a domain's to its team only), a
 * removal fires deliverability.delisted, and a refused query (127.255.255.254) is never a listing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBlocklistChecksScheduled, registerBlocklistChecks } from "../../src/deliverability/blocklist-job.ts";
import { queryName } from "../../src/deliverability/blocklists.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { useWebhookSender, WebhookSender } from "../../src/events/webhook-post.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { createTestApp, insertTestDomain, waitFor, type TestTeam } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";

const INTERVAL_MS = 2000;
const KINDS = ["deliverability.listed", "deliverability.delisted"];

let dns: TestDnsServer;
let app: ReturnType<typeof createTestApp>;
let teamB: TestTeam;
let runner: JobRunner;
let sender: WebhookSender;
const receivers: Record<"a" | "b", TestReceiver> = {} as never;

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  // Refused from the start: Spamhaus's answer to a query through a public resolver.
  dns.set("8.2.0.192.zen.spamhaus.org", "A", ["127.255.255.254"]);
  const cert = makeTestCert(["hooks.example.test"]);
  app = createTestApp({
    env: {
      POSTHORN_DNS_SERVERS: dns.server,
      POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
      POSTHORN_SENDING_ADDRESSES: "192.0.2.7,192.0.2.8,2001:db8::7",
      POSTHORN_BLOCKLIST_IP_ZONES: "zen.spamhaus.org,bl.spamcop.net",
      POSTHORN_BLOCKLIST_DOMAIN_ZONES: "dbl.spamhaus.org",
      POSTHORN_BLOCKLIST_INTERVAL: String(INTERVAL_MS / 1000),
    },
  });
  teamB = app.addTeam();
  insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: "sender.test" });
  insertTestDomain(app.deps, { teamId: teamB.teamId, projectId: teamB.projectId, domain: "other.test" });
  insertTestDomain(app.deps, { teamId: teamB.teamId, projectId: teamB.projectId, domain: "unverified.test", status: "pending" });

  sender = new WebhookSender({ dns: app.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 3000, dnsCacheMs: 0 });
  useWebhookSender(app.deps, sender);
  for (const [name, team] of [["a", app.team], ["b", teamB]] as const) {
    const route = (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [team.projectId]))!.id;
    const receiver = startReceiver(cert);
    const res = await app.request("POST", "/v1/webhooks", { token: team.teamToken, body: { route_id: route, name, url: receiver.url(), events: KINDS } });
    expect(res.status).toBe(201);
    receiver.secret = res.json.data.secret;
    receivers[name] = receiver;
  }
  runner = new JobRunner(app.deps);
  registerWebhookJobs(runner, app.deps, { sender, scheduleMs: [50, 50, 50] });
  registerBlocklistChecks(runner, app.deps);
  await ensureBlocklistChecksScheduled(app.deps);
  runner.start();
  // The first check has run once every target has a row.
  await waitFor(async () => (await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM blocklist_status"))!.n >= 8, 10_000);
});
afterAll(async () => {
  await runner.stop(2000);
  sender.close();
  for (const r of Object.values(receivers)) await r.stop();
  await dns.close();
});

const events = (r: TestReceiver, kind: string, target: string) => {
  for (const d of r.deliveries) expect(d.verified).toBe(true);
  return r.deliveries.filter((d) => d.json?.event === kind && d.json.data.target === target).map((d): Record<string, unknown> & { receivedAt: number } => ({ ...(d.json!.data as Record<string, unknown>), receivedAt: d.receivedAt }));
};
const status = async (token: string) => {
  const res = await app.request("GET", "/v1/deliverability/blocklists", { token });
  expect(res.status).toBe(200);
  return res.json;
};
const entry = (s: any, target: string, zone: string) => s.data.find((e: any) => e.target === target && e.zone === zone);

describe("blocklist checks", () => {
  test("query names: IPv4 octets and IPv6 nibbles reversed, a domain as it is", () => {
    expect(queryName("192.0.2.7", "ip", "zen.spamhaus.org")).toBe("7.2.0.192.zen.spamhaus.org");
    expect(queryName("2001:db8::7", "ip", "zen.spamhaus.org")).toBe(`7.${"0.".repeat(23)}8.b.d.0.1.0.0.2.zen.spamhaus.org`);
    expect(queryName("Sender.Test.", "domain", "dbl.spamhaus.org")).toBe("sender.test.dbl.spamhaus.org");
  });

  test("before any listing: every address in each IP zone and each team's verified domain, clear; a refused query is an error, not a listing", async () => {
    const a = await status(app.team.teamToken);
    expect(a.interval_seconds).toBe(2);
    expect(a.ip_zones).toEqual(["zen.spamhaus.org", "bl.spamcop.net"]);
    expect(a.listed).toBe(0);
    // Team A: the three shared addresses × 2 zones and its own domain; not team B's domains.
    expect(a.data.map((e: any) => `${e.type} ${e.target} ${e.zone}`).sort()).toEqual([
      "domain sender.test dbl.spamhaus.org",
      "ip 192.0.2.7 bl.spamcop.net",
      "ip 192.0.2.7 zen.spamhaus.org",
      "ip 192.0.2.8 bl.spamcop.net",
      "ip 192.0.2.8 zen.spamhaus.org",
      "ip 2001:db8::7 bl.spamcop.net",
      "ip 2001:db8::7 zen.spamhaus.org",
    ]);
    expect(entry(a, "192.0.2.7", "zen.spamhaus.org")).toMatchObject({ status: "clear", listed: false, code: null });
    expect(entry(a, "192.0.2.8", "zen.spamhaus.org")).toMatchObject({ status: "error", listed: false, code: "127.255.255.254" });
    expect(entry(a, "192.0.2.8", "zen.spamhaus.org").meaning).toContain("public or open resolver");
    const b = await status(teamB.teamToken);
    expect(b.data.filter((e: any) => e.type === "domain").map((e: any) => e.target)).toEqual(["other.test"]);
    expect(receivers.a.deliveries).toEqual([]);
  });

  test("a listing of an address reaches every sending team's webhook within one check interval; its removal fires delisted and clears it", async () => {
    const listedAt = Date.now();
    dns.set("7.2.0.192.zen.spamhaus.org", "A", ["127.0.0.2"]);
    const [got] = await waitFor(() => events(receivers.a, "deliverability.listed", "192.0.2.7").at(0) && events(receivers.a, "deliverability.listed", "192.0.2.7"), INTERVAL_MS * 3);
    // Found by the next check, within one interval (plus its own lookups), and posted at once.
    const found = Date.parse(got!.listed_since as string);
    console.log(`listing found ${found - listedAt} ms after it was published (interval ${INTERVAL_MS} ms), at the receiver ${got!.receivedAt - found} ms later`);
    expect(found - listedAt).toBeLessThan(INTERVAL_MS + 1000);
    expect(got!.receivedAt - found).toBeLessThan(3000);
    expect(got).toMatchObject({ target: "192.0.2.7", type: "ip", zone: "zen.spamhaus.org", code: "127.0.0.2", meaning: "Spamhaus SBL: a known spam source or spam operation" });
    await waitFor(() => events(receivers.b, "deliverability.listed", "192.0.2.7").length === 1, 5000);
    const s = await status(app.team.teamToken);
    expect(s.listed).toBe(1);
    expect(s.data[0]).toMatchObject({ target: "192.0.2.7", zone: "zen.spamhaus.org", status: "listed", code: "127.0.0.2" });

    // Still listed at the next checks: no second event.
    await Bun.sleep(INTERVAL_MS * 1.5);
    expect(events(receivers.a, "deliverability.listed", "192.0.2.7")).toHaveLength(1);

    const removedAt = Date.now();
    dns.remove("7.2.0.192.zen.spamhaus.org");
    const [gone] = await waitFor(() => events(receivers.a, "deliverability.delisted", "192.0.2.7").at(0) && events(receivers.a, "deliverability.delisted", "192.0.2.7"), INTERVAL_MS * 3);
    const cleared = Date.parse(gone!.delisted_at as string);
    console.log(`delisting found ${cleared - removedAt} ms after the record was removed, at the receiver ${gone!.receivedAt - cleared} ms later`);
    expect(cleared - removedAt).toBeLessThan(INTERVAL_MS + 1000);
    expect(gone!.receivedAt - cleared).toBeLessThan(3000);
    expect(gone).toMatchObject({ target: "192.0.2.7", type: "ip", zone: "zen.spamhaus.org", listed_since: s.data[0].since });
    expect(entry(await status(app.team.teamToken), "192.0.2.7", "zen.spamhaus.org")).toMatchObject({ status: "clear", listed: false, code: null });
    // The refused address never fired anything.
    expect(events(receivers.a, "deliverability.listed", "192.0.2.8")).toEqual([]);
  });

  test("an IPv6 address is looked up by its nibbles; a domain listing goes to its own team only; a refused answer while listed keeps the listing", async () => {
    dns.set(`7.${"0.".repeat(23)}8.b.d.0.1.0.0.2.zen.spamhaus.org`, "A", ["127.0.0.4"]);
    dns.set("sender.test.dbl.spamhaus.org", "A", ["127.0.1.2"]);
    await waitFor(() => events(receivers.a, "deliverability.listed", "sender.test").length === 1 && events(receivers.a, "deliverability.listed", "2001:db8::7").length === 1, INTERVAL_MS * 3);
    expect(events(receivers.a, "deliverability.listed", "sender.test")[0]).toMatchObject({ type: "domain", zone: "dbl.spamhaus.org", code: "127.0.1.2", meaning: "Spamhaus DBL: spam domain" });
    expect(events(receivers.a, "deliverability.listed", "2001:db8::7")[0]).toMatchObject({ type: "ip", code: "127.0.0.4", meaning: "Spamhaus XBL: exploited or infected host (CBL)" });
    await waitFor(() => events(receivers.b, "deliverability.listed", "2001:db8::7").length === 1, 5000);
    expect(events(receivers.b, "deliverability.listed", "sender.test")).toEqual([]);
    expect(entry(await status(teamB.teamToken), "sender.test", "dbl.spamhaus.org")).toBeUndefined();

    // The list starts refusing the resolver: says nothing either way, so the listing stands.
    dns.set("sender.test.dbl.spamhaus.org", "A", ["127.255.255.254"]);
    await Bun.sleep(INTERVAL_MS * 2);
    expect(events(receivers.a, "deliverability.delisted", "sender.test")).toEqual([]);
    expect(entry(await status(app.team.teamToken), "sender.test", "dbl.spamhaus.org")).toMatchObject({ status: "listed", code: "127.0.1.2" });
  });
});
