/**
 * Benchmark anchor for the MX: Haraka (npm) accepting every recipient and discarding each
 * message with a 250, one process (no cluster) on a loopback port. Installed once into a temp dir
 * of its own (`npm install --prefix`), never into the project; its config is Haraka's defaults
 * with a single plugin, accept_discard, which also answers the reverse lookup of the client so
 * that nothing reaches the system resolver. Haraka needs Node.js (Debian's `nodejs`).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuOf, rssOf } from "./postfix.ts";

export const HARAKA_VERSION = "3.3.4";

export interface HarakaServer {
  port: number;
  pid: number;
  cpuSeconds(): number;
  rssBytes(): number;
  stop(): Promise<void>;
}

const PLUGIN = `// Benchmark anchor: accept every recipient, discard every message (250 without storing it).
exports.register = function () {
  this.register_hook('lookup_rdns', 'no_rdns')
  this.register_hook('rcpt', 'accept_rcpt')
  this.register_hook('queue', 'discard')
}
exports.no_rdns = (next) => next(OK, 'bench.client')
exports.accept_rcpt = (next) => next(OK)
exports.discard = (next) => next(OK)
`;

/** Haraka's install dir (reused between runs), installing it on first use. */
export function ensureHarakaInstalled(): string {
  const prefix = join(tmpdir(), `posthorn-bench-haraka-${HARAKA_VERSION}`);
  const bin = join(prefix, "node_modules", "Haraka", "bin", "haraka");
  if (existsSync(bin)) return prefix;
  if (Bun.spawnSync(["node", "--version"]).exitCode !== 0) throw new Error("Haraka needs Node.js: apt-get install -y nodejs");
  console.log(`installing Haraka ${HARAKA_VERSION} into ${prefix} (npm) for the benchmark anchor…`);
  mkdirSync(prefix, { recursive: true });
  const p = Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", prefix, `Haraka@${HARAKA_VERSION}`], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0 || !existsSync(bin)) throw new Error(`npm install Haraka failed: ${p.stderr.toString()}`);
  return prefix;
}

/** Starts Haraka on 127.0.0.1:port and resolves once it greets. Call stop() even on failure. */
export async function startHaraka(port: number): Promise<HarakaServer> {
  const prefix = ensureHarakaInstalled();
  const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-haraka-run-"));
  cpSync(join(prefix, "node_modules", "Haraka", "config"), join(dir, "config"), { recursive: true });
  mkdirSync(join(dir, "plugins"));
  writeFileSync(join(dir, "plugins", "accept_discard.js"), PLUGIN);
  writeFileSync(join(dir, "config", "plugins"), "accept_discard\n");
  writeFileSync(join(dir, "config", "smtp.ini"), `[main]\nlisten=127.0.0.1:${port}\n`);
  writeFileSync(join(dir, "config", "log.ini"), "[main]\nlevel=error\n");
  const proc = Bun.spawn(["node", join(prefix, "node_modules", "Haraka", "bin", "haraka"), "-c", dir], { stdout: "ignore", stderr: "ignore" });
  const server: HarakaServer = {
    port,
    pid: proc.pid,
    cpuSeconds: () => cpuOf(proc.pid),
    rssBytes: () => rssOf(proc.pid),
    stop: async () => {
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 3_000);
      await proc.exited;
      clearTimeout(killer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  for (let i = 0; ; i++) {
    if (await greets(port)) return server;
    if (i >= 100 || proc.exitCode !== null) {
      await server.stop();
      throw new Error("Haraka did not start listening");
    }
    await Bun.sleep(100);
  }
}

function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("data", (d) => {
      socket.end("QUIT\r\n");
      resolve(d.toString().startsWith("220"));
    });
    socket.once("error", () => resolve(false));
  });
}
