/**
 * The worker behind test/support/pg-bridge.ts: does the asynchronous PostgreSQL work that the test
 * thread asks for while that thread blocks. Keeps a few databases, cloned from a migrated
 * template, made ahead so that a createTestApp rarely waits for CREATE DATABASE (~65 ms each).
 */
import { SQL } from "bun";
import type { MessagePort } from "node:worker_threads";
import { bootstrapIfEmpty } from "../../src/bootstrap.ts";
import { migratePostgres } from "../../src/db/migrate-pg.ts";
import { PostgresExecutor } from "../../src/db/postgres.ts";
import { PostgresStore } from "../../src/db/store-postgres.ts";
import { insertProject } from "../../src/modules/projects/service.ts";
import type { BridgeReply, BridgeRequest } from "./pg-bridge.ts";

declare const self: Worker;

const TEMPLATE = "posthorn_template";
const AHEAD = 3;

let admin: SQL | null = null;
let base = "";
let prefix = "";
let made = 0;
const ahead: Promise<string>[] = [];

/** One connection per test database, let go when idle: hundreds of databases must not pile up connections. */
const databases = new Map<string, { store: PostgresStore; exec: PostgresExecutor }>();
function database(url: string) {
  let d = databases.get(url);
  if (!d) {
    const sql = new SQL(url, { max: 1, bigint: true, idleTimeout: 1 });
    databases.set(url, (d = { store: new PostgresStore(sql, { poolSize: 1, poolWaitMs: 30_000 }), exec: new PostgresExecutor(sql) }));
  }
  return d;
}

async function setUp(adminUrl: string, namePrefix: string): Promise<void> {
  admin = new SQL(adminUrl, { max: 2 });
  base = adminUrl.slice(0, adminUrl.lastIndexOf("/") + 1);
  prefix = namePrefix;
  await admin.unsafe(`CREATE DATABASE ${TEMPLATE}`);
  const template = new SQL(base + TEMPLATE, { max: 1 });
  await migratePostgres(template);
  await template.close();
}

/** A fresh database cloned from the migrated template (FILE_COPY: faster than WAL_LOG for a small one). */
async function clone(): Promise<string> {
  const name = `${prefix}_${++made}`;
  await admin!.unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE} STRATEGY FILE_COPY`);
  return base + name;
}

function takeDatabase(): Promise<string> {
  while (ahead.length < AHEAD + 1) {
    const next = clone();
    next.catch(() => {}); // reported to whoever takes it
    ahead.push(next);
  }
  return ahead.shift()!;
}

async function handle(req: BridgeRequest): Promise<unknown> {
  switch (req.op) {
    case "setUp":
      return setUp(req.adminUrl, req.prefix);
    case "database":
      return takeDatabase();
    case "bootstrap":
      return bootstrapIfEmpty(database(req.url).store, req.opts);
    case "seed": {
      const { team, project } = req.seed;
      return database(req.url).store.write(async (tx) => {
        if (team) await tx.teams.insert(team);
        if (project) await insertProject(tx, project);
      });
    }
    case "query":
      return database(req.url).exec[req.method](req.sql, req.params);
  }
}

let port: MessagePort | null = null;
let flag: Int32Array | null = null;

self.onmessage = async (e: MessageEvent) => {
  if (e.data.init) {
    port = e.data.port;
    flag = new Int32Array(e.data.flag);
    return;
  }
  let reply: BridgeReply;
  try {
    reply = { value: await handle(e.data as BridgeRequest) };
  } catch (err) {
    reply = { error: err instanceof Error ? `${err.message}` : String(err) };
  }
  port!.postMessage(reply);
  Atomics.store(flag!, 0, 1);
  Atomics.notify(flag!, 0);
};
