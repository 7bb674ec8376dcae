/**
 * Full garbage collections as the JS heap grows by a fixed step, for `serve`.
 *
 * Why: under a send burst most of what the server allocates (requests, jobs, SMTP transactions)
 * is still in flight when an eden collection runs, so it is promoted and lives on until the next
 * full collection, which JSC schedules only when the heap has about tripled (sawtooth 25 → 85 MB
 * JS heap, plus what the objects hold outside it: the server's peak RSS). A full collection of
 * the ~25 MB that is really live takes ~20 ms; one per `stepBytes` of growth keeps the peak near
 * live + step at about 1 % of the event loop under a burst, and costs nothing when idle (no growth,
 * no collection).
 */
export function collectGarbageAsHeapGrows(opts: { stepBytes: number; everyMs: number }): () => void {
  let baseline = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    const used = process.memoryUsage().heapUsed;
    if (used < baseline) baseline = used; // JSC collected by itself meanwhile
    if (used - baseline < opts.stepBytes) return;
    Bun.gc(true);
    baseline = process.memoryUsage().heapUsed;
  }, opts.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
