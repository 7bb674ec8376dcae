/**
 * mailauth's DKIM verifier looks for the end of a message's header block, and for bare LFs to
 * make CRLFs of, one byte at a time in JavaScript (MessageParser in lib/dkim/message-parser.js),
 * the header scan copying a small array per byte: about a tenth of the analysis worker's CPU per
 * 2 KB message. These are the same two steps over Buffer.indexOf, with the same results (the
 * same pieces, in the same order, to the same methods), applied once to the library's class in
 * each thread that checks mail.
 */
type Parser = {
  state: string;
  stateBytes: number[];
  headerChunks: Buffer[];
  headers: unknown;
  lastByte?: number;
  nextChunk(chunk: Buffer): Promise<void>;
  messageHeaders(headers: unknown): Promise<void>;
};

const LF = 0x0a;
const CR = 0x0d;

/**
 * What the replaced methods contain (whitespace removed): property names and calls only, which
 * survive Bun's transpiling and the binary's minifying. A version of mailauth whose code differs
 * keeps its own scans (same results, slower), and test/smtp/mailauth-scan.test.ts fails on it.
 */
const EXPECTED = {
  processChunk: ["this.stateBytes.push(", ".slice(-4)", "this.headerChunks.push(", "this.messageHeaders(this.headers)", "this.nextChunk("],
  ensureLinebreaks: ["this.lastByte", "yield", ".concat(["],
};

let ready: Promise<boolean> | undefined;

/** Replaces the two scans in this thread's copy of mailauth, once (loaded as mailauth is, on first use); whether it did. */
export const fasterMailauthScans = (): Promise<boolean> =>
  (ready ??= Promise.all([import("mailauth/lib/dkim/message-parser"), import("mailauth/lib/tools")]).then(
    ([parser, tools]) => replaceScans(parser.MessageParser.prototype, tools.parseHeaders),
    () => false,
  ));

const ORIGINAL = Symbol("mailauth's own scans");

/** mailauth's own methods, replaced or not (for tests, which compare the two). */
export const originalScans = (proto: Record<string | symbol, unknown>): Record<keyof typeof EXPECTED, unknown> =>
  (proto[ORIGINAL] as Record<keyof typeof EXPECTED, unknown> | undefined) ?? { processChunk: proto.processChunk, ensureLinebreaks: proto.ensureLinebreaks };

/** Puts the replacements on `proto` (MessageParser's prototype; tests give a copy) unless its code differs. */
export function replaceScans(proto: Record<string | symbol, unknown>, parseHeaders: (buf: Buffer) => unknown): boolean {
  if (proto[ORIGINAL]) return true;
  for (const [name, parts] of Object.entries(EXPECTED)) {
    const code = String(proto[name]).replace(/\s+/g, "");
    if (!parts.every((part) => code.includes(part))) return false;
  }
  Object.defineProperty(proto, ORIGINAL, { value: originalScans(proto) });

  proto.processChunk = async function (this: Parser, chunk: Buffer): Promise<void> {
    if (!chunk || !chunk.length) return;
    if (this.state === "header") {
      const end = headerEnd(this.stateBytes, chunk);
      if (end < 0) {
        this.stateBytes = lastBytes(this.stateBytes, chunk, chunk.length);
      } else {
        this.stateBytes = lastBytes(this.stateBytes, chunk, end + 1);
        this.state = "body";
        this.headerChunks.push(chunk.subarray(0, end + 1));
        this.headers = parseHeaders(Buffer.concat(this.headerChunks));
        await this.messageHeaders(this.headers);
        chunk = chunk.subarray(end + 1);
        if (!chunk.length) return; // the chunk ended with the header block
      }
    }
    if (this.state !== "body") {
      this.headerChunks.push(chunk);
      return;
    }
    await this.nextChunk(chunk);
  };

  proto.ensureLinebreaks = function* (this: Parser, input: Buffer): Generator<Buffer> {
    let pos = 0;
    // The library's lastByte: the last byte seen that is not an LF (an LF after CR needs nothing).
    let last = this.lastByte;
    let from = 0;
    for (let i = input.indexOf(LF); i >= 0; i = input.indexOf(LF, from)) {
      if (i > from) last = input[i - 1];
      if (last !== CR) {
        yield i === 0 || pos === i ? Buffer.from("\r\n") : Buffer.concat([input.subarray(pos, i), Buffer.from("\r\n")]);
        pos = i + 1;
      }
      from = i + 1;
    }
    if (input.length > from) last = input[input.length - 1];
    this.lastByte = last;
    if (pos === 0) yield input;
    else if (pos < input.length) yield input.subarray(pos);
  };
  return true;
}

/**
 * Where the header block ends in `chunk`: the first LF after an LF or after CR LF, counting the
 * bytes before the chunk (`previous`, at most the last four); -1 when not in this chunk.
 */
function headerEnd(previous: readonly number[], chunk: Buffer): number {
  const at = (i: number) => (i >= 0 ? chunk[i] : previous[previous.length + i]);
  for (let i = chunk.indexOf(LF); i >= 0; i = chunk.indexOf(LF, i + 1)) {
    const b1 = at(i - 1);
    if (b1 === LF || (b1 === CR && at(i - 2) === LF)) return i;
  }
  return -1;
}

/** The last four bytes of `previous` followed by chunk[0, end). */
function lastBytes(previous: readonly number[], chunk: Buffer, end: number): number[] {
  const out = end >= 4 ? [] : previous.slice(-(4 - end));
  for (let i = Math.max(0, end - 4); i < end; i++) out.push(chunk[i]!);
  return out;
}
