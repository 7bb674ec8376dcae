/**
 * The server under fuzz, in a process of its own (spawned by fuzz-server.ts, driven over IPC).
 *
 * Why a child process: an error that escapes the app (a throw in an error handler, say) is, in
 * the test runner's process, an error that fails whatever test is running and ends the fuzz run;
 * here it is what production would do (Bun's own 500 page), which the fuzzer records as a finding
 * and goes on. The child's event loop also carries only the server, so /healthz latencies are the
 * server's, not the fuzz client's.
 *
 * FUZZ_SERVER_MODE=app (default): createApp(deps).listen as src/server.ts listens, without the
 * job runner and the SMTP listeners, so the only writes are those requests cause.
 * FUZZ_SERVER_MODE=server: src/server.ts startServer(config), the production entry point.
 * FUZZ_SERVER_ENV: JSON of POSTHORN_* overrides; with POSTHORN_DATABASE_URL the server runs on
 * that PostgreSQL database (the parent makes one when the suite runs on PostgreSQL).
 */
import { createApp } from "../../src/app.ts";
import { bootstrapIfEmpty } from "../../src/bootstrap.ts";
import type { Deps } from "../../src/context.ts";
import { PostgresExecutor, postgresClient } from "../../src/db/postgres.ts";
import { SqliteExecutor, type SqlExecutor } from "../../src/db/sql.ts";
import { insertProject, newProject } from "../../src/modules/projects/service.ts";
import { newTeam } from "../../src/modules/team/service.ts";
import { openDeps } from "../../src/runtime.ts";
import { serverSecretOf, signValue } from "../../src/secrets.ts";
import { startServer } from "../../src/server.ts";
import { insertTestDomainWith, sqliteOf, testConfig } from "../helpers.ts";
import { startDnsServer } from "./dns-server.ts";
import { installPostgresWriteLog, installWriteLog, type PostgresWriteLog, type WriteLog } from "./write-log.ts";

const mode = process.env.FUZZ_SERVER_MODE === "server" ? "server" : "app";
const overrides = JSON.parse(process.env.FUZZ_SERVER_ENV ?? "{}") as Record<string, string>;

const escaped: string[] = [];
const record = (err: unknown) => escaped.push(err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 300) : String(err).slice(0, 300));
process.on("uncaughtException", record);
process.on("unhandledRejection", record);

// Our own loopback DNS server with an empty zone: every name is NXDOMAIN at once, nothing leaves the machine.
const dns = await startDnsServer();
const config = testConfig({ POSTHORN_DNS_SERVERS: dns.server, POSTHORN_HTTP_HOST: "127.0.0.1", POSTHORN_HTTP_PORT: "0", ...overrides });

let deps: Deps;
let port: number;
let team: { teamId: string; teamToken: string; projectId: string; projectToken: string };
let stopServer: () => Promise<void>;

if (mode === "server") {
  const running = await startServer(config);
  deps = running.deps;
  port = running.httpPort;
  const b = running.bootstrap!;
  team = { teamId: b.team_id, teamToken: b.team_token, projectId: b.project_id, projectToken: b.project_token };
  stopServer = () => running.stop();
} else {
  // A file database under the temp data dir (WAL, like production), not :memory:; or PostgreSQL.
  deps = await openDeps(config);
  const b = (await bootstrapIfEmpty(deps.store, { teamName: "Fuzz team", inboundDomain: config.inboundDomain }))!;
  team = { teamId: b.team_id, teamToken: b.team_token, projectId: b.project_id, projectToken: b.project_token };
  const app = createApp(deps).listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: config.maxBodyBytes });
  port = app.server!.port!;
  stopServer = async () => {
    await app.stop(true);
    await deps.store.close();
  };
}
// The server secret is created on first use (unsubscribe and attachment links); create it now,
// so that first use is not mistaken for a write left behind by a 4xx.
await serverSecretOf(deps.store);

/** The test's own statements, on the server's database (on SQLite its connection, where the write log's TEMP triggers live). */
const sql: SqlExecutor = config.databaseUrl ? new PostgresExecutor(postgresClient(config.databaseUrl, { max: 2 })) : new SqliteExecutor(sqliteOf(deps));
let writeLog: WriteLog | PostgresWriteLog | null = null;

async function handle(cmd: string, args: any): Promise<unknown> {
  switch (cmd) {
    case "addTeam": {
      const t = newTeam({ name: args.name });
      const p = newProject({ teamId: t.created.teamId, name: `${args.name} project`, inboundDomain: config.inboundDomain });
      await deps.store.write(async (tx) => {
        await tx.teams.insert(t.rows);
        await insertProject(tx, p);
      });
      return { teamId: t.created.teamId, teamToken: t.created.teamToken, projectId: p.projectId, projectToken: p.projectToken };
    }
    case "insertDomain":
      return { domainId: (await insertTestDomainWith(sql, args)).domainId };
    case "query":
      return sql.all(args.sql, args.params ?? []);
    case "sign":
      return signValue(await serverSecretOf(deps.store), args.purpose, args.value, args.length);
    case "installWriteLog":
      writeLog ??= config.databaseUrl ? await installPostgresWriteLog(sql) : installWriteLog(sqliteOf(deps));
      return null;
    case "mark":
      return writeLog!.mark();
    case "since":
      // Everything queued on SQLite's group-commit writer before this point is committed first
      // (a PostgreSQL request has committed before its answer).
      if (!config.databaseUrl) await deps.store.write(() => 0);
      return writeLog!.since(args.mark);
    case "escaped":
      return escaped.splice(0);
    case "stop":
      await writeLog?.uninstall();
      await stopServer();
      await dns.close();
      setTimeout(() => process.exit(0), 10);
      return null;
  }
  throw new Error(`unknown command ${cmd}`);
}

process.on("message", (msg: { id: number; cmd: string; args?: unknown }) => {
  handle(msg.cmd, msg.args).then(
    (result) => process.send!({ id: msg.id, result }),
    (err: unknown) => process.send!({ id: msg.id, error: String(err) }),
  );
});
// The parent went away: do not outlive it.
process.on("disconnect", () => process.exit(0));

process.send!({ ready: true, port, team, maxBodyBytes: config.maxBodyBytes });
