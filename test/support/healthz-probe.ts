/**
 * GET /healthz in a loop, from a Worker: its own thread and event loop, so a stall of the
 * server's event loop (which the test process shares with the server) shows up in full in the
 * latencies measured here, instead of also stalling the clock that measures them.
 *
 *   const probe = startHealthProbe(`${base}/healthz`, 20);
 *   …
 *   const { latencies, errors } = await probe.stop();
 */
export interface ProbeResult {
  /** One per request, in ms, request start to body read. */
  latencies: number[];
  /** Requests that failed or did not answer 200. */
  errors: number;
}

export interface HealthProbe {
  stop(): Promise<ProbeResult>;
}

export function startHealthProbe(url: string, intervalMs = 20): HealthProbe {
  const worker = new Worker(new URL("./healthz-probe-worker.ts", import.meta.url).href);
  worker.postMessage({ cmd: "start", url, intervalMs });
  return {
    stop() {
      const done = new Promise<ProbeResult>((resolve) => {
        worker.onmessage = (e: MessageEvent) => resolve(e.data as ProbeResult);
      });
      worker.postMessage({ cmd: "stop" });
      return done.finally(() => worker.terminate());
    },
  };
}

/** Nearest-rank percentile (q in 0..1) of unsorted values; NaN when there are none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
