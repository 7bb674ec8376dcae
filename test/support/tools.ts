/**
 * The one place a test asks for a tool the machine may lack: PostgreSQL's server binaries,
 * Postfix, SpamAssassin's samples, Chromium, pebble, and the `he` package. On a laptop without
 * one, the tests that need it are skipped. `.ci/run` installs every one of them, so under
 * `CI=true` a missing tool is a failure: `requireTool` then adds a failing test that names the
 * tool and how to install it, and the tests that need it are still skipped (the closing line of
 * `.ci/run` counts them as `N skipped`).
 *
 *   describe.skipIf(!requireTool("chromium"))("in Chromium", () => { … });
 *   test.skipIf(!requireTool("pebble") || engine !== "postgres")("…", async () => { … });
 *
 * `POSTHORN_TEST_HIDE_TOOLS=chromium,pebble` makes the named tools count as missing, to see the
 * helper at work without uninstalling anything.
 */
import { test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export type Tool = "postgresql" | "postfix" | "spamassassin" | "chromium" | "pebble" | "he";

/** Where each comes from, for the failure message. */
const INSTALL: Record<Tool, string> = {
  postgresql: "apt-get install postgresql (server binaries under /usr/lib/postgresql/*/bin)",
  postfix: "apt-get install postfix (/usr/sbin/postfix), and run the tests as root",
  spamassassin: "apt-get install spamassassin (/usr/share/doc/spamassassin/examples)",
  chromium: "apt-get install chromium (on PATH)",
  pebble: "apt-get install pebble (on PATH)",
  he: "npm ci (he is a dependency of mailparser)",
};

/** The directory of the newest PostgreSQL server binaries, or null. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, "bin") : null;
}

export const POSTFIX = "/usr/sbin/postfix";
export const POSTFIX_MASTER = "/usr/lib/postfix/sbin/master";
export const SPAMASSASSIN_SAMPLES = "/usr/share/doc/spamassassin/examples";

const PROBES: Record<Tool, () => boolean> = {
  postgresql: () => postgresBinDir() !== null,
  // The master must run as root.
  postfix: () => existsSync(POSTFIX) && existsSync(POSTFIX_MASTER) && process.getuid?.() === 0,
  spamassassin: () => existsSync(join(SPAMASSASSIN_SAMPLES, "sample-spam.txt")) && existsSync(join(SPAMASSASSIN_SAMPLES, "sample-nonspam.txt")),
  chromium: () => Bun.which("chromium") !== null,
  pebble: () => Bun.which("pebble") !== null,
  he: () => {
    try {
      require.resolve("he");
      return true;
    } catch {
      return false;
    }
  },
};

const hidden = (): Set<string> =>
  new Set((process.env.POSTHORN_TEST_HIDE_TOOLS ?? "").split(",").map((s) => s.trim()).filter(Boolean));

/** Whether `tool` is here (and not hidden by POSTHORN_TEST_HIDE_TOOLS). No test is added. */
export function hasTool(tool: Tool): boolean {
  return !hidden().has(tool) && PROBES[tool]();
}

const inCi = (): boolean => {
  const ci = (process.env.CI ?? "").toLowerCase();
  return ci !== "" && ci !== "0" && ci !== "false";
};

/**
 * Whether `tool` is here. Where it is not: outside CI, false (the caller skips its tests);
 * under CI=true, also a failing test in the caller's scope, named after the tool, so the run
 * cannot go green by skipping.
 */
export function requireTool(tool: Tool): boolean {
  if (hasTool(tool)) return true;
  if (inCi()) {
    test(`CI=true needs ${tool} (the tests that use it would be skipped)`, () => {
      throw new Error(
        `${tool} is missing${hidden().has(tool) ? " (hidden by POSTHORN_TEST_HIDE_TOOLS)" : ""}: under CI=true a test that needs it fails instead of skipping. Install: ${INSTALL[tool]}; .ci/run does.`,
      );
    });
  }
  return false;
}
