import { describe, expect, test } from "bun:test";
import { assertAllowedAddress, parseRetryAfter, TargetRefusedError } from "../../src/events/webhook-post.ts";
import { forbiddenKind, inNetworks, parseCidr, parseIp } from "../../src/net/ip.ts";

describe("webhook address policy", () => {
  test("public addresses are allowed", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "64:ff9b::808:808"]) {
      expect(forbiddenKind(ip)).toBeNull();
    }
  });

  test("loopback, private, link-local, unique-local, CGNAT, multicast and unspecified are refused (v4 and v6)", () => {
    const cases: [string, string][] = [
      ["127.0.0.1", "loopback"],
      ["127.255.255.254", "loopback"],
      ["::1", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["169.254.169.254", "link-local"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["fd00::1", "unique-local"],
      ["fc00::1", "unique-local"],
      ["100.64.0.1", "shared (CGNAT)"],
      ["100.127.255.255", "shared (CGNAT)"],
      ["224.0.0.251", "multicast"],
      ["ff02::1", "multicast"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["255.255.255.255", "reserved"],
      ["198.18.0.1", "benchmarking"],
      ["2001:db8::1", "documentation"],
    ];
    for (const [ip, kind] of cases) expect([ip, forbiddenKind(ip)]).toEqual([ip, kind]);
  });

  test("IPv6 forms that carry an IPv4 address are judged by it", () => {
    expect(forbiddenKind("::ffff:127.0.0.1")).toBe("loopback");
    expect(forbiddenKind("::ffff:7f00:1")).toBe("loopback");
    expect(forbiddenKind("::ffff:10.1.2.3")).toBe("private");
    expect(forbiddenKind("0:0:0:0:0:ffff:a9fe:a9fe")).toBe("link-local");
    expect(forbiddenKind("64:ff9b::7f00:1")).toBe("loopback"); // NAT64
    expect(forbiddenKind("2002:c0a8:0101::1")).toBe("private"); // 6to4 of 192.168.1.1
    expect(forbiddenKind("::127.0.0.1")).toBe("reserved"); // IPv4-compatible (deprecated): all refused
    expect(forbiddenKind("::8.8.8.8")).toBe("reserved");
  });

  test("IPv4-translated (SIIT, ::ffff:0:0:0/96) and local-use NAT64 (64:ff9b:1::/48) are refused (security review)", () => {
    expect(forbiddenKind("::ffff:0:127.0.0.1")).toBe("loopback");
    expect(forbiddenKind("::ffff:0:7f00:1")).toBe("loopback");
    expect(forbiddenKind("0:0:0:0:ffff:0:a00:1")).toBe("private");
    expect(forbiddenKind("::ffff:0:808:808")).toBe("IPv4-translated (SIIT)");
    expect(forbiddenKind("64:ff9b:1::7f00:1")).toBe("local-use NAT64");
    expect(forbiddenKind("64:ff9b:1:7f00:0:100::")).toBe("local-use NAT64");
    expect(forbiddenKind("64:ff9b:1:ffff:ffff:ffff:ffff:ffff")).toBe("local-use NAT64");
    // Just outside the /48: the well-known prefix and a global address stay as they were.
    expect(forbiddenKind("64:ff9b::808:808")).toBeNull();
    expect(forbiddenKind("64:ff9b:2::1")).toBeNull();
    expect(() => assertAllowedAddress("::ffff:0:a9fe:a9fe", [], "meta.example")).toThrow(/meta\.example resolves to ::ffff:0:a9fe:a9fe, which is a link-local address/);
  });

  test("an allowed IPv4 network covers the v4-mapped form only, not translated, NAT64 or 6to4 forms", () => {
    const loop = [parseCidr("127.0.0.0/8")];
    expect(inNetworks("::ffff:127.0.0.1", loop)).toBe(true);
    for (const ip of ["::ffff:0:7f00:1", "64:ff9b::7f00:1", "2002:7f00:1::1"]) expect([ip, inNetworks(ip, loop)]).toEqual([ip, false]);
  });

  test("allowed networks override the policy, including for v4-mapped addresses", () => {
    const allowed = ["127.0.0.0/8", "fd00:1234::/32", "::ffff:10.9.0.0/112"].map(parseCidr);
    expect(inNetworks("127.0.0.1", allowed)).toBe(true);
    expect(inNetworks("::ffff:127.0.0.1", allowed)).toBe(true);
    expect(inNetworks("fd00:1234:5::1", allowed)).toBe(true);
    expect(inNetworks("fd00:1235::1", allowed)).toBe(false);
    expect(inNetworks("10.9.3.4", allowed)).toBe(true);
    expect(inNetworks("10.8.3.4", allowed)).toBe(false);
    expect(() => assertAllowedAddress("127.0.0.1", allowed)).not.toThrow();
    expect(() => assertAllowedAddress("127.0.0.1", [])).toThrow(TargetRefusedError);
    expect(() => assertAllowedAddress("10.0.0.1", allowed, "intranet.example")).toThrow(
      "refused: intranet.example resolves to 10.0.0.1, which is a private address",
    );
    expect(inNetworks("192.168.5.5", [parseCidr("192.168.4.0/23")])).toBe(true);
    expect(inNetworks("192.168.6.5", [parseCidr("192.168.4.0/23")])).toBe(false);
  });

  test("parsing", () => {
    expect(parseIp("[::1]")).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIp("hooks.example.test")).toBeNull();
    expect(parseIp("1.2.3")).toBeNull();
    expect(() => parseCidr("10.0.0.0/33")).toThrow();
    expect(() => parseCidr("nonsense/8")).toThrow();
    expect(parseCidr("10.0.0.1").prefix).toBe(32);
  });
});

describe("Retry-After", () => {
  test("seconds or an HTTP date; capped at 24 h; junk ignored", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("999999999", now)).toBe(24 * 3600_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
    expect(parseRetryAfter("0", now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
