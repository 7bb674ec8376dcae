// spam.ts runs mailauth's DKIM, SPF, ARC and DMARC checks one by one instead of its
// authenticate(), which also formats header text nobody reads: the results must stay those of
// authenticate() itself, on the same messages and connection facts, for every check. Real DNS
// answers from a loopback server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { authenticate as mailauthAuthenticate, dkimSign } from "mailauth";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { dkimRecordContent, generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { dnsLookup } from "../../src/smtp/auth-resolver.ts";
import { authenticate, plainIp, type AuthInput } from "../../src/smtp/spam.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";

let dns: TestDnsServer;
let resolver: AuthInput["resolver"];
const key = generateDkimKeyPair();

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set("sender.test", "TXT", ["v=spf1 ip4:127.0.0.0/8 -all"]);
  dns.set("s1._domainkey.sender.test", "TXT", [dkimRecordContent(key.publicKeyBase64)]);
  dns.set("_dmarc.sender.test", "TXT", ["v=DMARC1; p=reject"]);
  dns.set("_dmarc.other.test", "TXT", ["v=DMARC1; p=quarantine"]);
  resolver = dnsLookup(new DnsResolver([dns.server]));
});
afterAll(() => dns.close());

const message = (from: string, extra = "") =>
  Buffer.from(`${extra}From: ${from}\r\nTo: x@inbound.test\r\nSubject: Hello\r\nDate: Wed, 1 May 2024 10:00:00 +0000\r\nMessage-ID: <m1@sender.test>\r\n\r\nHi there\r\n`);

async function signed(raw: Buffer, domain = "sender.test"): Promise<Buffer> {
  const s = await dkimSign(raw, { signatureData: [{ signingDomain: domain, selector: "s1", privateKey: key.privateKeyPem }] } as never);
  return Buffer.concat([Buffer.from(s.signatures), raw]);
}

/** What the symbols are made of, from either result. */
const essentials = (r: { dkim: any; spf: any; arc: any; dmarc: any }) => ({
  dkim: (r.dkim.results ?? []).map((x: any) => [x.signingDomain, x.status.result, x.status.aligned ?? null]),
  headerFrom: r.dkim.headerFrom,
  spf: r.spf ? [r.spf.status.result, r.spf.domain] : null,
  arc: r.arc?.status?.result ?? null,
  dmarc: r.dmarc ? [r.dmarc.status.result, r.dmarc.policy ?? null, r.dmarc.p ?? null] : null,
});

test("the checks one by one give authenticate()'s results: signed, altered, unsigned, misaligned, ARC, every kind of HELO", async () => {
  const good = await signed(message("Ann <ann@sender.test>"));
  const cases: [string, Buffer][] = [
    ["signed", good],
    ["altered body", Buffer.from(good.toString("latin1").replace("Hi there", "Hi thera"), "latin1")],
    ["unsigned", message("Ann <ann@sender.test>")],
    ["other sender", message("Bob <bob@other.test>")],
    ["signed by another domain than From", await signed(message("Bob <bob@other.test>"))],
    ["ARC header", await signed(message("Ann <ann@sender.test>", "ARC-Seal: i=1; a=rsa-sha256; cv=none; d=relay.test; s=a; t=1; b=AAAA\r\n"))],
    ["no From", Buffer.from("Subject: none\r\n\r\nbody\r\n")],
  ];
  const connections: Omit<AuthInput, "resolver">[] = [
    { ip: "127.0.0.1", helo: "client.test", mailFrom: "ann@sender.test", hostname: "mx.test" },
    { ip: "::ffff:127.0.0.2", helo: "", mailFrom: "bob@other.test", hostname: "mx.test" },
    { ip: "127.0.0.1", helo: "127.0.0.1", mailFrom: "", hostname: "mx.test" },
    { ip: "127.0.0.1", helo: "", mailFrom: "", hostname: "mx.test" },
    { ip: "127.0.0.1", helo: "sender.test", mailFrom: "", hostname: "mx.test" },
    { ip: "192.0.2.1", helo: "client.test", mailFrom: "ann@sender.test", hostname: "mx.test" },
  ];
  const seen = new Set<string>();
  for (const [label, raw] of cases) {
    for (const c of connections) {
      const ours = await authenticate(raw, { ...c, resolver });
      const e = essentials(ours);
      seen.add(`dkim ${e.dkim[0]?.[1] ?? "none"}`).add(`spf ${e.spf?.[0]}`).add(`dmarc ${e.dmarc?.[0] ?? "none"}`);
      const theirs = await mailauthAuthenticate(raw, { ip: plainIp(c.ip), helo: c.helo || undefined, sender: c.mailFrom || undefined, mta: c.hostname, resolver, disableBimi: true } as never);
      expect({ label, ...e }).toEqual({ label, ...essentials(theirs as never) });
    }
  }
  // The cases do reach each outcome, so the comparison covers them.
  expect([...seen].sort()).toEqual(expect.arrayContaining(["dkim neutral", "dkim none", "dkim pass", "dmarc fail", "dmarc pass", "spf fail", "spf none", "spf pass"]));
});
