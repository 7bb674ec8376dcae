// The worker of sql-thread.ts: one SQLite connection, running the statements each message lists.
import { Database } from "bun:sqlite";
import { openConnection, type Statement } from "./model.ts";

declare const self: Worker;
let db: Database | undefined;
let run: ((s: Statement) => unknown) | undefined;

self.onmessage = (e: MessageEvent<{ id: number; file?: string; statements?: Statement[] }>) => {
  const { id, file, statements } = e.data;
  if (file) [db, run] = openConnection(file);
  try {
    postMessage({ id, results: (statements ?? []).map((s) => run!(s)) });
  } catch (err) {
    postMessage({ id, error: String(err) });
  }
};
