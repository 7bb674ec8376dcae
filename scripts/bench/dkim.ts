// Per-message cost of DKIM signing, RSA-2048 alone vs RSA-2048 + Ed25519 (issue 16's A/B), with
// the RSA signature made by each library (WebCrypto, i.e. Bun's BoringSSL, and the system's
// OpenSSL; see src/mail/openssl-rsa.ts), and which of them the server picks on this machine:
// one composed message (a typical ~3 KB HTML + text transactional mail) signed N times per
// variant, one at a time and 16 at once. CPU time is the process's (user + system, all threads:
// WebCrypto signs off the JavaScript thread). Bounded: POSTHORN_BENCH_COUNT signatures per
// variant (default 2000). Run: bun scripts/bench/dkim.ts
import { generateDkimKeyPair, generateEd25519DkimKeyPair } from "../../src/dns/dkim-key.ts";
import { dkimSign, rsaLibrary, useRsaLibrary, type DkimKey } from "../../src/mail/dkim.ts";
import { composeSampleMessage } from "./dkim-sample.ts";

const COUNT = Math.min(Number(process.env.POSTHORN_BENCH_COUNT ?? 2000), 20000);
const rsa = generateDkimKeyPair();
const ed = generateEd25519DkimKeyPair();
const variants: Record<string, DkimKey> = {
  rsa: { domain: "sender.test", selector: "ph1", privateKeyPem: rsa.privateKeyPem },
  dual: { domain: "sender.test", selector: "ph1", privateKeyPem: rsa.privateKeyPem, ed25519: { selector: "phe1", privateKeyPem: ed.privateKeyPem } },
};
const raw = composeSampleMessage();

async function run(name: string, key: DkimKey, parallel: number) {
  for (let i = 0; i < 200; i++) await dkimSign(raw, key); // warm-up: key import, JIT
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next++ < COUNT) await dkimSign(raw, key);
  }));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / COUNT;
  console.log(`${name.padEnd(15)} ×${String(parallel).padEnd(2)} ${(cpuUs).toFixed(0).padStart(5)} µs CPU/message  ${((wall * 1000) / COUNT).toFixed(0).padStart(5)} µs wall/message  ${Math.round((COUNT / wall) * 1000)} messages/s`);
}

console.log(`dkim: ${raw.length} B message, ${COUNT} signatures per variant, ${navigator.hardwareConcurrency} cores`);
for (const library of ["webcrypto", "openssl"] as const) {
  useRsaLibrary(library);
  for (const parallel of [1, 16]) for (const [name, key] of Object.entries(variants)) await run(`${name} ${library}`, key, parallel);
}
useRsaLibrary("auto");
await dkimSign(raw, variants.rsa!);
console.log(`the server's choice here (timed at its first signature): ${rsaLibrary()}`);
