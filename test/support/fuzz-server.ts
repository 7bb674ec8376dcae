/**
 * Starts the server under test in a child process (fuzz-server-child.ts) on a loopback port and
 * drives its database-side helpers over IPC. See the child for why it is a process of its own.
 *
 * DNS goes to a loopback server of the child's own with an empty zone (every name NXDOMAIN at
 * once), never the system resolver: webhook tests, domain and inbound-domain checks fail fast and
 * nothing leaves the machine. Webhook URLs with loopback or private IP literals are refused by the
 * SSRF guard (POSTHORN_WEBHOOK_ALLOWED_NETWORKS is empty), and the fuzzer never generates a public
 * IP literal, so no request can reach the internet.
 */
import type { Subprocess } from "bun";
import { databaseEnv } from "../helpers.ts";

export interface TeamTokens {
  teamId: string;
  teamToken: string;
  projectId: string;
  projectToken: string;
}

export interface FuzzServer {
  base: string;
  port: number;
  maxBodyBytes: number;
  /** The bootstrapped team (team token, project and project token). */
  team: TeamTokens;
  /** A second team, for cross-team ids (always a 404 / 422, never a 2xx). */
  addTeam(name: string): Promise<TeamTokens>;
  /** A domain row with a real DKIM key, attached to the project; "active" stands for verified. */
  insertDomain(opts: { teamId: string; projectId?: string; domain: string; status?: "active" | "pending" }): Promise<{ domainId: string }>;
  query<T = Record<string, unknown>>(sql: string, params?: (string | number | null)[]): Promise<T[]>;
  /** signValue with the server's secret (unsubscribe links). */
  sign(purpose: string, value: string, length: number): Promise<string>;
  /** Write log (write-log.ts) on the server's connection: install, mark, and writes since a mark (after a writer flush). */
  installWriteLog(): Promise<void>;
  mark(): Promise<number>;
  writesSince(mark: number): Promise<string[]>;
  /** Errors that escaped the app in the child since the last call. */
  escaped(): Promise<string[]>;
  /** What the child wrote to stderr (Bun prints errors that reach Bun.serve there). */
  stderr(): string;
  /** The server's log lines (JSON, POSTHORN_LOG_LEVEL=error unless overridden): the causes of 500s. */
  logLines(): string[];
  stop(): Promise<void>;
}

const CHILD = new URL("./fuzz-server-child.ts", import.meta.url).pathname;

export async function startFuzzServer(opts: { env?: Record<string, string>; mode?: "app" | "server" } = {}): Promise<FuzzServer> {
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let ready: (v: { port: number; team: TeamTokens; maxBodyBytes: number }) => void;
  let failed: (e: Error) => void;
  const readyP = new Promise<{ port: number; team: TeamTokens; maxBodyBytes: number }>((res, rej) => {
    ready = res;
    failed = rej;
  });
  let stderr = "";
  let stdout = "";
  const child: Subprocess = Bun.spawn([process.execPath, CHILD], {
    env: { ...process.env, FUZZ_SERVER_MODE: opts.mode ?? "app", FUZZ_SERVER_ENV: JSON.stringify({ POSTHORN_LOG_LEVEL: "error", ...databaseEnv(), ...opts.env }) },
    stdio: ["ignore", "pipe", "pipe"],
    ipc(message: any) {
      if (message?.ready) return ready(message);
      const p = pending.get(message?.id);
      if (!p) return;
      pending.delete(message.id);
      if (message.error) p.reject(new Error(message.error));
      else p.resolve(message.result);
    },
    onExit(_proc, code) {
      failed(new Error(`fuzz server child exited (${code}) before it was ready:\n${stderr.slice(-2000)}`));
      for (const p of pending.values()) p.reject(new Error(`fuzz server child exited (${code})`));
      pending.clear();
    },
  });
  const collect = async (stream: ReadableStream<Uint8Array>, add: (s: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  collect(child.stderr as ReadableStream<Uint8Array>, (s) => {
    if (stderr.length < 200_000) stderr += s;
  }).catch(() => {});
  collect(child.stdout as ReadableStream<Uint8Array>, (s) => {
    if (stdout.length < 1_000_000) stdout += s;
  }).catch(() => {});

  /** One command to the child; a child whose event loop is stalled answers none: give up after `timeoutMs`. */
  const call = <T>(cmd: string, args?: unknown, timeoutMs = 5_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`fuzz server child did not answer "${cmd}" in ${timeoutMs} ms (event loop stalled?)`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ id, cmd, args });
    });

  const info = await Promise.race([readyP, Bun.sleep(30_000).then(() => Promise.reject(new Error("fuzz server child did not start in 30 s")))]);
  return {
    base: `http://127.0.0.1:${info.port}`,
    port: info.port,
    maxBodyBytes: info.maxBodyBytes,
    team: info.team,
    addTeam: (name) => call("addTeam", { name }),
    insertDomain: (o) => call("insertDomain", o),
    query: (sql, params) => call("query", { sql, params }),
    sign: (purpose, value, length) => call("sign", { purpose, value, length }),
    installWriteLog: () => call("installWriteLog"),
    mark: () => call("mark"),
    writesSince: (mark) => call("since", { mark }),
    escaped: () => call("escaped"),
    stderr: () => stderr,
    logLines: () => stdout.split("\n").filter((l) => l.trim()),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await call("stop", undefined, 5000).catch(() => {});
      await Promise.race([child.exited, Bun.sleep(2000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}
