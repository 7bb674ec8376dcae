/**
 * Where tests write files: one directory per test process, `$TMPDIR/posthorn-tests-<pid>`, removed
 * when the run ends (test/support/scratch-preload.ts) — bun test does not emit the process `exit`
 * event, so cleanup registered there never ran and every run left its databases and PostgreSQL
 * clusters in /tmp until the disk filled. A run that was killed leaves its directory behind; the
 * next run removes it, after stopping any PostgreSQL server still running out of it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread } from "node:worker_threads";

const PREFIX = "posthorn-tests-";
let root: string | null = null;
const atEnd: Array<() => void> = [];

/** A process that runs; a zombie (killed, not yet reaped by its parent) does not. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // /proc/PID/stat: "pid (comm) S ..." — the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
};

/** Stops a PostgreSQL server left running in a dead run's directory (SIGQUIT: immediate shutdown). */
function stopOrphanedPostgres(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const pidFile = join(dir, entry, "data", "postmaster.pid");
    if (!existsSync(pidFile)) continue;
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (!(pid > 0 && alive(pid))) continue;
    process.kill(pid, "SIGQUIT");
    // Until it is gone: a server still shutting down writes into the directory being removed.
    for (let i = 0; i < 100 && alive(pid); i++) Bun.sleepSync(50);
  }
}

function sweepDeadRuns(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length));
    if (!Number.isInteger(pid) || alive(pid)) continue;
    const dir = join(tmpdir(), name);
    try {
      stopOrphanedPostgres(dir);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // another run is sweeping it too
    }
  }
}

function scratchRoot(): string {
  if (root) return root;
  sweepDeadRuns();
  root = join(tmpdir(), `${PREFIX}${process.pid}`);
  // 0711: the postgres user (tests run as root) must reach its cluster's directory inside.
  mkdirSync(root, { recursive: true, mode: 0o711 });
  return root;
}

/** A fresh directory for one test's files, removed with the run's scratch root. */
export const scratchDir = (prefix = "t-"): string => mkdtempSync(join(scratchRoot(), prefix));

/** Runs `fn` when the test run ends, before the scratch root is removed (e.g. stop a server). */
export const atRunEnd = (fn: () => void): void => {
  atEnd.push(fn);
};

/** Ends the run: the registered stops, then the scratch root. Safe to call more than once. */
export function cleanScratch(): void {
  for (const fn of atEnd.splice(0).reverse()) {
    try {
      fn();
    } catch {
      // cleanup must reach the directory removal
    }
  }
  if (root) rmSync(root, { recursive: true, force: true });
  root = null;
}

// Scripts (benchmarks) that use the test support do get the exit event. A worker shares the
// process's root and must not remove it when it ends.
if (isMainThread) process.once("exit", cleanScratch);
