/**
 * Worker thread that checkpoints a SQLite database's write-ahead log on a connection of its own
 * (see background-checkpointer.ts for why). Messages in: open {path}, stop; out: ready, stopped, error.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export type ToCheckpointer = { type: "open"; path: string; busyMs: number; idleMs: number } | { type: "stop" };
export type FromCheckpointer = { type: "ready" } | { type: "stopped" } | { type: "error"; error: string };

let db: Database | null = null;
let timer: Timer | null = null;

self.onmessage = (event: MessageEvent<ToCheckpointer>) => {
  const msg = event.data;
  if (msg.type === "open") {
    try {
      db = new Database(msg.path, { readwrite: true, create: false });
      // The log's syncs go with each checkpoint (the pages copied are synced in the log first,
      // and the file after), as SQLite's own automatic checkpoint does.
      db.exec("PRAGMA synchronous = FULL");
    } catch (err) {
      self.postMessage({ type: "error", error: String(err) } satisfies FromCheckpointer);
      return;
    }
    // PASSIVE: copies what no reader still needs, never waits for a lock and never blocks the
    // writer. Soon again while commits come (so little is left for the writer's own
    // checkpoint), rarely when the log is still.
    const checkpoint = db.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
    let lastLog = 0;
    const tick = () => {
      let next = msg.idleMs;
      try {
        const log = checkpoint.get()?.log ?? 0;
        if (log !== lastLog) next = msg.busyMs;
        lastLog = log;
      } catch (err) {
        self.postMessage({ type: "error", error: String(err) } satisfies FromCheckpointer);
      }
      timer = setTimeout(tick, next);
    };
    timer = setTimeout(tick, msg.idleMs);
    self.postMessage({ type: "ready" } satisfies FromCheckpointer);
    return;
  }
  if (timer) clearTimeout(timer);
  timer = null;
  db?.close();
  db = null;
  self.postMessage({ type: "stopped" } satisfies FromCheckpointer);
};
