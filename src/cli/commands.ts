import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { VERSION } from "../app.ts";
import { generatePassword, hashPassword, passwordProblem } from "../auth/passwords.ts";
import { addBootstrapTeam } from "../bootstrap.ts";
import { cliAuditRow } from "./audit.ts";
import { addDomain, apiClient, CommandFailed, rotateDkim, verifyDomain } from "./domains.ts";
import { tlsRenew, tlsStatus } from "./tls.ts";
import { createToken as createTeamToken, listTokens as listTeamTokens, revokeToken as revokeTeamToken, rotateToken as rotateTeamToken, TOKENS_USAGE } from "./team-tokens.ts";
import { addGlobalSuppressions, formatGlobalSuppressions, GLOBAL_USAGE, GlobalSuppressionRefused, removeGlobalSuppressions } from "./suppressions.ts";
import { ConfigError, loadConfig, type Config } from "../config.ts";
import { backupSqlite } from "../db/backup.ts";
import { databasePath } from "../db/connection.ts";
import { copySqliteToPostgres, CopyRefused } from "../db/copy-db.ts";
import { connectPostgres, redactedUrl } from "../db/store-postgres.ts";
import { setUserPassword } from "../modules/auth/service.ts";
import { migrateDatabase, openDeps } from "../runtime.ts";
import { startServer } from "../server.ts";

const HELP = `posthorn ${VERSION} — self-hosted email: send, receive, webhooks, DNS checks

Usage:
  posthorn serve                      run the API, SMTP listeners and workers
                                      (first start on an empty database creates a team
                                      and prints its tokens once)
  posthorn init [--team NAME] [--email ADDR] [--json]
                                      create a team with a default project; --json prints
                                      {"team_id","team_token","project_id","project_token"};
                                      --email makes ADDR the owner with a dashboard password,
                                      printed once ("password: …"; owner_password in --json)
  posthorn user passwd EMAIL [--password-stdin]
                                      set a dashboard password (a new random one, printed, or
                                      the first line of stdin); ends the user's sessions;
                                      joins no team (the user accepts invitations themselves)
  posthorn migrate                    apply database migrations and exit
  posthorn backup FILE                write a consistent copy of the database to FILE
  posthorn copy-db --to postgres://…  copy the (stopped) SQLite database of POSTHORN_DATA_DIR
                                      into an empty PostgreSQL database, to move up to
                                      several nodes; checks every table's row count
  posthorn domains add NAME [--project ID]... [--json]
                                      register a sending domain, attach it to the projects
                                      (default: the team's only project) and print the DNS
                                      records to publish as a zone-file snippet, then the JSON
  posthorn domains verify NAME [--json]
                                      check the domain's records now; exit 0 once it can send
  posthorn domains rotate-dkim NAME [--json]
                                      start a DKIM key rotation: new keys, their two records
                                      to publish; they sign once both verify
  posthorn tls status [--json]        the certificate served by HTTPS and STARTTLS (files or
                                      ACME): names, expiry, renewal, the last order's error
  posthorn tls renew                  ask the running nodes to order a new ACME certificate now
  posthorn suppressions global list [--json]
  posthorn suppressions global add email|domain|extension VALUE... [--reason R]
  posthorn suppressions global remove ID|VALUE...
                                      the operator's Posthorn-wide suppression list: it stops
                                      every team's mail to those addresses, domains or
                                      extensions (R: manual, the default, hard_bounce,
                                      spam_complaint, unsubscribe); no team sees or changes it
  posthorn tokens list [--json]
  posthorn tokens create NAME (--role ROLE | --permission P...) [--project ID]... [--expires T]
  posthorn tokens rotate ID | posthorn tokens revoke ID
                                      the team's named API tokens (docs/access.md): a role or
                                      permissions, optional projects and expiry; the token is
                                      printed once, on create and rotate
  posthorn --help | --version

Configuration comes from POSTHORN_* environment variables (see README). The domains and
tokens commands call the API of a running server: POSTHORN_URL (default http://localhost:8080)
with the team token in POSTHORN_TEAM_TOKEN.`;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith("--")) throw new UsageError(`${name} needs a value`);
  return v;
}

class UsageError extends Error {}

type Tokens = { team_id: string; team_token: string; project_id: string; project_token: string; owner_email?: string; owner_password?: string };

/** Text framed so it stands out from the JSON log lines around it. */
function box(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length));
  const bar = "─".repeat(width + 2);
  return [`┌${bar}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${bar}┘`].join("\n");
}

/**
 * The tokens, once, in a box; then one line to paste into a shell, outside the box so that it can
 * be copied whole. It names the URL this process listens on, for the CLI and the README's recipes.
 */
function printTokens(r: Tokens, apiUrl: string | undefined, dashboardUrl: string) {
  const width = Math.max(r.team_token.length, r.project_token.length);
  const lines = [
    "Created a team and its default project. These tokens are shown ONCE: store them now",
    "(only their SHA-256 digests are kept).",
    "",
    `team token      ${r.team_token.padEnd(width)}   Authorization: Bearer …`,
    `project token   ${r.project_token.padEnd(width)}   x-service-token: …`,
    `team id         ${r.team_id}`,
    `project id      ${r.project_id}`,
  ];
  const env = [
    apiUrl ? `POSTHORN_URL=${apiUrl}` : null,
    `POSTHORN_TEAM_TOKEN=${r.team_token}`,
    `POSTHORN_PROJECT_TOKEN=${r.project_token}`,
    `POSTHORN_PROJECT_ID=${r.project_id}`,
  ].filter(Boolean);
  // The owner's dashboard sign-in, when there is one; the password on a line of its own.
  const signIn =
    r.owner_email && r.owner_password
      ? `Dashboard: ${dashboardUrl}/ — sign in as ${r.owner_email} with this password, shown once (\`posthorn user passwd ${r.owner_email}\` sets a new one):\npassword: ${r.owner_password}\n`
      : "";
  console.log(`\n${box(lines)}\nFor the CLI and the README's recipes, in your shell:\nexport ${env.join(" ")}\n${signIn}`);
}

/** Where a CLI on this machine reaches the API: the listening port, on loopback when bound to all. */
function localApiUrl(config: Config, port: number): string {
  const host = config.httpHost === "0.0.0.0" || config.httpHost === "::" ? "localhost" : config.httpHost;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

async function serve(config: Config) {
  const server = await startServer(config);
  if (server.bootstrap) printTokens(server.bootstrap, localApiUrl(config, server.httpPort), localApiUrl(config, server.httpPort));
  // Out of the box the API answers on every interface in plain HTTP: fine on a laptop or behind a
  // firewall, not on a public address, where tokens would cross the network in clear.
  if (process.env.POSTHORN_HTTP_HOST === undefined) {
    server.deps.log.warn("the API listens on all interfaces (0.0.0.0) in plain HTTP with the default settings", {
      http: `0.0.0.0:${server.httpPort}`,
      advice: "on a public address set POSTHORN_HTTP_HOST=127.0.0.1 behind a TLS reverse proxy, and POSTHORN_PUBLIC_URL to its https:// URL",
    });
  }
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
  const email = flag(args, "--email")?.trim().toLowerCase();
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`--email needs an email address, not "${email}"`);
  const deps = await openDeps(config);
  try {
    if (email && (await deps.store.read.accounts.userByEmail(email))) {
      throw new CommandFailed(`${email} already has an account; invite it to the new team instead (POST /v1/team/members)`);
    }
    const teamName = flag(args, "--team") ?? "My team";
    const result = await addBootstrapTeam(deps.store, { teamName, inboundDomain: config.inboundDomain, ownerEmail: email, ownerPassword: email !== undefined });
    await deps.store.write((tx) => tx.auditLog.append(cliAuditRow(result.team_id, "init", {}, { team: teamName, email: email ?? null })));
    if (args.includes("--json")) process.stdout.write(JSON.stringify(result) + "\n");
    else printTokens(result, undefined, config.publicUrl.replace(/\/+$/, ""));
  } finally {
    await deps.store.close();
  }
}

/** `posthorn user passwd EMAIL`: a random password printed once, or one read from stdin. */
async function user(config: Config, args: string[]) {
  const [sub, address] = args;
  if (sub !== "passwd" || !address || address.startsWith("--")) throw new UsageError("usage: posthorn user passwd EMAIL [--password-stdin]");
  const email = address.trim().toLowerCase();
  const fromStdin = args.includes("--password-stdin");
  const password = fromStdin ? (await Bun.stdin.text()).split(/\r?\n/)[0]! : generatePassword();
  const problem = passwordProblem(password);
  if (problem) throw new CommandFailed(problem);
  const deps = await openDeps(config);
  let inNoTeam = false;
  try {
    const account = await deps.store.read.accounts.userByEmail(email);
    if (!account) throw new CommandFailed(`no user has the address ${email}`);
    const hash = await hashPassword(password);
    const teams = await deps.store.read.accounts.memberships(account.id);
    await deps.store.write(async (tx) => {
      await setUserPassword(tx, account.id, hash);
      // One audit row in each of the user's teams: the password itself is never in it.
      for (const m of teams) await tx.auditLog.append(cliAuditRow(m.team_id, "user passwd", { user_id: account.id }, { email, password: "(new)" }));
    });
    // Invitations are accepted by the user, never by the operator: a user in no team yet joins by opening their invitation link with this password.
    inNoTeam = teams.length === 0;
  } finally {
    await deps.store.close();
  }
  console.log(`Password set for ${email}; their sessions have ended.`);
  if (inNoTeam) console.log(`${email} is in no team yet: they accept their invitation by opening its link and entering this password.`);
  if (!fromStdin) console.log(`password: ${password}`);
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

function flags(args: string[], name: string): string[] {
  const values: string[] = [];
  args.forEach((a, i) => {
    if (a === name) values.push(flag(args.slice(i), name)!);
  });
  return values;
}

async function domains(args: string[]) {
  const [sub, name] = args;
  if ((sub !== "add" && sub !== "verify" && sub !== "rotate-dkim") || !name || name.startsWith("--")) {
    throw new UsageError("usage: posthorn domains add NAME | posthorn domains verify NAME | posthorn domains rotate-dkim NAME");
  }
  const api = apiClient(process.env);
  const json = args.includes("--json");
  if (sub === "add") return addDomain(api, name, { projects: flags(args, "--project"), json });
  if (sub === "rotate-dkim") return rotateDkim(api, name, { json });
  if (!(await verifyDomain(api, name, { json }))) process.exitCode = 1;
}

/** `posthorn tokens …`: the team's named tokens, through the API. */
async function tokens(args: string[]) {
  const [sub, arg] = args;
  const json = args.includes("--json");
  const positional = (a: string | undefined) => a !== undefined && !a.startsWith("--");
  if (sub === "list") return console.log(await listTeamTokens(apiClient(process.env), json));
  if (sub === "create" && positional(arg)) {
    const options = { role: flag(args, "--role"), permissions: flags(args, "--permission"), projects: flags(args, "--project"), expires: flag(args, "--expires"), json };
    return console.log(await createTeamToken(apiClient(process.env), arg!, options));
  }
  if (sub === "rotate" && positional(arg)) return console.log(await rotateTeamToken(apiClient(process.env), arg!, json));
  if (sub === "revoke" && positional(arg)) return console.log(await revokeTeamToken(apiClient(process.env), arg!));
  throw new UsageError(TOKENS_USAGE);
}

/** `posthorn suppressions global list|add|remove` on the database of POSTHORN_DATA_DIR / POSTHORN_DATABASE_URL. */
async function globalSuppressions(config: Config, args: string[]) {
  const [scope, sub, ...rest] = args;
  if (scope !== "global" || (sub !== "list" && sub !== "add" && sub !== "remove")) throw new UsageError(GLOBAL_USAGE);
  const json = rest.includes("--json");
  const reason = flag(rest, "--reason");
  const positional = rest.filter((a, i) => !a.startsWith("--") && rest[i - 1] !== "--reason");
  const deps = await openDeps(config);
  try {
    if (sub === "list") return console.log(formatGlobalSuppressions(await deps.store.read.suppressions.listGlobal(), json));
    if (sub === "add") {
      const [type, ...values] = positional;
      const { created, skipped } = await addGlobalSuppressions(deps.store, type ?? "", values, reason);
      return console.log(json ? JSON.stringify({ created, skipped }) : `${created.length} added to the global suppression list${skipped.length ? `, ${skipped.length} already on it (${skipped.join(", ")})` : ""}`);
    }
    const removed = await removeGlobalSuppressions(deps.store, positional);
    if (removed.length === 0) throw new CommandFailed(`nothing on the global suppression list matches ${positional.join(", ")}`);
    console.log(json ? JSON.stringify(removed.map((r) => r.id)) : `${removed.length} removed from the global suppression list`);
  } catch (err) {
    if (err instanceof GlobalSuppressionRefused) throw new CommandFailed(err.message);
    throw err;
  } finally {
    await deps.store.close();
  }
}

async function main(argv: string[]) {
  const [command, ...args] = argv;
  if (command === "--version" || command === "-v" || command === "version") return console.log(VERSION);
  if (command === undefined || command === "--help" || command === "-h" || command === "help") return console.log(HELP);
  // A client of the API: the server's own settings are not needed, nor checked.
  if (command === "domains") return domains(args);
  if (command === "tokens") return tokens(args);
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
    case "user":
      return user(config, args);
    case "suppressions":
      return globalSuppressions(config, args);
    case "tls":
      if (args[0] === "status") return tlsStatus(config, { json: args.includes("--json") });
      if (args[0] === "renew") return tlsRenew(config);
      throw new UsageError("usage: posthorn tls status [--json] | posthorn tls renew");
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
