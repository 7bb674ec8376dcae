/**
 * Reads a received report on a worker thread of its own (report-thread.ts), bounded in time: a
 * thread that has not answered within the limit is terminated and the report refused, whatever it
 * was doing (unpacking, an XML parse that cannot be interrupted otherwise). The event loop that
 * serves the MX only waits. Reports are few (a handful per domain a day), so a thread per report
 * costs nothing worth pooling. Where no worker can start, or the thread fails, the report is read
 * on this thread.
 */
import { readReportMessage, type ParsedReport } from "./report-message.ts";
import type { ReportKind } from "./report-addresses.ts";
import type { FromReportThread, ToReportThread } from "./report-thread.ts";
import { DEFAULT_UNPACK_LIMITS, ReportRefused, type UnpackLimits } from "./unpack.ts";

// In the compiled binary the thread is an entry point beside main.ts (scripts/build.ts).
const WORKER_URL = import.meta.url.includes("/$bunfs/") ? "./reports/report-thread.ts" : new URL("./report-thread.ts", import.meta.url).href;

/** Longest a report may take to be read as a whole (unpacking and parsing), in ms. */
export const READ_TIMEOUT_MS = 15_000;

export interface ReadOptions {
  limits?: UnpackLimits;
  timeoutMs?: number;
  /** Tests: another worker script. */
  workerUrl?: string;
}

export function readReportInThread(raw: Buffer, kind: ReportKind, opts: ReadOptions = {}): Promise<ParsedReport> {
  const limits = opts.limits ?? DEFAULT_UNPACK_LIMITS;
  const timeoutMs = opts.timeoutMs ?? READ_TIMEOUT_MS;
  let worker: Worker;
  try {
    worker = new Worker(opts.workerUrl ?? WORKER_URL);
  } catch {
    return readReportMessage(raw, kind, limits);
  }
  return new Promise<ParsedReport>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.terminate();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new ReportRefused(`reading the report took longer than ${timeoutMs} ms (the limit)`))), timeoutMs);
    worker.onmessage = (event: MessageEvent<FromReportThread>) => {
      const msg = event.data;
      finish(() => (msg.ok ? resolve(msg.parsed) : reject(msg.unexpected ? new Error(msg.reason) : new ReportRefused(msg.reason))));
    };
    // A thread that fails (its script missing from a build, a crash) must not lose the report:
    // it is read on this thread instead, with the same size and time bounds of unpacking.
    worker.onerror = () => finish(() => readReportMessage(raw, kind, limits).then(resolve, reject));
    worker.postMessage({ raw: new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), kind, limits } satisfies ToReportThread);
  });
}
