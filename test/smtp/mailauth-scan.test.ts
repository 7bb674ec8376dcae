// The replacements of mailauth's byte-by-byte scans (src/smtp/mailauth-scan.ts) against the
// library's own methods: the same pieces to the same methods in the same order, and the same
// state after, on random messages (CRLF, bare LF, bare CR, blank lines anywhere, no header end)
// cut into random chunks.
import { expect, test } from "bun:test";
import { MessageParser } from "mailauth/lib/dkim/message-parser";
import { parseHeaders } from "mailauth/lib/tools";
import { originalScans, replaceScans } from "../../src/smtp/mailauth-scan.ts";

const library = MessageParser.prototype;
const original = { ...originalScans(library) };
const replaced: Record<string | symbol, unknown> = { ...originalScans(library) };

type Recorder = Record<string, unknown> & { log: string[] };

function parserOn(proto: object): Recorder {
  const p = Object.create(proto) as Recorder;
  Object.assign(p, { state: "header", stateBytes: [], headers: false, headerChunks: [], byteLength: 0, log: [] });
  p.nextChunk = async (chunk: Buffer) => void p.log.push(`body ${chunk.toString("latin1")}`);
  p.messageHeaders = async (headers: { parsed: { key: string; line: Buffer }[] }) =>
    void p.log.push(`headers ${JSON.stringify(headers.parsed.map((h) => [h.key, h.line.toString("latin1")]))}`);
  return p;
}

/** What MessageParser.writeAsync does with each chunk. */
async function feed(p: Recorder, chunks: Buffer[]): Promise<string[]> {
  const ensure = p.ensureLinebreaks as (this: Recorder, b: Buffer) => Iterable<Buffer>;
  const process = p.processChunk as (this: Recorder, b: Buffer) => Promise<void>;
  for (const chunk of chunks) {
    for (const piece of ensure.call(p, chunk)) {
      p.log.push(`piece ${piece.toString("latin1")}`);
      await process.call(p, piece);
      p.byteLength = (p.byteLength as number) + piece.length;
    }
  }
  const chunksLeft = (p.headerChunks as Buffer[]).map((b) => b.toString("latin1")).join("|");
  return [...p.log, `state ${p.state} ${JSON.stringify(p.stateBytes)} ${p.lastByte} ${p.byteLength} ${chunksLeft}`];
}

let seed = 17;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
};
const PIECES = ["\r\n", "\n", "\r", "\r\n\r\n", "\n\n", "\n\r\n", "\r\r\n", "From: a@b.test", "Subject: x", " folded", "\tmore", ":", "body text", "a"];

test("the replacements apply to the installed mailauth", () => {
  expect(replaceScans(replaced, parseHeaders)).toBe(true);
});

test("the same pieces, calls and state as mailauth's own scans on 3,000 random messages in random chunks", async () => {
  replaceScans(replaced, parseHeaders);
  for (let n = 0; n < 3000; n++) {
    let text = "";
    for (let k = random(40); k > 0; k--) text += PIECES[random(PIECES.length)];
    const raw = Buffer.from(text, "latin1");
    const chunks: Buffer[] = [];
    for (let at = 0; at < raw.length; ) {
      const size = random(4) === 0 ? raw.length : 1 + random(8);
      chunks.push(raw.subarray(at, at + size));
      at += size;
    }
    const before = await feed(parserOn(original), chunks);
    const after = await feed(parserOn(replaced), chunks);
    if (JSON.stringify(after) !== JSON.stringify(before)) expect({ text, chunks: chunks.map(String), after }).toEqual({ text, chunks: chunks.map(String), after: before });
  }
});
