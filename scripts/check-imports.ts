/**
 * The import graph of src/: no cycle, no lower layer importing a higher one.
 *
 *   bun scripts/check-imports.ts                   check against scripts/import-baseline.json
 *   bun scripts/check-imports.ts --layers          also print the directory-level graph
 *   bun scripts/check-imports.ts --update-baseline rewrite the baseline after a refactor removed some
 *   … --root DIR --baseline FILE                   another tree (test/import-graph.test.ts)
 *
 * Every src/**\/*.ts(x) file (not .d.ts) is parsed with TypeScript's parser; an edge is any import
 * of a relative path: `import … from`, `import type … from`, `export … from`, `import("…")` and
 * `require("…")` with a string literal, and `import("…")` in a type. Type-only imports count: they
 * tie a lower layer's code to a higher one's shapes all the same (each edge says which kind it is).
 * Packages (`elysia`, `node:fs`, `bun:sqlite`) are not in the graph.
 *
 * Layers, lowest first, as the code stands (December 2026; LAYERS below). A file may import its
 * own layer and any lower one, never a higher one. Files in one layer may import each other (only
 * cycles are refused there). The house rules are the parts of this order that reviews enforce:
 * `mail`, `smtp`, `dns`, `jobs`, `events` never import `http/` or `modules/`; `db/` imports nothing
 * above the leaves; config.ts imports no feature (CONFIG_MAY_IMPORT: leaves only).
 *    0  leaves: log.ts, ids.ts, errors.ts, untrusted/ (prototype-free records, length bounds, bounded
 *       reads for what comes from outside), pacing/ (retry schedules, per-destination limits),
 *       memory/ (the server's allocator options and heap collection), net/ (IP addresses and CIDR networks)
 *    1  config.ts
 *    2  db/ (repositories, the store, migrations)
 *    3  jobs/, dns/, secrets.ts
 *    4  context.ts, runtime.ts and upgrades/ (the shared dependencies, the code that builds them,
 *       and the data upgrades in code it runs after the migrations)
 *    5  events/
 *    6  auth/
 *    7  mail/
 *    8  sending/, tls/, reports/ (DMARC and TLS reports: their addresses, reading them within bounds, storing them),
 *       deliverability/ (blocklist checks)
 *    9  smtp/
 *   10  http/, web/
 *   11  modules/ (the controllers and their services)
 *   12  app.ts, bootstrap.ts, server.ts, job-handlers.ts (every queue and its handler), cli/ (the
 *       commands), main.ts
 * A file outside every layer (a new top-level file or directory) is reported, not failed: add it.
 *
 * Violations found today are listed in scripts/import-baseline.json. The check fails on any
 * violation not in it, and on any entry in it that no longer holds (a cycle that shrank or went,
 * an edge that was removed): the baseline can only shrink, and `--update-baseline` rewrites it
 * (refusing to add anything new once the file exists).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** The repository; `--root DIR` and `--baseline FILE` point elsewhere (the tests use a tree of their own). */
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const ROOT = resolve(arg("--root") ?? join(import.meta.dir, ".."));
const SRC = join(ROOT, "src");
const BASELINE = resolve(arg("--baseline") ?? join(ROOT, "scripts", "import-baseline.json"));

/** What config.ts may import: leaves with no feature in them. */
const CONFIG_MAY_IMPORT = new Set(["src/log.ts", "src/ids.ts", "src/errors.ts", "src/untrusted/bounds.ts", "src/untrusted/dict.ts", "src/net/ip.ts", "src/pacing/destination-policy.ts"]);

const LAYERS: string[][] = [
  ["log.ts", "ids.ts", "errors.ts", "untrusted", "pacing", "memory", "net"],
  ["config.ts"],
  ["db"],
  ["jobs", "dns", "secrets.ts"],
  ["context.ts", "runtime.ts", "upgrades"],
  ["events"],
  ["auth"],
  ["mail"],
  ["sending", "tls", "reports", "deliverability"],
  ["smtp"],
  ["http", "web"],
  ["modules"],
  ["app.ts", "bootstrap.ts", "server.ts", "job-handlers.ts", "cli", "main.ts"],
];
const rankOf = (group: string): number | undefined => {
  const i = LAYERS.findIndex((l) => l.includes(group));
  return i < 0 ? undefined : i;
};
const DOMAIN = ["mail", "smtp", "dns", "jobs", "events"];

/** Which rule an upward edge breaks, in the house's words where it has some. */
function ruleOf(from: string, to: string, gf: string, gt: string): string | null {
  if (from === "src/config.ts") return CONFIG_MAY_IMPORT.has(to) ? null : "config.ts imports no feature";
  const [rf, rt] = [rankOf(gf), rankOf(gt)];
  if (rf === undefined || rt === undefined || rt <= rf) return null;
  if (DOMAIN.includes(gf) && (gt === "http" || gt === "modules")) return `${gf}/ never imports ${gt}/`;
  if (gf === "db") return `db/ imports nothing above it (${gt} is layer ${rt})`;
  return `layer ${rf} (${gf}) imports layer ${rt} (${gt})`;
}

type Kind = "import" | "type" | "dynamic" | "require" | "re-export";
interface Edge {
  from: string;
  to: string;
  kind: Kind;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

function resolveImport(fromFile: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(fromFile), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

/** The relative imports of one file, with their kind. */
function importsOf(file: string): { spec: string; kind: Kind }[] {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ESNext, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { spec: string; kind: Kind }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      const typeOnly =
        !!c &&
        (c.isTypeOnly ||
          (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      found.push({ spec: node.moduleSpecifier.text, kind: typeOnly ? "type" : "import" });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, kind: node.isTypeOnly ? "type" : "re-export" });
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0]!)) {
      const arg = (node.arguments[0] as ts.StringLiteralLike).text;
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) found.push({ spec: arg, kind: "dynamic" });
      else if (ts.isIdentifier(node.expression) && node.expression.text === "require") found.push({ spec: arg, kind: "require" });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, kind: "type" });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const rel = (p: string): string => relative(ROOT, p).split("\\").join("/");
/** A file's group: its directory under src/ (`db`, `mail`, …) or, at the top, its own name (`config.ts`). */
const groupOf = (file: string): string => file.split("/")[1]!;

/** Tarjan's strongly connected components; those of more than one file, or a file importing itself. */
function cycles(nodes: string[], adj: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || adj.get(v)?.has(v)) out.push(scc.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

export interface Report {
  files: number;
  edges: Edge[];
  cycles: string[][];
  /** "src/a.ts -> src/b.ts" with the rule's name. */
  layer: { edge: string; rule: string; kind: Kind }[];
  /** Groups (top-level files or directories of src/) in no layer. */
  unranked: string[];
}

export function analyse(): Report {
  const files = walk(SRC).map(rel).sort();
  // One edge per pair of files; its kind is a value import's where there is one.
  const byPair = new Map<string, Edge>();
  for (const f of files) {
    for (const { spec, kind } of importsOf(join(ROOT, f))) {
      const target = resolveImport(join(ROOT, f), spec);
      if (!target) continue;
      const to = rel(target);
      if (to.endsWith(".d.ts") || !to.startsWith("src/")) continue;
      const key = `${f} -> ${to}`;
      const had = byPair.get(key);
      if (!had) byPair.set(key, { from: f, to, kind });
      else if (had.kind === "type" && kind !== "type") had.kind = kind;
    }
  }
  const edges = [...byPair.values()];
  const adj = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!adj.has(e.from)) adj.set(e.from, new Set());
    adj.get(e.from)!.add(e.to);
  }
  const layer: Report["layer"] = [];
  for (const e of edges) {
    const rule = ruleOf(e.from, e.to, groupOf(e.from), groupOf(e.to));
    if (rule) layer.push({ edge: `${e.from} -> ${e.to}`, rule, kind: e.kind });
  }
  const unranked = [...new Set(files.map(groupOf))].filter((g) => rankOf(g) === undefined).sort();
  return { files: files.length, edges, cycles: cycles(files, adj), layer, unranked };
}

export interface Baseline {
  cycles: string[][];
  layer: string[];
}

export interface Verdict {
  newCycles: string[][];
  staleCycles: { listed: string[]; now: string[][] }[];
  newLayer: string[];
  staleLayer: string[];
}

/** A cycle is known when a listed one contains it (it may have shrunk: that listing is then stale). */
export function compare(r: Report, b: Baseline): Verdict {
  const sameSet = (a: string[], c: string[]) => a.length === c.length && a.every((x) => c.includes(x));
  const newCycles = r.cycles.filter((c) => !b.cycles.some((l) => c.every((f) => l.includes(f))));
  const staleCycles = b.cycles
    .filter((l) => !r.cycles.some((c) => sameSet(c, l)))
    .map((l) => ({ listed: l, now: r.cycles.filter((c) => c.some((f) => l.includes(f))) }));
  const now = new Set(r.layer.map((v) => v.edge));
  const listed = new Set(b.layer);
  return {
    newCycles,
    staleCycles,
    newLayer: [...now].filter((e) => !listed.has(e)),
    staleLayer: [...listed].filter((e) => !now.has(e)),
  };
}

export const readBaseline = (): Baseline =>
  existsSync(BASELINE) ? (JSON.parse(readFileSync(BASELINE, "utf8")) as Baseline) : { cycles: [], layer: [] };

function main(): number {
  const args = process.argv.slice(2);
  const r = analyse();
  const byKind = (k: Kind) => r.edges.filter((e) => e.kind === k).length;
  console.log(
    `import graph: ${r.files} files, ${r.edges.length} edges (${byKind("import")} import, ${byKind("type")} type-only, ${byKind("dynamic")} dynamic, ${byKind("re-export")} re-export, ${byKind("require")} require)`,
  );
  if (args.includes("--layers")) {
    const counts = new Map<string, number>();
    for (const e of r.edges) {
      const [a, b] = [groupOf(e.from), groupOf(e.to)];
      if (a !== b) counts.set(`${a} -> ${b}`, (counts.get(`${a} -> ${b}`) ?? 0) + 1);
    }
    for (const [k, n] of [...counts].sort()) console.log(`  ${k} (${n})`);
  }
  console.log(`cycles: ${r.cycles.length}`);
  r.cycles.forEach((c, i) => {
    console.log(`  cycle ${i + 1} (${c.length} files): ${c.join(", ")}`);
    const inside = r.edges.filter((e) => c.includes(e.from) && c.includes(e.to));
    console.log(`    its ${inside.length} edges: ${inside.map((e) => `${e.from.slice(4)} -> ${e.to.slice(4)}${e.kind === "import" ? "" : ` (${e.kind})`}`).join("; ")}`);
  });
  console.log(`layer violations: ${r.layer.length}`);
  for (const v of r.layer) console.log(`  ${v.edge} (${v.rule}${v.kind === "import" ? "" : `; ${v.kind}`})`);

  if (r.unranked.length) console.log(`warning: in no layer (add them to LAYERS in scripts/check-imports.ts): ${r.unranked.join(", ")}`);
  const base = readBaseline();
  const v = compare(r, base);
  if (args.includes("--update-baseline")) {
    if (existsSync(BASELINE) && (v.newCycles.length || v.newLayer.length)) {
      console.error("refused: the graph has violations the baseline does not list; remove them, the baseline only shrinks");
    } else {
      const next: Baseline = { cycles: r.cycles, layer: r.layer.map((l) => l.edge).sort() };
      writeFileSync(BASELINE, `${JSON.stringify(next, null, 2)}\n`);
      console.log(`baseline written: ${next.cycles.length} cycles, ${next.layer.length} layer violations`);
      return 0;
    }
  }
  const problems: string[] = [];
  for (const c of v.newCycles) problems.push(`new cycle (${c.length} files): ${c.join(", ")}`);
  for (const e of v.newLayer) problems.push(`new layer violation: ${e} (${r.layer.find((l) => l.edge === e)!.rule})`);
  for (const s of v.staleCycles)
    problems.push(
      `baseline lists a cycle that is no longer so (${s.listed.join(", ")}); today: ${s.now.length ? s.now.map((c) => `[${c.join(", ")}]`).join(" ") : "gone"} — run bun scripts/check-imports.ts --update-baseline`,
    );
  for (const e of v.staleLayer) problems.push(`baseline lists a layer violation that is gone: ${e} — run bun scripts/check-imports.ts --update-baseline`);
  const known = r.cycles.length - v.newCycles.length;
  const knownLayer = r.layer.length - v.newLayer.length;
  if (problems.length) {
    for (const p of problems) console.log(`FAIL ${p}`);
    console.log(`import graph: ${problems.length} problem(s); ${known} cycle(s) and ${knownLayer} layer violation(s) known in scripts/import-baseline.json`);
    return 1;
  }
  console.log(`import graph: ok (${known} known cycle(s), ${knownLayer} known layer violation(s) in scripts/import-baseline.json, to be removed)`);
  return 0;
}

if (import.meta.main) process.exit(main());
