// Where a send's SQL runs, and what the event loop pays for it: the statements of one durable
// send (sql-thread/model.ts), in groups of 32 sends sharing a transaction as the group commit
// shares one, run either on this thread (as the server does today) or on a worker thread that
// owns the connection (two round trips a send: its checks, then its writes; the group's sends
// interleaved there) or a message per group, alternated. Prints this thread's CPU per send (the send API is bound by
// its event-loop thread; see the anchors bench) and the process's (all threads).
//
//   bun scripts/bench/sql-thread.ts [sends=20000] [rounds=3]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statCpuSeconds } from "../../test/e2e/fixtures/outbound-server.ts";
import { openConnection, sendStatements, type Statement } from "./sql-thread/model.ts";

const SENDS = Math.min(Number(process.argv[2] ?? 20_000), 200_000);
const ROUNDS = Math.min(Number(process.argv[3] ?? 3), 10);
const GROUP = 32;
const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-sql-thread-"));

/** This thread's CPU, ms. */
const threadCpuMs = () => statCpuSeconds(`/proc/self/task/${process.pid}/stat`) * 1000;

async function measure(name: string, runSends: () => Promise<void>): Promise<void> {
  const thread0 = threadCpuMs();
  const process0 = process.cpuUsage();
  const t0 = performance.now();
  await runSends();
  const secs = (performance.now() - t0) / 1000;
  const { user, system } = process.cpuUsage(process0);
  console.log(
    `  ${name.padEnd(24)} this thread ${(((threadCpuMs() - thread0) * 1000) / SENDS).toFixed(0).padStart(4)} µs CPU per send, ` +
      `all threads ${((user + system) / SENDS).toFixed(0).padStart(4)} µs, ${(SENDS / secs).toFixed(0)} sends/s`,
  );
}

const [local, runLocal] = openConnection(join(dir, "local.db"));
const onThisThread = async () => {
  for (let g = 0; g < SENDS; g += GROUP) {
    runLocal(["exec", "BEGIN IMMEDIATE", []]);
    for (let i = g; i < g + GROUP; i++) {
      const { checks, writes } = sendStatements(i);
      checks.forEach(runLocal);
      writes.forEach(runLocal);
    }
    runLocal(["exec", "COMMIT", []]);
  }
};

const worker = new Worker(new URL("./sql-thread/worker.ts", import.meta.url).href);
let nextId = 0;
const waiting = new Map<number, { resolve: (r: unknown[]) => void; reject: (e: Error) => void }>();
worker.onmessage = (e: MessageEvent<{ id: number; results?: unknown[]; error?: string }>) => {
  const w = waiting.get(e.data.id)!;
  waiting.delete(e.data.id);
  if (e.data.error) w.reject(new Error(e.data.error));
  else w.resolve(e.data.results!);
};
const ask = (message: { file?: string; statements?: Statement[] }) =>
  new Promise<unknown[]>((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, ...message });
  });
await ask({ file: join(dir, "worker.db") });
const onAWorker = async () => {
  for (let g = 0; g < SENDS; g += GROUP) {
    await ask({ statements: [["exec", "BEGIN IMMEDIATE", []]] });
    await Promise.all(
      Array.from({ length: GROUP }, async (_, k) => {
        const { checks, writes } = sendStatements(g + k);
        await ask({ statements: checks });
        await ask({ statements: writes });
      }),
    );
    await ask({ statements: [["exec", "COMMIT", []]] });
  }
};

// The same, each group's statements in one message: the worker runs the group whole, as a group commit handed to it would.
const onAWorkerByGroup = async () => {
  for (let g = 0; g < SENDS; g += GROUP) {
    const statements: Statement[] = [["exec", "BEGIN IMMEDIATE", []]];
    for (let i = g; i < g + GROUP; i++) {
      const { checks, writes } = sendStatements(i);
      statements.push(...checks, ...writes);
    }
    statements.push(["exec", "COMMIT", []]);
    await ask({ statements });
  }
};

console.log(`sql-thread: ${SENDS} sends per arm in groups of ${GROUP}, ${ROUNDS} rounds alternating which arm goes first`);
try {
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`round ${round + 1}:`);
    const arms: [string, () => Promise<void>][] = [
      ["SQL on this thread", onThisThread],
      ["on a worker, per send", onAWorker],
      ["on a worker, per group", onAWorkerByGroup],
    ];
    for (const [name, fn] of round % 2 === 0 ? arms : arms.reverse()) await measure(name, fn);
  }
} finally {
  worker.terminate();
  local.close();
  rmSync(dir, { recursive: true, force: true });
}
