import { describe, expect, test } from "bun:test";
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpCode, totpStep } from "../../src/auth/totp.ts";

// RFC 6238 Appendix B: the seeds are ASCII "1234567890" repeated to the hash's key size; 8 digits.
const SEEDS = {
  sha1: Buffer.from("12345678901234567890"),
  sha256: Buffer.from("12345678901234567890123456789012"),
  sha512: Buffer.from("1234567890123456789012345678901234567890123456789012345678901234"),
};
const VECTORS: [number, string, string, string][] = [
  [59, "94287082", "46119246", "90693936"],
  [1111111109, "07081804", "68084774", "25091201"],
  [1111111111, "14050471", "67062674", "99943326"],
  [1234567890, "89005924", "91819424", "93441116"],
  [2000000000, "69279037", "90698825", "38618901"],
  [20000000000, "65353130", "77737706", "47863826"],
];

describe("TOTP (RFC 6238)", () => {
  test("the Appendix B test vectors, SHA1, SHA256 and SHA512", () => {
    for (const [seconds, sha1, sha256, sha512] of VECTORS) {
      expect(totpCode(SEEDS.sha1, seconds * 1000, 8, "sha1")).toBe(sha1);
      expect(totpCode(SEEDS.sha256, seconds * 1000, 8, "sha256")).toBe(sha256);
      expect(totpCode(SEEDS.sha512, seconds * 1000, 8, "sha512")).toBe(sha512);
    }
  });

  test("RFC 4226 Appendix D HOTP values (6 digits) and base32 round trips (RFC 4648 vector)", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    expected.forEach((code, counter) => expect(hotp(SEEDS.sha1, counter)).toBe(code));
    expect(base32Encode(Buffer.from("foobar"))).toBe("MZXW6YTBOI");
    expect(base32Decode("mzxw 6ytb oi======").toString()).toBe("foobar");
    expect(() => base32Decode("MZ1W")).toThrow();
  });

  test("a code is accepted one step either side, not two; never at or before the last step used", () => {
    const secret = base32Encode(SEEDS.sha1);
    const now = 1111111111_000;
    const step = totpStep(now);
    const codeAt = (s: number) => hotp(SEEDS.sha1, s);
    expect(matchTotp(secret, codeAt(step), now, null)).toBe(step);
    expect(matchTotp(secret, codeAt(step - 1), now, null)).toBe(step - 1);
    expect(matchTotp(secret, codeAt(step + 1), now, null)).toBe(step + 1);
    expect(matchTotp(secret, codeAt(step - 2), now, null)).toBeNull();
    expect(matchTotp(secret, codeAt(step + 2), now, null)).toBeNull();
    expect(matchTotp(secret, codeAt(step), now, step)).toBeNull(); // replayed
    expect(matchTotp(secret, codeAt(step - 1), now, step)).toBeNull(); // older than the last used
    expect(matchTotp(secret, codeAt(step + 1), now, step)).toBe(step + 1);
    expect(matchTotp(secret, `${codeAt(step).slice(0, 3)} ${codeAt(step).slice(3)}`, now, null)).toBe(step);
    expect(matchTotp(secret, "12345", now, null)).toBeNull();
    expect(otpauthUri(secret, "a@example.com", "Posthorn (x)")).toBe(
      `otpauth://totp/Posthorn%20(x):a%40example.com?secret=${secret}&issuer=Posthorn+%28x%29&algorithm=SHA1&digits=6&period=30`,
    );
  });
});
