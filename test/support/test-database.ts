/**
 * The database under a test app, on the engine the suite runs on: SQLite by default,
 * PostgreSQL with POSTHORN_TEST_ENGINE=postgres (`npm run test:pg`). Either way a test gets the
 * app's Deps, `sql` (an SqlExecutor on the same database, for tests that check or arrange rows
 * directly) and `sqlNow` (the same, synchronous, for fixtures called at describe level).
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";
import { SQL } from "bun";
import { bootstrapRows, type BootstrapResult } from "../../src/bootstrap.ts";
import type { Config } from "../../src/config.ts";
import type { Deps } from "../../src/context.ts";
import { PostgresExecutor } from "../../src/db/postgres.ts";
import { SqliteExecutor, type SqlExecutor } from "../../src/db/sql.ts";
import { PostgresStore } from "../../src/db/store-postgres.ts";
import { SqliteStore } from "../../src/db/store.ts";
import { newProjectStatement } from "../../src/db/projects.ts";
import { newRouteStatement } from "../../src/db/routes.ts";
import { newTeamStatements, type NewTeam } from "../../src/db/teams.ts";
import { DnsResolver } from "../../src/dns/resolver.ts";
import { createLogger } from "../../src/log.ts";
import type { NewProject } from "../../src/modules/projects/service.ts";
import { createDeps } from "../../src/runtime.ts";
import { bootstrapNow, migratedDatabaseNow, postgresSqlNow, seedNow as seedPostgresNow, type SyncSql } from "./pg-bridge.ts";
import { postgresAvailable } from "./postgres.ts";

export type { SyncSql };

export type TestEngine = "sqlite" | "postgres";

function engineOf(value: string | undefined): TestEngine {
  if (value === undefined || value === "" || value === "sqlite") return "sqlite";
  if (value === "postgres") {
    if (!postgresAvailable()) throw new Error("POSTHORN_TEST_ENGINE=postgres, but no PostgreSQL server binaries under /usr/lib/postgresql");
    return "postgres";
  }
  throw new Error(`POSTHORN_TEST_ENGINE must be sqlite or postgres, not ${JSON.stringify(value)}`);
}

/** The engine under every createTestApp of this run. */
export const engine: TestEngine = engineOf(process.env.POSTHORN_TEST_ENGINE);

export interface TestDatabase {
  deps: Deps;
  /** Statements on the app's database, for test bodies. */
  sql: SqlExecutor;
  /** The same, run before they return: for fixtures where nothing can be awaited. */
  sqlNow: SyncSql;
  /** The first team, as `posthorn init` or the first `serve` makes it. */
  bootstrap(opts: { teamName: string; inboundDomain: string }): BootstrapResult;
  /** Inserts a team with its owner and/or a project with its routes, before returning. */
  seed(seed: { team?: NewTeam; project?: NewProject }): void;
}

const byDeps = new WeakMap<Deps, TestDatabase>();

/**
 * The environment for a server or process a test starts itself (startServer, a child): a fresh
 * database of its own on the run's engine. SQLite needs nothing (the file goes in the data dir).
 */
export const databaseEnv = (): Record<string, string> => (engine === "postgres" ? { POSTHORN_DATABASE_URL: migratedDatabaseNow() } : {});

/**
 * A database for one test app and the Deps over it, on `on` (the run's engine unless a test needs
 * SQLite whatever the run). `configFor` gets the environment the engine needs
 * (POSTHORN_DATABASE_URL on PostgreSQL); `dbPath` (a SQLite file) is for SQLite only.
 */
export function openTestDatabase(configFor: (env: Record<string, string>) => Config, opts: { dbPath?: string; on?: TestEngine } = {}): TestDatabase {
  const on = opts.on ?? engine;
  const db = on === "postgres" ? openPostgres(configFor, opts.dbPath) : openSqlite(configFor({}), opts.dbPath ?? ":memory:");
  byDeps.set(db.deps, db);
  return db;
}

/** Synchronous statements on the database under `deps` (one made by openTestDatabase, or else a SQLite one). */
export function sqlNowOf(deps: Deps): SyncSql {
  return byDeps.get(deps)?.sqlNow ?? sqliteSqlNow(sqliteOf(deps));
}

/** Asynchronous statements on the database under `deps`, as sqlNowOf. */
export function sqlOf(deps: Deps): SqlExecutor {
  return byDeps.get(deps)?.sql ?? new SqliteExecutor(sqliteOf(deps));
}

/** The SQLite connection under `deps`, for what only SQLite has (its file, its writer, closing it as a crash would); throws on PostgreSQL. */
export function sqliteOf(deps: Pick<Deps, "store">): Database {
  if (deps.store instanceof SqliteStore) return deps.store.sqlite;
  throw new Error("this needs SQLite; the store is PostgreSQL (skip the test there, or pin it with createTestApp({ engine: \"sqlite\" }))");
}

/**
 * Inserts a team (with its owner), a project and routes in one transaction (a savepoint inside
 * an open one), before returning: the repositories' own statements, run synchronously, for
 * fixtures that cannot await. On PostgreSQL the bridge's seed does this (pg-bridge.ts).
 */
export function seedSqliteNow(sqlite: Database, seed: { team?: NewTeam; project?: NewProject["project"]; routes?: NewProject["routes"] }): void {
  const statements = [
    ...(seed.team ? newTeamStatements(seed.team) : []),
    ...(seed.project ? [newProjectStatement(seed.project)] : []),
    ...(seed.routes ?? []).map(newRouteStatement),
  ];
  sqlite.transaction(() => {
    for (const [text, params] of statements) sqlite.query(text).run(...(params as SQLQueryBindings[]));
  })();
}

/** The first team with its default project (as bootstrapIfEmpty makes it), on SQLite, before returning. */
export function bootstrapSqliteNow(sqlite: Database, opts: { teamName: string; inboundDomain: string }): BootstrapResult {
  const { team, project, result } = bootstrapRows(opts);
  seedSqliteNow(sqlite, { team, project: project.project, routes: project.routes });
  return result;
}

function sqliteSqlNow(sqlite: Database): SyncSql {
  const bind = (params: readonly unknown[] = []) => params as SQLQueryBindings[];
  return {
    dialect: "sqlite",
    all: <R>(sql: string, params?: readonly unknown[]) => sqlite.query(sql).all(...bind(params)) as R[],
    get: <R>(sql: string, params?: readonly unknown[]) => (sqlite.query(sql).get(...bind(params)) as R | null) ?? null,
    run: (sql: string, params?: readonly unknown[]) => ({ changes: sqlite.query(sql).run(...bind(params)).changes }),
  };
}

function openSqlite(config: Config, dbPath: string): TestDatabase {
  const deps = createDeps(config, { dbPath });
  const sqlite = sqliteOf(deps);
  return {
    deps,
    sql: new SqliteExecutor(sqlite),
    sqlNow: sqliteSqlNow(sqlite),
    bootstrap: (opts) => bootstrapSqliteNow(sqlite, opts),
    seed: ({ team, project }) => seedSqliteNow(sqlite, { team, project: project?.project, routes: project?.routes }),
  };
}

/**
 * A database cloned from the migrated template, and Deps built as openDeps builds them, without
 * awaiting: the store's pool connects on first use, LISTEN starts in the background. Pools let
 * idle connections go after a second: a run makes a few hundred of these, and a busy app opens
 * its pool's 20 (the LISTEN connection stays for the life of the process).
 */
function openPostgres(configFor: (env: Record<string, string>) => Config, dbPath: string | undefined): TestDatabase {
  if (dbPath !== undefined) throw new Error("createTestApp({ dbPath }) is SQLite-only; skip the test on PostgreSQL");
  const url = migratedDatabaseNow();
  const config = configFor({ POSTHORN_DATABASE_URL: url });
  const pool = new SQL(url, { max: config.databasePool, bigint: true, idleTimeout: 1 });
  const store = new PostgresStore(pool, { poolSize: config.databasePool, poolWaitMs: config.databasePoolWaitMs });
  store.listen().catch(() => {});
  const deps: Deps = {
    config,
    store,
    queue: store.read.jobs,
    log: createLogger(config.logLevel),
    dns: new DnsResolver(config.dnsServers),
  };
  return {
    deps,
    sql: new PostgresExecutor(new SQL(url, { max: 2, bigint: true, idleTimeout: 1 })),
    sqlNow: postgresSqlNow(url),
    bootstrap: (opts) => bootstrapNow(url, opts),
    seed: (seed) => seedPostgresNow(url, seed),
  };
}
