import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DnsError, DnsResolver } from "../../src/dns/resolver.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

describe("DnsResolver against a loopback DNS server", () => {
  let dns: TestDnsServer;
  let resolver: DnsResolver;
  beforeAll(async () => {
    dns = await startDnsServer();
    resolver = new DnsResolver([dns.server], { timeoutMs: 300, tries: 1 });
  });
  afterAll(() => dns.close());

  test("MX, A and CNAME answers", async () => {
    dns.set("example.test", "MX", [{ exchange: "mx1.example.test", priority: 10 }]);
    dns.set("mx1.example.test", "A", ["127.0.0.1"]);
    dns.set("alias.example.test", "CNAME", ["mx1.example.test"]);
    expect(await resolver.mx("example.test")).toEqual([{ exchange: "mx1.example.test", priority: 10 }]);
    expect(await resolver.addresses("mx1.example.test")).toEqual(["127.0.0.1"]);
    expect(await resolver.cname("alias.example.test")).toEqual(["mx1.example.test"]);
  });

  test("a TXT record longer than 255 bytes comes back whole, next to other records", async () => {
    const key = "v=DKIM1; k=rsa; p=" + "A".repeat(380) + "IDAQAB";
    dns.set("sel._domainkey.example.test", "TXT", [key, "v=spf1 -all", "google-site-verification=abc-def"]);
    expect(await resolver.txt("sel._domainkey.example.test")).toEqual([key, "v=spf1 -all", "google-site-verification=abc-def"]);
  });

  test("NXDOMAIN, SERVFAIL and timeout are told apart", async () => {
    const failureOf = async (p: Promise<unknown>) => {
      try {
        await p;
        return "ok";
      } catch (err) {
        return (err as DnsError).failure;
      }
    };
    expect(await failureOf(resolver.txt("missing.example.test"))).toBe("NXDOMAIN");
    dns.set("broken.test", "A", ["127.0.0.1"]);
    dns.fail("broken.test", "SERVFAIL");
    expect(await failureOf(resolver.mx("broken.test"))).toBe("SERVFAIL");
    dns.fail("slow.test", "TIMEOUT");
    expect(await failureOf(resolver.mx("slow.test"))).toBe("TIMEOUT");
  });
});
