import { expect, test } from "bun:test";
import { newId } from "../../src/ids.ts";
import { parseVerpLocalPart, verpAddress } from "../../src/mail/verp.ts";

test("a VERP address round-trips to its recipient and rejects forgeries", () => {
  const id = newId();
  const addr = verpAddress("secret-1", id, "ph-bounces.example.com");
  expect(addr).toMatch(/^b\.[0-9a-f]{32}\.[0-9a-f]{10}@ph-bounces\.example\.com$/);
  const local = addr.split("@")[0]!;
  expect(parseVerpLocalPart("secret-1", local)).toBe(id);
  expect(parseVerpLocalPart("secret-2", local)).toBeNull();
  expect(parseVerpLocalPart("secret-1", local.slice(0, -1) + (local.endsWith("0") ? "1" : "0"))).toBeNull();
  expect(parseVerpLocalPart("secret-1", "postmaster")).toBeNull();
});
