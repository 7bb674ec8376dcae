import { afterAll, beforeAll, expect, test } from "bun:test";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { orderMx, resolveMx } from "../../src/mail/mx.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

let dns: TestDnsServer;
let resolver: DnsResolver;
beforeAll(async () => {
  dns = await startDnsServer();
  resolver = new DnsResolver([dns.server], { timeoutMs: 300, tries: 1 });
});
afterAll(() => dns.close());

test("MX records come back lowest preference first", async () => {
  dns.set("pref.test", "MX", [
    { exchange: "mx2.pref.test", priority: 20 },
    { exchange: "mx1.pref.test", priority: 10 },
  ]);
  const r = await resolveMx(resolver, "pref.test");
  expect(r).toEqual({ kind: "hosts", implicit: false, hosts: [{ name: "mx1.pref.test", priority: 10 }, { name: "mx2.pref.test", priority: 20 }] });
});

test("equal preferences are shuffled, lower ones always first", () => {
  const hosts = [
    { name: "a", priority: 10 },
    { name: "b", priority: 10 },
    { name: "c", priority: 5 },
  ];
  expect(orderMx(hosts, () => 0.9).map((h) => h.name)[0]).toBe("c");
  let i = 0;
  const seq = [0.9, 0.1, 0.5];
  expect(orderMx(hosts, () => seq[i++ % 3]!).map((h) => h.name)).toEqual(["c", "b", "a"]);
});

test("no MX but an address: the domain itself is the mail host", async () => {
  dns.set("amonly.test", "A", ["127.0.0.1"]);
  expect(await resolveMx(resolver, "amonly.test")).toEqual({ kind: "hosts", implicit: true, hosts: [{ name: "amonly.test", priority: 0 }] });
});

test("null MX and a nonexistent domain are permanent failures", async () => {
  dns.set("nullmx.test", "MX", [{ exchange: ".", priority: 0 }]);
  const n = await resolveMx(resolver, "nullmx.test");
  expect(n.kind).toBe("hard");
  expect(n.kind === "hard" && n.reply.message).toContain("null MX");
  const x = await resolveMx(resolver, "does-not-exist.test");
  expect(x.kind).toBe("hard");
});

test("DNS trouble is temporary", async () => {
  dns.set("broken.test", "MX", [{ exchange: "mx.broken.test", priority: 10 }]);
  dns.fail("broken.test", "SERVFAIL");
  expect((await resolveMx(resolver, "broken.test")).kind).toBe("soft");
  dns.fail("broken.test", "TIMEOUT");
  expect((await resolveMx(resolver, "broken.test")).kind).toBe("soft");
});
