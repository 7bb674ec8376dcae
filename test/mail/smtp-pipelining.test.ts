import { afterEach, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import DataStream from "nodemailer/lib/smtp-connection/data-stream";
import { createLogger } from "../../src/log.ts";
import { dataBlock, dataChunks } from "../../src/mail/smtp-pipelining.ts";
import { SmtpPools } from "../../src/mail/smtp-pool.ts";

/** What nodemailer's DataStream writes for `raw` (the reference dataBlock must equal). */
async function viaDataStream(raw: Buffer): Promise<Buffer> {
  const ds = new DataStream();
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (c: Buffer) => chunks.push(c));
  const ended = new Promise((r) => out.on("end", r));
  ds.pipe(out);
  ds.end(raw);
  await ended;
  return Buffer.concat(chunks);
}

test("the DATA block is nodemailer's DataStream output byte for byte: dots doubled, bare LF made CRLF, the final dot", async () => {
  const fixed = ["", ".", "..\r\n", "a\r\n.b\r\n", "a\n.b\n", "a\r", "a\r\n", "x\r\r\n.\r\n", "\n.\n..\r\n.", "é\r\n.é"];
  const alphabet = ["a", "\r", "\n", ".", "\r\n", "\r\n.", "é", " "];
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
  const random = Array.from({ length: 500 }, () => Array.from({ length: rand(60) }, () => alphabet[rand(alphabet.length)]).join(""));
  for (const text of [...fixed, ...random]) {
    const raw = Buffer.from(text, "utf8");
    expect(dataBlock(raw).toString("hex")).toBe((await viaDataStream(raw)).toString("hex"));
  }
});

test("a large message that needs no stuffing is written as it is, then the tail: the same bytes as the block, no copy of it", async () => {
  const lines = (n: number, line: string) => Buffer.from(Array.from({ length: n }, (_, i) => `${line}${i}\r\n`).join(""));
  const cases: [Buffer, boolean][] = [
    [lines(3000, "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo"), true],
    [Buffer.concat([lines(10_000, "x"), Buffer.from("no break at the end")]), true],
    [lines(10_000, ".dot"), false],
    [Buffer.concat([lines(10_000, "x"), Buffer.from("bare\nline feed\r\n")]), false],
  ];
  for (const [raw, asItIs] of cases) {
    const chunks = dataChunks(raw);
    expect(Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c, "latin1") : c))).equals(await viaDataStream(raw))).toBe(true);
    // Unstuffed, the message itself goes out (no copy); a message with lines to stuff gets its block.
    expect(chunks[0] === raw).toBe(asItIs);
  }
  expect(dataChunks(Buffer.from("small\r\n"))).toHaveLength(1);
});

type Script = { mail?: string; rcpt?: string; data?: string; message?: string; closeAfter?: "MAIL" };

/**
 * A scripted SMTP server on loopback: offers PIPELINING and SIZE, answers each command as the
 * script says, and records every chunk it reads, so a test can see what arrived in one write.
 */
function scriptedServer(script: () => Script) {
  const chunks: string[] = [];
  const messages: string[] = [];
  const server = Bun.listen<{ inData: boolean; buffer: string; script: Script }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { inData: false, buffer: "", script: {} };
        socket.write("220 scripted.test ESMTP\r\n");
      },
      data(socket, chunk) {
        const c = socket.data;
        const text = chunk.toString("latin1");
        chunks.push(text);
        c.buffer += text;
        let out = "";
        for (;;) {
          if (c.inData) {
            const end = c.buffer.indexOf("\r\n.\r\n");
            if (end === -1) break;
            messages.push(c.buffer.slice(2, end));
            c.buffer = c.buffer.slice(end + 5);
            c.inData = false;
            out += (c.script.message ?? "250 2.0.0 queued") + "\r\n";
            continue;
          }
          const eol = c.buffer.indexOf("\r\n");
          if (eol === -1) break;
          const line = c.buffer.slice(0, eol);
          c.buffer = c.buffer.slice(eol + 2);
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === "EHLO") out += "250-scripted.test\r\n250-PIPELINING\r\n250 SIZE 10000000\r\n";
          else if (verb === "MAIL") {
            c.script = script();
            out += (c.script.mail ?? "250 2.1.0 ok") + "\r\n";
            if (c.script.closeAfter === "MAIL") {
              socket.write(out);
              socket.end();
              return;
            }
          } else if (verb === "RCPT") out += (c.script.rcpt ?? "250 2.1.5 ok") + "\r\n";
          else if (verb === "DATA") {
            const reply = c.script.data ?? "354 go ahead";
            if (reply.startsWith("354")) {
              c.inData = true;
              c.buffer = "\r\n" + c.buffer;
            }
            out += reply + "\r\n";
          } else if (verb === "RSET") out += "250 2.0.0 reset\r\n";
          else if (verb === "QUIT") out += "221 bye\r\n";
          else out += "500 5.5.1 unknown\r\n";
        }
        if (out) socket.write(out);
      },
    },
  });
  return { port: server.port, chunks, messages, stop: () => server.stop(true) };
}

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

function setup(scripts: Script[]) {
  let n = 0;
  const server = scriptedServer(() => scripts[n++] ?? {});
  const pools = new SmtpPools({ heloName: "sender.test", log: createLogger("error") });
  cleanup.push(() => pools.close(), () => server.stop());
  const target = { host: "127.0.0.1", port: server.port, servername: null };
  const send = (to: string, body = "Subject: hi\r\n\r\nhello\r\n.leading dot\r\n") => pools.send(target, { from: "bounce@sender.test", to }, Buffer.from(body));
  return { server, pools, send };
}

test("MAIL, RCPT and DATA go out in one write and the message in a second; the message arrives dot-stuffed and intact", async () => {
  const { server, pools, send } = setup([]);
  const outcome = await send("a@dest.test");
  expect(outcome).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 250 } });
  const envelope = server.chunks.find((c) => c.startsWith("MAIL FROM:"));
  expect(envelope).toBe("MAIL FROM:<bounce@sender.test> SIZE=36\r\nRCPT TO:<a@dest.test>\r\nDATA\r\n");
  expect(server.chunks.at(-1)).toBe("Subject: hi\r\n\r\nhello\r\n..leading dot\r\n.\r\n");
  expect(server.messages).toEqual(["Subject: hi\r\n\r\nhello\r\n..leading dot"]);
  expect((await send("b@dest.test")).kind).toBe("reply");
  expect(pools.stats).toEqual({ connections: 1, messages: 2 });
});

test("a refusal at MAIL, at RCPT, of DATA or of the message is reported with its reply and stage, and the connection serves the next message", async () => {
  const { server, pools, send } = setup([
    { mail: "550 5.7.1 sender refused", rcpt: "503 5.5.1 need MAIL", data: "503 5.5.1 need RCPT" },
    { rcpt: "550 5.1.1 no such user", data: "554 5.5.1 no valid recipients" },
    { data: "451 4.3.0 try later" },
    { message: "552 5.3.4 too big for me" },
    {},
  ]);
  // Each after the last one's RSET is answered, so that the one connection serves them all.
  const next = async (to: string) => {
    await Bun.sleep(30);
    return send(to);
  };
  expect(await next("a@dest.test")).toMatchObject({ kind: "reply", stage: "MAIL FROM", reply: { code: 550, enhanced_code: "5.7.1" } });
  expect(await next("b@dest.test")).toMatchObject({ kind: "reply", stage: "RCPT TO", reply: { code: 550, enhanced_code: "5.1.1" } });
  expect(await next("c@dest.test")).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 451 } });
  expect(await next("d@dest.test")).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 552 } });
  expect(await next("e@dest.test")).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 250 } });
  expect(server.messages).toHaveLength(2); // the refused message's body and the last one
  expect(pools.stats.connections).toBe(1);
  // Each refused envelope was reset before the next MAIL.
  expect(server.chunks.filter((c) => c.startsWith("RSET")).length).toBe(3);
});

test("a server that says 354 after refusing the only RCPT gets an empty message ended, and the refusal is the outcome", async () => {
  const { server, send } = setup([{ rcpt: "550 5.1.1 no such user", data: "354 go ahead anyway" }, {}]);
  expect(await send("a@dest.test")).toMatchObject({ kind: "reply", stage: "RCPT TO", reply: { code: 550 } });
  expect(server.messages).toEqual([""]);
  expect(await send("b@dest.test")).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 250 } });
  expect(server.messages).toHaveLength(2);
});

test("a 421 at MAIL from a server that then hangs up is the outcome, not a lost connection", async () => {
  const { send } = setup([{ mail: "421 4.3.2 shutting down", closeAfter: "MAIL" }, {}]);
  expect(await send("a@dest.test")).toMatchObject({ kind: "reply", stage: "MAIL FROM", reply: { code: 421, enhanced_code: "4.3.2" } });
  expect(await send("b@dest.test")).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 250 } });
});

test("an address that needs SMTPUTF8 goes through nodemailer's own transaction, one command a write", async () => {
  const { server, send } = setup([]);
  // The scripted server offers no SMTPUTF8, so nodemailer sends the address as it is.
  expect(await send("josé@dest.test")).toMatchObject({ kind: "reply", reply: { code: 250 } });
  expect(server.chunks.some((c) => c.startsWith("MAIL FROM:") && c.endsWith("\r\n") && !c.includes("RCPT"))).toBe(true);
});

test("an envelope address with CR, LF or angle brackets is never written: no command is smuggled into the session", async () => {
  const { server, send } = setup([]);
  for (const to of ["a@dest.test>\r\nRCPT TO:<evil@elsewhere.test", "a@dest.test\nDATA", "<evil@elsewhere.test>"]) {
    const outcome = await send(to);
    expect(outcome.kind === "reply" && outcome.reply.code === 250).toBe(false);
  }
  expect(server.chunks.join("")).not.toContain("evil@elsewhere.test");
  expect(server.chunks.some((c) => c.startsWith("RCPT") || c.includes("\r\nRCPT"))).toBe(false);
  expect(server.messages).toEqual([]);
  // The session still serves a proper address afterwards.
  expect(await send("b@dest.test")).toMatchObject({ kind: "reply", stage: "DATA", reply: { code: 250 } });
});
