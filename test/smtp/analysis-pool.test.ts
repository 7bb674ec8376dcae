import { expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import { AnalysisPool, AnalysisUnavailableError } from "../../src/smtp/analysis-pool.ts";
import type { AuthResolver } from "../../src/smtp/auth-resolver.ts";

const raw = new TextEncoder().encode("From: Ann <ann@sender.test>\r\nTo: x@inbound.test\r\nSubject: Hello\r\nDate: Wed, 1 May 2024 10:00:00 +0000\r\nMessage-ID: <m1@sender.test>\r\n\r\nHi there\r\n");
const input = { ip: "127.0.0.1", helo: "client.test", mailFrom: "ann@sender.test", hostname: "mx.test", envelopeRecipientCount: 1, checkAuth: true };
const questions: string[] = [];
// Every name is absent: SPF, DKIM and DMARC come out as "none".
const resolver: AuthResolver = async (name, rrtype) => {
  questions.push(`${rrtype} ${name}`);
  throw Object.assign(new Error("absent"), { code: "ENOTFOUND" });
};
const log = createLogger("silent");

test("a worker analyzes the message and asks its DNS questions back through the given resolver", async () => {
  const analyzer = new AnalysisPool({ threads: 1 }, resolver, log);
  try {
    questions.length = 0;
    const { analysis: a } = await analyzer.analyze(raw, input);
    expect(a).toMatchObject({ parsed: true, subject: "Hello", from: { email: "ann@sender.test", name: "Ann" }, messageIdHeader: "m1@sender.test", date: "2024-05-01T10:00:00.000Z" });
    expect(a.text).toBe("Hi there\n");
    expect(a.symbols.map((s) => s.name)).toEqual(["R_SPF_NA", "R_DKIM_NA", "DMARC_NA", "ARC_NA"]);
    expect(questions).toContain("TXT sender.test");
  } finally {
    analyzer.close();
  }
});

test("when the worker cannot start, messages are analyzed on the calling thread", async () => {
  const analyzer = new AnalysisPool({ threads: 1, workerUrl: new URL("./no-such-worker.ts", import.meta.url).href }, resolver, log);
  try {
    const [a, b] = await Promise.all([analyzer.analyze(raw, input, { lend: true }), analyzer.analyze(raw, input, { lend: true })]);
    expect(a.analysis.subject).toBe("Hello");
    expect(b.analysis.subject).toBe("Hello");
    expect((await analyzer.analyze(raw, input)).analysis.parsed).toBe(true);
    expect(raw.byteLength).toBeGreaterThan(0); // not moved to a worker that never started
  } finally {
    analyzer.close();
  }
});

test("an analysis that takes too long fails (the job retries) and its worker is replaced", async () => {
  const slow: AuthResolver = (name, rrtype) => new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("absent"), { code: "ENOTFOUND" })), 300));
  const analyzer = new AnalysisPool({ threads: 1, timeoutMs: 100 }, slow, log);
  try {
    const started = Date.now();
    await expect(analyzer.analyze(raw, input)).rejects.toBeInstanceOf(AnalysisUnavailableError);
    expect(Date.now() - started).toBeLessThan(300);
  } finally {
    analyzer.close();
  }
});

test("a lent message moves to the worker and back with its analysis, not copied", async () => {
  const analyzer = new AnalysisPool({ threads: 1 }, resolver, log);
  try {
    await analyzer.analyze(raw, input); // the worker has answered: it runs
    const own = raw.slice();
    const { analysis, raw: back } = await analyzer.analyze(own, input, { lend: true });
    expect(analysis.subject).toBe("Hello");
    expect(own.byteLength).toBe(0); // moved away
    expect(Buffer.from(back).equals(Buffer.from(raw))).toBe(true);
    // Not lent: the caller keeps its bytes.
    const kept = raw.slice();
    await analyzer.analyze(kept, input);
    expect(kept.byteLength).toBe(raw.byteLength);
  } finally {
    analyzer.close();
  }
});

test("with dnsCacheMs, a worker answers a repeated DNS question from its own cache", async () => {
  const cached = new AnalysisPool({ threads: 1, dnsCacheMs: 60_000 }, resolver, log);
  const uncached = new AnalysisPool({ threads: 1 }, resolver, log);
  try {
    for (const [analyzer, again] of [[cached, 0], [uncached, 1]] as const) {
      questions.length = 0;
      await analyzer.analyze(raw, input);
      const first = questions.length;
      expect(first).toBeGreaterThan(0);
      await analyzer.analyze(raw, input);
      expect(questions.length - first).toBe(again * first);
    }
  } finally {
    cached.close();
    uncached.close();
  }
});
