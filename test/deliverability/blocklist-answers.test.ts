/**
 * What blocklist answers mean (src/deliverability/blocklists.ts) as the lists document them, and
 * the blocklist settings: defaults, "none", and a bad zone refused at start naming its variable.
 */
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/config.ts";
import { meaningOf } from "../../src/deliverability/blocklists.ts";
import { testConfig } from "../helpers.ts";

describe("blocklist answers", () => {
  test("listings, as each list documents its codes", () => {
    expect(meaningOf("zen.spamhaus.org", "127.0.0.10")).toEqual({ listing: true, text: "Spamhaus PBL (ISP): an end-user range that should not send mail directly" });
    expect(meaningOf("dbl.spamhaus.org", "127.0.1.4")).toEqual({ listing: true, text: "Spamhaus DBL: phishing domain" });
    expect(meaningOf("multi.uribl.com", "127.0.0.6")).toEqual({ listing: true, text: "URIBL black and grey list (127.0.0.6)" });
    expect(meaningOf("bl.spamcop.net", "127.0.0.2").listing).toBe(true);
    expect(meaningOf("b.barracudacentral.org", "127.0.0.2").text).toContain("Barracuda");
    expect(meaningOf("dnsbl.example.net", "127.0.0.5")).toEqual({ listing: true, text: "Listed in dnsbl.example.net (127.0.0.5)" });
  });

  test("refusals and rewritten answers are not listings", () => {
    for (const [zone, answer] of [
      ["zen.spamhaus.org", "127.255.255.252"],
      ["zen.spamhaus.org", "127.255.255.254"],
      ["zen.spamhaus.org", "127.255.255.255"],
      ["dbl.spamhaus.org", "127.0.1.255"],
      ["multi.uribl.com", "127.0.0.1"],
      ["bl.spamcop.net", "198.51.100.9"],
    ] as const) {
      expect(meaningOf(zone, answer).listing).toBe(false);
    }
  });

  test("settings: the documented defaults, none, and a bad zone refused naming its variable", () => {
    const c = testConfig();
    expect(c.blocklistIpZones).toEqual(["zen.spamhaus.org", "bl.spamcop.net", "b.barracudacentral.org"]);
    expect(c.blocklistDomainZones).toEqual(["dbl.spamhaus.org", "multi.uribl.com"]);
    expect(c.blocklistIntervalSeconds).toBe(21_600);
    const off = testConfig({ POSTHORN_BLOCKLIST_IP_ZONES: "none", POSTHORN_BLOCKLIST_DOMAIN_ZONES: " DBL.Example.org. , dbl.example.org", POSTHORN_BLOCKLIST_INTERVAL: "0" });
    expect(off.blocklistIpZones).toEqual([]);
    expect(off.blocklistDomainZones).toEqual(["dbl.example.org"]);
    expect(off.blocklistIntervalSeconds).toBe(0);
    expect(() => testConfig({ POSTHORN_BLOCKLIST_IP_ZONES: "zen.spamhaus.org,bad zone" })).toThrow(ConfigError);
    expect(() => testConfig({ POSTHORN_BLOCKLIST_IP_ZONES: "zen.spamhaus.org,bad zone" })).toThrow(/POSTHORN_BLOCKLIST_IP_ZONES/);
    expect(() => testConfig({ POSTHORN_BLOCKLIST_INTERVAL: "-1" })).toThrow(/POSTHORN_BLOCKLIST_INTERVAL/);
  });
});
