import type { Logger } from "../log.ts";
import type { ComposedMessage, ComposeInput } from "./compose-message.ts";
import type { ComposeRequest, ComposeResponse } from "./compose-thread.ts";
import type { DkimKey } from "./dkim.ts";

/** The worker died or was stopped: not the message's fault, so composing is retried. */
export class ComposerUnavailableError extends Error {}

type Pending = { input: ComposeInput; key: DkimKey; resolve: (composed: ComposedMessage) => void; reject: (err: Error) => void };
type Thread = { worker: Worker; pending: Map<number, Pending>; ready: boolean };

// Loaded on first use: the workers normally compose, and these modules (nodemailer's composer,
// mailauth's DKIM tools) would otherwise add ~150 ms to every start.
const composeHere = async (input: ComposeInput, key: DkimKey): Promise<ComposedMessage> => (await import("./compose-message.ts")).composeSigned(input, key);

/**
 * Where the worker's code is: next to this file when running from source; in a compiled
 * executable (bun build --compile with src/mail/compose-thread.ts as a second entry point,
 * src/ being the common root) it is mail/compose-thread.js under the executable's root.
 */
const workerUrl = (): string =>
  import.meta.url.includes("$bunfs") ? new URL("./mail/compose-thread.ts", import.meta.url).href : new URL("./compose-thread.ts", import.meta.url).href;

/**
 * Composes and signs messages on worker threads (compose-thread.ts). Building MIME costs a few
 * hundred µs of CPU per message; on the main thread that time is taken from HTTP requests and
 * from committing delivery outcomes promptly (the window in which a crash causes a duplicate).
 * When workers cannot be started (e.g. a build without the worker entry point), messages are
 * composed on the calling thread instead: slower, same result.
 */
export class Composer {
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private disabled = false;

  constructor(
    private readonly size: number,
    private readonly log: Logger,
    private readonly url: string = workerUrl(),
  ) {}

  compose(input: ComposeInput, key: DkimKey): Promise<ComposedMessage> {
    const thread = this.size > 0 && !this.disabled ? this.thread() : null;
    if (!thread) return composeHere(input, key);
    const id = this.nextId++;
    return new Promise<ComposedMessage>((resolve, reject) => {
      thread.pending.set(id, { input, key, resolve, reject });
      thread.worker.postMessage({ id, input, key } satisfies ComposeRequest);
    });
  }

  /**
   * Gets ready for the first message: starts the workers, or loads the composing modules on this
   * thread (~150 ms of the first message's time otherwise).
   */
  warm(): void {
    if (this.size > 0 && !this.disabled) this.thread();
    else void import("./compose-message.ts").catch(() => {});
  }

  /** The least busy worker, started on first use. */
  private thread(): Thread | null {
    while (this.threads.length < this.size) {
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
      worker = new Worker(this.url);
    } catch (err) {
      this.disabled = true;
      this.log.warn("compose workers unavailable; composing on the main thread", { error: String(err) });
      return null;
    }
    const thread: Thread = { worker, pending: new Map(), ready: false };
    worker.onmessage = (event: MessageEvent<ComposeResponse>) => {
      thread.ready = true;
      const p = thread.pending.get(event.data.id);
      if (!p) return;
      thread.pending.delete(event.data.id);
      if ("error" in event.data) p.reject(new Error(event.data.error));
      else p.resolve({ raw: Buffer.from(event.data.raw.buffer, event.data.raw.byteOffset, event.data.raw.byteLength), links: event.data.links });
    };
    worker.onerror = (event) => {
      // What a dead worker held is composed here instead. A worker that fails before its first
      // answer cannot be loaded at all: stop trying workers. One that fails later is replaced.
      const i = this.threads.indexOf(thread);
      if (i !== -1) this.threads.splice(i, 1);
      if (!thread.ready) {
        this.disabled = true;
        this.log.warn("compose worker could not start; composing on the main thread", { error: event.message });
      } else {
        this.log.error("compose worker failed; starting another", { error: event.message });
      }
      for (const p of thread.pending.values()) composeHere(p.input, p.key).then(p.resolve, p.reject);
      thread.pending.clear();
      worker.terminate();
    };
    worker.unref();
    return thread;
  }

  close(): void {
    for (const t of this.threads.splice(0)) {
      for (const p of t.pending.values()) p.reject(new ComposerUnavailableError("composer closed"));
      t.worker.terminate();
    }
  }
}
