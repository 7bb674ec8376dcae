import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDir, waitFor } from "./helpers.ts";
import { startDnsServer } from "./support/dns-server.ts";

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

/** The same without blocking this process, whose DNS server must answer the server meanwhile. */
async function runAsync(args: string[], env: Record<string, string | undefined>) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/**
 * Starts `serve` and reads its output until `until` shows (the box's last line on a first start),
 * else 300 ms past the start line.
 */
async function startServe(env: Record<string, string | undefined>, until?: RegExp) {
  const proc = Bun.spawn([process.execPath, MAIN, "serve"], { env, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  const read = async (done: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)]);
      if (!chunk || chunk.done) break;
      out += new TextDecoder().decode(chunk.value);
    }
  };
  const startLine = /"http":"127\.0\.0\.1:(\d+)"/;
  await read(() => startLine.test(out), 10_000);
  // The tokens are printed right after the start line, possibly in writes of their own.
  if (until) await read(() => until.test(out), 10_000);
  else await read(() => false, 300);
  const port = Number(startLine.exec(out)![1]);
  return { proc, out, port, reader };
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

  test("serve re-executes itself in place with its allocator's options (same process id); an option the user set is kept", async () => {
    const environOf = (pid: number) =>
      new Map(
        readFileSync(`/proc/${pid}/environ`, "latin1")
          .split("\0")
          .filter(Boolean)
          .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)] as const),
      );
    for (const [given, expected] of [[undefined, "0"], ["1", "1"]] as const) {
      const env: Record<string, string | undefined> = { ...baseEnv(tempDir()), MIMALLOC_VERBOSE: "1", MIMALLOC_PURGE_HOLES: given };
      // Up to the first start's last line; then answering means its start is over (the SIGTERM handler is set up once the tokens are printed).
      const { proc, port } = await startServe(env, /^password: /m);
      try {
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        // The process started is the one serving, its environment now holding the option, under its own name.
        expect(environOf(proc.pid).get("MIMALLOC_PURGE_HOLES")).toBe(expected);
        expect(readFileSync(`/proc/${proc.pid}/comm`, "utf8").trim()).toBe(basename(process.execPath).slice(0, 15));
      } finally {
        // A failed check must not leave the server running.
        proc.kill("SIGTERM");
      }
      expect(await proc.exited).toBe(0);
      // And the allocator took it: mimalloc prints its options as a process starts (MIMALLOC_VERBOSE),
      // once per image, the running one's last.
      const options = [...(await new Response(proc.stderr).text()).matchAll(/option 'purge_holes': (\d+)/g)].map((m) => m[1]);
      expect(options.at(-1)).toBe(expected);
      expect(options.length).toBe(given === undefined ? 2 : 1);
    }
  });

  test("serve bootstraps on first start, prints tokens once, answers, and stops on SIGTERM", async () => {
    const dir = tempDir();
    const start = (until?: RegExp) => startServe(baseEnv(dir), until);
    const first = await start(/^password: [\w-]{20}$/m);
    // In a box that stands out from the JSON lines, then one line to paste into a shell.
    expect(first.out).toMatch(/^┌─+┐\n│ Created a team and its default project\. These tokens are shown ONCE/m);
    const exported = new URLSearchParams(/^export (.*)$/m.exec(first.out)![1]!.replaceAll(" ", "&"));
    expect(exported.get("POSTHORN_URL")).toBe(`http://127.0.0.1:${first.port}`);
    const token = exported.get("POSTHORN_TEAM_TOKEN");
    expect(token).toStartWith("ph_team_");
    expect(first.out).toContain(`│ team token      ${token} `);
    // And the owner's dashboard sign-in, its password on a line of its own.
    expect(first.out).toContain("sign in as owner@localhost");
    expect(first.out).toMatch(/^password: [\w-]{20}$/m);
    expect(exported.get("POSTHORN_PROJECT_TOKEN")).toStartWith("ph_");
    // POSTHORN_HTTP_HOST is set here: no warning about listening on all interfaces.
    expect(first.out).not.toContain("listens on all interfaces");
    expect((await fetch(`http://127.0.0.1:${first.port}/healthz`)).status).toBe(200);
    const ping = await fetch(`http://127.0.0.1:${first.port}/v1/ping`, { headers: { authorization: `Bearer ${token}` } });
    expect(ping.status).toBe(200);
    first.proc.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);

    const second = await start();
    expect(second.out).not.toContain("team token");
    second.proc.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  });

  test("domains add prints the zone snippet and attaches the domain; domains verify exits 1 until the DKIM record is published, then 0", async () => {
    const dns = await startDnsServer();
    const env = baseEnv(tempDir(), { POSTHORN_DNS_SERVERS: dns.server, POSTHORN_HOSTNAME: "mail.posthorn.test" });
    const proc = Bun.spawn([process.execPath, MAIN, "serve"], { env, stdout: "pipe", stderr: "pipe" });
    try {
      let out = "";
      const reader = proc.stdout.getReader();
      const line = await waitFor(async () => {
        const { value } = await reader.read();
        out += new TextDecoder().decode(value);
        return /^export (.*)$/m.exec(out)?.[1];
      }, 10_000);
      const client = { ...process.env, ...Object.fromEntries(line.split(" ").map((kv) => kv.split("=") as [string, string])) };
      const cli = (args: string[]) => runAsync(["domains", ...args], client);

      const add = await cli(["add", "Shop.Example"]);
      expect(add.code).toBe(0);
      expect(add.stdout).toMatch(/^Registered shop\.example \([0-9a-f-]{36}\), attached to Default project \([0-9a-f-]{36}\)\.$/m);
      // A zone-file snippet: the DKIM key in quoted strings of at most 255 characters, the MX with a priority.
      const dkim = /^(ph\w+\._domainkey\.shop\.example\.)\t3600\tIN\tTXT\t(.*)$/m.exec(add.stdout)!;
      const strings = [...dkim[2]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
      expect(strings.length).toBe(2);
      expect(strings.every((p) => p.length <= 255)).toBe(true);
      expect(add.stdout).toContain("ph-bounces.shop.example.\t3600\tIN\tMX\t10 mail.posthorn.test.");
      const json = JSON.parse(add.stdout.slice(add.stdout.indexOf("\n{") + 1));
      expect(json.data.projects).toEqual([{ id: client.POSTHORN_PROJECT_ID, name: "Default project" }]);
      expect(await cli(["add", "shop.example"])).toMatchObject({ code: 1, stderr: "posthorn: POST /v1/domains: 409 The domain shop.example has already been added to this team.\n" });

      const pending = await cli(["verify", "shop.example"]);
      expect(pending.code).toBe(1);
      expect(pending.stdout).toMatch(/^wait  dkim +TXT ph\w+\._domainkey\.shop\.example: /m);
      dns.set(dkim[1]!, "TXT", [strings]);
      const verified = await cli(["verify", "shop.example"]);
      expect(verified.code).toBe(0);
      expect(verified.stdout).toMatch(/^ok    dkim +TXT ph\w+\._domainkey\.shop\.example$/m);
      expect(JSON.parse((await cli(["verify", "shop.example", "--json"])).stdout)).toMatchObject({ verified: true, data: { domain: "shop.example", status: "verified", sending_status: "active" } });

      // rotate-dkim prints the two new records to publish; verify marks them as the next keys.
      const rotated = await cli(["rotate-dkim", "shop.example"]);
      expect(rotated.code).toBe(0);
      const next = [...rotated.stdout.matchAll(/^(phe?\d{8}[0-9a-f]+\._domainkey\.shop\.example\.)\t3600\tIN\tTXT\t"v=DKIM1; k=(rsa|ed25519); /gm)].map((m) => [m[1], m[2]]);
      expect(next.map((n) => n[1])).toEqual(["rsa", "ed25519"]);
      expect(next.map((n) => n[0])).not.toContain(dkim[1]);
      expect(rotated.stdout).toContain("Once published: posthorn domains verify shop.example");
      const during = await cli(["verify", "shop.example"]);
      expect(during.code).toBe(0); // the current key still signs
      expect(during.stdout).toContain(`wait  dkim        TXT ${next[0]![0]!.slice(0, -1)} [next key]: `);

      expect(await cli(["verify", "other.example"])).toMatchObject({ code: 1, stderr: "posthorn: no domain other.example in this team (posthorn domains add other.example)\n" });
      expect((await runAsync(["domains", "add", "x.example"], { ...client, POSTHORN_TEAM_TOKEN: "ph_team_wrong" })).stderr).toBe(
        "posthorn: POST /v1/domains: 401 POSTHORN_TEAM_TOKEN is not a valid team token.\n",
      );
      expect((await runAsync(["domains", "frob"], client)).code).toBe(2);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
      await dns.close();
    }
  }, 30_000);

  test("tokens create, list, rotate and revoke a named team token through the API; the token is printed once and works as its role allows", async () => {
    const env = baseEnv(tempDir());
    const proc = Bun.spawn([process.execPath, MAIN, "serve"], { env, stdout: "pipe", stderr: "pipe" });
    try {
      let out = "";
      const reader = proc.stdout.getReader();
      const line = await waitFor(async () => {
        const { value } = await reader.read();
        out += new TextDecoder().decode(value);
        return /^export (.*)$/m.exec(out)?.[1];
      }, 10_000);
      const client = { ...process.env, ...Object.fromEntries(line.split(" ").map((kv) => kv.split("=") as [string, string])) };
      const cli = (args: string[]) => runAsync(["tokens", ...args], client);
      const api = (token: string, path: string, method = "GET") => fetch(`${client.POSTHORN_URL}${path}`, { method, headers: { authorization: `Bearer ${token}` } });

      const made = await cli(["create", "CI job", "--permission", "projects:read", "--project", client.POSTHORN_PROJECT_ID!, "--json"]);
      expect(made.code).toBe(0);
      const { data, token } = JSON.parse(made.stdout);
      expect(data).toMatchObject({ name: "CI job", role_id: null, permissions: ["projects:read"], project_access: { scope: "selected" } });
      expect((await api(token, `/v1/projects/${client.POSTHORN_PROJECT_ID}`)).status).toBe(200);
      expect((await api(token, `/v1/projects/${client.POSTHORN_PROJECT_ID}`, "DELETE")).status).toBe(403);

      const listed = await cli(["list"]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(`${data.id}  CI job  1 permission(s)  projects Default project  no expiry`);
      expect(listed.stdout).not.toContain(token);

      const rotated = await cli(["rotate", data.id]);
      expect(rotated.code).toBe(0);
      const fresh = /^new token \(shown once; the old one no longer works\): (ph_team_\S+)$/m.exec(rotated.stdout)![1]!;
      const project = `/v1/projects/${client.POSTHORN_PROJECT_ID}`;
      expect((await api(token, project)).status).toBe(401);
      expect((await api(fresh, project)).status).toBe(200);
      expect(await cli(["revoke", data.id])).toMatchObject({ code: 0, stdout: "Token revoked.\n" });
      expect((await api(fresh, project)).status).toBe(401);

      // Refusals: the server's own words, exit 1; a malformed command, usage and exit 2.
      expect(await cli(["create", "Bad", "--permission", "projects:everything"])).toMatchObject({
        code: 1,
        stderr: 'posthorn: POST /v1/team/tokens: 422 Unknown permission "projects:everything". See GET /v1/team/roles or docs/access.md for the names.\n',
      });
      expect((await cli(["create", "Both", "--role", "member", "--permission", "projects:read"])).stderr).toBe("posthorn: give either --role ROLE or --permission P (one or more)\n");
      expect((await cli(["frob"])).code).toBe(2);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 30_000);
});
