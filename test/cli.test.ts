import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./helpers.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const baseEnv = (dataDir: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  POSTHORN_DATA_DIR: dataDir,
  POSTHORN_HTTP_HOST: "127.0.0.1",
  POSTHORN_HTTP_PORT: "0",
  POSTHORN_SMTP_PORT: "0",
  POSTHORN_SUBMISSION_PORT: "0",
  POSTHORN_DNS_SERVERS: "127.0.0.1:1",
  POSTHORN_LOG_LEVEL: "info",
  ...extra,
});

function run(args: string[], env: Record<string, string | undefined>) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

describe("posthorn CLI", () => {
  test("--help and --version", () => {
    const help = run(["--help"], process.env);
    expect(help.code).toBe(0);
    for (const cmd of ["serve", "init", "migrate", "backup"]) expect(help.stdout).toContain(cmd);
    expect(run(["--version"], process.env).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  test("init --json prints exactly the four fields; --team makes a second team", () => {
    const dir = tempDir();
    const first = run(["init", "--json"], baseEnv(dir));
    expect(first.code).toBe(0);
    const parsed = JSON.parse(first.stdout);
    expect(Object.keys(parsed).sort()).toEqual(["project_id", "project_token", "team_id", "team_token"]);
    expect(parsed.team_token).toStartWith("ph_team_");
    expect(parsed.project_token).toStartWith("ph_");
    const second = JSON.parse(run(["init", "--team", "Second", "--json"], baseEnv(dir)).stdout);
    expect(second.team_id).not.toBe(parsed.team_id);
    const db = new Database(join(dir, "posthorn.db"), { readonly: true });
    expect(db.query("SELECT name FROM teams ORDER BY created_at").all()).toEqual([{ name: "My team" }, { name: "Second" }]);
    db.close();
  });

  test("migrate is idempotent; backup writes a consistent, openable copy", () => {
    const dir = tempDir();
    expect(run(["migrate"], baseEnv(dir)).stdout).toContain("applied");
    expect(run(["migrate"], baseEnv(dir)).stdout).toContain("up to date");
    run(["init", "--json"], baseEnv(dir));
    const file = join(tempDir(), "backup.db");
    const res = run(["backup", file], baseEnv(dir));
    expect(res.code).toBe(0);
    const copy = new Database(file, { readonly: true });
    expect(copy.query("SELECT count(*) AS n FROM teams").get()).toEqual({ n: 1 });
    copy.close();
    expect(run(["backup", file], baseEnv(dir)).code).toBe(2);
  });

  test("a bad setting fails at start naming the variable", () => {
    const res = run(["serve"], baseEnv(tempDir(), { POSTHORN_HTTP_PORT: "http" }));
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("POSTHORN_HTTP_PORT");
  });

  test("unknown command → usage, exit 2", () => {
    const res = run(["frobnicate"], process.env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("unknown command");
  });

  test("serve bootstraps on first start, prints tokens once, answers, and stops on SIGTERM", async () => {
    const dir = tempDir();
    const start = async () => {
      const proc = Bun.spawn([process.execPath, MAIN, "serve"], { env: baseEnv(dir), stdout: "pipe", stderr: "pipe" });
      const reader = proc.stdout.getReader();
      let out = "";
      const deadline = Date.now() + 10_000;
      while (!/"http":"127\.0\.0\.1:(\d+)"/.test(out) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      // The tokens are printed right after the start line.
      await Bun.sleep(100);
      const more = await Promise.race([reader.read(), Bun.sleep(200).then(() => null)]);
      if (more && more.value) out += new TextDecoder().decode(more.value);
      const port = Number(/"http":"127\.0\.0\.1:(\d+)"/.exec(out)![1]);
      return { proc, out, port, reader };
    };
    const first = await start();
    const token = /team token:\s+(ph_team_\S+)/.exec(first.out)?.[1];
    expect(token).toBeDefined();
    expect((await fetch(`http://127.0.0.1:${first.port}/healthz`)).status).toBe(200);
    const ping = await fetch(`http://127.0.0.1:${first.port}/v1/ping`, { headers: { authorization: `Bearer ${token}` } });
    expect(ping.status).toBe(200);
    first.proc.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);

    const second = await start();
    expect(second.out).not.toContain("team token:");
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  });
});
