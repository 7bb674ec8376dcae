import { afterAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { dkimRecordContent, generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { dkimSign, rsaLibrary, useRsaLibrary } from "../../src/mail/dkim.ts";
import { OpensslRsa } from "../../src/mail/openssl-rsa.ts";
import { dkimpyVerdicts } from "../support/dkim-verdicts.ts";

const keys = [generateDkimKeyPair(), generateDkimKeyPair(), generateDkimKeyPair()];
const dkimKey = (i: number) => ({ domain: "sender.test", selector: `s${i}`, privateKeyPem: keys[i]!.privateKeyPem });
const records = Object.fromEntries(keys.map((k, i) => [`s${i}._domainkey.sender.test`, dkimRecordContent(k.publicKeyBase64)]));
// In memory: no lookup leaves the test.
const resolver = async (name: string) => {
  if (records[name]) return [[records[name]]];
  throw Object.assign(new Error("nx"), { code: "ENOTFOUND" });
};
const message = (i: number) =>
  Buffer.from(
    `From: Sender <a@sender.test>\r\nTo: b${i}@dest.test\r\nSubject: Message ${i} ${"ü".repeat(i % 7)}\r\nDate: Wed, 25 Nov 2026 03:00:00 +0000\r\n` +
      `Message-ID: <m${i}@sender.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${"line of text  \r\n".repeat(i)}end\r\n`,
  );
const at = new Date("2026-11-25T03:00:00Z");

afterAll(() => useRsaLibrary("auto"));

test("OpenSSL and WebCrypto make byte-identical DKIM signatures, message after message and key after key", async () => {
  const signAll = async () => {
    const out: Buffer[] = [];
    for (let i = 0; i < 60; i++) out.push(await dkimSign(message(i), dkimKey(i % 3), at));
    return out;
  };
  useRsaLibrary("webcrypto");
  const webcrypto = await signAll();
  expect(rsaLibrary()).toBe("WebCrypto (BoringSSL)");
  useRsaLibrary("openssl");
  const openssl = await signAll();
  expect(rsaLibrary()).toStartWith("OpenSSL (OpenSSL 3.");
  expect(openssl.map((m) => m.toString("latin1"))).toEqual(webcrypto.map((m) => m.toString("latin1")));
  // Distinct messages, distinct signatures: nothing was reused from a previous call.
  expect(new Set(openssl.map((m) => m.toString("latin1").split("\r\n\r\n")[0])).size).toBe(60);
});

test("a message signed through OpenSSL passes mailauth and dkimpy", async () => {
  useRsaLibrary("openssl");
  const signed = await dkimSign(message(5), dkimKey(1), at);
  const { results } = await dkimVerify(signed, { resolver });
  expect(results.map((r) => r.status.result)).toEqual(["pass"]);
  expect(await dkimpyVerdicts(signed, records)).toEqual([["pass", "rsa-sha256", "s1"]]);
});

test("the library is chosen by timing both at the first signature, and either one signs valid mail", async () => {
  useRsaLibrary("auto");
  expect(rsaLibrary()).toBeNull();
  // A key no library can read fails its message and leaves the choice to the next signature.
  await expect(dkimSign(message(3), { ...dkimKey(0), privateKeyPem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" }, at)).rejects.toThrow();
  expect(rsaLibrary()).toBeNull();
  const signed = await dkimSign(message(3), dkimKey(0), at);
  expect(rsaLibrary()).toMatch(/^(OpenSSL \(OpenSSL 3\.|WebCrypto \(BoringSSL\)$)/);
  expect((await dkimVerify(signed, { resolver })).results[0]!.status.result).toBe("pass");
});

test("OpenSSL declines what it cannot sign (null, the caller's cue to sign through WebCrypto), without asking for a passphrase", () => {
  const lib = OpensslRsa.load()!;
  const data = new Uint8Array(64);
  expect(lib.sign("not a key", data)).toBeNull();
  expect(lib.sign("", data)).toBeNull(); // nothing to point OpenSSL at: declined, not thrown
  const ed = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  expect(lib.sign(ed, data)).toBeNull();
  const encrypted = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem", cipher: "aes-128-cbc", passphrase: "x" }) as string;
  expect(lib.sign(encrypted, data)).toBeNull(); // no passphrase prompt: refused
  expect(lib.sign(keys[0]!.privateKeyPem, data)).toHaveLength(256);
  lib.close();
});

test("keys beyond the cache's bound are freed and opened again when next used", () => {
  const lib = OpensslRsa.load(2)!;
  const data = new Uint8Array(64);
  const first = keys.map((k) => lib.sign(k.privateKeyPem, data)!.toString("hex"));
  const again = [...keys].reverse().map((k) => lib.sign(k.privateKeyPem, data)!.toString("hex")).reverse();
  expect(again).toEqual(first);
  expect(new Set(first).size).toBe(3);
  lib.close();
  expect(lib.sign(keys[0]!.privateKeyPem, data)!.toString("hex")).toBe(first[0]!);
  lib.close();
});
