import { describe, expect, test } from "bun:test";
import { jsonDepthExceeds } from "../../src/http/body.ts";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("jsonDepthExceeds", () => {
  test("a body with few brackets is within the bound, and nesting is measured at the bound's edge", () => {
    expect(jsonDepthExceeds(JSON.stringify({ to: ["a@b.test"], subject: "x", metadata: { k: "v" } }), 32)).toBe(false);
    expect(jsonDepthExceeds(nested(32), 32)).toBe(false);
    expect(jsonDepthExceeds(nested(33), 32)).toBe(true);
    expect(jsonDepthExceeds(`{"a":${nested(33)}}`, 33)).toBe(true);
  });

  test("many brackets that do not nest, or sit inside strings, are not depth", () => {
    // More openers than the bound, so the character walk decides.
    expect(jsonDepthExceeds(JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ to: [`u${i}@b.test`] }))), 32)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ subject: "[".repeat(100), html: "{".repeat(100) }), 32)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ subject: '\\"[' + "[".repeat(40) }), 32)).toBe(false);
  });
});
