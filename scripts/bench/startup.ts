// Binary size and cold start: time from spawning dist/posthorn serve on a fresh data directory
// until GET /healthz answers 200. Usage: bun scripts/bench/startup.ts [runs]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = join(import.meta.dir, "..", "..", "dist", "posthorn");
const runs = Number(process.argv[2] ?? 7);
const size = statSync(bin).size;
const times: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-start-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t0 = performance.now();
  const proc = Bun.spawn([bin, "serve"], {
    cwd: dir,
    env: { ...process.env, POSTHORN_DATA_DIR: join(dir, "data"), POSTHORN_HTTP_HOST: "127.0.0.1", POSTHORN_HTTP_PORT: String(port), POSTHORN_SMTP_PORT: "0", POSTHORN_SUBMISSION_PORT: "0", POSTHORN_LOG_LEVEL: "error", POSTHORN_DNS_SERVERS: "127.0.0.1:1" },
    stdout: "ignore",
    stderr: "inherit",
  });
  let ok = false;
  while (performance.now() - t0 < 10_000) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status === 200) {
        ok = true;
        break;
      }
    } catch {
      // not listening yet
    }
    await Bun.sleep(2);
  }
  const ms = performance.now() - t0;
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  if (!ok) throw new Error("server did not answer /healthz within 10 s");
  times.push(ms);
}
times.sort((a, b) => a - b);
console.log(`binary: ${bin}`);
console.log(`  size: ${(size / 1024 / 1024).toFixed(1)} MiB`);
console.log(`  cold start to /healthz 200 (fresh data dir, migrations + bootstrap), ${runs} runs:`);
console.log(`  min ${times[0]!.toFixed(0)} ms, median ${times[Math.floor(runs / 2)]!.toFixed(0)} ms, max ${times[runs - 1]!.toFixed(0)} ms`);
