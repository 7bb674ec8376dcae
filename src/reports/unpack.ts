/**
 * Unpacking a report attachment within bounds: gzip (RFC 7489 §7.2.1.1, RFC 8460 §5.3) or a zip
 * archive of one file (the habit of Google, Microsoft and Yahoo), else the bytes as they are.
 * Compressed input is fed to fflate in small slices, so one slice can never inflate to more than
 * about SLICE × 1032 bytes (deflate's largest ratio) before the running total is checked: a zip
 * bomb stops at the output limit, having allocated little more than it. A zip inside a zip, or
 * an archive of several files, is refused: no reporter sends one.
 */
import { Gunzip, Unzip, UnzipInflate, UnzipPassThrough } from "fflate";

export interface UnpackLimits {
  /** Largest uncompressed report, in bytes. */
  maxBytes: number;
  /** Wall-clock time the unpacking may take, in ms. */
  maxMs: number;
}

export const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxBytes: 20 * 1024 * 1024, maxMs: 5_000 };

/** A report that is refused, with the reason (logged, and shown where it is stored). */
export class ReportRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Input bytes per push: 1 KiB inflates to at most ~1 MiB. */
const SLICE = 1024;

const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** The compression a buffer is in, from its first bytes (names and media types lie). */
export const compressionOf = (b: Uint8Array): "gzip" | "zip" | "none" => (isGzip(b) ? "gzip" : isZip(b) ? "zip" : "none");

class Sink {
  readonly chunks: Uint8Array[] = [];
  size = 0;
  constructor(
    private readonly limits: UnpackLimits,
    private readonly deadline: number,
    private readonly what: string,
  ) {}
  add(chunk: Uint8Array): void {
    this.size += chunk.length;
    if (this.size > this.limits.maxBytes) throw new ReportRefused(`the ${this.what} inflates to more than ${this.limits.maxBytes} bytes (the limit)`);
    this.chunks.push(chunk);
  }
  tick(): void {
    if (Date.now() > this.deadline) throw new ReportRefused(`unpacking the ${this.what} took longer than ${this.limits.maxMs} ms (the limit)`);
  }
  bytes(): Uint8Array {
    return Buffer.concat(this.chunks, this.size);
  }
}

function gunzip(data: Uint8Array, limits: UnpackLimits, deadline: number): Uint8Array {
  const sink = new Sink(limits, deadline, "gzip file");
  let ended = false;
  const g = new Gunzip((chunk, final) => {
    sink.add(chunk);
    if (final) ended = true;
  });
  try {
    for (let i = 0; i < data.length && !ended; i += SLICE) {
      g.push(data.subarray(i, Math.min(i + SLICE, data.length)), i + SLICE >= data.length);
      sink.tick();
    }
  } catch (err) {
    if (err instanceof ReportRefused) throw err;
    throw new ReportRefused(`the gzip file is corrupt (${(err as Error).message})`);
  }
  if (!ended) throw new ReportRefused("the gzip file is truncated");
  return sink.bytes();
}

function unzip(data: Uint8Array, limits: UnpackLimits, deadline: number): { name: string; bytes: Uint8Array } {
  const sink = new Sink(limits, deadline, "zip archive");
  let name: string | null = null;
  let files = 0;
  let ended = false;
  let failure: Error | null = null;
  const u = new Unzip((file) => {
    files++;
    if (files > 1) {
      failure = new ReportRefused("the zip archive holds more than one file (a report is one file)");
      return;
    }
    name = file.name;
    file.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) {
        failure = new ReportRefused(`the zip archive is corrupt (${err.message})`);
        return;
      }
      try {
        sink.add(chunk);
      } catch (e) {
        failure = e as Error;
        file.terminate();
        return;
      }
      if (final) ended = true;
    };
    file.start();
  });
  u.register(UnzipInflate);
  u.register(UnzipPassThrough);
  try {
    for (let i = 0; i < data.length && !failure; i += SLICE) {
      u.push(data.subarray(i, Math.min(i + SLICE, data.length)), i + SLICE >= data.length);
      sink.tick();
    }
  } catch (err) {
    if (err instanceof ReportRefused) throw err;
    throw new ReportRefused(`the zip archive is corrupt (${(err as Error).message})`);
  }
  if (failure) throw failure;
  if (files === 0 || name === null) throw new ReportRefused("the zip archive holds no file");
  if (!ended) throw new ReportRefused("the zip archive is truncated");
  return { name, bytes: sink.bytes() };
}

/**
 * The report inside `data`: gunzipped, unzipped (one file), or as it is. Throws ReportRefused
 * when it is over the limits, corrupt, or itself compressed again (nested archives).
 */
export function unpackReport(data: Uint8Array, limits: UnpackLimits = DEFAULT_UNPACK_LIMITS, now = Date.now()): Uint8Array {
  const deadline = now + limits.maxMs;
  const kind = compressionOf(data);
  let out: Uint8Array;
  if (kind === "gzip") out = gunzip(data, limits, deadline);
  else if (kind === "zip") out = unzip(data, limits, deadline).bytes;
  else {
    if (data.length > limits.maxBytes) throw new ReportRefused(`the report is larger than ${limits.maxBytes} bytes (the limit)`);
    return data;
  }
  if (compressionOf(out) !== "none") throw new ReportRefused(`the ${kind} file holds another compressed file (nested archives are refused)`);
  return out;
}
