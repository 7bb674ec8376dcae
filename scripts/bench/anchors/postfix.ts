/**
 * Benchmark anchor: a private Postfix instance relaying everything it accepts to a sink on
 * loopback. Its own config_directory, queue_directory and data_directory under a temp dir, so
 * the system instance (/etc/postfix, /var/spool/postfix) is never read, written or started.
 * Postfix's defaults otherwise (fsync of every queue file, qmgr's concurrency, connection
 * caching to the relayhost); the deviations are the ones a private loopback instance needs: no
 * chroot (the temp queue has no chroot tree), no DNS (the relayhost is a bracketed IP and the
 * client's name is not looked up, so nothing reaches the system resolver), logging to a file.
 * Debian's package is installed at bench time if it is missing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, chmodSync, chownSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PostfixRelay {
  port: number;
  dir: string;
  /** CPU seconds (user + system) used so far by this instance's processes, and by their reaped children. */
  cpuSeconds(): number;
  /** Summed proportional set size (shared pages split between the processes) of its live processes, in bytes. */
  pssBytes(): number;
  stop(): void;
}

function run(cmd: string[], env: Record<string, string> = {}): string {
  const p = Bun.spawnSync(cmd, { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${p.exitCode}): ${p.stderr.toString()}${p.stdout.toString()}`);
  return p.stdout.toString();
}

/** Installs Debian's postfix when it is not there (the system instance is not configured or started by this). */
export function ensurePostfixInstalled(): void {
  if (existsSync("/usr/sbin/postfix")) return;
  console.log("installing Debian's postfix (apt-get) for the benchmark anchor…");
  run(["apt-get", "install", "-y", "--no-install-recommends", "postfix"], { DEBIAN_FRONTEND: "noninteractive" });
}

/**
 * Postfix's master daemonizes, so it would outlive a bench stopped with ^C or killed: running
 * instances are stopped on those signals too (exceptions are the caller's finally's job).
 */
const running = new Set<PostfixRelay>();
let signalsHooked = false;
function stopOnSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      for (const relay of running) relay.stop();
      process.exit(130);
    });
  }
}

/** Starts a private Postfix on 127.0.0.1:port relaying to [127.0.0.1]:sinkPort. Call stop() even on failure. */
export function startPostfixRelay(opts: { port: number; sinkPort: number }): PostfixRelay {
  ensurePostfixInstalled();
  const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-postfix-"));
  chmodSync(dir, 0o755);
  const etc = join(dir, "etc");
  const queue = join(dir, "spool");
  const data = join(dir, "lib");
  mkdirSync(etc);
  mkdirSync(queue);
  mkdirSync(data);
  // Postfix's master takes its lock here as the mail_owner.
  const owner = run(["id", "-u", "postfix"]).trim();
  chownSync(data, Number(owner), -1);
  writeFileSync(
    join(etc, "main.cf"),
    [
      "compatibility_level = 3.6",
      `queue_directory = ${queue}`,
      `data_directory = ${data}`,
      "meta_directory = /etc/postfix",
      "myhostname = anchor.postfix.test",
      "mydomain = postfix.test",
      "myorigin = $myhostname",
      "mydestination =",
      "relay_domains =",
      "local_recipient_maps =",
      "alias_maps =",
      "alias_database =",
      "inet_interfaces = 127.0.0.1",
      "inet_protocols = ipv4",
      "mynetworks = 127.0.0.0/8",
      "smtpd_relay_restrictions = permit_mynetworks, reject",
      `relayhost = [127.0.0.1]:${opts.sinkPort}`,
      "smtpd_peername_lookup = no",
      "smtp_dns_support_level = disabled",
      `maillog_file_prefixes = ${dir}`,
      `maillog_file = ${join(dir, "maillog")}`,
      "",
    ].join("\n"),
  );
  // Debian's master.cf with the public smtpd replaced by ours on a loopback port, chroot off.
  const master = readFileSync("/etc/postfix/master.cf", "utf8")
    .split("\n")
    .filter((line) => !/^smtp\s+inet\s/.test(line))
    .map((line) => {
      const f = line.split(/\s+/);
      if (line.startsWith("#") || line.startsWith(" ") || f.length < 8) return line;
      f[4] = "n";
      return f.join("\t");
    });
  master.unshift(`127.0.0.1:${opts.port}\tinet\tn\t-\tn\t-\t-\tsmtpd`);
  writeFileSync(join(etc, "master.cf"), master.join("\n"));
  let masterPid = 0;
  const relay: PostfixRelay = {
    port: opts.port,
    dir,
    cpuSeconds: () => processTree(masterPid).reduce((sum, pid) => sum + cpuOf(pid, true), 0),
    pssBytes: () => processTree(masterPid).reduce((sum, pid) => sum + pssOf(pid), 0),
    stop() {
      running.delete(relay);
      try {
        run(["postfix", "-c", etc, "stop"]);
      } catch {
        if (masterPid) process.kill(masterPid, "SIGTERM");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  running.add(relay);
  stopOnSignals();
  try {
    run(["postfix", "-c", etc, "check"]);
    run(["postfix", "-c", etc, "start"]);
    const pidFile = join(queue, "pid", "master.pid");
    for (let i = 0; i < 100 && !existsSync(pidFile); i++) Bun.sleepSync(50);
    masterPid = Number(readFileSync(pidFile, "utf8").trim());
  } catch (err) {
    relay.stop();
    throw err;
  }
  return relay;
}

/** pid and its descendants (from /proc). */
function processTree(root: number): number[] {
  if (!root) return [];
  const parents = new Map<number, number[]>();
  for (const entry of Bun.spawnSync(["ps", "-e", "-o", "pid=,ppid="]).stdout.toString().trim().split("\n")) {
    const [pid, ppid] = entry.trim().split(/\s+/).map(Number);
    if (!parents.has(ppid!)) parents.set(ppid!, []);
    parents.get(ppid!)!.push(pid!);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of parents.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

function statOf(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** utime + stime (+ reaped children's), in seconds. */
export function cpuOf(pid: number, withChildren = false): number {
  const f = statOf(pid);
  if (!f) return 0;
  const ticks = Number(f[11]) + Number(f[12]) + (withChildren ? Number(f[13]) + Number(f[14]) : 0);
  return ticks / 100;
}

/** Proportional set size: resident pages, each shared one divided by its sharers (so a sum over processes is honest). */
function pssOf(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function rssOf(pid: number): number {
  const f = statOf(pid);
  return f ? Number(f[21]) * 4096 : 0;
}
