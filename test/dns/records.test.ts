import { describe, expect, test } from "bun:test";
import { buildRecordSpecs, MAX_DOMAIN_LENGTH, newDkimSelector, newEd25519DkimSelector, normalizeDomainName } from "../../src/dns/records.ts";

describe("normalizeDomainName", () => {
  const ok: [string, string][] = [
    ["Example.COM", "example.com"],
    ["  mail.example.com.  ", "mail.example.com"],
    ["München.de", "xn--mnchen-3ya.de"],
    ["xn--mnchen-3ya.de", "xn--mnchen-3ya.de"],
    ["a-b.c0.example", "a-b.c0.example"],
  ];
  for (const [input, expected] of ok) {
    test(`${JSON.stringify(input)} → ${expected}`, () => expect(normalizeDomainName(input)).toEqual({ ok: true, domain: expected }));
  }

  const bad: [string, RegExp][] = [
    ["1.2.3.4", /not an IP address/],
    ["[::1]", /not an IP address/],
    ["2001:db8::1", /not an IP address/],
    ["localhost", /full domain name/],
    ["example..com", /empty labels/],
    ["exa mple.com", /not allowed/],
    ["ex_ample.com", /letters, digits and hyphens/],
    ["-example.com", /must not start or end with a hyphen/],
    ["example-.com", /must not start or end with a hyphen/],
    [`${"a".repeat(64)}.com`, /longer than 63/],
    ["example.123", /top-level label must not be numeric/],
    ["", /required/],
    ["   ", /required/],
    [`${"abcdefghij.".repeat(22)}com`, new RegExp(`longer than ${MAX_DOMAIN_LENGTH}`)],
  ];
  for (const [input, message] of bad) {
    test(`${JSON.stringify(input.slice(0, 40))} is refused`, () => {
      const r = normalizeDomainName(input);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(message);
    });
  }
});

test("selectors are distinct, dated DNS labels", () => {
  const a = newDkimSelector(new Date("2025-03-04T00:00:00Z"));
  expect(a).toMatch(/^ph20250304[0-9a-f]{4}$/);
  const many = new Set(Array.from({ length: 50 }, () => newDkimSelector()));
  expect(many.size).toBeGreaterThan(45);
});

test("Ed25519 selectors are dated labels as long as RSA ones, told apart by phe", () => {
  const e = newEd25519DkimSelector(new Date("2025-03-04T00:00:00Z"));
  expect(e).toMatch(/^phe20250304[0-9a-f]{3}$/);
  expect(e.length).toBe(newDkimSelector().length);
});

test("with an Ed25519 key, its record follows the RSA one", () => {
  const specs = buildRecordSpecs({ domain: "example.com", selector: "ph1", publicKeyBase64: "KEY", ed25519: { selector: "phe1", publicKeyBase64: "EDKEY" }, returnPathHost: "ph-bounces", hostname: "mx.posthorn.test" });
  expect(specs.slice(0, 2)).toEqual([
    { purpose: "dkim", type: "TXT", hostname: "ph1._domainkey", fqdn: "ph1._domainkey.example.com", content: "v=DKIM1; k=rsa; p=KEY" },
    { purpose: "dkim_ed25519", type: "TXT", hostname: "phe1._domainkey", fqdn: "phe1._domainkey.example.com", content: "v=DKIM1; k=ed25519; p=EDKEY" },
  ]);
  expect(specs).toHaveLength(5);
});

test("the four generated records name the right hosts and values", () => {
  const specs = buildRecordSpecs({ domain: "example.com", selector: "ph1", publicKeyBase64: "KEY", returnPathHost: "ph-bounces", hostname: "mx.posthorn.test" });
  expect(specs).toEqual([
    { purpose: "dkim", type: "TXT", hostname: "ph1._domainkey", fqdn: "ph1._domainkey.example.com", content: "v=DKIM1; k=rsa; p=KEY" },
    { purpose: "spf", type: "TXT", hostname: "ph-bounces", fqdn: "ph-bounces.example.com", content: "v=spf1 a:mx.posthorn.test ~all" },
    { purpose: "return_path", type: "MX", hostname: "ph-bounces", fqdn: "ph-bounces.example.com", content: "mx.posthorn.test" },
    { purpose: "dmarc", type: "TXT", hostname: "_dmarc", fqdn: "_dmarc.example.com", content: "v=DMARC1; p=none; adkim=r; aspf=r" },
  ]);
});
