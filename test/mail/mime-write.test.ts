// mime-write.ts writes the tree nodemailer's MailComposer compiles without its streams. Held here
// to build(), byte for byte, over messages of every shape the API can send: made at random from
// a fixed seed (the same inputs every run), with the same multipart boundary on both sides.
import { describe, expect, test } from "bun:test";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import MimeNode from "nodemailer/lib/mime-node";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";
import { mailOptions, type ComposeInput } from "../../src/mail/compose-message.ts";
import { writeMimeTree } from "../../src/mail/mime-write.ts";

/** A small deterministic generator (mulberry32), so a failure names an input that can be made again. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "hello", "Hello, world.", " ", "  ", "\t", "\n", "\r\n", "\r", "=", "==3D", "=\r\n", ".", "..", "<p>", "</p>", "<a href=\"https://x.test/?a=1&b=2\">",
  "ü", "ñ", "日本語", "Привет", "🙂", "€", "\u00a0", "\u0000", "\u0007", "\u007f", "a".repeat(70), "b".repeat(77), "word ".repeat(20), "x=y ".repeat(30),
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", "tab\there", "trailing space \r\n", "trailing tab\t\n", "\"quoted\"", "semi;colon", "back\\slash",
];

function text(rnd: () => number, maxPieces: number): string {
  const n = Math.floor(rnd() * maxPieces);
  let s = "";
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(rnd() * PIECES.length)];
  return s;
}

const NAMES = ["", "Ann", "Ann Example", "O'Brien", "Bob, Jr.", "\"Quoted\" Name", "Jürgen Müller", "山田太郎", "Back\\slash", "a".repeat(90), "Émile Zola et les Rougon-Macquart de la famille"];
const LOCALS = ["a", "first.last", "x+tag", "o'brien", "very.long.local.part.for.testing.purposes"];
const DOMAINS = ["dest.test", "sub.dest.test", "bücher.test", "xn--bcher-kva.test"];
const HEADER_NAMES = ["X-Campaign", "x-lower", "X-MIXED-case", "X-Id", "X-Mailer-Info", "X-Smtpapi", "x-entity-ref-id", "X-Priority"];

function address(rnd: () => number) {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  return { email: `${pick(LOCALS)}@${pick(DOMAINS)}`, name: pick(NAMES) };
}

function message(seed: number): ComposeInput {
  const rnd = random(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const html = rnd() < 0.8 ? text(rnd, rnd() < 0.2 ? 400 : 40) : null;
  const textBody = rnd() < 0.7 || html === null ? text(rnd, 30) : null;
  const headers: Record<string, string> = {};
  for (let i = Math.floor(rnd() * 4); i > 0; i--) headers[pick(HEADER_NAMES)] = text(rnd, 12).replace(/[\r\n\0]/g, "") || "v";
  const attachments: ComposeInput["attachments"] = [];
  for (let i = rnd() < 0.6 ? 0 : Math.floor(rnd() * 3) + 1; i > 0; i--) {
    const size = pick([0, 1, 2, 3, 4, 56, 57, 58, 59, 113, 114, 1000, 5000]);
    const content = Buffer.from(Array.from({ length: size }, () => Math.floor(rnd() * 256)));
    const inline = rnd() < 0.3;
    attachments.push({
      filename: pick(["a.bin", "report.pdf", "Übersicht 2026.xlsx", "logo.png", "a name with spaces.txt", "x".repeat(80) + ".txt"]),
      contentType: inline ? "image/png" : pick(["application/octet-stream", "application/pdf", "text/plain", "text/csv"]),
      contentId: inline ? `img${i}@sender.test` : null,
      content,
    });
  }
  return {
    messageId: `m${seed}@sender.test`,
    date: new Date(1_700_000_000_000 + seed * 1000),
    from: address(rnd),
    to: Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => address(rnd)),
    cc: rnd() < 0.3 ? [address(rnd)] : [],
    replyTo: rnd() < 0.2 ? [address(rnd).email] : [],
    subject: text(rnd, 15).replace(/[\r\n]/g, " "),
    html,
    text: textBody,
    headers,
    attachments,
    listUnsubscribeUrl: rnd() < 0.2 ? `https://mail.sender.test/v1/unsubscribe/${seed}.abcdef` : null,
    received: { by: "mta.sender.test", id: `m${seed}` },
  };
}

// MailComposer takes the boundary's shared part (MimeNode's baseBoundary), which @types/nodemailer does not declare.
const compiled = (input: ComposeInput) => new MailComposer({ ...mailOptions(input), baseBoundary: "0123456789abcdef" } as Mail.Options).compile();
const build = (input: ComposeInput): Promise<Buffer> => new Promise((resolve, reject) => compiled(input).build((err, raw) => (err ? reject(err) : resolve(raw))));
const written = (input: ComposeInput): Buffer => writeMimeTree(compiled(input));

describe("writeMimeTree", () => {
  test("gives the bytes of nodemailer's build() for 2,000 messages of every shape", async () => {
    const shapes = new Set<string>();
    for (let seed = 1; seed <= 2000; seed++) {
      const input = message(seed);
      const ours = written(input);
      const theirs = await build(input);
      if (!ours.equals(theirs)) throw new Error(`seed ${seed}: the written message differs from build()'s\n--- ours\n${ours}\n--- build()\n${theirs}`);
      shapes.add(/Content-Type: ([a-z/]+)/.exec(ours.toString("latin1"))![1]!);
      for (const m of ours.toString("latin1").matchAll(/Content-Transfer-Encoding: ([a-z0-9-]+)/g)) shapes.add(m[1]!);
    }
    // The inputs reached every structure and every transfer encoding the composer picks.
    expect([...shapes]).toEqual(expect.arrayContaining(["7bit", "base64", "multipart/alternative", "multipart/mixed", "multipart/related", "quoted-printable", "text/html", "text/plain"]));
  }, 60_000);

  test("large attachments, written a block of lines at a time: the bytes of build() at every block edge", async () => {
    const rnd = random(41);
    const block = 57 * 1024;
    for (const size of [block - 1, block, block + 1, block + 2, block + 57, 2 * block + 56, 3 * block + 3, 1_000_001]) {
      const content = Buffer.from(Array.from({ length: size }, () => Math.floor(rnd() * 256)));
      const input = { ...message(11), attachments: [{ filename: "data.bin", contentType: "application/octet-stream", contentId: null, content }] };
      const ours = written(input);
      if (!ours.equals(await build(input))) throw new Error(`an attachment of ${size} bytes is written otherwise than build() writes it`);
    }
  }, 60_000);

  test("a message whose body ends without a line break gets one, as build() adds", async () => {
    const input = { ...message(7), html: null, text: "no break at the end", attachments: [] };
    const raw = written(input);
    expect(raw.subarray(-21).toString()).toBe("no break at the end\r\n");
    expect(raw.equals(await build(input))).toBe(true);
  });

  test("quoted-printable: the same as nodemailer's encode for any bytes", () => {
    const rnd = random(42);
    // Encoded through a text/plain part that is not plain ASCII, so that the composer picks quoted-printable.
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(rnd() * 300) }, () => (rnd() < 0.5 ? Math.floor(rnd() * 256) : pickByte(rnd))));
      const node = new MimeNode("text/plain; charset=utf-8", { textEncoding: "Q" });
      node.setHeader("Content-Transfer-Encoding", "quoted-printable");
      node.setContent(bytes);
      const body = writeMimeTree(node).toString("latin1").split("\r\n\r\n").slice(1).join("\r\n\r\n");
      // nodemailer's Encoder on one chunk, then the line break build() ends every message with.
      const expected = qpWrap(qpEncode(bytes), 76);
      const lineBreak = expected === "" || expected.endsWith("\n") ? "" : expected.endsWith("\r") ? "\n" : "\r\n";
      expect(body).toBe(expected + lineBreak);
    }
  });

  test("header names are normalized as MimeNode always did, every time", () => {
    const normalize = (MimeNode.prototype as unknown as { _normalizeHeaderKey(k: string): string })._normalizeHeaderKey;
    const expected: Record<string, string> = {
      "x-campaign": "X-Campaign", "mime-version": "MIME-Version", "message-id": "Message-ID", "x-smtpapi": "X-SMTPAPI", "content-features": "Content-features",
      "dkim-signature": "DKIM-Signature", "x-spf": "X-SPF", "received-spf": "Received-SPF", "list-unsubscribe-post": "List-Unsubscribe-Post", " X-Padded ": "X-Padded",
    };
    for (let round = 0; round < 3; round++) for (const [name, normal] of Object.entries(expected)) expect(normalize(name)).toBe(normal);
  });
});

/** Bytes a message body is made of more often than random ones: line breaks, spaces, "=", dots. */
function pickByte(rnd: () => number): number {
  return [0x0a, 0x0d, 0x20, 0x09, 0x3d, 0x2e, 0x41][Math.floor(rnd() * 7)]!;
}
