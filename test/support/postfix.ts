/**
 * A private Postfix for one test file: Debian's `postfix` package with a configuration, queue and
 * data directory of its own in a scratch directory, its SMTP server on 127.0.0.1:PORT only. It
 * never uses DNS: every domain it may send to is routed by transport_maps to a loopback port
 * (`[127.0.0.1]:PORT`, an address, so there is nothing to look up), and anything else bounces
 * at once (the error transport). A message that meets a temporary failure is tried once and
 * then returned (maximal_queue_lifetime = 0), so an expiry DSN follows at once.
 *
 * The master runs in the foreground under this process, and is killed with its daemons when
 * this process dies first, or at the end of the run (test/support/scratch.ts). The system's own
 * Postfix (/etc/postfix) is neither used nor started. `.ci/run` installs the `postfix` package;
 * without it, or without root, these tests are skipped (`requireTool("postfix")`),
 * and fail under CI=true.
 */
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { freePort } from "./ports.ts";
import { atRunEnd, scratchDir } from "./scratch.ts";
import { hasTool, POSTFIX, POSTFIX_MASTER as MASTER } from "./tools.ts";

/** Debian's package is installed, and this process is root, as the master must be (test/support/tools.ts). */
export const postfixAvailable = (): boolean => hasTool("postfix");

export interface TestPostfix {
  /** Its SMTP server: 127.0.0.1:port. */
  port: number;
  /** Its myhostname: the HELO name and the Reporting-MTA of its DSNs. */
  hostname: string;
  /** Its log so far (maillog_file), for failure messages. */
  log(): string;
  stop(): Promise<void>;
}


/** The first line the server at 127.0.0.1:port sends, or null when it cannot be reached. */
function greeting(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let text = "";
    const done = (line: string | null) => {
      socket.destroy();
      resolve(line);
    };
    socket.setTimeout(2000, () => done(null));
    socket.on("error", () => done(null));
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      if (text.includes("\r\n")) done(text.slice(0, text.indexOf("\r\n")));
    });
  });
}

const uid = (name: string, flag: "-u" | "-g") => Number(Bun.spawnSync(["id", flag, name]).stdout.toString().trim());

/** Starts a Postfix that relays mail for each domain of `routes` to 127.0.0.1 at that port. */
export async function startPostfix(opts: { routes: Record<string, number>; hostname?: string }): Promise<TestPostfix> {
  if (!postfixAvailable()) throw new Error("startPostfix: needs Debian's postfix package (apt-get install postfix) and root");
  const hostname = opts.hostname ?? "mx.postfix.test";
  const dir = scratchDir("postfix-");
  // The daemons run as the postfix user and must reach the queue inside (mkdtemp makes it 0700).
  chmodSync(dir, 0o755);
  const conf = join(dir, "conf");
  const queue = join(dir, "queue");
  mkdirSync(conf);
  mkdirSync(queue, { mode: 0o755 });
  // postlogd writes the log as the postfix user: the file must exist and be its.
  const maillog = join(dir, "maillog");
  closeSync(openSync(maillog, "a"));
  chownSync(maillog, uid("postfix", "-u"), uid("postfix", "-g"));

  const port = freePort();
  const transport = Object.entries(opts.routes)
    .map(([domain, p]) => `${domain}=smtp:[127.0.0.1]:${p}`)
    .join(", ");
  const mainCf = {
    compatibility_level: "3.6",
    queue_directory: queue,
    data_directory: join(dir, "data"),
    mail_owner: "postfix",
    setgid_group: "postdrop",
    maillog_file: maillog,
    maillog_file_prefixes: dir,
    myhostname: hostname,
    mydomain: hostname.slice(hostname.indexOf(".") + 1),
    myorigin: hostname,
    // Nothing is delivered here: no local domains, mailboxes or aliases.
    mydestination: "",
    local_recipient_maps: "",
    alias_maps: "",
    alias_database: "",
    inet_interfaces: "loopback-only",
    inet_protocols: "ipv4",
    mynetworks: "127.0.0.0/8",
    smtpd_relay_restrictions: "permit_mynetworks, reject",
    // Mail goes only where `routes` say, to an address; anything else bounces.
    transport_maps: `inline:{ ${transport} }`,
    default_transport: "error:5.4.4 not routed in this test",
    relay_transport: "error:5.4.4 not routed in this test",
    local_transport: "error:5.4.4 not routed in this test",
    // No DNS: neither for destinations nor for a client's name.
    smtp_dns_support_level: "disabled",
    smtpd_peername_lookup: "no",
    smtp_tls_security_level: "none",
    smtpd_tls_security_level: "none",
    // One attempt, then the message goes back to its sender.
    maximal_queue_lifetime: "0",
    bounce_queue_lifetime: "0",
    // No copies of problems to a postmaster, who does not exist here.
    notify_classes: "",
    biff: "no",
  };
  writeFileSync(
    join(conf, "main.cf"),
    Object.entries(mainCf)
      .map(([k, v]) => `${k} = ${v}\n`)
      .join(""),
  );
  // Only what relaying and bouncing need; nothing chrooted, so no chroot to set up.
  writeFileSync(
    join(conf, "master.cf"),
    [
      `127.0.0.1:${port} inet n - n - - smtpd`,
      "cleanup unix n - n - 0 cleanup",
      "qmgr unix n - n 300 1 qmgr",
      "rewrite unix - - n - - trivial-rewrite",
      "bounce unix - - n - 0 bounce",
      "defer unix - - n - 0 bounce",
      "trace unix - - n - 0 bounce",
      "smtp unix - - n - - smtp",
      "error unix - - n - - error",
      "anvil unix - - n - 1 anvil",
      "scache unix - - n - 1 scache",
      "postlog unix-dgram n - n - 1 postlogd",
      "",
    ].join("\n"),
  );
  const log = () => readFileSync(maillog, "utf8");

  // `postfix check` creates the queue's subdirectories with their owners and modes.
  // (About 2 s on a fresh queue: it runs a few dozen commands.)
  const check = Bun.spawn([POSTFIX, "-c", conf, "check"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  if ((await check.exited) !== 0) {
    const output = (await new Response(check.stderr).text()) || (await new Response(check.stdout).text());
    throw new Error(`postfix check failed (exit ${check.exitCode ?? check.signalCode}): ${output || log()}`);
  }

  // The master stays in the foreground (-s) as a session and process group leader of its own. It
  // changes its group id, which clears a parent-death signal, so a shell holds one for it: when
  // this process dies (SIGTERM from setpriv --pdeathsig), the shell kills the master's group.
  const script = `trap 'kill -s KILL -- -$m 2>/dev/null; exit 1' TERM; ${MASTER} -c "$1" -s & m=$!; wait $m`;
  const keeper = Bun.spawn(["setpriv", "--pdeathsig", "TERM", "--", "sh", "-c", script, "postfix-keeper", conf], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  let masterPid = 0;
  const kill = () => {
    if (masterPid) {
      try {
        // The master and every daemon it started, at once: nothing writes in the queue after this.
        process.kill(-masterPid, "SIGKILL");
      } catch {
        // already gone
      }
      masterPid = 0;
    }
    keeper.kill("SIGTERM");
  };
  atRunEnd(kill);

  // Ready when its smtpd greets (a 220 naming it, not some other server that took the port).
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = await greeting(port);
    if (line?.startsWith(`220 ${hostname} `)) break;
    if (keeper.exitCode !== null || Date.now() > deadline) {
      kill();
      throw new Error(`Postfix did not start on 127.0.0.1:${port} (greeting ${JSON.stringify(line)}); its log:\n${log()}`);
    }
    await Bun.sleep(50);
  }
  masterPid = Number(readFileSync(join(queue, "pid", "master.pid"), "utf8").trim());

  return {
    port,
    hostname,
    log,
    async stop() {
      kill();
      await keeper.exited;
    },
  };
}
