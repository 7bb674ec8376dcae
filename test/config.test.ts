import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

test("defaults follow DESIGN.md", () => {
  const c = loadConfig({ POSTHORN_HOSTNAME: "mail.example.org" });
  expect(c.httpPort).toBe(8080);
  expect(c.smtpPort).toBe(2525);
  expect(c.submissionPort).toBe(1587);
  expect(c.delivery).toBe("direct");
  expect(c.inboundDomain).toBe("inbound.mail.example.org");
  expect(c.dnsServers).toBeNull();
  expect(c.rspamdFallbackSeconds).toBe(45);
  expect(c.mtaStsPort).toBe(443);
});

const bad: [string, string][] = [
  ["POSTHORN_HTTP_PORT", "eighty"],
  ["POSTHORN_HTTP_PORT", "70000"],
  ["POSTHORN_DELIVERY", "carrier-pigeon"],
  ["POSTHORN_PUBLIC_URL", "localhost:8080"],
  ["POSTHORN_LOG_LEVEL", "loud"],
  ["POSTHORN_REQUIRE_VERIFIED_DOMAIN", "maybe"],
  ["POSTHORN_WEBHOOK_ALLOWED_NETWORKS", "10.0.0.0"],
  ["POSTHORN_WEBHOOK_ALLOWED_NETWORKS", "999.0.0.0/8"],
  ["POSTHORN_WEBHOOK_ALLOWED_NETWORKS", "10.0.0.0/33"],
  ["POSTHORN_RSPAMD_FALLBACK_SECONDS", "0"],
  ["POSTHORN_RSPAMD_FALLBACK_SECONDS", "61"],
  ["POSTHORN_RSPAMD_FALLBACK_SECONDS", "soon"],
  ["POSTHORN_MTA_STS_PORT", "0"],
  ["POSTHORN_MTA_STS_PORT", "https"],
];
for (const [name, value] of bad) {
  test(`${name}=${value} fails naming the variable`, () => {
    try {
      loadConfig({ [name]: value });
      throw new Error("accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe(name);
      expect((err as Error).message).toStartWith(name);
    }
  });
}

test("relay mode needs a relay URL", () => {
  expect(() => loadConfig({ POSTHORN_DELIVERY: "relay" })).toThrow("POSTHORN_RELAY_URL");
});

test("DNS servers parse as a list", () => {
  expect(loadConfig({ POSTHORN_DNS_SERVERS: "127.0.0.1:5353, [::1]:53" }).dnsServers).toEqual(["127.0.0.1:5353", "[::1]:53"]);
});
