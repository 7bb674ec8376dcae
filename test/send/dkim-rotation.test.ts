import { afterAll, beforeAll, expect, test } from "bun:test";
import { DEFAULT_RECHECK, domainRecheckHandler } from "../../src/modules/domains/recheck.ts";
import { DKIM_KEEP_RETIRED_MS } from "../../src/modules/domains/rotation.ts";
import { dkimpyVerdicts, mailauthVerdicts } from "../support/dkim-verdicts.ts";
import { startOutbound, type OutboundHarness } from "./harness.ts";

// A domain registered through the API, its records published in the loopback DNS, verified and
// attached to the harness's project; then its DKIM keys are rotated.
const DOMAIN = "rotating.test";
type Rec = { id: string; kind: string; type: string; hostname: string; fqdn: string; content: string; status: string; key_state: string | null; keep_until: string | null };

let h: OutboundHarness;
let domainId: string;
/** Every DKIM record ever shown, fqdn → content: the keys dkimpy may look up (old ones too). */
const published: Record<string, string> = {};

beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink("dest.test");
  const created = await h.request("POST", "/v1/domains", { body: { domain: DOMAIN } });
  expect(created.status).toBe(201);
  domainId = created.json.id;
  publish(created.json.dns_records);
  expect((await h.request("PUT", `/v1/domains/${domainId}/projects`, { body: { project_ids: [h.team.projectId] } })).status).toBe(200);
  const verified = await verify();
  expect(verified.verified).toBe(true);
});
afterAll(() => h.close());

function publish(records: Rec[]) {
  for (const r of records) {
    if (r.type === "MX") h.dns.set(r.fqdn, "MX", [{ exchange: r.content, priority: 10 }]);
    else h.dns.set(r.fqdn, "TXT", [r.content]);
    if (r.kind.startsWith("dkim")) published[r.fqdn] = r.content;
  }
}

const records = async (): Promise<Rec[]> => (await h.request("GET", `/v1/domains/${domainId}`)).json.dns_records;
const dkimRecords = async () => (await records()).filter((r) => r.kind.startsWith("dkim"));
const selectorOf = (r: Rec) => r.hostname.split(".")[0]!;
/** [purpose, key_state, status] of the DKIM records, in the order the API lists them. */
const dkimShape = async () => (await dkimRecords()).map((r) => [r.kind, r.key_state, r.status]);

async function verify() {
  const res = await h.request("POST", `/v1/domains/${domainId}/dns-records/verify`);
  expect(res.status).toBe(200);
  return res.json as { verified: boolean; message: string; data: { dns_records: Rec[]; status: string; sending_status: string } };
}

async function rotate() {
  const res = await h.request("POST", `/v1/domains/${domainId}/dkim/rotate`);
  expect(res.status).toBe(200);
  return res.json as { data: { dns_records: Rec[] }; message: string };
}

async function sendOne(subject: string): Promise<Buffer> {
  const res = await h.send({ from: `news@${DOMAIN}`, to: ["ann@dest.test"], subject, html: "<p>Hello Ann</p>", text: "Hello Ann" });
  expect(res.status).toBe(202);
  const id = res.json.message_id as string;
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  return h.sink.received.find((m) => m.raw.includes(id))!.raw;
}

/** Both verifiers pass exactly these two signatures: [rsa selector, ed25519 selector]. */
async function expectSignedBy(raw: Buffer, rsa: string, ed25519: string) {
  const expected = [
    ["pass", "ed25519-sha256", ed25519],
    ["pass", "rsa-sha256", rsa],
  ];
  expect(await mailauthVerdicts(raw, h.dns.server)).toEqual(expected);
  expect(await dkimpyVerdicts(raw, published)).toEqual(expected);
}

/** The sweep job of the background re-check, run once with its clock at `now`. */
const sweepAt = (now: number) => domainRecheckHandler(h.deps, { ...DEFAULT_RECHECK, now: () => now })({} as never);

let old: { rsa: string; ed25519: string };
let next: { rsa: string; ed25519: string };

test("rotate → two next records pending beside the signing ones; mail is still signed with the old selectors, which both verifiers pass", async () => {
  const before = await dkimRecords();
  old = { rsa: selectorOf(before[0]!), ed25519: selectorOf(before[1]!) };
  expect(await dkimShape()).toEqual([
    ["dkim", "current", "active"],
    ["dkim_ed25519", "current", "active"],
  ]);

  const rotated = await rotate();
  expect(rotated.message).toContain("signing switches to them once both verify");
  const dkim = rotated.data.dns_records.filter((r) => r.kind.startsWith("dkim"));
  expect(dkim.map((r) => [r.kind, r.key_state, r.status, r.keep_until])).toEqual([
    ["dkim", "current", "active", null],
    ["dkim_ed25519", "current", "active", null],
    ["dkim", "next", "pending", null],
    ["dkim_ed25519", "next", "pending", null],
  ]);
  next = { rsa: selectorOf(dkim[2]!), ed25519: selectorOf(dkim[3]!) };
  expect(next.rsa).toMatch(/^ph\d{8}[0-9a-f]{4}$/);
  expect(next.ed25519).toMatch(/^phe\d{8}[0-9a-f]{3}$/);
  expect([next.rsa, next.ed25519]).not.toContain(old.rsa);
  expect([next.rsa, next.ed25519]).not.toContain(old.ed25519);
  expect(dkim[2]!.content).toMatch(/^v=DKIM1; k=rsa; p=/);
  expect(dkim[3]!.content).toMatch(/^v=DKIM1; k=ed25519; p=/);
  // The records still to publish keep the domain sending.
  expect((await h.request("GET", `/v1/domains/${domainId}`)).json.sending_status).toBe("active");

  await expectSignedBy(await sendOne("During the rotation"), old.rsa, old.ed25519);
});

test("only the new RSA record published: no switch, the old keys keep signing", async () => {
  const rsa = (await dkimRecords()).find((r) => r.key_state === "next" && r.kind === "dkim")!;
  publish([rsa]);
  const v = await verify();
  expect(v.verified).toBe(true);
  expect(v.message).toContain("dkim_ed25519 (next key) not yet");
  expect(await dkimShape()).toEqual([
    ["dkim", "current", "active"],
    ["dkim_ed25519", "current", "active"],
    ["dkim", "next", "active"],
    ["dkim_ed25519", "next", "pending"],
  ]);
  await expectSignedBy(await sendOne("Half published"), old.rsa, old.ed25519);
});

test("both new records verify → the new keys sign (mailauth and dkimpy pass both); the old records are kept for 7 days", async () => {
  const ed = (await dkimRecords()).find((r) => r.key_state === "next" && r.kind === "dkim_ed25519")!;
  publish([ed]);
  const before = Date.now();
  const v = await verify();
  expect(v.verified).toBe(true);
  expect(v.message).toContain("The new DKIM keys sign from now on");
  expect(v.data.sending_status).toBe("active");
  const dkim = v.data.dns_records.filter((r) => r.kind.startsWith("dkim"));
  expect(dkim.map((r) => [r.kind, selectorOf(r), r.key_state, r.status])).toEqual([
    ["dkim", next.rsa, "current", "active"],
    ["dkim_ed25519", next.ed25519, "current", "active"],
    ["dkim", old.rsa, "retiring", "active"],
    ["dkim_ed25519", old.ed25519, "retiring", "active"],
  ]);
  for (const r of dkim.slice(2)) {
    const keepUntil = Date.parse(r.keep_until!);
    expect(keepUntil).toBeGreaterThanOrEqual(before + DKIM_KEEP_RETIRED_MS);
    expect(keepUntil).toBeLessThanOrEqual(Date.now() + DKIM_KEEP_RETIRED_MS);
  }
  expect((await h.request("GET", `/v1/domains/${domainId}`)).json.dkim_selector).toBe(next.rsa);

  await expectSignedBy(await sendOne("After the switch"), next.rsa, next.ed25519);
});

test("the background sweep keeps the old records until their 7 days are over, then drops them and their keys", async () => {
  const keepUntil = Date.parse((await dkimRecords()).find((r) => r.key_state === "retiring")!.keep_until!);
  await sweepAt(keepUntil - 60_000);
  expect((await dkimRecords()).map((r) => r.key_state)).toEqual(["current", "current", "retiring", "retiring"]);
  expect(await h.deps.store.read.domains.dkimKeys(domainId, "retiring")).toHaveLength(2);

  await sweepAt(keepUntil);
  expect(await dkimShape()).toEqual([
    ["dkim", "current", "active"],
    ["dkim_ed25519", "current", "active"],
  ]);
  expect((await dkimRecords()).map(selectorOf)).toEqual([next.rsa, next.ed25519]);
  expect(await h.deps.store.read.domains.dkimKeys(domainId, "retiring")).toEqual([]);
  // The rest of the domain is as it was.
  expect((await records()).map((r) => r.kind)).toEqual(["dkim", "dkim_ed25519", "spf", "return_path", "dmarc", "tls_rpt"]);
  await expectSignedBy(await sendOne("Old keys gone"), next.rsa, next.ed25519);
});

test("rotate twice → the second pair replaces the pending first: two next records, the first pair's keys gone", async () => {
  const first = (await rotate()).data.dns_records.filter((r) => r.key_state === "next");
  const second = (await rotate()).data.dns_records.filter((r) => r.key_state === "next");
  expect(first).toHaveLength(2);
  expect(second.map((r) => r.kind)).toEqual(["dkim", "dkim_ed25519"]);
  for (const r of second) {
    expect(first.map((f) => f.fqdn)).not.toContain(r.fqdn);
    expect(first.map((f) => f.content)).not.toContain(r.content);
  }
  const keys = await h.deps.store.read.domains.dkimKeys(domainId, "next");
  expect(keys.map((k) => k.selector).sort()).toEqual(second.map(selectorOf).sort());
  // Publishing the first pair switches nothing: its keys are gone.
  publish(first);
  await verify();
  expect((await dkimRecords()).map((r) => [selectorOf(r), r.key_state])).toEqual([
    [next.rsa, "current"],
    [next.ed25519, "current"],
    [selectorOf(second[0]!), "next"],
    [selectorOf(second[1]!), "next"],
  ]);
  await expectSignedBy(await sendOne("Second rotation pending"), next.rsa, next.ed25519);
});

test("a domain whose records were never published: once the rotated keys verify, the old ones go at once, nothing is kept for 7 days", async () => {
  const created = await h.request("POST", "/v1/domains", { body: { domain: "never.rotating.test" } });
  const id = created.json.id as string;
  const first = (created.json.dns_records as Rec[]).filter((r) => r.kind.startsWith("dkim"));
  const rotated = (await h.request("POST", `/v1/domains/${id}/dkim/rotate`)).json.data.dns_records as Rec[];
  const fresh = rotated.filter((r) => r.key_state === "next");
  publish(fresh);
  const v = (await h.request("POST", `/v1/domains/${id}/dns-records/verify`)).json;
  expect(v.verified).toBe(true);
  expect(v.data.dns_records.filter((r: Rec) => r.kind.startsWith("dkim")).map((r: Rec) => [r.fqdn, r.key_state, r.status])).toEqual(
    fresh.map((r) => [r.fqdn, "current", "active"]),
  );
  expect(v.data.dns_records.map((r: Rec) => r.fqdn)).not.toContain(first[0]!.fqdn);
  expect(await h.deps.store.read.domains.dkimKeys(id, "retiring")).toEqual([]);
});

test("a pending rotation verified by the background sweep switches too; deleting the domain takes every key", async () => {
  publish((await dkimRecords()).filter((r) => r.key_state === "next"));
  const pending = (await dkimRecords()).filter((r) => r.key_state === "next").map(selectorOf);
  // Due once the last check is older than the interval of a domain with unverified records.
  await sweepAt(Date.now() + DEFAULT_RECHECK.unverifiedIntervalMs + 1000);
  expect((await dkimRecords()).filter((r) => r.key_state === "current").map(selectorOf)).toEqual(pending);
  await expectSignedBy(await sendOne("Second rotation done"), pending[0]!, pending[1]!);

  expect((await h.request("DELETE", `/v1/domains/${domainId}`)).status).toBe(200);
  expect(await h.deps.store.read.domains.dkimKeys(domainId, "retiring")).toEqual([]);
  expect(await h.deps.store.read.domains.dkimKeys(domainId, "next")).toEqual([]);
});
