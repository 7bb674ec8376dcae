/**
 * The import graph of src/ (scripts/check-imports.ts): no cycle, no lower layer importing a higher
 * one, beyond the violations listed in scripts/import-baseline.json, which may only shrink. The
 * checker itself is tried on a small tree of its own: each kind of import it must see, a new
 * violation, and a baseline entry that no longer holds.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "./helpers.ts";

const ROOT = join(import.meta.dir, "..");
const SCRIPT = join(ROOT, "scripts", "check-imports.ts");

function check(args: string[] = []): { code: number; out: string } {
  const r = Bun.spawnSync([process.execPath, SCRIPT, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

test("src/ has no cycle or layer violation beyond scripts/import-baseline.json, and every entry there still holds", () => {
  const { code, out } = check();
  if (code !== 0) console.log(out);
  expect(out).toMatch(/^import graph: \d+ files, \d+ edges/m);
  expect(out).toContain("import graph: ok");
  expect(code).toBe(0);
});

describe("the checker on a tree of its own", () => {
  /** A tree with src/ files (path → source) and a baseline; the checker's verdict on it. */
  function run(files: Record<string, string>, baseline: { cycles: string[][]; layer: string[] }) {
    const dir = tempDir("import-graph-");
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(join(dir, "baseline.json"), JSON.stringify(baseline));
    return check(["--root", dir, "--baseline", join(dir, "baseline.json")]);
  }
  const tree = {
    "src/log.ts": "export const log = 1;\n",
    // config.ts reaching a feature through a dynamic import.
    "src/config.ts": 'import { log } from "./log.ts";\nexport const load = () => import("./mail/shaping.ts");\n',
    "src/mail/shaping.ts": "export const shape = 1;\n",
    // db/ ↔ events/ through a type-only import one way and a re-export the other.
    "src/db/store.ts": 'import type { Status } from "../events/status";\nexport const store = 1;\n',
    "src/events/status.ts": 'export { store } from "../db/store.ts";\nexport type Status = string;\n',
    // smtp/ reaching modules/ in a type position, and http/ with require().
    "src/smtp/listener.ts": 'export type Ctl = import("../modules/send/index.ts").Ctl;\nconst h = require("../http/errors.ts");\n',
    "src/modules/send/index.ts": "export type Ctl = number;\n",
    "src/http/errors.ts": "export const e = 1;\n",
    // A comment or a string that looks like an import is not one.
    "src/dns/verify.ts": '// import { x } from "../modules/a.ts";\nexport const s = \'import("../http/errors.ts")\';\n',
  };
  const found = {
    cycles: [["src/db/store.ts", "src/events/status.ts"]],
    layer: [
      "src/config.ts -> src/mail/shaping.ts",
      "src/db/store.ts -> src/events/status.ts",
      "src/smtp/listener.ts -> src/http/errors.ts",
      "src/smtp/listener.ts -> src/modules/send/index.ts",
    ],
  };

  test("with an empty baseline, every violation is new: the cycle with its members, and each layer violation", () => {
    const { code, out } = run(tree, { cycles: [], layer: [] });
    expect(code).toBe(1);
    expect(out).toContain("import graph: 9 files, 6 edges");
    expect(out).toContain("FAIL new cycle (2 files): src/db/store.ts, src/events/status.ts");
    for (const edge of found.layer) expect(out).toContain(`FAIL new layer violation: ${edge} (`);
    expect(out).toContain("layer violations: 4");
    expect(out).not.toContain("dns/verify.ts ->");
  });

  test("with today's violations listed, it passes", () => {
    const { code, out } = run(tree, found);
    expect(out).toContain("import graph: ok (1 known cycle(s), 4 known layer violation(s)");
    expect(code).toBe(0);
  });

  test("a listed violation that is gone fails until the baseline drops it (the baseline only shrinks)", () => {
    const fixed = { ...tree, "src/config.ts": 'import { log } from "./log.ts";\n' };
    const { code, out } = run(fixed, found);
    expect(code).toBe(1);
    expect(out).toContain("baseline lists a layer violation that is gone: src/config.ts -> src/mail/shaping.ts");
  });

  test("a listed cycle that shrank fails as stale, not as new; a cycle with a file outside every listed one is new", () => {
    const three = {
      ...tree,
      "src/db/store.ts": 'import type { Status } from "../events/status";\nimport { q } from "./queue.ts";\nexport const store = 1;\n',
      "src/db/queue.ts": 'import { store } from "./store.ts";\nexport const q = 1;\n',
    };
    const listed = { cycles: [["src/db/queue.ts", "src/db/store.ts", "src/events/status.ts"]], layer: found.layer };
    expect(run(three, listed).code).toBe(0);
    const shrunk = run(tree, listed);
    expect(shrunk.code).toBe(1);
    expect(shrunk.out).toContain("baseline lists a cycle that is no longer so (src/db/queue.ts, src/db/store.ts, src/events/status.ts); today: [src/db/store.ts, src/events/status.ts]");
    expect(shrunk.out).not.toContain("new cycle");
    const grown = run(three, found);
    expect(grown.code).toBe(1);
    expect(grown.out).toContain("FAIL new cycle (3 files): src/db/queue.ts, src/db/store.ts, src/events/status.ts");
  });
});
