import type SMTPConnection from "nodemailer/lib/smtp-connection";

/**
 * One transaction under RFC 2920 PIPELINING on a nodemailer SMTPConnection: MAIL FROM, RCPT TO and
 * DATA in one write, then, after the 354, the dot-stuffed message and its final "." in a second.
 * nodemailer pipelines only the RCPTs and waits for each other reply before the next command:
 * four round trips and five socket writes per message, which were most of the SMTP agent's CPU.
 *
 * It works through nodemailer's reply queue (`_responseActions`: one callback per reply, in order),
 * so the session's greeting, EHLO, STARTTLS, AUTH, RSET, QUIT, timeouts and reply parsing stay
 * nodemailer's (pinned in package.json; test/send covers this path against smtp-server). Errors
 * carry what nodemailer's would: `code` (EENVELOPE for MAIL, RCPT and DATA, EMESSAGE for the
 * message), `response`, `responseCode` and `command`.
 */

type TransactionError = Error & { code: string; response?: string; responseCode?: number; command?: string };
type Done = (err: TransactionError | null, info?: { response: string }) => void;

/** The parts of nodemailer's SMTPConnection this relies on (private in its typings). */
interface ConnectionInternals {
  _responseActions: ((str: string) => void)[];
  _supportedExtensions: string[];
  _socket: { write(data: Uint8Array | string): boolean; destroyed?: boolean };
  _destroyed: boolean;
  _maxAllowedSize: number;
  options: { lmtp?: boolean };
}

/** A transaction under way: the first refusal it got, reported if the connection ends before its last reply. */
export interface PipelinedTransaction {
  failure: TransactionError | null;
}

const refused = (message: string, code: string, response: string, command: string): TransactionError =>
  Object.assign(new Error(`${message}: ${response}`), { code, response, responseCode: Number(response.slice(0, 3)) || undefined, command });

/** Addresses that need no SMTPUTF8 and cannot break a command line (nodemailer handles the rest). */
const PLAIN_ADDRESS = /^[\x21-\x3b\x3d\x3f-\x7e]*$/;

/**
 * Sends `raw` to `to` in one pipelined transaction, or returns null when this connection or
 * envelope is one for nodemailer's own send: no PIPELINING offered, LMTP, an address that needs
 * SMTPUTF8 or is malformed, an empty message or one over the advertised SIZE. `done` is called once, after the
 * transaction's last reply, so that whatever the caller sends next (RSET, QUIT, the next MAIL) is
 * queued behind it.
 */
export function sendPipelined(conn: SMTPConnection, envelope: { from: string; to: string }, raw: Buffer, done: Done): PipelinedTransaction | null {
  const c = conn as unknown as ConnectionInternals;
  if (!Array.isArray(c._responseActions) || !Array.isArray(c._supportedExtensions) || !c._socket || c._destroyed || c._socket.destroyed) return null;
  if (c.options.lmtp || !c._supportedExtensions.includes("PIPELINING")) return null;
  if (raw.length === 0 || (c._maxAllowedSize && raw.length > c._maxAllowedSize)) return null;
  const { from, to } = envelope;
  if (!to || !PLAIN_ADDRESS.test(from) || !PLAIN_ADDRESS.test(to)) return null;

  const tx: PipelinedTransaction = { failure: null };
  const fail = (err: TransactionError) => {
    tx.failure ??= err;
  };
  c._responseActions.push(
    (str) => {
      if (str[0] !== "2") fail(refused("Mail command failed", "EENVELOPE", str, "MAIL FROM"));
    },
    (str) => {
      if (str[0] !== "2") fail(refused("Can't send mail - all recipients were rejected", "EENVELOPE", str, "RCPT TO"));
    },
    (str) => {
      const accepted = str[0] === "2" || str[0] === "3"; // some servers answer DATA with 250
      if (tx.failure) {
        // A refused MAIL or RCPT and yet a go-ahead for DATA: end the empty message (RFC 2920 §3.1).
        if (!accepted) return done(tx.failure);
        c._responseActions.push(() => done(tx.failure));
        c._socket.write(".\r\n");
        return;
      }
      if (!accepted) return done(refused("Data command failed", "EENVELOPE", str, "DATA"));
      c._responseActions.push((reply) => (reply[0] === "2" ? done(null, { response: reply }) : done(refused("Message failed", "EMESSAGE", reply, "DATA"))));
      for (const chunk of dataChunks(raw)) c._socket.write(chunk);
    },
  );
  const size = c._supportedExtensions.includes("SIZE") ? ` SIZE=${raw.length}` : "";
  c._socket.write(`MAIL FROM:<${from}>${size}\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
  return tx;
}

const CR = 0x0d;
const LF = 0x0a;
const DOT = 0x2e;

/** Bytes dot-stuffing adds to the message: a "." at the start of a line doubled, a bare LF made CRLF. */
function stuffedBytes(raw: Buffer): number {
  let extra = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (b === DOT && (i === 0 || raw[i - 1] === LF)) extra++;
    else if (b === LF && (i === 0 || raw[i - 1] !== CR)) extra++;
  }
  return extra;
}

/** What ends DATA after the message: CRLF "." CRLF, the CRLF only where the message does not already end a line. */
function dataTail(raw: Buffer): string {
  const last = raw.length > 0 ? raw[raw.length - 1] : -1;
  return last === LF ? ".\r\n" : last === CR ? "\n.\r\n" : "\r\n.\r\n";
}

/**
 * The message as DATA sends it (RFC 5321 §4.5.2), as nodemailer's DataStream writes it: a "." at
 * the start of a line doubled, a bare LF made CRLF, then CRLF "." CRLF (the CRLF only where the
 * message does not already end a line).
 */
export function dataBlock(raw: Buffer, extra = stuffedBytes(raw)): Buffer {
  const tail = dataTail(raw);
  const out = Buffer.allocUnsafe(raw.length + extra + tail.length);
  if (extra === 0) {
    raw.copy(out, 0);
  } else {
    let o = 0;
    for (let i = 0; i < raw.length; i++) {
      const b = raw[i];
      if (b === DOT && (i === 0 || raw[i - 1] === LF)) out[o++] = DOT;
      else if (b === LF && (i === 0 || raw[i - 1] !== CR)) out[o++] = CR;
      out[o++] = b;
    }
  }
  out.write(tail, raw.length + extra, "latin1");
  return out;
}

/** Messages from this size on that need no stuffing are written as they are, then the tail: no copy of them. */
const UNCOPIED_BYTES = 64 * 1024;

/**
 * The writes of dataBlock(raw): one block, or for a large message that needs no stuffing (what
 * the composer writes: CRLF lines, no line starting with a dot in base64 or quoted-printable
 * bodies, mostly) the message itself and then the tail, sparing a copy of it per transaction.
 */
export function dataChunks(raw: Buffer): (Buffer | string)[] {
  const extra = stuffedBytes(raw);
  if (extra === 0 && raw.length >= UNCOPIED_BYTES) return [raw, dataTail(raw)];
  return [dataBlock(raw, extra)];
}
