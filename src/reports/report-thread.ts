/**
 * A worker thread that reads one received report (report-message.ts) and answers with what it
 * found or why it was refused, so that a large or hostile report never holds the MX's event loop,
 * and one that takes too long is stopped by terminating the thread (report-reader.ts).
 */
import { readReportMessage, type ParsedReport } from "./report-message.ts";
import type { ReportKind } from "./report-addresses.ts";
import { ReportRefused, type UnpackLimits } from "./unpack.ts";

declare const self: Worker;

export type ToReportThread = { raw: Uint8Array; kind: ReportKind; limits?: UnpackLimits };
export type FromReportThread = { ok: true; parsed: ParsedReport } | { ok: false; reason: string; unexpected: boolean };

self.onmessage = async (event: MessageEvent<ToReportThread>) => {
  const { raw, kind, limits } = event.data;
  try {
    const parsed = await readReportMessage(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), kind, limits);
    self.postMessage({ ok: true, parsed } satisfies FromReportThread);
  } catch (err) {
    const msg: FromReportThread =
      err instanceof ReportRefused ? { ok: false, reason: err.reason, unexpected: false } : { ok: false, reason: err instanceof Error ? err.message : String(err), unexpected: true };
    self.postMessage(msg);
  }
};
