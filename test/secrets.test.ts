import { describe, expect, test } from "bun:test";
import { serverSecretIn, serverSecretOf } from "../src/secrets.ts";
import { createTestApp } from "./helpers.ts";

describe("the server secret", () => {
  test("is created once, on first use, and every way of reading it agrees", async () => {
    const t = createTestApp();
    expect(await t.deps.store.read.settings.get("server_secret")).toBeNull();
    const secret = await serverSecretOf(t.deps.store);
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await serverSecretOf(t.deps.store)).toBe(secret);
    expect(await t.deps.store.write((tx) => serverSecretIn(tx))).toBe(secret);
  });

  test("inside a write it is created in that write", async () => {
    const t = createTestApp();
    const secret = await t.deps.store.write((tx) => serverSecretIn(tx));
    expect(await t.deps.store.read.settings.get("server_secret")).toBe(secret);
  });
});
