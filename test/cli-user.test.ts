import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./helpers.ts";

// Dashboard accounts from the command line: `init --email` and `user passwd` (SQLite data dirs).
const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const env = (dataDir: string) => ({ ...process.env, POSTHORN_DATA_DIR: dataDir, POSTHORN_DNS_SERVERS: "127.0.0.1:1", POSTHORN_LOG_LEVEL: "warn" });

function run(args: string[], dataDir: string, stdin?: string) {
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { env: env(dataDir), stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

function passwordHashOf(dataDir: string, email: string): string | null {
  const db = new Database(join(dataDir, "posthorn.db"), { readonly: true });
  try {
    return (db.query("SELECT password_hash FROM users WHERE email = ?").get(email) as { password_hash: string | null } | null)?.password_hash ?? null;
  } finally {
    db.close();
  }
}

describe("posthorn init --email and posthorn user passwd", () => {
  test("init --email makes ADDR the owner and prints its password once, on a line of its own; the tokens are printed as before", async () => {
    const dir = tempDir();
    const res = run(["init", "--email", "Admin@Example.com"], dir);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^┌─+┐\n│ Created a team and its default project\. These tokens are shown ONCE/m);
    expect(res.stdout).toMatch(/^export POSTHORN_TEAM_TOKEN=ph_team_/m);
    const password = /^password: (\S+)$/m.exec(res.stdout)![1]!;
    expect(password).toMatch(/^[\w-]{20}$/);
    expect(res.stdout).toContain("sign in as admin@example.com");
    const hash = passwordHashOf(dir, "admin@example.com")!;
    expect(hash).toStartWith("$argon2id$");
    expect(await Bun.password.verify(password, hash)).toBe(true);

    // The address is taken now: a second team cannot make it its owner.
    const again = run(["init", "--team", "Second", "--email", "admin@example.com"], dir);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("admin@example.com already has an account");
  });

  test("init --email --json adds owner_email and owner_password to the four fields", async () => {
    const dir = tempDir();
    const res = run(["init", "--email", "ops@example.org", "--json"], dir);
    expect(res.code).toBe(0);
    const parsed = JSON.parse(res.stdout);
    expect(Object.keys(parsed).sort()).toEqual(["owner_email", "owner_password", "project_id", "project_token", "team_id", "team_token"]);
    expect(parsed.owner_email).toBe("ops@example.org");
    expect(await Bun.password.verify(parsed.owner_password, passwordHashOf(dir, "ops@example.org")!)).toBe(true);
    expect(run(["init", "--email", "no-address", "--json"], dir).code).toBe(2);
  });

  test("user passwd sets a new random password (printed) or the one given on stdin; unknown addresses and short passwords fail", async () => {
    const dir = tempDir();
    const first = JSON.parse(run(["init", "--email", "ops@example.org", "--json"], dir).stdout).owner_password as string;

    const res = run(["user", "passwd", "OPS@example.org"], dir);
    expect(res.code).toBe(0);
    const printed = /^password: (\S+)$/m.exec(res.stdout)![1]!;
    expect(printed).not.toBe(first);
    expect(await Bun.password.verify(printed, passwordHashOf(dir, "ops@example.org")!)).toBe(true);
    expect(await Bun.password.verify(first, passwordHashOf(dir, "ops@example.org")!)).toBe(false);

    const fromStdin = run(["user", "passwd", "ops@example.org", "--password-stdin"], dir, "my own long passphrase\n");
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).not.toContain("password:");
    expect(await Bun.password.verify("my own long passphrase", passwordHashOf(dir, "ops@example.org")!)).toBe(true);

    const short = run(["user", "passwd", "ops@example.org", "--password-stdin"], dir, "short\n");
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("at least 10 characters");
    const unknown = run(["user", "passwd", "nobody@example.org"], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no user has the address nobody@example.org");
    expect(run(["user"], dir).code).toBe(2);
  });

  test("user passwd for someone only invited (pending) says they accept the invitation themselves; it adds them to no team", async () => {
    const dir = tempDir();
    const teamId = JSON.parse(run(["init", "--json"], dir).stdout).team_id as string;
    const db = new Database(join(dir, "posthorn.db"));
    try {
      db.run("INSERT INTO users (id, name, email, created_at) VALUES ('u-pending', 'Pat', 'pat@example.org', 1)");
      db.run("INSERT INTO team_members (id, team_id, user_id, role, status, joined_at, created_at) VALUES ('m-pending', ?, 'u-pending', 'owner', 'pending', 1, 1)", [teamId]);
    } finally {
      db.close();
    }
    const res = run(["user", "passwd", "pat@example.org", "--password-stdin"], dir, "pat's long passphrase\n");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("pat@example.org is in no team yet: they accept their invitation by opening its link and entering this password.");
    const check = new Database(join(dir, "posthorn.db"), { readonly: true });
    try {
      expect(check.query("SELECT status FROM team_members WHERE id = 'm-pending'").get()).toEqual({ status: "pending" });
    } finally {
      check.close();
    }
  });
});
