import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { buildRecordSpecs, type RecordSpec } from "../../src/dns/records.ts";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { inCidr } from "../../src/dns/spf.ts";
import { checkMailTarget, checkRecord, verifyContext, type VerifyContext } from "../../src/dns/verify.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

const HOST = "mx.posthorn.test";
const key = generateDkimKeyPair();

let dns: TestDnsServer;
let resolver: DnsResolver;
let seq = 0;
beforeAll(async () => {
  dns = await startDnsServer();
  // A short timeout so the TIMEOUT cases take ~0.2 s.
  resolver = new DnsResolver([dns.server], { timeoutMs: 200, tries: 1 });
  dns.set(HOST, "A", ["192.0.2.10"]);
  dns.set(HOST, "AAAA", ["2001:db8::10"]);
});
afterAll(() => dns.close());

// A fresh resolver per check: Bun caches answers per resolver, and tests change records in place.
const ctx = (): VerifyContext => verifyContext(resolver.fresh(), HOST);
/** Fresh records for a fresh domain name, so tests never see each other's zone data. */
function fresh() {
  const domain = `d${++seq}.example.test`;
  const specs = buildRecordSpecs({ domain, selector: "ph1", publicKeyBase64: key.publicKeyBase64, returnPathHost: "ph-bounces", hostname: HOST });
  const by = (p: string) => specs.find((s) => s.purpose === p)!;
  return { domain, dkim: by("dkim"), spf: by("spf"), returnPath: by("return_path"), dmarc: by("dmarc") };
}
const check = (r: RecordSpec) => checkRecord(ctx(), r);

describe("records missing", () => {
  test("each record is missing with a reason naming the name", async () => {
    const d = fresh();
    for (const r of [d.dkim, d.spf, d.dmarc]) {
      expect(await check(r)).toEqual({ outcome: "missing", reason: `No TXT record found at ${r.fqdn}.`, found: null });
    }
    expect(await check(d.returnPath)).toEqual({ outcome: "missing", reason: `No MX record found at ${d.returnPath.fqdn}.`, found: null });
  });

  test("a name that exists without the record type (NODATA) is missing too", async () => {
    const d = fresh();
    dns.set(d.dkim.fqdn, "A", ["192.0.2.1"]);
    expect((await check(d.dkim)).outcome).toBe("missing");
  });
});

describe("published correctly", () => {
  test("all four pass; the 400-byte DKIM record travels as several TXT strings", async () => {
    const d = fresh();
    expect(d.dkim.content.length).toBeGreaterThan(255);
    dns.set(d.dkim.fqdn, "TXT", [d.dkim.content]); // the test server splits it into 255-byte strings
    dns.set(d.spf.fqdn, "TXT", [d.spf.content]);
    dns.set(d.returnPath.fqdn, "MX", [{ exchange: HOST, priority: 10 }]);
    dns.set(d.dmarc.fqdn, "TXT", [d.dmarc.content]);
    for (const r of [d.dkim, d.spf, d.returnPath, d.dmarc]) expect(await check(r)).toMatchObject({ outcome: "pass", reason: null });
  });

  test("DKIM split at odd places, with whitespace in the key and other TXT records beside it", async () => {
    const d = fresh();
    const spaced = `v=DKIM1; k=rsa; p=${key.publicKeyBase64.replace(/(.{64})/g, "$1 ")}`;
    dns.set(d.dkim.fqdn, "TXT", [[spaced.slice(0, 100), spaced.slice(100, 300), spaced.slice(300)], "google-site-verification=abc"]);
    expect((await check(d.dkim)).outcome).toBe("pass");
  });

  test("DKIM through a CNAME to a provider's name", async () => {
    const d = fresh();
    dns.set(d.dkim.fqdn, "CNAME", [`keys.provider.test`]);
    dns.set("keys.provider.test", "TXT", [d.dkim.content]);
    expect((await check(d.dkim)).outcome).toBe("pass");
  });

  test("DMARC: any v=DMARC1 policy passes, also one inherited from the parent domain", async () => {
    const d = fresh();
    dns.set(d.dmarc.fqdn, "TXT", ["v=DMARC1; p=reject; rua=mailto:d@example.test"]);
    expect((await check(d.dmarc)).outcome).toBe("pass");
    const sub = { ...d.dmarc, fqdn: `_dmarc.news.${d.domain}` };
    expect((await check(sub)).outcome).toBe("pass");
  });
});

describe("SPF inside a longer policy", () => {
  const cases: [string, string][] = [
    ["ours among other mechanisms", `v=spf1 include:_spf.provider.test ip4:198.51.100.0/24 a:${HOST} mx -all`],
    ["upper case and trailing dot", `v=spf1 A:${HOST.toUpperCase()}. ~all`],
    ["ip4 range covering our address", "v=spf1 ip4:192.0.2.0/24 -all"],
    ["ip6 range covering our address", "v=spf1 ip6:2001:db8::/32 -all"],
    ["include of a policy that authorizes us", "v=spf1 include:spf.ours.test -all"],
    ["redirect to a policy that authorizes us", "v=spf1 redirect=spf.ours.test"],
    ["mx of a domain whose MX is our host", "v=spf1 mx:mail.ours.test -all"],
    ["a of a name that resolves to our address", "v=spf1 a:alias.ours.test -all"],
  ];
  for (const [name, policy] of cases) {
    test(`${name} → pass`, async () => {
      const d = fresh();
      dns.set("spf.ours.test", "TXT", [`v=spf1 a:${HOST} -all`, "unrelated=1"]);
      // An include that does not authorize us (its ~all matches first) does not stop the evaluation.
      dns.set("_spf.provider.test", "TXT", ["v=spf1 ip4:203.0.113.0/24 ~all"]);
      dns.set("mail.ours.test", "MX", [{ exchange: HOST, priority: 5 }]);
      dns.set("alias.ours.test", "A", ["192.0.2.10"]);
      dns.set(d.spf.fqdn, "TXT", [policy, "some-other-verification=xyz"]);
      const r = await check(d.spf);
      expect(r).toMatchObject({ outcome: "pass", reason: null });
    });
  }

  const failing: [string, string, RegExp][] = [
    ["another server only", "v=spf1 a:other.example.test -all", /does not authorize mx\.posthorn\.test.*gives fail/],
    ["our address excluded before our name", `v=spf1 -ip4:192.0.2.10 a:${HOST} ~all`, /"-ip4:192\.0\.2\.10" is the first term/],
    ["ours only softfail-qualified", `v=spf1 ~a:${HOST} -all`, /gives softfail/],
    ["no all and no match", "v=spf1 ip4:198.51.100.1", /no term matches/],
    ["+all", "v=spf1 +all", /authorizes every server/],
    ["a syntax error", "v=spf1 a:: -all", /is invalid/],
    ["an unknown mechanism", "v=spf1 foo:bar -all", /is invalid: "foo:bar" is not a known SPF mechanism/],
    ["include of a name without SPF", "v=spf1 include:nothing.test -all", /has no SPF record/],
  ];
  for (const [name, policy, reason] of failing) {
    test(`${name} → mismatch with the value seen`, async () => {
      const d = fresh();
      dns.set(d.spf.fqdn, "TXT", [policy]);
      const r = await check(d.spf);
      expect(r.outcome).toBe("mismatch");
      expect(r.reason).toMatch(reason);
      expect(r.found).toEqual([policy]);
    });
  }

  test("a bare mx: the return-path host's own MX (the record we ask for) is our host", async () => {
    const d = fresh();
    dns.set(d.spf.fqdn, "TXT", ["v=spf1 mx -all"]);
    expect((await check(d.spf)).outcome).toBe("mismatch");
    dns.set(d.returnPath.fqdn, "MX", [{ exchange: HOST, priority: 10 }]);
    expect((await check(d.spf)).outcome).toBe("pass");
  });

  test("two SPF records at one name are refused (RFC 7208 permerror)", async () => {
    const d = fresh();
    dns.set(d.spf.fqdn, "TXT", [d.spf.content, "v=spf1 -all"]);
    const r = await check(d.spf);
    expect(r.outcome).toBe("mismatch");
    expect(r.reason).toContain("publishes 2 SPF records");
  });

  test("an include loop stops at the 10-lookup limit", async () => {
    const d = fresh();
    dns.set("loop.test", "TXT", ["v=spf1 include:loop.test -all"]);
    dns.set(d.spf.fqdn, "TXT", ["v=spf1 include:loop.test -all"]);
    const r = await check(d.spf);
    expect(r.outcome).toBe("mismatch");
    expect(r.reason).toMatch(/more than 10 DNS lookups|nest too deeply/);
  });

  test("TXT without SPF → mismatch showing what is there", async () => {
    const d = fresh();
    dns.set(d.spf.fqdn, "TXT", ["hello=world"]);
    expect(await check(d.spf)).toMatchObject({ outcome: "mismatch", found: ["hello=world"] });
  });

  test("what the reason quotes of a name's TXT record is bounded and storable: 120 characters, NUL as U+FFFD", async () => {
    const d = fresh();
    dns.set(d.spf.fqdn, "TXT", [`bad\u0000value${"y".repeat(300)}`]);
    const r = await check(d.spf);
    expect(r.outcome).toBe("mismatch");
    // The reason is stored (dns_records.status_reason) and shown: PostgreSQL's text refuses NUL.
    expect(r.reason).toContain(`"bad\uFFFDvalue${"y".repeat(120 - 9)}…"`);
  });

  test("an included name whose server fails → dns_error, not a verdict", async () => {
    const d = fresh();
    dns.set("flaky.test", "TXT", ["v=spf1 -all"]);
    dns.fail("flaky.test", "SERVFAIL");
    dns.set(d.spf.fqdn, "TXT", ["v=spf1 include:flaky.test -all"]);
    const r = await check(d.spf);
    expect(r.outcome).toBe("dns_error");
    expect(r.reason).toContain("SERVFAIL");
  });
});

describe("wrong values", () => {
  test("another DKIM key → mismatch showing the key seen", async () => {
    const d = fresh();
    const other = generateDkimKeyPair().publicKeyBase64;
    dns.set(d.dkim.fqdn, "TXT", [`v=DKIM1; k=rsa; p=${other}`]);
    const r = await check(d.dkim);
    expect(r.outcome).toBe("mismatch");
    expect(r.reason).toContain("not the key Posthorn generated");
    expect(r.reason).toContain(`p=${other.slice(0, 40)}`);
    expect(r.found).toEqual([`v=DKIM1; k=rsa; p=${other}`]);
  });

  test("a revoked (empty) DKIM key and a non-DKIM TXT are told apart", async () => {
    const d = fresh();
    dns.set(d.dkim.fqdn, "TXT", ["v=DKIM1; p="]);
    expect((await check(d.dkim)).reason).toContain("empty p= tag");
    dns.set(d.dkim.fqdn, "TXT", ["just text"]);
    expect((await check(d.dkim)).reason).toContain("not a DKIM key record");
  });

  test("return path MX to another host → mismatch naming it", async () => {
    const d = fresh();
    dns.set(d.returnPath.fqdn, "MX", [{ exchange: "mx.elsewhere.test", priority: 10 }]);
    expect(await check(d.returnPath)).toEqual({
      outcome: "mismatch",
      reason: `The MX record of ${d.returnPath.fqdn} points to mx.elsewhere.test, not ${HOST}.`,
      found: ["10 mx.elsewhere.test"],
    });
  });

  test("our host only as a backup MX → mismatch explaining the priority", async () => {
    const d = fresh();
    dns.set(d.returnPath.fqdn, "MX", [{ exchange: "mx.elsewhere.test", priority: 5 }, { exchange: HOST, priority: 20 }]);
    const r = await check(d.returnPath);
    expect(r.outcome).toBe("mismatch");
    expect(r.reason).toContain("only a backup MX");
  });

  test("null MX → mismatch", async () => {
    const d = fresh();
    dns.set(d.returnPath.fqdn, "MX", [{ exchange: ".", priority: 0 }]);
    expect((await check(d.returnPath)).reason).toContain("null MX");
  });

  test("DMARC name holding something else → mismatch", async () => {
    const d = fresh();
    dns.set(d.dmarc.fqdn, "TXT", ["v=spf1 -all"]);
    expect(await check(d.dmarc)).toMatchObject({ outcome: "mismatch", found: ["v=spf1 -all"] });
  });
});

describe("return path through CNAME", () => {
  test("a CNAME straight to our host passes (mail falls back to its address)", async () => {
    const d = fresh();
    dns.set(d.returnPath.fqdn, "CNAME", [HOST]);
    expect(await check(d.returnPath)).toEqual({ outcome: "pass", reason: null, found: [`CNAME ${HOST}`] });
  });

  test("a CNAME chain to our host passes; one to a name whose MX is ours passes", async () => {
    const d = fresh();
    dns.set(d.returnPath.fqdn, "CNAME", [`hop1.${d.domain}`]);
    dns.set(`hop1.${d.domain}`, "CNAME", [HOST]);
    expect((await check(d.returnPath)).outcome).toBe("pass");
    const e = fresh();
    dns.set(e.returnPath.fqdn, "CNAME", ["bounces.provider.test"]);
    dns.set("bounces.provider.test", "MX", [{ exchange: HOST, priority: 10 }]);
    expect((await check(e.returnPath)).outcome).toBe("pass");
  });

  test("a CNAME chain ending elsewhere → mismatch showing the chain", async () => {
    const d = fresh();
    dns.set(d.returnPath.fqdn, "CNAME", ["other.provider.test"]);
    dns.set("other.provider.test", "A", ["192.0.2.99"]);
    const r = await check(d.returnPath);
    expect(r.outcome).toBe("mismatch");
    expect(r.found).toEqual(["CNAME other.provider.test"]);
  });
});

describe("DNS server failures give clear reasons and no crash", () => {
  test("SERVFAIL", async () => {
    const d = fresh();
    dns.fail(d.dkim.fqdn, "SERVFAIL");
    const r = await check(d.dkim);
    expect(r.outcome).toBe("dns_error");
    expect(r.reason).toBe(
      `The DNS server failed for the TXT lookup of ${d.dkim.fqdn}: the DNS server failed to answer (SERVFAIL). The record keeps its status until a check gets an answer.`,
    );
  });

  test("timeout", async () => {
    const d = fresh();
    dns.fail(d.returnPath.fqdn, "TIMEOUT");
    const started = Date.now();
    const r = await check(d.returnPath);
    expect(r.outcome).toBe("dns_error");
    expect(r.reason).toContain("did not answer in time");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("REFUSED", async () => {
    const d = fresh();
    dns.fail(d.dmarc.fqdn, "REFUSED");
    expect((await check(d.dmarc)).reason).toContain("refused the query");
  });

  test("an unreachable DNS server", async () => {
    const dead = verifyContext(new DnsResolver(["127.0.0.1:9"], { timeoutMs: 200, tries: 1 }), HOST);
    const r = await checkRecord(dead, fresh().dkim);
    expect(r.outcome).toBe("dns_error");
  });
});

test("checkMailTarget on an inbound domain: MX to us passes, otherwise the reason", async () => {
  dns.set("in.example.test", "MX", [{ exchange: `${HOST}.`, priority: 10 }]);
  expect((await checkMailTarget(ctx(), "in.example.test")).outcome).toBe("pass");
  expect((await checkMailTarget(ctx(), "nomx.example.test")).outcome).toBe("missing");
});

test("inCidr", () => {
  expect(inCidr("192.0.2.10", "192.0.2.0", 24)).toBe(true);
  expect(inCidr("192.0.3.10", "192.0.2.0", 24)).toBe(false);
  expect(inCidr("192.0.2.10", "0.0.0.0", 0)).toBe(true);
  expect(inCidr("2001:db8::10", "2001:db8::", 32)).toBe(true);
  expect(inCidr("2001:db9::10", "2001:db8::", 32)).toBe(false);
  expect(inCidr("::ffff:192.0.2.1", "::ffff:192.0.2.0", 120)).toBe(true);
  expect(inCidr("192.0.2.10", "2001:db8::", 0)).toBe(false);
});
