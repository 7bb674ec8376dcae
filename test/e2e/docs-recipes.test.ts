/**
 * The recipes of docs/, run word for word. A shell block a reader would paste is marked in its
 * fence: ```sh tested (this test runs it) or ```sh untested: <why> (it needs what a test cannot
 * have, e.g. root and systemd). An unmarked shell block fails the first test, so a new recipe
 * cannot slip in untried.
 *
 * Each page's tested blocks run in order in one bash session, in a scratch directory, against a
 * fresh server started as the README's first recipe starts it (`POSTHORN_DELIVERY=sink
 * POSTHORN_REQUIRE_VERIFIED_DOMAIN=false npm start`), whose `export …` line is pasted first, as
 * the pages say. `posthorn` on the PATH is the clone's `bin/posthorn` (the installed binary's
 * commands). A block must exit 0; a ```text output block right after it holds lines its output
 * must show, in order (`…` stands for anything). ```sh tested, until output matches is run again
 * (for up to 15 s) until it does: for what happens a moment later.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signatureHeader } from "../../src/events/signature.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { freePort } from "./fixtures/outbound-server.ts";
import { machineEnv, root, Shell, startServer, stopGroup } from "./fixtures/shell.ts";

const DOCS = join(root, "docs");
const SHELL_LANGS = new Set(["sh", "bash", "shell", "console", "zsh"]);

interface Block {
  info: string;
  code: string;
  line: number;
  output?: string;
  retry: boolean;
}

/** The fenced blocks of a Markdown text, each shell block with the ```text output block that follows it. */
function parseBlocks(markdown: string): Block[] {
  const found: Array<{ info: string; code: string; line: number; end: number; start: number }> = [];
  // A fence may be indented (inside a list item); its lines lose that indentation.
  for (const m of markdown.matchAll(/^([ \t]*)```([^\n`]*)\n([\s\S]*?)^\1```[ \t]*$/gm)) {
    const indent = m[1]!.length;
    const code = m[3]!.split("\n").map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join("\n");
    found.push({ info: m[2]!.trim(), code, start: m.index!, end: m.index! + m[0].length, line: markdown.slice(0, m.index!).split("\n").length });
  }
  const blocks: Block[] = [];
  for (let i = 0; i < found.length; i++) {
    const b = found[i]!;
    if (b.info === "text output") continue;
    const next = found[i + 1];
    const output = next && next.info === "text output" && markdown.slice(b.end, next.start).trim() === "" ? next.code : undefined;
    blocks.push({ info: b.info, code: b.code, line: b.line, output, retry: /\buntil output matches\b/.test(b.info) });
  }
  return blocks;
}

const isShell = (b: Block) => SHELL_LANGS.has(b.info.split(/[\s:]/)[0]!);
const isTested = (b: Block) => /^sh tested\b/.test(b.info);

/** Whether `out` shows every line of `expected`, in order; `…` in a line stands for anything. */
function showsOutput(out: string, expected: string): boolean {
  const lines = out.split("\n").map((l) => l.trimEnd());
  let at = 0;
  for (const want of expected.trimEnd().split("\n")) {
    const re = new RegExp(`^${want.trimEnd().split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    while (at < lines.length && !re.test(lines[at]!)) at++;
    if (at === lines.length) return false;
    at++;
  }
  return true;
}

const pages = readdirSync(DOCS)
  .filter((f) => f.endsWith(".md"))
  .sort()
  .map((file) => ({ file, blocks: parseBlocks(readFileSync(join(DOCS, file), "utf8")) }));

/** The README's first recipe's server block: the docs' recipes run against the same server. */
function readmeServerBlock(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const block = /^```sh\n(POSTHORN_DELIVERY=sink [^\n]*npm start)\n```$/m.exec(readme)?.[1];
  if (!block) throw new Error("README: no `POSTHORN_DELIVERY=sink … npm start` block");
  return block;
}

test("the recipe checker: output lines in order, … for anything, a missing line fails", () => {
  expect(showsOutput("a\nRegistered example.com (id 1)\nz\n", "Registered example.com (id …)")).toBe(true);
  expect(showsOutput("b\na\n", "a\nb")).toBe(false);
  expect(showsOutput("a (x)\n", "a (y)")).toBe(false);
  const blocks = parseBlocks("x\n```sh tested\necho hi\n```\n\n```text output\nhi\n```\n```sh untested: no root\nsudo x\n```\n");
  expect(blocks.map((b) => [b.info, b.output])).toEqual([
    ["sh tested", "hi\n"],
    ["sh untested: no root", undefined],
  ]);
});

test("every shell block in docs/ is run by this test, or says why it cannot be", () => {
  const unmarked = pages.flatMap(({ file, blocks }) =>
    blocks.filter((b) => isShell(b) && !isTested(b) && !/^sh untested: \S/.test(b.info)).map((b) => `docs/${file}:${b.line} \`\`\`${b.info}`),
  );
  expect(unmarked).toEqual([]);
  // The mechanism is in use: the pages hold tested recipes.
  expect(pages.filter((p) => p.blocks.some(isTested)).length).toBeGreaterThanOrEqual(3);
});

test("docs/webhooks.md: its verification function accepts the server's signature, and refuses a changed body, another secret, an old one", async () => {
  const snippet = pages.find((p) => p.file === "webhooks.md")!.blocks.find((b) => b.info === "js" && b.code.includes("function verify("));
  expect(snippet).toBeDefined();
  const file = join(tempDir("docs-verify-"), "verify.mjs");
  writeFileSync(file, `${snippet!.code}\nexport { verify };\n`);
  const { verify } = (await import(file)) as { verify: (secret: string, header: string, rawBody: Buffer | string) => boolean };
  const secret = "whsec_K3aqX9q9eYCBIzwhL1c9F0aLsGvhwVWEgInT7koHxCI";
  const body = JSON.stringify({ id: "01a2", event: "message.inbound", timestamp: new Date().toISOString(), data: { subject: "Grüße / é" } });
  const now = Math.floor(Date.now() / 1000);
  // What the server sends: the header over the exact bytes.
  expect(verify(secret, signatureHeader(secret, body, now), Buffer.from(body))).toBe(true);
  expect(verify(secret, signatureHeader(secret, body, now), Buffer.from(body.replace("Grüße", "Grüsse")))).toBe(false);
  expect(verify("whsec_other", signatureHeader(secret, body, now), Buffer.from(body))).toBe(false);
  expect(verify(secret, signatureHeader(secret, body, now - 600), Buffer.from(body))).toBe(false);
  expect(verify(secret, "t=1,v1=zz", Buffer.from(body))).toBe(false);
});

describe("docs/ recipes, word for word", () => {
  const cleanup: Array<() => unknown> = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  for (const { file, blocks } of pages) {
    const tested = blocks.filter(isTested);
    if (tested.length === 0) continue;
    test(`docs/${file}: ${tested.length} recipe block(s)`, async () => {
      const dns = await startDnsServer();
      cleanup.push(() => dns.close());
      const smtpPort = String(await freePort());
      const env = await machineEnv(dns, { POSTHORN_SMTP_PORT: smtpPort });
      const server = await startServer(readmeServerBlock(), env);
      cleanup.push(() => stopGroup(server.proc));
      // The reader's machine: `posthorn` on the PATH, a directory of their own to work in, and the
      // server's SMTP port in the environment, as where they set it.
      const home = tempDir("docs-recipes-");
      mkdirSync(join(home, "bin"));
      symlinkSync(join(root, "bin", "posthorn"), join(home, "bin", "posthorn"));
      const shell = new Shell({ PATH: `${join(home, "bin")}:${env.PATH}`, HOME: env.HOME!, POSTHORN_SMTP_PORT: smtpPort }, home);
      cleanup.push(() => shell.close());
      expect((await shell.run(server.exportLine)).status).toBe(0);
      for (const block of tested) {
        const where = `docs/${file}:${block.line}`;
        let last = { out: "", status: -1 };
        const ok = () => last.status === 0 && (block.output === undefined || showsOutput(last.out, block.output));
        last = await shell.run(block.code);
        if (!ok() && block.retry) {
          await waitFor(async () => ((last = await shell.run(block.code)), ok()), 15_000, 250).catch(() => undefined);
        }
        if (!ok()) {
          throw new Error(
            `${where}: the recipe ${last.status === 0 ? "did not show what the page says" : `exited ${last.status}`}\n--- block:\n${block.code}--- output:\n${last.out}` +
              (block.output ? `--- the page says it shows:\n${block.output}` : "") +
              `--- server (tail):\n${server.output().slice(-3000)}`,
          );
        }
      }
    }, 120_000);
  }
});
