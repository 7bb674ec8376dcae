/**
 * Synchronous PostgreSQL for the test helpers. `createTestApp()` and the row fixtures
 * (`insertTestDomain`, `insertMessage`, …) are called at describe level all over the suite, where
 * nothing can be awaited; on PostgreSQL they send their work to a worker thread
 * (pg-bridge-worker.ts) and block on an Atomics.wait until it has answered. The worker runs the
 * same code as production (migratePostgres, bootstrapIfEmpty, the repositories' inserts).
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import type { BootstrapResult } from "../../src/bootstrap.ts";
import type { SqlValue } from "../../src/db/sql.ts";
import type { NewTeam } from "../../src/db/teams.ts";
import type { NewProject } from "../../src/modules/projects/service.ts";
import { testPostgresNow } from "./postgres.ts";

export type BridgeRequest =
  | { op: "setUp"; adminUrl: string; prefix: string }
  | { op: "database" }
  | { op: "bootstrap"; url: string; opts: { teamName: string; inboundDomain: string } }
  | { op: "seed"; url: string; seed: { team?: NewTeam; project?: NewProject } }
  | { op: "query"; url: string; method: "all" | "get" | "run"; sql: string; params: SqlValue[] };

export type BridgeReply = { value: unknown; error?: undefined } | { error: string };

/** A statement and what it answers, run to completion before the call returns. */
export interface SyncSql {
  readonly dialect: "sqlite" | "postgres";
  all<R>(sql: string, params?: readonly SqlValue[]): R[];
  get<R>(sql: string, params?: readonly SqlValue[]): R | null;
  run(sql: string, params?: readonly SqlValue[]): { changes: number };
}

const WAIT_MS = 60_000;

let bridge: { worker: Worker; port: MessagePort; flag: Int32Array } | null = null;

function call<T>(req: BridgeRequest): T {
  const { worker, port, flag } = (bridge ??= open());
  Atomics.store(flag, 0, 0);
  worker.postMessage(req);
  if (Atomics.wait(flag, 0, 0, WAIT_MS) === "timed-out") throw new Error(`PostgreSQL test bridge: no answer to ${req.op} within ${WAIT_MS} ms`);
  const reply = receiveMessageOnPort(port)?.message as BridgeReply | undefined;
  if (!reply) throw new Error(`PostgreSQL test bridge: ${req.op} answered nothing`);
  if (reply.error !== undefined) throw new Error(`PostgreSQL test bridge: ${req.op}: ${reply.error}`);
  return reply.value as T;
}

function open() {
  const worker = new Worker(new URL("./pg-bridge-worker.ts", import.meta.url).href);
  // The process exits when the tests are done, whatever the worker holds.
  worker.unref();
  const { port1, port2 } = new MessageChannel();
  const shared = new SharedArrayBuffer(4);
  worker.postMessage({ init: true, port: port2, flag: shared }, [port2 as never]);
  bridge = { worker, port: port1, flag: new Int32Array(shared) };
  call({ op: "setUp", adminUrl: testPostgresNow().url, prefix: "app" });
  return bridge;
}

/** A new database of the test cluster with every migration applied. Its URL. */
export const migratedDatabaseNow = (): string => call<string>({ op: "database" });

/** The first team with its default project, as `posthorn serve` makes it on an empty database. */
export const bootstrapNow = (url: string, opts: { teamName: string; inboundDomain: string }): BootstrapResult => {
  const result = call<BootstrapResult | null>({ op: "bootstrap", url, opts });
  if (!result) throw new Error("bootstrapNow: the database already had a team");
  return result;
};

/** Inserts a team (with its owner) and/or a project (with its routes) through the repositories. */
export const seedNow = (url: string, seed: { team?: NewTeam; project?: NewProject }): void => void call({ op: "seed", url, seed });

/** Statements on the database at `url`, each committed before it returns. */
export function postgresSqlNow(url: string): SyncSql {
  const query = <T>(method: "all" | "get" | "run", sql: string, params: readonly SqlValue[] = []) =>
    call<T>({ op: "query", url, method, sql, params: [...params] });
  return {
    dialect: "postgres",
    all: (sql, params) => query("all", sql, params),
    get: (sql, params) => query("get", sql, params),
    run: (sql, params) => query("run", sql, params),
  };
}
