/**
 * The operator's global suppression list through the real CLI (posthorn suppressions global …),
 * on a data directory of its own; its effect on sending (every team's mail) and its absence from
 * the team API are in suppressions.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../../helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "..", "src", "main.ts");
const dataDir = tempDir("global-suppressions-");
const env = { ...process.env, POSTHORN_DATA_DIR: dataDir, POSTHORN_LOG_LEVEL: "error", POSTHORN_DATABASE_URL: "" };

function posthorn(...args: string[]) {
  const p = Bun.spawnSync([process.execPath, MAIN, "suppressions", "global", ...args], { env, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString().trim(), stderr: p.stderr.toString().trim() };
}

describe("posthorn suppressions global", () => {
  test("add (lower-cased, a repeat skipped), list, remove by value or id; bad input refused with exit 1 and nothing stored", () => {
    expect(posthorn("add", "domain", "Spamtrap.Example", "other.example", "--reason", "spam_complaint")).toMatchObject({ code: 0, stdout: "2 added to the global suppression list" });
    expect(posthorn("add", "domain", "spamtrap.example").stdout).toBe("0 added to the global suppression list, 1 already on it (spamtrap.example)");
    expect(posthorn("add", "extension", ".xyz").code).toBe(0);
    expect(posthorn("add", "email", "Trap@Example.org").code).toBe(0);

    for (const [args, says] of [
      [["add", "domain", "a@b.example"], "not an email address"],
      [["add", "domain", "bad domain.example"], "must be a domain name"],
      [["add", "planet", "x.example"], "the type must be one of: email, domain, extension"],
      [["add", "email", "x@y.example", "--reason", "bored"], "--reason must be one of"],
      [["add", "email"], "give at least one value"],
    ] as const) {
      const r = posthorn(...args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(says);
    }

    const listed = JSON.parse(posthorn("list", "--json").stdout) as { id: string; type: string; value: string; reason: string; scope: string }[];
    expect(listed.map((r) => [r.type, r.value, r.reason, r.scope])).toEqual([
      ["domain", "spamtrap.example", "spam_complaint", "global"],
      ["domain", "other.example", "spam_complaint", "global"],
      ["extension", "xyz", "manual", "global"],
      ["email", "trap@example.org", "manual", "global"],
    ]);
    expect(posthorn("list").stdout).toContain("spamtrap.example");

    expect(posthorn("remove", "SPAMTRAP.example")).toMatchObject({ code: 0, stdout: "1 removed from the global suppression list" });
    expect(posthorn("remove", listed[1]!.id).code).toBe(0);
    expect(posthorn("remove", "nothing.example")).toMatchObject({ code: 1 });
    expect((JSON.parse(posthorn("list", "--json").stdout) as { value: string }[]).map((r) => r.value)).toEqual(["xyz", "trap@example.org"]);
  }, 90_000); // 14 processes, each opening the database

  test("anything but global list|add|remove is a usage error (exit 2)", () => {
    expect(posthorn("purge").code).toBe(2);
    const p = Bun.spawnSync([process.execPath, MAIN, "suppressions", "team", "list"], { env, stdout: "pipe", stderr: "pipe" });
    expect(p.exitCode).toBe(2);
    expect(p.stderr.toString()).toContain("posthorn suppressions global list");
  });
});
