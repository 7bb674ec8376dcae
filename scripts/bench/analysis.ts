// The inbound analysis alone (src/smtp/analyze-inbound.ts: mailparser, SPF/DKIM/DMARC/ARC with mailauth,
// content symbols) on this thread, in a loop on inbound.ts's message, its sender's records answered
// from memory: CPU per message of this thread and of JSC's JIT threads, per window of messages
// (the JIT settles after some 10,000). What the analysis worker spends per message, without the
// SMTP load around it; for A/B runs of changes to the analysis.
//
//   bun scripts/bench/analysis.ts [messages=8000] [windows=1] [bytes=2048]
import { readdirSync, readFileSync } from "node:fs";
import { analyzeInbound } from "../../src/smtp/analyze-inbound.ts";
import { generateDkimKeyPair } from "../../src/dns/dkim-key.ts";
import { benchMessage, senderRecords } from "./inbound-message.ts";

const MESSAGES = Number(process.argv[2] ?? 8000);
const WINDOWS = Number(process.argv[3] ?? 1);
const BYTES = Number(process.argv[4] ?? 2048);

const key = generateDkimKeyPair();
const records = new Map(senderRecords(key).map(([name, type, values]) => [`${type} ${name}`, [values]]));
const resolver = async (name: string, rrtype: string) => {
  const found = records.get(`${rrtype} ${name}`);
  if (found) return found;
  throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
};
const raw = await benchMessage(BYTES, "in-bench@inbound.posthorn.test", key);
const input = { ip: "127.0.0.1", helo: "client.test", mailFrom: "alice@sender.test", hostname: "mx.posthorn.test", envelopeRecipientCount: 1, checkAuth: true };

/** CPU ms of each of this process's threads by name (Linux /proc; clock ticks of 10 ms), JIT threads summed. */
function threadCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    const name = tid === String(process.pid) ? "analysis" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/\d+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
}

const first = await analyzeInbound(new Uint8Array(raw), input, resolver);
console.log(`analysis bench: ${raw.length} bytes, symbols ${first.symbols.map((s) => s.name).join(" ")}`);
for (let w = 0; w < WINDOWS; w++) {
  const threads0 = threadCpuMs();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < MESSAGES; i++) await analyzeInbound(new Uint8Array(raw), input, resolver);
  const cpu = process.cpuUsage(cpu0);
  const wallMs = (performance.now() - t0) / MESSAGES;
  const per = (name: string) => ((threadCpuMs().get(name) ?? 0) - (threads0.get(name) ?? 0)) / MESSAGES;
  console.log(
    `  window ${w + 1}: ${MESSAGES} messages, ${((cpu.user + cpu.system) / 1000 / MESSAGES).toFixed(3)} ms CPU each ` +
      `(this thread ${per("analysis").toFixed(3)}, JIT ${per("JITWorker").toFixed(3)}), ${wallMs.toFixed(3)} ms wall each`,
  );
}
