import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DnsResolver } from "../../../src/dns/resolver.ts";
import { generateDkimKeyPair } from "../../../src/dns/dkim-key.ts";
import { createTestApp, type TestApp } from "../../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../../support/dns-server.ts";

let dns: TestDnsServer;
let t: TestApp;
let n = 0;
const uniq = (prefix = "api") => `${prefix}${++n}-${Date.now().toString(36)}.example.test`;

beforeAll(async () => {
  dns = await startDnsServer();
  t = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server } });
  // A short timeout so the TIMEOUT case takes a fraction of a second.
  t.deps.dns = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
});
afterAll(() => dns.close());

type Rec = { id: string; purpose: string; kind: string; type: string; hostname: string; fqdn: string; content: string; status: string; status_reason: string | null; verified_at: string | null; last_checked_at: string | null };
/** The record of Posthorn's purpose (`kind`: dkim, dkim_ed25519, spf, return_path, dmarc). */
const recordOf = (domain: { dns_records: Rec[] }, kind: string) => domain.dns_records.find((r) => r.kind === kind)!;

/** Publishes every record exactly as Posthorn asked. */
function publish(domain: { dns_records: Rec[] }) {
  for (const r of domain.dns_records) {
    if (r.type === "MX") dns.set(r.fqdn, "MX", [{ exchange: r.content, priority: 10 }]);
    else dns.set(r.fqdn, "TXT", [r.content]);
  }
}

async function create(name = uniq(), token?: string) {
  const res = await t.request("POST", "/v1/domains", { body: { domain: name }, token });
  expect(res.status).toBe(201);
  return res.json;
}

describe("POST /v1/domains", () => {
  test("201 with the domain directly, its six records to publish and no private key", async () => {
    const res = await t.request("POST", "/v1/domains", { body: { domain: "  Mail.Example-Shop.TEST. " } });
    expect(res.status).toBe(201);
    const d = res.json;
    expect(d.data).toBeUndefined();
    expect(d).toMatchObject({
      domain: "mail.example-shop.test",
      status: "pending_verification",
      sending_status: "pending",
      dkim_mode: "legacy_txt",
      rotation_ready: false,
      status_changed_at: null,
      last_checked_at: null,
      projects: [],
    });
    expect(d.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(d.return_path_domain).toBe("ph-bounces.mail.example-shop.test");
    expect(d.dkim_selector).toMatch(/^ph\d{8}[0-9a-f]{4}$/);
    // kind is Posthorn's purpose; purpose, verification_scope and required_for_verification are
    // Lettermint's: only the signing RSA DKIM record is required (it decides status and sending).
    expect(d.dns_records.map((r: Rec & { verification_scope: string; required_for_verification: boolean }) => [r.kind, r.purpose, r.verification_scope, r.required_for_verification, r.type, r.fqdn])).toEqual([
      ["dkim", "dkim_legacy", "required", true, "TXT", `${d.dkim_selector}._domainkey.mail.example-shop.test`],
      ["dkim_ed25519", "dkim_legacy", "recommended", false, "TXT", expect.stringMatching(/^phe\d{8}[0-9a-f]{3}\._domainkey\.mail\.example-shop\.test$/)],
      ["spf", "return_path", "recommended", false, "TXT", "ph-bounces.mail.example-shop.test"],
      ["return_path", "return_path", "recommended", false, "MX", "ph-bounces.mail.example-shop.test"],
      ["dmarc", "dmarc", "recommended", false, "TXT", "_dmarc.mail.example-shop.test"],
      // Where receivers send TLS reports (RFC 8460): Posthorn's report address, informational.
      ["tls_rpt", "dmarc", "recommended", false, "TXT", "_smtp._tls.mail.example-shop.test"],
    ]);
    for (const r of d.dns_records) {
      expect(Object.keys(r).sort()).toEqual([
        "content",
        "fqdn",
        "hostname",
        "id",
        "keep_until",
        "key_state",
        "kind",
        "last_checked_at",
        "purpose",
        "required_for_verification",
        "status",
        "status_reason",
        "type",
        "verification_scope",
        "verified_at",
      ]);
      expect(r.status).toBe("pending");
      // Both DKIM keys sign (once verified); other records have no key.
      expect([r.kind, r.key_state, r.keep_until]).toEqual([r.kind, r.kind.startsWith("dkim") ? "current" : null, null]);
    }
    expect(recordOf(d, "dkim").hostname).toBe(`${d.dkim_selector}._domainkey`);
    expect(recordOf(d, "spf").content).toBe("v=spf1 a:mx.posthorn.test ~all");
    expect(recordOf(d, "return_path").content).toBe("mx.posthorn.test");
    const stored = (await t.sql.get<{ dkim_private_key: string; dkim_public_key: string }>("SELECT dkim_private_key, dkim_public_key FROM domains WHERE id = ?", [d.id]))!;
    expect(stored.dkim_private_key).toContain("BEGIN PRIVATE KEY");
    expect(recordOf(d, "dkim").content).toBe(`v=DKIM1; k=rsa; p=${stored.dkim_public_key}`);
    // The public key is an RSA-2048 SPKI: 294 bytes DER.
    expect(Buffer.from(stored.dkim_public_key, "base64").length).toBe(294);
    // The Ed25519 record (RFC 8463 §4.2): k=ed25519 and the raw 32-byte public key, its own selector.
    const ed = (await t.sql.get<{ dkim_ed25519_selector: string; dkim_ed25519_private_key: string; dkim_ed25519_public_key: string }>(
      "SELECT dkim_ed25519_selector, dkim_ed25519_private_key, dkim_ed25519_public_key FROM domains WHERE id = ?",
      [d.id],
    ))!;
    expect(recordOf(d, "dkim_ed25519")).toMatchObject({ hostname: `${ed.dkim_ed25519_selector}._domainkey`, content: `v=DKIM1; k=ed25519; p=${ed.dkim_ed25519_public_key}` });
    expect(Buffer.from(ed.dkim_ed25519_public_key, "base64").length).toBe(32);
    expect(ed.dkim_ed25519_private_key).toContain("BEGIN PRIVATE KEY");
    expect(res.text).not.toContain(ed.dkim_ed25519_private_key.split("\n")[1]!);
    expect(res.text).not.toContain("PRIVATE");
    expect(res.text).not.toContain(stored.dkim_private_key.split("\n")[1]!);
  });

  test("an IDN is stored as punycode", async () => {
    const res = await t.request("POST", "/v1/domains", { body: { domain: "Bücher.Example" } });
    expect(res.status).toBe(201);
    expect(res.json.domain).toBe("xn--bcher-kva.example");
  });

  const invalid: [string, unknown, RegExp][] = [
    ["an IPv4 address", { domain: "192.0.2.1" }, /not an IP address/],
    ["an IPv6 address", { domain: "2001:db8::1" }, /not an IP address/],
    ["no dot", { domain: "localhost" }, /full domain name/],
    ["bad characters", { domain: "ex_ample!.com" }, /not allowed|letters, digits and hyphens/],
    ["a space", { domain: "exa mple.com" }, /not allowed/],
    ["a label over 63", { domain: `${"a".repeat(64)}.com` }, /longer than 63/],
    ["over 255 characters", { domain: `${"a".repeat(60)}.`.repeat(5) + "com" }, /at most 255/],
    ["too long for its DKIM name", { domain: `${"abcdefghij.".repeat(22)}com` }, /too long for its DKIM record/],
    ["empty", { domain: "" }, /required/],
    ["missing", {}, /required/],
    ["not a string", { domain: 42 }, /required and must be a string/],
    ["a public suffix (ICANN section)", { domain: "Co.UK." }, /^The domain co\.uk is a public suffix \(on the Public Suffix List\)/],
    ["a public suffix (private section)", { domain: "github.io" }, /^The domain github\.io is a public suffix/],
  ];
  for (const [name, body, message] of invalid) {
    test(`${name} → 422`, async () => {
      const res = await t.request("POST", "/v1/domains", { body });
      expect(res.status).toBe(422);
      expect(res.json.message).toMatch(message);
      expect(res.json.errors.domain[0]).toMatch(message);
    });
  }

  test("the same name twice in a team → 409, also when written differently; another team may add it", async () => {
    const name = uniq("dup");
    await create(name);
    const again = await t.request("POST", "/v1/domains", { body: { domain: `${name.toUpperCase()}.` } });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ message: `The domain ${name} has already been added to this team.`, error: "conflict" });
    const b = t.addTeam();
    const other = await t.request("POST", "/v1/domains", { body: { domain: name }, token: b.teamToken });
    expect(other.status).toBe(201);
  });

  test("two concurrent requests for one name: one 201, one 409", async () => {
    const name = uniq("race");
    const [a, b] = await Promise.all([0, 1].map(() => t.request("POST", "/v1/domains", { body: { domain: name } })));
    expect([a!.status, b!.status].sort()).toEqual([201, 409]);
  });
});

describe("GET /v1/domains", () => {
  test("paginates the team's own domains, newest first, with records and projects", async () => {
    const app = createTestApp();
    const names = ["one.example.test", "two.example.test", "three.example.test"];
    for (const d of names) expect((await app.request("POST", "/v1/domains", { body: { domain: d } })).status).toBe(201);
    const b = app.addTeam();
    await app.request("POST", "/v1/domains", { body: { domain: "other-team.example.test" }, token: b.teamToken });

    const first = await app.request("GET", "/v1/domains?page[size]=2");
    expect(first.status).toBe(200);
    expect(first.json.data.map((d: { domain: string }) => d.domain)).toEqual(["three.example.test", "two.example.test"]);
    expect(first.json).toMatchObject({ path: "http://localhost:8080/v1/domains", per_page: 2, prev_cursor: null });
    expect(first.json.data[0].dns_records).toHaveLength(6);
    expect(first.json.next_page_url).toContain("page%5Bcursor%5D=");
    const second = await app.request("GET", `/v1/domains?page[size]=2&page[cursor]=${first.json.next_cursor}`);
    expect(second.json.data.map((d: { domain: string }) => d.domain)).toEqual(["one.example.test"]);
    expect(second.json.next_cursor).toBeNull();

    const sorted = await app.request("GET", "/v1/domains?sort=domain");
    expect(sorted.json.data.map((d: { domain: string }) => d.domain)).toEqual(["one.example.test", "three.example.test", "two.example.test"]);
    expect((await app.request("GET", "/v1/domains?filter[status]=active")).json.data).toEqual([]);
    expect((await app.request("GET", "/v1/domains?filter[status]=verified")).json.data).toEqual([]);
    expect((await app.request("GET", "/v1/domains?filter[status]=pending_verification")).json.data).toHaveLength(3);
    const bogus = await app.request("GET", "/v1/domains?filter[status]=bogus");
    expect(bogus.status).toBe(422);
    expect(bogus.json.errors["filter[status]"][0]).toContain("verified, pending_verification, failed_verification, partially_verified");
    expect((await app.request("GET", "/v1/domains?sort=secret")).status).toBe(422);
    expect((await app.request("GET", "/v1/domains?page[size]=1000")).status).toBe(422);
    expect((await app.request("GET", "/v1/domains?page[cursor]=garbage")).status).toBe(422);
  });
});

describe("GET, DELETE /v1/domains/{id}", () => {
  test("GET answers the domain with records and projects; DELETE removes it and its records", async () => {
    const d = await create();
    const got = await t.request("GET", `/v1/domains/${d.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(d);
    const del = await t.request("DELETE", `/v1/domains/${d.id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ message: "Domain deleted successfully." });
    expect((await t.request("GET", `/v1/domains/${d.id}`)).status).toBe(404);
    expect(await t.sql.all("SELECT id FROM dns_records WHERE domain_id = ?", [d.id])).toEqual([]);
    expect((await t.request("DELETE", `/v1/domains/${d.id}`)).status).toBe(404);
  });
});

describe("PUT /v1/domains/{id}/projects", () => {
  test("replaces the attached projects and answers the envelope", async () => {
    const d = await create();
    const project = (await t.sql.get<{ id: string; name: string }>("SELECT id, name FROM projects WHERE id = ?", [t.team.projectId]))!;
    const res = await t.request("PUT", `/v1/domains/${d.id}/projects`, { body: { project_ids: [project.id, project.id.toUpperCase()] } });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("Domain projects updated successfully.");
    expect(res.json.data.projects).toEqual([{ id: project.id, name: project.name }]);
    expect((await t.request("GET", `/v1/domains/${d.id}`)).json.projects).toEqual([{ id: project.id, name: project.name }]);
    const cleared = await t.request("PUT", `/v1/domains/${d.id}/projects`, { body: { project_ids: [] } });
    expect(cleared.json.data.projects).toEqual([]);
  });

  test("another team's or an unknown project → 422 naming the item; nothing changes", async () => {
    const d = await create();
    await t.request("PUT", `/v1/domains/${d.id}/projects`, { body: { project_ids: [t.team.projectId] } });
    const b = t.addTeam();
    const res = await t.request("PUT", `/v1/domains/${d.id}/projects`, { body: { project_ids: [t.team.projectId, b.projectId, "0190a0b0-0000-7000-8000-000000000000"] } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual(["project_ids.1", "project_ids.2"]);
    expect(res.json.message).toBe(`The project ${b.projectId} does not exist.`);
    expect((await t.request("GET", `/v1/domains/${d.id}`)).json.projects.map((p: { id: string }) => p.id)).toEqual([t.team.projectId]);
  });

  test("malformed bodies → 422", async () => {
    const d = await create();
    for (const body of [{ project_ids: ["not-a-uuid"] }, { project_ids: "x" }, {}, { project_ids: [1] }]) {
      const res = await t.request("PUT", `/v1/domains/${d.id}/projects`, { body });
      expect(res.status).toBe(422);
      expect(res.json.errors).toBeDefined();
    }
  });
});

describe("POST /v1/domains/{id}/dns-records/verify", () => {
  test("nothing published → pending, each record with its reason", async () => {
    const d = await create();
    const res = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(res.status).toBe(200);
    expect(res.json.verified).toBe(false);
    expect(res.json.data).toMatchObject({ status: "pending_verification", sending_status: "pending" });
    expect(res.json.data.status_changed_at).toBeNull();
    expect(res.json.data.last_checked_at).not.toBeNull();
    expect(res.json.failed.map((f: { kind: string }) => f.kind)).toEqual(["dkim", "dkim_ed25519", "spf", "return_path", "dmarc", "tls_rpt"]);
    const dkim = recordOf(d, "dkim");
    expect(res.json.failed[0]).toEqual({ id: dkim.id, purpose: "dkim_legacy", kind: "dkim", type: "TXT", fqdn: dkim.fqdn, status: "pending", reason: `No TXT record found at ${dkim.fqdn}.`, found: null });
    expect(res.json.failed[3].reason).toBe(`No MX record found at ${d.return_path_domain}.`);
    // Lettermint's list: the recommended records that did not pass (the required DKIM one is not).
    expect(res.json.recommended_failed_records).toEqual(
      ["dkim_ed25519", "spf", "return_path", "dmarc", "tls_rpt"].map((kind) => ({ id: recordOf(d, kind).id, type: recordOf(d, kind).type, name: recordOf(d, kind).fqdn })),
    );
    for (const r of res.json.data.dns_records) {
      expect(r.status).toBe("pending");
      expect(r.status_reason).toMatch(/^No (TXT|MX) record found at /);
      expect(r.last_checked_at).not.toBeNull();
      expect(r.verified_at).toBeNull();
    }
  });

  test("published correctly → active; status_changed_at moves only when the status changes", async () => {
    const d = await create();
    publish(d);
    const res = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(res.json).toMatchObject({ verified: true, failed: [], recommended_failed_records: [], message: "All DNS records are verified." });
    expect(res.json.data.status).toBe("verified");
    for (const r of res.json.data.dns_records) expect(r).toMatchObject({ status: "active", status_reason: null });
    const changedAt = res.json.data.status_changed_at;
    expect(changedAt).not.toBeNull();
    const verifiedAt = recordOf(res.json.data, "dkim").verified_at;

    await Bun.sleep(5);
    const again = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(again.json.data.status_changed_at).toBe(changedAt);
    expect(recordOf(again.json.data, "dkim").verified_at).toBe(verifiedAt);
    expect(again.json.data.last_checked_at > res.json.data.last_checked_at).toBe(true);
  });

  test("a wrong DKIM key → failed with the value seen; the domain cannot send", async () => {
    const d = await create();
    publish(d);
    const other = `v=DKIM1; k=rsa; p=${generateDkimKeyPair().publicKeyBase64}`;
    dns.set(recordOf(d, "dkim").fqdn, "TXT", [other]);
    const res = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(res.json.verified).toBe(false);
    expect(res.json.data).toMatchObject({ status: "failed_verification", sending_status: "failed" });
    expect(res.json.data.status_changed_at).not.toBeNull();
    expect(res.json.failed).toHaveLength(1);
    expect(res.json.failed[0]).toMatchObject({ kind: "dkim", status: "failed", found: [other] });
    expect(res.json.failed[0].reason).toContain("not the key Posthorn generated");
    expect((await t.sql.get<{ status: string }>("SELECT status FROM domains WHERE id = ?", [d.id]))!.status).toBe("failed");
  });

  test("the Ed25519 record pending or wrong never keeps the domain from sending; published, it is verified like the RSA one", async () => {
    const d = await create();
    publish(d);
    const ed = recordOf(d, "dkim_ed25519");
    dns.set(ed.fqdn, "TXT", []);
    const pending = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(pending.json.verified).toBe(true);
    expect(pending.json.data.status).toBe("verified");
    expect(pending.json.failed).toEqual([expect.objectContaining({ kind: "dkim_ed25519", status: "pending", reason: `No TXT record found at ${ed.fqdn}.` })]);
    expect(pending.json.message).toContain("The domain can send");

    // The right key without k=ed25519: receivers would read it as an RSA key, so it fails, saying why.
    const withoutK = ed.content.replace("k=ed25519; ", "");
    dns.set(ed.fqdn, "TXT", [withoutK]);
    const wrong = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(wrong.json.data.status).toBe("verified");
    expect(wrong.json.failed).toEqual([expect.objectContaining({ kind: "dkim_ed25519", status: "failed", found: [withoutK] })]);
    expect(wrong.json.failed[0].reason).toContain("not k=ed25519");

    dns.set(ed.fqdn, "TXT", [ed.content]);
    const ok = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(ok.json).toMatchObject({ verified: true, failed: [] });
    expect(recordOf(ok.json.data, "dkim_ed25519")).toMatchObject({ status: "active", status_reason: null });
  });

  test("DNS server failures: 200 with the reason, statuses kept, no crash", async () => {
    const d = await create();
    publish(d);
    expect((await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`)).json.data.status).toBe("verified");
    dns.fail(recordOf(d, "dkim").fqdn, "SERVFAIL");
    dns.fail(d.return_path_domain, "TIMEOUT");
    const res = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(res.status).toBe(200);
    expect(res.json.data.status).toBe("verified");
    const byPurpose = Object.fromEntries(res.json.failed.map((f: { kind: string; reason: string; status: string }) => [f.kind, f]));
    expect(byPurpose.dkim.reason).toContain("SERVFAIL");
    expect(byPurpose.dkim.status).toBe("active");
    expect(byPurpose.spf.reason).toContain("did not answer in time");
    expect(byPurpose.return_path.reason).toContain("did not answer in time");
    expect(res.json.message).toContain("The domain can send");
    dns.fail(recordOf(d, "dkim").fqdn, null);
    dns.fail(d.return_path_domain, null);
  });

  test("NXDOMAIN after a record was verified → failed (it broke), not pending", async () => {
    const d = await create();
    publish(d);
    await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    dns.remove(recordOf(d, "dmarc").fqdn);
    const res = await t.request("POST", `/v1/domains/${d.id}/dns-records/verify`);
    expect(res.json.failed).toEqual([expect.objectContaining({ kind: "dmarc", purpose: "dmarc", status: "failed", reason: `No TXT record found at _dmarc.${d.domain}.` })]);
    expect(res.json.recommended_failed_records).toEqual([{ id: recordOf(d, "dmarc").id, type: "TXT", name: `_dmarc.${d.domain}` }]);
    // DMARC is a recommendation: the domain stays active.
    expect(res.json.data.status).toBe("verified");
    expect(res.json.verified).toBe(true);
  });
});

describe("POST /v1/domains/{id}/dns-records/{recordId}/verify", () => {
  const verifyOne = (domainId: string, recordId: string, token?: string) => t.request("POST", `/v1/domains/${domainId}/dns-records/${recordId}/verify`, { token });
  const fetchDomain = async (id: string) => (await t.request("GET", `/v1/domains/${id}`)).json;

  test("the DKIM record alone, published: 200 with Lettermint's message and the record; the domain is verified; no other record was checked", async () => {
    const d = await create();
    const dkim = recordOf(d, "dkim");
    const missing = await verifyOne(d.id, dkim.id);
    expect(missing.status).toBe(422);
    const why = `No TXT record found at ${dkim.fqdn}.`;
    expect(missing.json).toMatchObject({ message: `The DNS record ${dkim.fqdn} (TXT) is not verified: ${why}`, errors: { dns_record: [`The DNS record ${dkim.fqdn} (TXT) is not verified: ${why}`] } });
    expect(typeof missing.json.error).toBe("string");
    // The result is recorded like a full check's: still pending, with its reason and check time.
    const afterMissing = await fetchDomain(d.id);
    expect(recordOf(afterMissing, "dkim")).toMatchObject({ status: "pending", status_reason: why, verified_at: null });
    expect(recordOf(afterMissing, "dkim").last_checked_at).not.toBeNull();
    expect(afterMissing).toMatchObject({ status: "pending_verification", sending_status: "pending", status_changed_at: null });

    dns.set(dkim.fqdn, "TXT", [dkim.content]);
    const ok = await verifyOne(d.id, dkim.id.toUpperCase());
    expect(ok.status).toBe(200);
    expect(ok.json.message).toBe("DNS record verified successfully.");
    expect(ok.json.data).toMatchObject({ id: dkim.id, kind: "dkim", purpose: "dkim_legacy", verification_scope: "required", required_for_verification: true, status: "active", status_reason: null });
    expect(ok.json.data.verified_at).not.toBeNull();
    const after = await fetchDomain(d.id);
    expect(after).toMatchObject({ status: "verified", sending_status: "active" });
    expect(after.status_changed_at).not.toBeNull();
    // The list says verified too, and the SDK's filter value finds it.
    const listed = (await t.request("GET", "/v1/domains?filter[status]=verified&page[size]=100")).json.data.map((x: { id: string }) => x.id);
    expect(listed).toContain(d.id);
    for (const kind of ["dkim_ed25519", "spf", "return_path", "dmarc"]) expect([kind, recordOf(after, kind).last_checked_at]).toEqual([kind, null]);
  });

  test("a wrong value: 422 with the value seen; the record fails, and the domain with it when it is the DKIM record", async () => {
    const d = await create();
    publish(d);
    const spf = recordOf(d, "spf");
    dns.set(spf.fqdn, "TXT", ["v=spf1 -all"]);
    const res = await verifyOne(d.id, spf.id);
    expect(res.status).toBe(422);
    expect(res.json.message).toStartWith(`The DNS record ${spf.fqdn} (TXT) is not verified: `);
    expect(res.json.errors.dns_record).toHaveLength(1);
    expect(recordOf(await fetchDomain(d.id), "spf").status).toBe("failed");

    const dkim = recordOf(d, "dkim");
    expect((await verifyOne(d.id, dkim.id)).status).toBe(200);
    dns.set(dkim.fqdn, "TXT", [`v=DKIM1; k=rsa; p=${generateDkimKeyPair().publicKeyBase64}`]);
    const broken = await verifyOne(d.id, dkim.id);
    expect(broken.status).toBe(422);
    expect(broken.json.message).toContain("not the key Posthorn generated");
    expect(await fetchDomain(d.id)).toMatchObject({ status: "failed_verification", sending_status: "failed" });
  });

  test("a DNS server failure: 422 saying so; the record keeps its status", async () => {
    const d = await create();
    const dkim = recordOf(d, "dkim");
    dns.set(dkim.fqdn, "TXT", [dkim.content]);
    expect((await verifyOne(d.id, dkim.id)).status).toBe(200);
    dns.fail(dkim.fqdn, "SERVFAIL");
    const res = await verifyOne(d.id, dkim.id);
    dns.fail(dkim.fqdn, null);
    expect(res.status).toBe(422);
    expect(res.json.message).toContain("SERVFAIL");
    expect(await fetchDomain(d.id)).toMatchObject({ status: "verified", sending_status: "active" });
    expect(recordOf(await fetchDomain(d.id), "dkim").status).toBe("active");
  });

  test("a DKIM rotation checked record by record: next keys are a migration; the second one verified switches signing, the old keys deprecated", async () => {
    const d = await create();
    const dkim = recordOf(d, "dkim");
    dns.set(dkim.fqdn, "TXT", [dkim.content]);
    expect((await verifyOne(d.id, dkim.id)).status).toBe(200);
    const rotated = (await t.request("POST", `/v1/domains/${d.id}/dkim/rotate`)).json.data;
    type Dkim = Rec & { key_state: string | null; verification_scope: string; required_for_verification: boolean };
    const next = (rotated.dns_records as Dkim[]).filter((r) => r.key_state === "next");
    expect(next.map((r) => [r.kind, r.purpose, r.verification_scope, r.required_for_verification])).toEqual([
      ["dkim", "dkim_legacy", "migration", false],
      ["dkim_ed25519", "dkim_legacy", "migration", false],
    ]);
    for (const r of next) dns.set(r.fqdn, "TXT", [r.content]);
    // One of the two alone switches nothing.
    expect((await verifyOne(d.id, next[0]!.id)).json.data).toMatchObject({ status: "active", key_state: "next", verification_scope: "migration" });
    const second = await verifyOne(d.id, next[1]!.id);
    expect(second.status).toBe(200);
    expect(second.json.data).toMatchObject({ id: next[1]!.id, key_state: "current", verification_scope: "recommended" });
    const after = (await fetchDomain(d.id)).dns_records as Dkim[];
    expect(after.find((r) => r.id === next[0]!.id)).toMatchObject({ key_state: "current", verification_scope: "required", required_for_verification: true });
    expect(after.find((r) => r.id === dkim.id)).toMatchObject({ key_state: "retiring", verification_scope: "deprecated", required_for_verification: false });
    expect(after.filter((r) => r.required_for_verification).map((r) => r.id)).toEqual([next[0]!.id]);
    expect(await fetchDomain(d.id)).toMatchObject({ status: "verified", sending_status: "active" });
  });

  test("a record id that is not one of the domain's: 404 (unknown, another domain's, malformed); an over-long one 422", async () => {
    const d = await create();
    const sibling = await create();
    for (const recordId of ["0190a0b0-0000-7000-8000-000000000000", recordOf(sibling, "dkim").id, "not-a-uuid", encodeURIComponent("'; DROP TABLE dns_records; --")]) {
      const res = await verifyOne(d.id, recordId);
      expect([recordId, res.status]).toEqual([recordId, 404]);
      expect(res.json).toEqual({ message: "DNS record not found.", error: "not_found" });
    }
    // "..": the path no longer names the operation; a 404 with the error body all the same.
    const dots = await verifyOne(d.id, "%2e%2e");
    expect(dots.status).toBe(404);
    expect(dots.json).toEqual({ message: expect.any(String), error: "not_found" });
    const long = await verifyOne(d.id, "a".repeat(101));
    expect(long.status).toBe(422);
    expect(long.json.message).toEqual(expect.any(String));
    expect(Object.keys(long.json.errors)).toEqual(["recordId"]);
    // The sibling's record was not checked through d.
    expect(recordOf(await fetchDomain(sibling.id), "dkim").last_checked_at).toBeNull();
  });
});

describe("auth and cross-team isolation", () => {
  test("every endpoint without a token → 401", async () => {
    const d = await create();
    const calls: [string, string, unknown?][] = [
      ["POST", "/v1/domains", { domain: uniq() }],
      ["GET", "/v1/domains"],
      ["GET", `/v1/domains/${d.id}`],
      ["DELETE", `/v1/domains/${d.id}`],
      ["PUT", `/v1/domains/${d.id}/projects`, { project_ids: [] }],
      ["POST", `/v1/domains/${d.id}/dns-records/verify`],
      ["POST", `/v1/domains/${d.id}/dns-records/${recordOf(d, "dkim").id}/verify`],
      ["POST", `/v1/domains/${d.id}/dkim/rotate`],
      ["POST", `/v1/routes/${d.id}/verify-inbound-domain`],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.request(method, path, { token: null, body });
      expect([method, path, res.status]).toEqual([method, path, 401]);
      expect(res.json).toEqual({ message: "Unauthenticated.", error: "unauthenticated" });
    }
    // A project token is not a team token.
    expect((await t.request("GET", "/v1/domains", { projectToken: t.team.projectToken })).status).toBe(401);
  });

  test("another team's domain is a 404 on every endpoint and stays untouched", async () => {
    const d = await create();
    const b = t.addTeam();
    const ids = [d.id, "0190a0b0-0000-7000-8000-000000000000", "not-a-uuid"];
    for (const id of ids) {
      const calls: [string, string, unknown?][] = [
        ["GET", `/v1/domains/${id}`],
        ["DELETE", `/v1/domains/${id}`],
        ["PUT", `/v1/domains/${id}/projects`, { project_ids: [b.projectId] }],
        ["POST", `/v1/domains/${id}/dns-records/verify`],
        ["POST", `/v1/domains/${id}/dns-records/${recordOf(d, "dkim").id}/verify`],
        ["POST", `/v1/domains/${id}/dkim/rotate`],
      ];
      for (const [method, path, body] of calls) {
        const res = await t.request(method, path, { token: b.teamToken, body });
        expect([method, path, res.status]).toEqual([method, path, 404]);
        expect(res.json).toEqual({ message: "Domain not found.", error: "not_found" });
      }
    }
    const list = await t.request("GET", "/v1/domains?page[size]=100", { token: b.teamToken });
    expect(list.json.data.map((x: { id: string }) => x.id)).not.toContain(d.id);
    const still = await t.request("GET", `/v1/domains/${d.id}`);
    expect(still.json).toMatchObject({ id: d.id, projects: [], last_checked_at: null });
    // No record was checked by the other team's per-record verify either.
    for (const r of still.json.dns_records) expect(r.last_checked_at).toBeNull();
    // No rotation was started by the other team's calls.
    expect(still.json.dns_records.filter((r: { key_state: string | null }) => r.key_state === "next")).toEqual([]);
  });
});

describe("cross-team: inbound domains under another team's verified sending domain", () => {
  // Set directly, as if set before the domain was registered; both records published as asked.
  async function setAndPublish(routeId: string, name: string, token?: string) {
    await t.sql.run("UPDATE routes SET inbound_domain = ?, inbound_domain_verified_at = NULL WHERE id = ?", [name, routeId]);
    for (const r of (await t.request("GET", `/v1/routes/${routeId}`, { token })).json.inbound_domain_records) {
      if (r.type === "MX") dns.set(r.fqdn, "MX", [{ exchange: r.content, priority: 10 }]);
      else dns.set(r.fqdn, "TXT", [r.content]);
    }
  }
  const verifyRoute = async (routeId: string, token?: string) => (await t.request("POST", `/v1/routes/${routeId}/verify-inbound-domain`, { token })).json.data;
  const inboundOf = async (projectId: string) =>
    (await t.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'inbound'", [projectId]))!.id;

  test("team B cannot verify the domain, its return path or names under it (tracking, links); team A can, except the return path", async () => {
    const created = await create(uniq("owned"));
    const d = created.domain as string;
    // Team A proves the name with its DKIM record: only a verified domain claims names.
    publish(created);
    expect((await t.request("POST", `/v1/domains/${created.id}/dns-records/verify`)).json.data.status).toBe("verified");
    const b = t.addTeam();
    const mine = await inboundOf(t.team.projectId);
    const theirs = await inboundOf(b.projectId);
    const matrix: [string, boolean][] = [
      [d, true],
      [`ph-bounces.${d}`, false],
      [`track.${d}`, true],
      [`links.${d}`, true],
      [`a.b.${d}`, true],
    ];
    for (const [name, forA] of matrix) {
      await setAndPublish(theirs, name, b.teamToken);
      const theirResult = await verifyRoute(theirs, b.teamToken);
      expect([name, theirResult.verified]).toEqual([name, false]);
      expect(theirResult.message).toContain(`${name} cannot be verified`);
      await setAndPublish(mine, name);
      const ourResult = await verifyRoute(mine);
      expect([name, ourResult.verified]).toEqual([name, forA]);
    }
    // Team B's own registration of the same name does not make it B's: it proves nothing.
    const bDomain = await create(d, b.teamToken);
    await setAndPublish(theirs, `track.${d}`, b.teamToken);
    expect((await verifyRoute(theirs, b.teamToken)).verified).toBe(false);
    // Once B proves it too (its own DKIM record published beside A's), B may receive under it.
    publish(bDomain);
    expect((await t.request("POST", `/v1/domains/${bDomain.id}/dns-records/verify`, { token: b.teamToken })).json.data.status).toBe("verified");
    await setAndPublish(theirs, `links2.${d}`, b.teamToken);
    expect(await verifyRoute(theirs, b.teamToken)).toEqual({ verified: true, message: "Inbound domain verified successfully." });
  });

  test("an unverified domain of another team claims nothing: team B verifies names under it", async () => {
    const d = (await create(uniq("unproved"))).domain as string;
    const b = t.addTeam();
    const theirs = await inboundOf(b.projectId);
    for (const name of [d, `track.${d}`, `ph-bounces.${d}`]) {
      await setAndPublish(theirs, name, b.teamToken);
      expect([name, (await verifyRoute(theirs, b.teamToken)).verified]).toEqual([name, true]);
    }
  });
});

test("the endpoints are documented in /openapi/json", async () => {
  const res = await t.request("GET", "/openapi/json", { token: null });
  const paths = Object.keys(res.json.paths);
  for (const p of ["/v1/domains", "/v1/domains/{domainId}", "/v1/domains/{domainId}/projects", "/v1/domains/{domainId}/dns-records/verify", "/v1/domains/{domainId}/dns-records/{recordId}/verify", "/v1/routes/{routeId}/verify-inbound-domain"]) {
    expect(paths).toContain(p);
  }
});
