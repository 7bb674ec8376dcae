/** The Worker side of healthz-probe.ts: fetch the URL every intervalMs until told to stop. */
declare const self: Worker;

let stopping = false;

self.onmessage = async (e: MessageEvent) => {
  const msg = e.data as { cmd: "start"; url: string; intervalMs: number } | { cmd: "stop" };
  if (msg.cmd === "stop") {
    stopping = true;
    return;
  }
  const latencies: number[] = [];
  let errors = 0;
  while (!stopping) {
    const started = performance.now();
    try {
      const res = await fetch(msg.url, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
    } catch {
      errors++;
    }
    const ms = performance.now() - started;
    latencies.push(ms);
    if (ms < msg.intervalMs) await Bun.sleep(msg.intervalMs - ms);
  }
  postMessage({ latencies, errors });
};
