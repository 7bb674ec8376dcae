import { expect, test } from "bun:test";
import { newId } from "../../src/ids.ts";
import { LEGACY_VERP_MS, parseLegacyVerpLocalPart, parseVerpLocalPart, verpAddress, verpCutoverOf } from "../../src/mail/verp.ts";
import { createTestApp } from "../helpers.ts";
import { signValue } from "../../src/secrets.ts";

const HOUR = 3600_000;

/** The return path the previous version sent: a 10-hex (40-bit) signature, purpose "verp". */
const legacyLocal = (secret: string, id: string) => {
  const hex = id.replace(/-/g, "");
  return `b.${hex}.${signValue(secret, "verp", hex, 10)}`;
};

const tamper = (s: string) => s.slice(0, -1) + (s.endsWith("0") ? "1" : "0");

test("a VERP address round-trips to its recipient and rejects forgeries", () => {
  const id = newId();
  const addr = verpAddress("secret-1", id, "ph-bounces.example.com");
  const local = addr.split("@")[0]!;
  expect(parseVerpLocalPart("secret-1", local)).toBe(id);
  expect(parseVerpLocalPart("secret-1", local.toUpperCase())).toBe(id);
  expect(parseVerpLocalPart("secret-2", local)).toBeNull();
  expect(parseVerpLocalPart("secret-1", tamper(local))).toBeNull();
  expect(parseVerpLocalPart("secret-1", "postmaster")).toBeNull();
});

test("the signature is 80 bits (20 hex) and the local part stays within RFC 5321's 64 octets", () => {
  const id = newId();
  const addr = verpAddress("secret-1", id, "ph-bounces.example.com");
  expect(addr).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{20}@ph-bounces\.example\.com$/);
  expect(addr.split("@")[0]!.length).toBeLessThanOrEqual(64);
  // The signature is not the old 40-bit one extended: knowing (or having guessed) a legacy
  // signature gives away nothing of the new one.
  const sig = addr.split("@")[0]!.split(".")[2]!;
  expect(sig.slice(0, 10)).not.toBe(legacyLocal("secret-1", id).split(".")[2]);
});

test("a 10-hex truncation of a new address is refused, in either form and whatever the recipient's age", () => {
  const now = Date.now();
  // A recipient old enough that its legacy form would be accepted, and a new one.
  for (const id of [Bun.randomUUIDv7("hex", now - HOUR), newId()]) {
    const local = verpAddress("secret-1", id, "b.example").split("@")[0]!;
    const truncated = local.slice(0, -10);
    expect(truncated).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{10}$/);
    expect(parseVerpLocalPart("secret-1", truncated)).toBeNull();
    expect(parseLegacyVerpLocalPart("secret-1", truncated, now + HOUR, now)).toBeNull();
  }
});

test("legacy 40-bit return paths: accepted only for recipients created before the cutover and within 7 days", () => {
  const now = Date.now();
  const cutover = now - HOUR;
  const before = Bun.randomUUIDv7("hex", cutover - 2 * HOUR);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", before), cutover, now)).toBe(before);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", before).toUpperCase(), cutover, now)).toBe(before);
  // Never in the new parser: the legacy form is only accepted through the time-limited check.
  expect(parseVerpLocalPart("s", legacyLocal("s", before))).toBeNull();
  // Forged, or under another server's secret.
  expect(parseLegacyVerpLocalPart("s", tamper(legacyLocal("s", before)), cutover, now)).toBeNull();
  expect(parseLegacyVerpLocalPart("other", legacyLocal("s", before), cutover, now)).toBeNull();
  // Created at or after the cutover: it was sent with an 80-bit signature, so a 40-bit one is forged.
  const after = Bun.randomUUIDv7("hex", cutover + 1);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", after), cutover, now)).toBeNull();
  const atCutover = Bun.randomUUIDv7("hex", cutover);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", atCutover), cutover, now)).toBeNull();
  // More than 7 days old: no longer accepted (the window closes a week after the upgrade).
  const old = Bun.randomUUIDv7("hex", now - LEGACY_VERP_MS - 1);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", old), now, now)).toBeNull();
  const justInside = Bun.randomUUIDv7("hex", now - LEGACY_VERP_MS + 1000);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", justInside), now, now)).toBe(justInside);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", justInside), now, now + 2000)).toBeNull();
  // Not a UUIDv7 (so no creation time to check), even when its first bits read as a fitting time.
  const notV7 = before.slice(0, 14) + "4" + before.slice(15);
  expect(parseLegacyVerpLocalPart("s", legacyLocal("s", notV7), cutover, now)).toBeNull();
  expect(LEGACY_VERP_MS).toBe(7 * 24 * HOUR);
});

test("the cutover is recorded in settings the first time and never moves", async () => {
  const t = createTestApp();
  try {
    expect(await verpCutoverOf(t.deps.store, 1_000)).toBe(1_000);
    expect(await verpCutoverOf(t.deps.store, 5_000)).toBe(1_000);
    expect(await t.deps.store.read.settings.get("verp_80bit_signatures_since")).toBe("1000");
  } finally {
    await t.deps.store.close();
  }
});
