// The worker of sql-thread.ts: one SQLite connection, running the statements each message lists.
import { openConnection, type Statement } from "./model.ts";

declare const self: Worker;
let run: ((s: Statement) => unknown) | undefined;

self.onmessage = (e: MessageEvent<{ id: number; file?: string; statements?: Statement[] }>) => {
  const { id, file, statements } = e.data;
  if (file) [, run] = openConnection(file);
  try {
    postMessage({ id, results: (statements ?? []).map((s) => run!(s)) });
  } catch (err) {
    postMessage({ id, error: String(err) });
  }
};
