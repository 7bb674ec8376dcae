import { createApp } from "../src/app.ts";
import { loadConfig, type Config } from "../src/config.ts";
import type { Deps } from "../src/context.ts";
import type { SqlExecutor, SqlValue } from "../src/db/sql.ts";
import { generateDkimKeyPair } from "../src/dns/dkim-key.ts";
import { newId } from "../src/ids.ts";
import { newProject } from "../src/modules/projects/service.ts";
import { newTeam } from "../src/modules/team/service.ts";
import { scratchDir } from "./support/scratch.ts";
import { databaseEnv, engine, openTestDatabase, sqliteOf, sqlNowOf, sqlOf, type TestEngine } from "./support/test-database.ts";

export { databaseEnv, engine, sqliteOf, sqlNowOf, sqlOf };
export type { TestEngine };
export type { SyncSql } from "./support/test-database.ts";

/** A fresh directory, removed when the test run ends. */
export const tempDir = (prefix = "t-") => scratchDir(prefix);

/** A config for tests: temp data dir, silent logs, listeners off unless a test turns them on. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    POSTHORN_DATA_DIR: tempDir(),
    POSTHORN_LOG_LEVEL: "silent",
    POSTHORN_HOSTNAME: "mx.posthorn.test",
    POSTHORN_PUBLIC_URL: "http://localhost:8080",
    POSTHORN_SMTP_PORT: "0",
    POSTHORN_SUBMISSION_PORT: "0",
    POSTHORN_DELIVERY: "sink",
    POSTHORN_DNS_SERVERS: "127.0.0.1:1",
    // Tests send quickly, and many try wrong tokens from 127.0.0.1 on purpose; the tests of the
    // limits turn them on ("" = the defaults).
    POSTHORN_RATE_LIMIT_SEND: "0",
    POSTHORN_RATE_LIMIT_API: "0",
    POSTHORN_AUTH_FAILURE_LIMIT: "0",
    ...env,
  });
}

export interface TestTeam {
  teamId: string;
  teamToken: string;
  projectId: string;
  projectToken: string;
}

/**
 * An app with one bootstrapped team over a database of its own on the run's engine (an in-memory
 * SQLite database, a file one with `dbPath`, or a fresh PostgreSQL database; `engine` overrides
 * the run's), plus `request` for calling it through app.handle, and `sql` for reading and
 * arranging rows directly: `await t.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs")`.
 * Synchronous, so tests call it at describe level; `sqlNow` is `sql` for fixtures there (it
 * blocks the thread: not for writes while the app's own requests or jobs are running).
 */
export function createTestApp(opts: { env?: Record<string, string>; dbPath?: string; engine?: TestEngine } = {}) {
  const db = openTestDatabase((engineEnv) => testConfig({ ...engineEnv, ...opts.env }), { dbPath: opts.dbPath, on: opts.engine });
  const { deps, sql, sqlNow } = db;
  const config = deps.config;
  const app = createApp(deps);
  const boot = db.bootstrap({ teamName: "Team A", inboundDomain: config.inboundDomain });
  const team: TestTeam = { teamId: boot.team_id, teamToken: boot.team_token, projectId: boot.project_id, projectToken: boot.project_token };

  async function request(
    method: string,
    path: string,
    init: { token?: string | null; projectToken?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? (init.projectToken ? null : team.teamToken) : init.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (init.projectToken) headers["x-service-token"] = init.projectToken;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
      // Real clients send it; the 413 guard reads it before the body is parsed.
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** A second, unrelated team for cross-team checks. */
  function addTeam(name = "Team B"): TestTeam {
    const t = newTeam({ name });
    const p = newProject({ teamId: t.created.teamId, name: "B project", inboundDomain: config.inboundDomain });
    db.seed({ team: t.rows, project: p });
    return { teamId: t.created.teamId, teamToken: t.created.teamToken, projectId: p.projectId, projectToken: p.projectToken };
  }

  return { config, deps, app, team, request, addTeam, sql, sqlNow };
}

export type TestApp = ReturnType<typeof createTestApp>;

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 5000, stepMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`waitFor: condition not met in ${timeoutMs} ms`);
    await Bun.sleep(stepMs);
  }
}

export type { Deps };

/**
 * Inserts a sending domain for `teamId`, attached to `projectId`, with a real DKIM key pair.
 * `status: "active"` stands for a domain whose DNS was verified. Returns the ids and the key.
 */
export function insertTestDomain(deps: Deps, opts: TestDomainOptions) {
  const d = testDomain(opts);
  const sql = sqlNowOf(deps);
  for (const [text, params] of d.statements) sql.run(text, params);
  return d.domain;
}

/** insertTestDomain through an executor of one's own (a child process's, where deps are not a test app's). */
export async function insertTestDomainWith(sql: SqlExecutor, opts: TestDomainOptions) {
  const d = testDomain(opts);
  for (const [text, params] of d.statements) await sql.run(text, params);
  return d.domain;
}

type TestDomainOptions = { teamId: string; projectId?: string; domain: string; status?: "active" | "pending"; selector?: string };

function testDomain(opts: TestDomainOptions) {
  const key = generateDkimKeyPair();
  const id = newId();
  const now = Date.now();
  const selector = opts.selector ?? "ph1";
  const statements: [string, SqlValue[]][] = [
    [
      `INSERT INTO domains (id, team_id, domain, status, status_changed_at, dkim_selector, dkim_private_key, dkim_public_key, return_path_host, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ph-bounces', ?, ?)`,
      [id, opts.teamId, opts.domain, opts.status ?? "active", now, selector, key.privateKeyPem, key.publicKeyBase64, now, now],
    ],
  ];
  if (opts.projectId) statements.push(["INSERT INTO project_domains (project_id, domain_id, created_at) VALUES (?, ?, ?)", [opts.projectId, id, now]]);
  return { statements, domain: { domainId: id, selector, ...key } };
}
