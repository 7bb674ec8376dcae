/**
 * Runs analyzeInbound (parse + SPF/DKIM/DMARC/ARC + content symbols, a few ms of CPU per
 * message) on worker threads, so that the main thread stays free for SMTP sessions and group
 * commits. Workers ask their DNS questions back here, where they go through deps.dns. When
 * workers cannot be started (e.g. a build without the worker entry point, which Bun reports as an
 * error event rather than a throw), messages are analyzed on the calling thread instead: slower,
 * same result. An analysis that takes too long (a
 * pathological message) terminates its worker, which is replaced on next use.
 */
import type { Logger } from "../log.ts";
import { analyzeInbound, type AnalysisInput, type InboundAnalysis } from "./analyze-inbound.ts";
import type { AuthResolver } from "./auth-resolver.ts";
import type { FromWorker, ToWorker } from "./analysis-thread.ts";

/**
 * In a compiled binary (bun build --compile src/main.ts src/smtp/analysis-thread.ts …), modules
 * live under /$bunfs/root and a worker entry point is found by its path from the entry points'
 * common directory (src/); from source, next to this file.
 */
const WORKER_URL = import.meta.url.includes("/$bunfs/") ? "./smtp/analysis-thread.ts" : new URL("./analysis-thread.ts", import.meta.url).href;

export class AnalysisUnavailableError extends Error {
  override name = "AnalysisUnavailableError";
}

type Pending = { raw: Uint8Array; input: AnalysisInput; resolve: (a: Analyzed) => void; reject: (e: Error) => void; timer: Timer };
/** `answered`: the worker has sent something, so it did start. */
type Thread = { worker: Worker; pending: Map<number, Pending>; answered: boolean };

export interface AnalysisPoolOptions {
  /** Worker threads; 0 analyzes on the calling thread. */
  threads: number;
  /** Longest time one analysis may take before its worker is replaced. */
  timeoutMs?: number;
  /** The worker module (tests point it elsewhere). */
  workerUrl?: string;
  /**
   * How long a worker keeps the answers it got from `resolver` (a cache of its own, so that the
   * same senders' records do not cross threads for every message); default 0, ask each time.
   * Set it to the resolver's own cache lifetime (an answer is then at most twice that old).
   */
  dnsCacheMs?: number;
}

/** An analysis and the message's bytes to use from then on (the same bytes; see `lend`). */
export interface Analyzed {
  analysis: InboundAnalysis;
  raw: Uint8Array;
}

export class AnalysisPool {
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private disabled = false;
  private readonly timeoutMs: number;

  constructor(
    private readonly opts: AnalysisPoolOptions,
    /** Answers the workers' DNS questions (and in-thread analyses). */
    private readonly resolver: AuthResolver,
    private readonly log: Logger,
  ) {
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  /**
   * `lend`: the caller gives up `raw` (its buffer is moved to the worker, not copied, and moved
   * back with the result, which carries it), so that a large message is not held twice; it is
   * gone if the analysis fails. Only a buffer that is all the message's own is moved, and only
   * to a worker known to run (one that never starts hands what it holds to this thread).
   */
  analyze(raw: Uint8Array, input: AnalysisInput, opts: { lend?: boolean } = {}): Promise<Analyzed> {
    const thread = this.opts.threads > 0 && !this.disabled ? this.thread() : null;
    if (!thread) return analyzeInbound(raw, input, this.resolver).then((analysis) => ({ analysis, raw }));
    const id = this.nextId++;
    const move = opts.lend === true && thread.answered && raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength && raw.buffer instanceof ArrayBuffer;
    return new Promise<Analyzed>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.log.warn("inbound analysis timed out; replacing its worker", { timeoutMs: this.timeoutMs });
        this.fail(thread, new AnalysisUnavailableError(`analysis took longer than ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      thread.pending.set(id, { raw, input, resolve, reject, timer });
      thread.worker.postMessage({ type: "analyze", id, raw, input } satisfies ToWorker, move ? [raw.buffer as ArrayBuffer] : []);
    });
  }

  /** The least busy worker, started on first use. */
  private thread(): Thread | null {
    while (this.threads.length < this.opts.threads) {
      const t = this.start();
      if (!t) break;
      this.threads.push(t);
    }
    if (this.threads.length === 0) return null;
    let best = this.threads[0]!;
    for (const t of this.threads) if (t.pending.size < best.pending.size) best = t;
    return best;
  }

  private start(): Thread | null {
    let worker: Worker;
    try {
      worker = new Worker(this.opts.workerUrl ?? WORKER_URL);
    } catch (err) {
      this.disabled = true;
      this.log.warn("analysis workers unavailable; analyzing inbound mail on the main thread", { error: String(err) });
      return null;
    }
    const thread: Thread = { worker, pending: new Map(), answered: false };
    worker.postMessage({ type: "config", dnsCacheMs: this.opts.dnsCacheMs ?? 0 } satisfies ToWorker);
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const msg = event.data;
      thread.answered = true;
      if (msg.type === "dns") {
        this.resolver(msg.name, msg.rrtype).then(
          (value) => worker.postMessage({ type: "dns", qid: msg.qid, value } satisfies ToWorker),
          (err: Error & { code?: string }) =>
            worker.postMessage({ type: "dns", qid: msg.qid, error: { code: err.code ?? "EUNKNOWN", name: msg.name, rrtype: msg.rrtype } } satisfies ToWorker),
        );
        return;
      }
      const p = thread.pending.get(msg.id);
      if (!p) return;
      thread.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.type === "error") p.reject(new Error(msg.error));
      else p.resolve({ analysis: msg.analysis, raw: msg.raw });
    };
    worker.onerror = (event) => {
      if (!thread.answered) {
        // It never started (Bun reports a missing worker module this way, asynchronously): use
        // the calling thread from now on, for what this worker held too.
        this.disabled = true;
        this.log.warn("analysis workers unavailable; analyzing inbound mail on the main thread", { error: event.message });
        const held = [...thread.pending.values()];
        thread.pending.clear();
        this.fail(thread, new AnalysisUnavailableError("analysis worker did not start"));
        for (const p of held) {
          clearTimeout(p.timer);
          analyzeInbound(p.raw, p.input, this.resolver).then((analysis) => p.resolve({ analysis, raw: p.raw }), p.reject);
        }
        return;
      }
      this.log.error("analysis worker failed", { error: event.message });
      this.fail(thread, new AnalysisUnavailableError(`analysis worker failed: ${event.message}`));
    };
    worker.unref();
    return thread;
  }

  /** Drops a worker: what it held fails (the jobs retry) and a new one starts on next use. */
  private fail(thread: Thread, err: Error): void {
    const i = this.threads.indexOf(thread);
    if (i !== -1) this.threads.splice(i, 1);
    for (const p of thread.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    thread.pending.clear();
    thread.worker.terminate();
  }

  close(): void {
    for (const t of [...this.threads]) this.fail(t, new AnalysisUnavailableError("analyzer closed"));
  }
}
