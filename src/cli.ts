import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { VERSION } from "./app.ts";
import { addBootstrapTeam } from "./bootstrap.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { backupSqlite } from "./db/backup.ts";
import { databasePath } from "./db/connection.ts";
import { copySqliteToPostgres, CopyRefused } from "./db/copy-db.ts";
import { connectPostgres, redactedUrl } from "./db/store-postgres.ts";
import { migrateDatabase, openDeps } from "./runtime.ts";
import { startServer } from "./server.ts";

const HELP = `posthorn ${VERSION} — self-hosted email: send, receive, webhooks, DNS checks

Usage:
  posthorn serve                      run the API, SMTP listeners and workers
                                      (first start on an empty database creates a team
                                      and prints its tokens once)
  posthorn init [--team NAME] [--json]
                                      create a team with a default project; --json prints
                                      {"team_id","team_token","project_id","project_token"}
  posthorn migrate                    apply database migrations and exit
  posthorn backup FILE                write a consistent copy of the database to FILE
  posthorn copy-db --to postgres://…  copy the (stopped) SQLite database of POSTHORN_DATA_DIR
                                      into an empty PostgreSQL database, to move up to
                                      several nodes; checks every table's row count
  posthorn --help | --version

Configuration comes from POSTHORN_* environment variables (see README).`;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith("--")) throw new UsageError(`${name} needs a value`);
  return v;
}

class UsageError extends Error {}
/** A command that could not do its work, for a reason the operator can act on: one line, exit 1. */
class CommandFailed extends Error {}

function printTokens(r: { team_id: string; team_token: string; project_id: string; project_token: string }) {
  console.log(
    [
      "",
      "  Created team and default project. These tokens are shown once; store them now.",
      `  team id:        ${r.team_id}`,
      `  team token:     ${r.team_token}      (Authorization: Bearer …)`,
      `  project id:     ${r.project_id}`,
      `  project token:  ${r.project_token}      (x-service-token: …)`,
      "",
    ].join("\n"),
  );
}

async function serve(config: Config) {
  const server = await startServer(config);
  if (server.bootstrap) printTokens(server.bootstrap);
  const shutdown = (signal: string) => {
    server.deps.log.info("signal received", { signal });
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

async function init(config: Config, args: string[]) {
  const deps = await openDeps(config);
  const result = await addBootstrapTeam(deps.store, { teamName: flag(args, "--team") ?? "My team", inboundDomain: config.inboundDomain });
  await deps.store.close();
  if (args.includes("--json")) process.stdout.write(JSON.stringify(result) + "\n");
  else printTokens(result);
}

function backup(config: Config, file: string | undefined) {
  if (!file) throw new UsageError("backup needs a FILE");
  const target = resolve(file);
  if (existsSync(target)) throw new UsageError(`${target} exists; choose a new file`);
  if (config.databaseUrl) throw new CommandFailed("backup copies the embedded SQLite database; with POSTHORN_DATABASE_URL use pg_dump");
  backupSqlite(databasePath(config.dataDir), target);
  console.log(`backup written to ${target}`);
}

async function copyDb(config: Config, args: string[]) {
  const url = flag(args, "--to");
  if (!url || !/^postgres(ql)?:\/\//.test(url)) throw new UsageError("copy-db needs --to postgres://user:password@host:port/database");
  const source = databasePath(config.dataDir);
  if (!existsSync(source)) throw new UsageError(`no SQLite database at ${source} (POSTHORN_DATA_DIR)`);
  const pg = await connectPostgres(url, 2, (detail) => new CommandFailed(detail));
  try {
    const report = await copySqliteToPostgres(source, pg, (line) => console.log(`  ${line}`));
    const rows = report.tables.reduce((n, t) => n + t.rows, 0);
    console.log(`copied ${rows} rows in ${report.tables.length} tables from ${source} to ${redactedUrl(url)}; row counts match`);
  } catch (err) {
    if (err instanceof CopyRefused) throw new CommandFailed(`copy-db: ${err.message}`);
    throw err;
  } finally {
    await pg.close();
  }
}

async function main(argv: string[]) {
  const [command, ...args] = argv;
  if (command === "--version" || command === "-v" || command === "version") return console.log(VERSION);
  if (command === undefined || command === "--help" || command === "-h" || command === "help") return console.log(HELP);
  const config = loadConfig();
  switch (command) {
    case "serve":
      return serve(config);
    case "init":
      return init(config, args);
    case "migrate": {
      const applied = await migrateDatabase(config);
      return console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
    }
    case "backup":
      return backup(config, args[0]);
    case "copy-db":
      return copyDb(config, args);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(`posthorn: configuration error: ${err.message}`);
  else if (err instanceof UsageError) console.error(`posthorn: ${err.message}\n\n${HELP}`);
  else if (err instanceof CommandFailed) console.error(`posthorn: ${err.message}`);
  else console.error("posthorn:", err);
  process.exit(err instanceof UsageError ? 2 : 1);
});
