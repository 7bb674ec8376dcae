/**
 * Writes a MIME tree that nodemailer's MailComposer compiled, synchronously, to the same bytes
 * its build() streams: the headers by the tree's own buildHeaders(), each body encoded by
 * nodemailer's own quoted-printable and base64 functions, cut as its encoding streams cut them.
 * build() pipes every part through a chain of transform streams with a setImmediate between
 * steps, which cost composing more CPU than the MIME itself. Our contents are strings and
 * Buffers, never streams, files or URLs: anything else is refused, so the caller can tell.
 */
import MimeNode from "nodemailer/lib/mime-node";
import * as base64 from "nodemailer/lib/base64";
import * as qp from "nodemailer/lib/qp";

/** The parts of a compiled node that build() reads and @types/nodemailer does not declare. */
interface CompiledNode {
  childNodes: CompiledNode[];
  content?: unknown;
  multipart: string | false;
  boundary: string | false;
  _raw: unknown;
  getTransferEncoding(): string | false;
  buildHeaders(): string;
}

const LINE = 76;

/**
 * nodemailer's quoted-printable encode (lib/qp): every byte but TAB, LF, CR and printable ASCII
 * other than "=" as =XX, and a space or TAB before a line break or at the end too. Theirs tests
 * each byte against a list of ranges and appends a character at a time; one regular expression
 * over the bytes read as Latin-1 gives the same string in a fraction of the time.
 */
const QP_ESCAPED = /[^\t\n\r\x20-\x3c\x3e-\x7e]|[ \t](?=[\r\n]|$)/g;
const HEX = Array.from({ length: 256 }, (_, b) => "=" + b.toString(16).toUpperCase().padStart(2, "0"));
const qpEncode = (body: Buffer): string => body.toString("latin1").replace(QP_ESCAPED, (c) => HEX[c.charCodeAt(0)]!);

/**
 * MimeNode normalizes a header's name on every get, set and add, with a regular expression and a
 * callback per call: a fifth of compiling a message. The name's normal form depends on the name
 * alone, so each is worked out once (the names a server sends are few; past 1,000 it stops keeping).
 */
{
  const proto = MimeNode.prototype as unknown as { _normalizeHeaderKey(key: unknown): string };
  const normalize = proto._normalizeHeaderKey;
  const known = new Map<string, string>();
  proto._normalizeHeaderKey = function (this: unknown, key: unknown): string {
    if (typeof key !== "string") return normalize.call(this, key);
    let normal = known.get(key);
    if (normal === undefined) {
      normal = normalize.call(this, key);
      if (known.size < 1000) known.set(key, normal);
    }
    return normal;
  };
}

/** Bytes of input per block of base64Body: 57 bytes make one 76-character line, so a block is whole lines. */
const BASE64_BLOCK = 57 * 1024;

/**
 * nodemailer's base64 Encoder on one chunk: whole groups of 3 bytes wrapped (a CRLF after each
 * full line of 76, none when all fits on one), the rest added to the last line at the end. Written
 * straight into one Buffer, a block of lines at a time: through nodemailer's wrap() a 25 MiB
 * attachment went through five strings of ~35 MB (its encoding, wrap's pieces, their join, the
 * lines and the tail put together, then their UTF-8), each garbage once the message was built.
 */
function base64Body(body: Buffer): Buffer {
  const rest = body.length % 3;
  const mainBytes = body.length - rest;
  const tail = rest ? base64.encode(body.subarray(mainBytes)) : "";
  const encodedLength = (mainBytes / 3) * 4;
  if (encodedLength <= LINE) return Buffer.from(base64.encode(body.subarray(0, mainBytes)) + tail, "latin1");
  const fullLines = Math.floor(encodedLength / LINE);
  const out = Buffer.allocUnsafe(encodedLength + 2 * fullLines + tail.length);
  let o = 0;
  for (let i = 0; i < mainBytes; i += BASE64_BLOCK) {
    const block = body.subarray(i, Math.min(mainBytes, i + BASE64_BLOCK)).toString("base64");
    for (let p = 0; p < block.length; p += LINE) {
      const line = Math.min(LINE, block.length - p);
      o += out.write(block.slice(p, p + line), o, line, "latin1");
      if (line === LINE) {
        out[o++] = 0x0d;
        out[o++] = 0x0a;
      }
    }
  }
  if (tail) o += out.write(tail, o, tail.length, "latin1");
  return out;
}

function writeNode(node: CompiledNode, out: (string | Buffer)[]): void {
  if (node._raw) throw new Error("a MIME node with raw content cannot be written synchronously");
  const encoding = node.getTransferEncoding();
  out.push(node.buildHeaders() + "\r\n\r\n");
  const content = node.content;
  if (content) {
    if (typeof content !== "string" && !Buffer.isBuffer(content)) throw new Error("a MIME node whose content is neither a string nor a Buffer cannot be written synchronously");
    // A string content is streamed as its UTF-8 bytes.
    const body = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    if (encoding === "quoted-printable") out.push(qp.wrap(qpEncode(body), LINE));
    else if (encoding === "base64") out.push(base64Body(body));
    else out.push(body);
  }
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    out.push((i > 0 ? "\r\n" : "") + "--" + node.boundary + "\r\n");
    writeNode(child, out);
  });
  out.push("\r\n--" + node.boundary + "--\r\n");
}

/** The message a compiled MIME tree stands for, byte for byte what its build() gives. */
export function writeMimeTree(root: MimeNode, prefix?: Buffer): Buffer {
  // A prefix (the trace header composeMessage adds) goes in here rather than in a copy of the whole.
  const out: (string | Buffer)[] = prefix ? [prefix] : [];
  writeNode(root as unknown as CompiledNode, out);
  // Strings go out as UTF-8, as build()'s streams write them (a local part may be non-ASCII).
  const message = Buffer.concat(out.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : part)));
  // build() ends the message with a line break (its LastNewline stream).
  const last = message.length > 0 ? message[message.length - 1] : -1;
  if (last === 0x0a) return message;
  return Buffer.concat([message, Buffer.from(last === 0x0d ? "\n" : "\r\n")]);
}
