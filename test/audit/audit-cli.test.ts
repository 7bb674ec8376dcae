import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { userInfo } from "node:os";
import { join } from "node:path";
import { databasePath } from "../../src/db/connection.ts";
import { tempDir } from "../helpers.ts";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

function run(args: string[], dataDir: string) {
  const env = { ...process.env, POSTHORN_DATA_DIR: dataDir, POSTHORN_DNS_SERVERS: "127.0.0.1:1", POSTHORN_DATABASE_URL: "" };
  const p = Bun.spawnSync([process.execPath, MAIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

test("the CLI's own changes are in the audit log as cli, by the OS user, without the password (SQLite)", () => {
  const dir = tempDir();
  const init = run(["init", "--team", "Audit CLI team", "--email", "cli.owner@example.com", "--json"], dir);
  expect(init.code).toBe(0);
  const { team_id, team_token } = JSON.parse(init.stdout);
  const passwd = run(["user", "passwd", "cli.owner@example.com"], dir);
  expect(passwd.code).toBe(0);
  const password = /password: (\S+)/.exec(passwd.stdout)![1]!;
  const db = new Database(databasePath(dir), { readonly: true });
  const rows = db.query("SELECT * FROM audit_log ORDER BY created_at, id").all() as Record<string, unknown>[];
  const user = db.query("SELECT id FROM users WHERE email = ?").get("cli.owner@example.com") as { id: string };
  db.close();
  expect(rows.map((r) => [r.team_id, r.actor_kind, r.actor_name, r.operation])).toEqual([
    [team_id, "cli", userInfo().username, "cli init"],
    [team_id, "cli", userInfo().username, "cli user passwd"],
  ]);
  expect(JSON.parse(rows[1]!.target_ids as string)).toEqual({ user_id: user.id });
  expect(JSON.parse(rows[1]!.changes as string)).toEqual({ email: "cli.owner@example.com", password: "[redacted]" });
  const raw = JSON.stringify(rows);
  expect(raw).not.toContain(password);
  expect(raw).not.toContain(team_token);
}, 60_000);
