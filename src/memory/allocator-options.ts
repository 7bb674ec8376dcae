/**
 * The memory allocator's options for `serve` (and so for its SMTP agent, which inherits them).
 *
 * Bun's allocator, mimalloc, reads its options from the environment once, as the process starts,
 * and has no way to change them afterwards. One of Bun's defaults costs a mail server dearly:
 * "hole purging" hands the free blocks inside pages still in use back to the operating system
 * at every idle point of a thread (MIMALLOC_PURGE_HOLES, Bun's own), and under a steady stream
 * of requests and messages each of those pages is written again moments later, so the kernel
 * zero-fills it anew on a page fault and the allocator's scavenger thread and JSC's block
 * warm-up thread keep doing that work over and over. Off, the server spends 4–36 % less CPU per
 * message, sending and receiving, for a few MB more at its peak (README, "What paid"); mimalloc's
 * own purging of pages left wholly free (after 100 ms unused) still returns memory after the load.
 *
 * So `serve` re-executes itself once, in place, with the options added to its environment:
 * execve keeps the process id, so systemd, signals and whoever started it see the one process.
 * An option already set in the environment is left as the user set it (MIMALLOC_PURGE_HOLES=1
 * is Bun's default). Where execve cannot be reached (not Linux, no glibc), the server runs on
 * with Bun's defaults.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { readFileSync, readlinkSync } from "node:fs";

const SERVE_ALLOCATOR_OPTIONS: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES: "0" };

/**
 * Returns only when nothing is to be done (every option set already: this is the re-executed
 * process, or the user set them) or execve failed; otherwise the process image is replaced.
 */
export function reexecWithAllocatorOptions(): void {
  const missing = Object.entries(SERVE_ALLOCATOR_OPTIONS).filter(([name]) => process.env[name] === undefined);
  if (missing.length === 0 || process.platform !== "linux") return;
  let execve: (path: number, argv: number, envp: number) => number;
  try {
    execve = dlopen("libc.so.6", { execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 } }).symbols.execve as never;
  } catch {
    return;
  }
  // The command line and environment exactly as the kernel passed them (bun's flags, the script,
  // the command), byte for byte: process.argv is rewritten for a compiled executable.
  const argv = nulTerminatedStrings(readFileSync("/proc/self/cmdline"));
  const env = [...nulTerminatedStrings(readFileSync("/proc/self/environ")), ...missing.map(([name, value]) => Buffer.from(`${name}=${value}\0`))];
  // The executable's own path, not /proc/self/exe: the process's name (ps, top, systemd) is its file name.
  const path = Buffer.from(`${readlinkSync("/proc/self/exe")}\0`);
  const argvTable = pointerTable(argv);
  const envTable = pointerTable(env);
  // Returns only on failure (-1): the server then starts as it is.
  execve(ptr(path), ptr(argvTable), ptr(envTable));
}

/** The NUL-terminated strings of a /proc file, each a view of `file` that keeps its NUL. */
function nulTerminatedStrings(file: Buffer): Buffer[] {
  const strings: Buffer[] = [];
  for (let start = 0, end; (end = file.indexOf(0, start)) !== -1; start = end + 1) strings.push(file.subarray(start, end + 1));
  return strings;
}

/** A NULL-terminated array of pointers to the buffers (char *const[]). */
function pointerTable(buffers: Buffer[]): BigUint64Array {
  const table = new BigUint64Array(buffers.length + 1);
  buffers.forEach((b, i) => (table[i] = BigInt(ptr(b))));
  return table;
}
