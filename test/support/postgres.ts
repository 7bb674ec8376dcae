/**
 * A throwaway PostgreSQL cluster for tests: Debian's server binaries, a fresh data directory,
 * listening on a free loopback port only, as the unprivileged `postgres` user when the tests run
 * as root (initdb refuses root). One cluster per test process, started on first use and removed
 * when the run ends (test/support/scratch.ts). `.ci/run` installs the `postgresql` package; without it these tests are skipped
 * (`requireTool("postgresql")`, test/support/tools.ts), so `npm test` still passes on a laptop with no PostgreSQL;
 * under CI=true a missing PostgreSQL is a failure.
 *
 * Starting is synchronous (`testPostgresNow()`) so that `createTestApp()`, which tests call where
 * nothing can be awaited, can build its database on it (test/support/pg-bridge.ts).
 */
import { chmodSync, chownSync, rmSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./ports.ts";
import { atRunEnd, scratchDir } from "./scratch.ts";
import { hasTool, postgresBinDir } from "./tools.ts";

const binDir = (): string | null => (hasTool("postgresql") ? postgresBinDir() : null);

/** The server binaries are here (test/support/tools.ts; tests ask through `requireTool("postgresql")`). */
export const postgresAvailable = (): boolean => hasTool("postgresql");


export interface TestPostgres {
  /** postgres://posthorn@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** A fresh, empty database in the cluster; its URL. */
  createDatabase(): Promise<string>;
  /** Takes the server down (fast shutdown: clients are disconnected) and brings it back, same port and data. */
  halt(): void;
  resume(): void;
  stop(): void;
}

let running: TestPostgres | null = null;

/** The test process's cluster (started once, synchronously). `fsync=off`: tests need speed, not durability. */
export function testPostgresNow(): TestPostgres {
  return (running ??= start());
}

/** The test process's cluster, for callers that can await. */
export const testPostgres = async (): Promise<TestPostgres> => testPostgresNow();

/**
 * A cluster of its own with production durability (fsync, full-page writes, synchronous_commit
 * on), for benchmarks: a commit returns only once it is on disk, as SQLite's synchronous=FULL.
 */
export const durablePostgres = (): TestPostgres => start({ durable: true });

function start(opts: { durable?: boolean } = {}): TestPostgres {
  const bin = binDir();
  if (!bin) throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)");
  const dir = scratchDir("pg-");
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const pg = Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim();
    const gid = Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim();
    chownSync(dir, Number(pg), Number(gid));
    chmodSync(dir, 0o700);
  }
  const run = (args: string[]) => {
    const cmd = asRoot ? ["runuser", "-u", "postgres", "--", ...args] : args;
    const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${args[0]} failed: ${r.stderr.toString() || r.stdout.toString()}`);
  };
  run([join(bin, "initdb"), "-D", data, "-U", "posthorn", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  const port = freePort();
  // Every createTestApp on PostgreSQL keeps a LISTEN connection for the life of the process.
  const durability = opts.durable
    ? "-c fsync=on -c synchronous_commit=on -c full_page_writes=on -c shared_buffers=512MB"
    : "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=256MB";
  const serverOpts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${durability} -c max_connections=1000`;
  run([join(bin, "pg_ctl"), "-D", data, "-o", serverOpts, "-l", join(dir, "log"), "-w", "start"]);
  const url = `postgres://posthorn@127.0.0.1:${port}/postgres`;
  let n = 0;
  const stop = () => {
    try {
      run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  atRunEnd(stop);
  return {
    url,
    port,
    async createDatabase() {
      const name = `t${process.pid}_${++n}`;
      const admin = new Bun.SQL(url, { max: 1 });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.close();
      return `postgres://posthorn@127.0.0.1:${port}/${name}`;
    },
    halt: () => run([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]),
    resume: () => run([join(bin, "pg_ctl"), "-D", data, "-o", serverOpts, "-l", join(dir, "log"), "-w", "start"]),
    stop,
  };
}
