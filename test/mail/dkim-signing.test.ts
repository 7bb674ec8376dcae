import { afterAll, expect, test } from "bun:test";
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { generateCanonicalizedHeader } from "mailauth/lib/dkim/header";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { defaultDKIMFieldNames, formatSignatureHeaderLine, getSigningHeaderLines, parseHeaders } from "mailauth/lib/tools";
import { dkimRecordContent, generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { dkimSign, foldHeaderLine, headerEnd, relaxedBodyHash, rsaLibrary, useRsaLibrary } from "../../src/mail/dkim.ts";
import { OpensslRsa } from "../../src/mail/openssl-rsa.ts";
import { dkimpyVerdicts } from "../support/dkim-verdicts.ts";

// mailauth's own folding of its signature fields (a dependency of mailauth's, loaded as it loads it).
const formatSignatureFold = (text: string): string => (require("libmime") as { foldLines(s: string): string }).foldLines(text);

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

test("the relaxed body hash from the bytes, for a body already canonical, is the one RFC 6376's rules give through the string, for any body", () => {
  // RFC 6376 §3.4.4 as regular expressions over the text (what relaxedBodyHash does for a body that needs them).
  const theirs = (body: Buffer) => {
    let s = body.toString("latin1").replace(/\r?\n/g, "\r\n").replace(/[ \t]+\r\n/g, "\r\n").replace(/[ \t]+/g, " ").replace(/ $/, "").replace(/(\r\n)+$/, "");
    if (s.length > 0) s += "\r\n";
    return createHash("sha256").update(s, "latin1").digest("base64");
  };
  const base64Lines = Buffer.from(Array.from({ length: 40 }, (_, i) => `${Buffer.from(`line ${i} `.repeat(8)).toString("base64").slice(0, 76)}\r\n`).join(""));
  const bodies = [
    base64Lines, // what composing writes for an attachment: no blank to fold, CRLF lines
    Buffer.concat([base64Lines, Buffer.from("\r\n\r\n\r\n")]),
    Buffer.from("last line without a break"),
    Buffer.from("trailing blank \r\nend \r\n\r\n"),
    Buffer.from("two  blanks\r\nand\ta tab\r\n"),
    Buffer.from("bare\nline feeds\n"),
    Buffer.from("\nstarts with one"),
    Buffer.from("\r\n\r\n"),
    Buffer.from(""),
    Buffer.from(" "),
  ];
  for (const body of bodies) expect(relaxedBodyHash(body)).toBe(theirs(body));
});

/** What dkimSign wrote before it formatted the signature field itself: mailauth's canonicalization and formatter, BoringSSL's signature. */
async function signedByMailauth(raw: Buffer, key: { domain: string; selector: string; privateKeyPem: string }, now: Date): Promise<Buffer> {
  const split = headerEnd(raw);
  const headers = parseHeaders(raw.subarray(0, split));
  const present = new Set(headers.parsed.map((h) => h.key));
  const lines = getSigningHeaderLines(headers.parsed, `${defaultDKIMFieldNames}:List-Unsubscribe-Post`);
  const oversigned = ["From", "Subject", "Date", "Message-ID", "To", "Cc", "Reply-To", "List-Unsubscribe", "List-Unsubscribe-Post"];
  const h = [lines.keys, ...oversigned.filter((f) => present.has(f.toLowerCase()))].filter(Boolean).join(": ");
  const { canonicalizedHeader, dkimHeaderOpts } = generateCanonicalizedHeader("DKIM", { keys: h, headers: lines.headers }, {
    signingDomain: key.domain,
    selector: key.selector,
    algorithm: "rsa-sha256",
    canonicalization: "relaxed/relaxed",
    bodyHash: relaxedBodyHash(raw.subarray(split)),
    signTime: now,
  });
  dkimHeaderOpts.b = sign("sha256", canonicalizedHeader, key.privateKeyPem).toString("base64");
  return Buffer.concat([Buffer.from(formatSignatureHeaderLine("DKIM", dkimHeaderOpts, true) + "\r\n", "latin1"), raw]);
}

test("the signature field is byte for byte what mailauth's formatter writes, over headers that fold it at every place", async () => {
  useRsaLibrary("webcrypto");
  let seed = 5;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const names = ["From", "To", "Cc", "Subject", "Date", "Message-ID", "Reply-To", "In-Reply-To", "References", "List-Unsubscribe", "List-Unsubscribe-Post", "MIME-Version", "Content-Type", "X-Other"];
  const domains = ["a.test", "sender.test", "mail.a-rather-long-sending-domain-name.example", `${"x".repeat(60)}.test`];
  for (let i = 0; i < 60; i++) {
    const fields = names.filter(() => random(3) > 0).concat(Array.from({ length: random(4) }, () => names[random(names.length)]!));
    const head = fields.map((n) => `${n}: value ${i} ${"w ".repeat(random(30))}`.trimEnd() + "\r\n").join("");
    const raw = Buffer.from(`${head}From: A <a@sender.test>\r\n\r\nbody ${i}\r\n`);
    const key = { ...dkimKey(i % 3), domain: domains[random(domains.length)]!, selector: random(2) ? `s${i}` : `selector-${"z".repeat(random(40))}` };
    const when = new Date(Date.UTC(2026, 10, 25, 3) + random(10 ** 9) * 1000);
    expect((await dkimSign(raw, key, when)).toString("latin1")).toBe((await signedByMailauth(raw, key, when)).toString("latin1"));
  }
});

test("header folding is libmime's: cut before the last whitespace within 76 characters, a longer word kept whole", () => {
  let seed = 11;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const pieces = ["a", "bc", "; ", " ", "  ", "\t", "x".repeat(80), "=", ":", "y".repeat(5), "z".repeat(13), "w".repeat(29)];
  for (let i = 0; i < 3000; i++) {
    const text = "DKIM-Signature: " + Array.from({ length: random(120) }, () => pieces[random(pieces.length)]).join("");
    expect(foldHeaderLine(text)).toBe(formatSignatureFold(text));
    expect(foldHeaderLine(text).replace(/\r\n/g, "")).toBe(text);
  }
});
