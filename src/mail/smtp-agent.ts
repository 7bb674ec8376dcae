/**
 * The SMTP agent: a child process of `posthorn serve` that holds the outbound SMTP connections
 * (SmtpPools) and runs every transaction for it over Bun's IPC channel.
 *
 * Why a process of its own: the remote's 250 to the final "." is the moment it takes the message.
 * Were the server to die (SIGKILL, the OOM killer, a crash) between that 250 and the commit that
 * records it, the message would go out again after the restart. The agent outlives its parent:
 * when the channel closes without a "close" from the parent, it writes a delivery receipt
 * (db/receipt-writer.ts) for every acceptance the parent may not have recorded, starts no further
 * transaction, waits for the replies still due and records those too, then exits, all well
 * within the job lease after which the restarted server runs the job again and finds the
 * receipts. As in Postfix, where the delivery agent rather than the queue manager marks a
 * recipient done, an answer that arrives is never lost with the process that asked for it. Its event loop does nothing but SMTP, so a reply is
 * read as it arrives rather than after whatever the server's loop is busy with.
 */
import type { Subprocess } from "bun";
import { join } from "node:path";
import { openReceiptWriter, type DatabaseLocation, type ReceiptWriter } from "../db/receipt-writer.ts";
import { createLogger, type Logger, type LogLevel } from "../log.ts";
import { collectAfterBytes } from "./delivery-memory.ts";
import { receiptRow, type Receipt } from "./receipts.ts";
import { verdictOf } from "./reply.ts";
import { SmtpPools, type ReceiptTag, type SendOutcome, type SmtpPoolOptions, type SmtpSender, type SmtpTarget } from "./smtp-pool.ts";

export type SmtpAgentSettings = Partial<Omit<SmtpPoolOptions, "log">> &
  Pick<SmtpPoolOptions, "heloName"> & {
    /** The server's database, where an orphaned agent writes receipts; null for an in-memory database. */
    database: DatabaseLocation | null;
    logLevel: LogLevel;
  };

type ToAgent =
  | { t: "init"; settings: SmtpAgentSettings }
  | { t: "send"; id: number; target: SmtpTarget; envelope: { from: string; to: string }; raw: Uint8Array; receipt: ReceiptTag | null }
  | { t: "close" };
type FromAgent = { t: "outcome"; id: number; outcome: SendOutcome; stats: SmtpSender["stats"] };

/** How long an orphaned agent waits for replies still due; job leases (10 s) are longer. */
const ORPHAN_GRACE_MS = 5_000;
/**
 * How long an acceptance reported to the parent is remembered: the parent writes its receipt as
 * soon as it reads the report, which is within its event-loop lag, far below this.
 */
const ACCEPTED_KEEP_MS = 30_000;
/** Agents that exit without ever answering, in a row, before transactions run in this process. */
const MAX_FAILED_STARTS = 3;
/**
 * JavaScriptCore's options for the agent (read from the environment as a process starts, from
 * source and from the executable alike). Its hot path is small (SMTP framing, IPC): the FTL, the
 * last optimizing tier, cost it ~10 MB of peak RSS in compilations and no less CPU per message
 * than it saved. A value the user set for BUN_JSC_useFTLJIT is kept.
 */
const AGENT_JSC_OPTIONS: Record<string, string> = { BUN_JSC_useFTLJIT: "0" };

const agentGone = (message: string): SendOutcome => ({ kind: "connection", code: "EAGENT", reply: { code: null, enhanced_code: null, message } });

/**
 * The agent's command line: this executable's `smtp-agent` command, which src/main.ts runs
 * without loading the server's modules. A compiled executable (its modules under $bunfs) is
 * started as is; from source, bun runs src/main.ts.
 */
const agentCommand = (): string[] =>
  import.meta.url.includes("$bunfs") ? [process.execPath, "smtp-agent"] : [process.execPath, join(import.meta.dir, "..", "main.ts"), "smtp-agent"];

/**
 * The server's side: sends each transaction to the agent, started on first use and again after
 * it exits. If it cannot be started at all, transactions run in this process (same results,
 * without the crash guarantee), as the composer falls back to the main thread.
 */
export class SmtpAgent implements SmtpSender {
  stats: SmtpSender["stats"] = { connections: 0, messages: 0 };
  private child: Subprocess | null = null;
  private readonly pending = new Map<number, (outcome: SendOutcome) => void>();
  private nextId = 1;
  private local: SmtpPools | null = null;
  private failedStarts = 0;
  private closed = false;

  constructor(
    private readonly settings: SmtpAgentSettings,
    private readonly log: Logger,
    private readonly command: string[] = agentCommand(),
  ) {}

  /** The running agent's process id, if one is running. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  send(target: SmtpTarget, envelope: { from: string; to: string }, raw: Buffer, receipt?: ReceiptTag): Promise<SendOutcome> {
    if (this.closed) return Promise.resolve(agentGone("the SMTP agent is closed"));
    const child = this.local ? null : (this.child ?? this.start());
    if (!child) return this.local!.send(target, envelope, raw);
    const id = this.nextId++;
    // A Buffer may be a view into a larger pooled ArrayBuffer, which cloning would copy whole.
    const bytes = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? raw : new Uint8Array(raw);
    return new Promise<SendOutcome>((resolve) => {
      this.pending.set(id, resolve);
      child.send({ t: "send", id, target, envelope, raw: bytes, receipt: receipt ?? null } satisfies ToAgent);
    });
  }

  /**
   * Starts the agent now if none runs, so that the first transaction of a burst does not wait for
   * a process to start (~300 ms on a loaded machine) after its message was composed.
   */
  warm(): void {
    if (!this.closed && !this.local && !this.child) this.start();
  }

  private start(): Subprocess | null {
    let answered = false;
    let child: Subprocess;
    try {
      child = Bun.spawn(this.command, {
        stdio: ["ignore", "inherit", "inherit"],
        env: { ...AGENT_JSC_OPTIONS, ...process.env },
        ipc: (message: FromAgent) => {
          answered = true;
          this.failedStarts = 0;
          this.stats = message.stats;
          const resolve = this.pending.get(message.id);
          this.pending.delete(message.id);
          resolve?.(message.outcome);
        },
        // After the channel closes no report can arrive: what is still pending has no answer.
        onDisconnect: () => {
          if (this.child === child) this.child = null;
          if (!answered) this.failedStarts++;
          if (!this.closed) this.log.warn("SMTP agent exited", { pending: this.pending.size });
          const pending = [...this.pending.values()];
          this.pending.clear();
          for (const resolve of pending) resolve(agentGone("the SMTP agent exited before the server answered"));
          if (this.failedStarts >= MAX_FAILED_STARTS && !this.local) this.runLocally("it exited at start, repeatedly");
        },
      });
    } catch (err) {
      this.runLocally(err instanceof Error ? err.message : String(err));
      return null;
    }
    // The server's exit is not held up by its agent, which ends by itself when the channel closes.
    child.unref();
    child.send({ t: "init", settings: this.settings } satisfies ToAgent);
    this.child = child;
    return child;
  }

  private runLocally(reason: string): void {
    this.log.warn("SMTP agent unavailable; SMTP runs in the server process", { reason });
    this.local = new SmtpPools({ ...this.settings, log: this.log });
    this.stats = this.local.stats;
  }

  close(): void {
    this.closed = true;
    this.local?.close();
    try {
      this.child?.send({ t: "close" } satisfies ToAgent);
    } catch {
      // already gone
    }
  }
}

/** The agent process (`posthorn smtp-agent`, started by SmtpAgent). */
export function runSmtpAgent(): void {
  const send = process.send?.bind(process);
  if (!send) {
    console.error("posthorn smtp-agent is started by posthorn serve, not by hand");
    process.exit(2);
  }
  // ^C in a terminal and systemd's stop reach the whole process group; the agent goes on serving
  // the server's graceful shutdown and ends when the server closes it or is gone.
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => {});

  let settings: SmtpAgentSettings | null = null;
  let log: Logger = createLogger("info");
  let pools: SmtpPools | null = null;
  let closing = false;
  let orphaned = false;
  let inflight = 0;
  let receipts: ReceiptWriter | null = null;
  // Each as one JSON string: at ~1,400 deliveries/s, 30 s of acceptances as objects were most of
  // this process's heap; they are read back only if the server dies.
  const accepted = new Map<number, { at: number; receipt: string }>();
  // The copies the server hands over are garbage once answered: collected every 64 MB of them.
  const collected = collectAfterBytes(64 * 1024 * 1024);

  const prune = setInterval(() => {
    const cutoff = Date.now() - ACCEPTED_KEEP_MS;
    for (const [id, a] of accepted) {
      if (a.at >= cutoff) break; // insertion order is time order
      accepted.delete(id);
    }
  }, 5_000);
  prune.unref();

  const record = (list: Receipt[]) => {
    if (!receipts || list.length === 0) return;
    const at = Date.now();
    receipts.write(list.map((r) => receiptRow(r, at))).catch((err: unknown) => {
      log.error("delivery receipts not written", { count: list.length, error: err instanceof Error ? err.message : String(err) });
    });
  };

  let finishing = false;
  const finish = async () => {
    if (finishing) return;
    finishing = true;
    pools?.close();
    // Receipts still being written are committed before the process ends.
    await receipts?.close().catch(() => {});
    process.exit(0);
  };

  const orphan = () => {
    orphaned = true;
    clearInterval(prune);
    log.warn("server process gone; recording acceptances and finishing transactions under way", { inflight, recent: accepted.size });
    try {
      if (settings?.database) receipts = openReceiptWriter(settings.database);
    } catch (err) {
      log.error("database not opened; receipts cannot be written", { error: err instanceof Error ? err.message : String(err) });
    }
    // Acceptances already reported may not have reached the database before the parent died.
    record([...accepted.values()].map((a) => JSON.parse(a.receipt) as Receipt));
    accepted.clear();
    // Only transactions under way go on; those still waiting for a connection are not started
    // (they fail here unsent, and the restarted server sends them).
    pools?.close();
    if (inflight === 0) return void finish();
    setTimeout(() => void finish(), ORPHAN_GRACE_MS);
  };

  process.on("message", async (m: ToAgent) => {
    if (m.t === "init") {
      settings = m.settings;
      log = createLogger(m.settings.logLevel);
      pools = new SmtpPools({ ...m.settings, log });
      return;
    }
    if (m.t === "close") {
      closing = true;
      pools?.close();
      process.disconnect?.();
      // Idle connections say QUIT and close; the process then ends by itself, or here at the latest.
      setTimeout(() => process.exit(0), 5_000).unref();
      return;
    }
    if (!pools) return;
    inflight++;
    const outcome = await pools.send(m.target, m.envelope, Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength));
    inflight--;
    collected(m.raw.byteLength);
    if (m.receipt && outcome.kind === "reply" && verdictOf(outcome.reply) === "delivered") {
      const receipt: Receipt = { ...m.receipt, reply: outcome.reply };
      if (orphaned) record([receipt]);
      else accepted.set(m.id, { at: Date.now(), receipt: JSON.stringify(receipt) });
    }
    if (orphaned) {
      if (inflight === 0) void finish();
      return;
    }
    if (process.connected) send({ t: "outcome", id: m.id, outcome, stats: pools.stats } satisfies FromAgent);
  });
  process.on("disconnect", () => {
    if (!closing) orphan();
  });
}
