import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { VERSION } from "./app.ts";
import { bootstrapTeam } from "./bootstrap.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { databasePath, migrate, openDatabase } from "./db/connection.ts";
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

function init(config: Config, args: string[]) {
  const sqlite = openDatabase(databasePath(config.dataDir));
  migrate(sqlite);
  const result = bootstrapTeam(sqlite, { teamName: flag(args, "--team") ?? "My team", inboundDomain: config.inboundDomain });
  sqlite.close();
  if (args.includes("--json")) process.stdout.write(JSON.stringify(result) + "\n");
  else printTokens(result);
}

function backup(config: Config, file: string | undefined) {
  if (!file) throw new UsageError("backup needs a FILE");
  const target = resolve(file);
  if (existsSync(target)) throw new UsageError(`${target} exists; choose a new file`);
  const sqlite = openDatabase(databasePath(config.dataDir));
  // VACUUM INTO reads one consistent snapshot while writers carry on (WAL).
  sqlite.query("VACUUM INTO ?").run(target);
  sqlite.close();
  console.log(`backup written to ${target}`);
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
      const sqlite = openDatabase(databasePath(config.dataDir));
      const applied = migrate(sqlite);
      sqlite.close();
      return console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
    }
    case "backup":
      return backup(config, args[0]);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(`posthorn: configuration error: ${err.message}`);
  else if (err instanceof UsageError) console.error(`posthorn: ${err.message}\n\n${HELP}`);
  else console.error("posthorn:", err);
  process.exit(err instanceof UsageError ? 2 : 1);
});
