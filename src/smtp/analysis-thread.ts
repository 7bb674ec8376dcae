/**
 * Worker thread that parses, authenticates and scores inbound messages (analyze-inbound.ts), so that
 * mailparser and mailauth run beside the event loop that serves SMTP sessions and commits.
 * DNS lookups are asked of the main thread (its DnsResolver, POSTHORN_DNS_SERVERS, and its
 * cache), behind a cache of the worker's own (AnalysisPool's dnsCacheMs). Messages in: config,
 * analyze {id, raw, input} and dns answers; out: results (with the raw message back) and dns
 * questions.
 */
import { analyzeInbound, type AnalysisInput, type InboundAnalysis } from "./analyze-inbound.ts";
import { collectGarbageAsHeapGrows } from "../memory/heap-collector.ts";
import { cachedResolver, dnsError, type AuthResolver } from "./auth-resolver.ts";

declare const self: Worker;

export type ToWorker =
  | { type: "config"; dnsCacheMs: number }
  | { type: "analyze"; id: number; raw: Uint8Array; input: AnalysisInput }
  | { type: "dns"; qid: number; value?: unknown; error?: { code: string; name: string; rrtype: string } };
export type FromWorker =
  | { type: "result"; id: number; analysis: InboundAnalysis; raw: Uint8Array }
  | { type: "error"; id: number; error: string }
  | { type: "dns"; qid: number; name: string; rrtype: string };

// This thread's heap is its own, held to what is live plus a step as the server's event loop is
// (main.ts; memory/heap-collector.ts says why). A smaller step than there: little is live here (the
// libraries, the message in hand) and parsing leaves much garbage per message, large mail most;
// checked every 200 ms, so at most 5 collections a second.
collectGarbageAsHeapGrows({ stepBytes: 4 * 1024 * 1024, everyMs: 200 });

let nextQid = 1;
const questions = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

const askMainThread: AuthResolver = (name, rrtype) =>
  new Promise((resolve, reject) => {
    const qid = nextQid++;
    questions.set(qid, { resolve, reject });
    self.postMessage({ type: "dns", qid, name, rrtype } satisfies FromWorker);
  });

/** Set by the "config" message, the first one the worker gets. */
let resolver: AuthResolver = askMainThread;

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const msg = event.data;
  if (msg.type === "config") {
    resolver = msg.dnsCacheMs > 0 ? cachedResolver(askMainThread, { ttlMs: msg.dnsCacheMs }) : askMainThread;
    return;
  }
  if (msg.type === "dns") {
    const q = questions.get(msg.qid);
    if (!q) return;
    questions.delete(msg.qid);
    if (msg.error) q.reject(dnsError(msg.error.code, msg.error.name, msg.error.rrtype));
    else q.resolve(msg.value);
    return;
  }
  try {
    const analysis = await analyzeInbound(msg.raw, msg.input, resolver);
    // The message goes back moved, not copied (the caller may have lent it: see AnalysisPool.analyze).
    self.postMessage({ type: "result", id: msg.id, analysis, raw: msg.raw } satisfies FromWorker, [msg.raw.buffer as ArrayBuffer]);
  } catch (err) {
    self.postMessage({ type: "error", id: msg.id, error: err instanceof Error ? err.message : String(err) } satisfies FromWorker);
  }
};
