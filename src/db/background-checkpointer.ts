import type { Database } from "bun:sqlite";
import type { FromCheckpointer, ToCheckpointer } from "./checkpoint-thread.ts";

/**
 * In a compiled binary the worker is an entry point of its own under /$bunfs/root (scripts/build.ts),
 * found by its path from there; from source, beside this file.
 */
const WORKER_URL = import.meta.url.includes("/$bunfs/") ? "./db/checkpoint-thread.ts" : new URL("./checkpoint-thread.ts", import.meta.url).href;

/**
 * Frames of log at which the writer's own automatic checkpoint runs while the worker checkpoints
 * (SQLite's default, 1000, is what it runs at otherwise).
 */
export const WRITER_CHECKPOINT_FRAMES = 4000;

/**
 * Checkpoints of the write-ahead log on a thread of their own.
 *
 * Why: SQLite's automatic checkpoint runs inside the commit that takes the log past 1000 frames,
 * on the event loop. It copies those pages into the database file and syncs the log and the file,
 * while every request waits; under a send burst that was about half of what the group commits
 * cost the event loop. The worker, on its own connection, runs a passive checkpoint every
 * `busyMs` while the log grows (every `idleMs` while it is still), beside the event loop.
 *
 * The writer's automatic checkpoint stays, at WRITER_CHECKPOINT_FRAMES: only a checkpoint that
 * has copied the whole log lets the next commit start the log over, and a passive one from
 * another connection rarely catches a log that commits keep growing. When the writer's runs, the
 * worker has copied nearly everything already, so it costs the event loop little, and the log
 * stays bounded. Until the worker is running (or if it cannot start), the writer checkpoints as
 * before.
 */
export class BackgroundCheckpointer {
  private worker: Worker | null = null;
  private stopped: Promise<void> | null = null;
  /** The worker has opened its connection and checkpoints; the writer's own checkpoint waits for WRITER_CHECKPOINT_FRAMES. */
  running = false;

  constructor(
    private readonly sqlite: Database,
    private readonly path: string,
    private readonly opts: { busyMs?: number; idleMs?: number; onError?: (error: string) => void; workerUrl?: string } = {},
  ) {}

  start(): this {
    let worker: Worker;
    try {
      worker = new Worker(this.opts.workerUrl ?? WORKER_URL);
    } catch (err) {
      this.opts.onError?.(String(err));
      return this;
    }
    this.worker = worker;
    worker.unref();
    worker.onmessage = (event: MessageEvent<FromCheckpointer>) => {
      const msg = event.data;
      if (msg.type === "ready") {
        this.sqlite.exec(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_FRAMES}`);
        this.running = true;
      } else if (msg.type === "error") this.fallBack(msg.error);
    };
    worker.onerror = (event) => this.fallBack(event.message);
    worker.postMessage({ type: "open", path: this.path, busyMs: this.opts.busyMs ?? 20, idleMs: this.opts.idleMs ?? 500 } satisfies ToCheckpointer);
    return this;
  }

  /** Stops the worker and closes its connection (before the writer's: the last one to close checkpoints and removes the log). */
  stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    return (this.stopped ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.running = false;
        worker.terminate();
        this.worker = null;
        resolve();
      };
      const timer = setTimeout(done, 2000);
      worker.onmessage = (event: MessageEvent<FromCheckpointer>) => event.data.type === "stopped" && done();
      worker.onerror = done;
      worker.postMessage({ type: "stop" } satisfies ToCheckpointer);
    }).then(() => {
      this.sqlite.exec("PRAGMA wal_autocheckpoint = 1000");
    }));
  }

  /** The worker failed: the writer checkpoints by itself again. */
  private fallBack(error: string): void {
    this.opts.onError?.(error);
    this.running = false;
    this.sqlite.exec("PRAGMA wal_autocheckpoint = 1000");
    this.worker?.terminate();
    this.worker = null;
  }
}
