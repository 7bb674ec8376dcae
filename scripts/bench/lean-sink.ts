/**
 * A minimal SMTP sink for benchmarks, in the spirit of Postfix's smtp-sink: it answers every
 * command at once, offers PIPELINING but no STARTTLS, counts messages and keeps none. Its point is
 * to take as little of this 2-core machine's CPU as possible, so that an end-to-end figure measures
 * the sender rather than the receiver. The full receiver (smtp-server with STARTTLS) is the
 * test harness's sink; the send benchmark can use either (POSTHORN_BENCH_SINK).
 */
export interface LeanSink {
  port: number;
  /** Messages whose final "." was answered 250. */
  received: number;
  close(): void;
}

type Conn = { inData: boolean; buffer: string };

const EHLO = "250-sink.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 SIZE 52428800\r\n";

export function startLeanSink(): LeanSink {
  const sink: LeanSink = { port: 0, received: 0, close: () => server.stop(true) };
  const server = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { inData: false, buffer: "" };
        socket.write("220 sink.test ESMTP\r\n");
      },
      data(socket, chunk) {
        const c = socket.data;
        // latin1 keeps one char per byte, so the end-of-data search works on any 8-bit content.
        c.buffer += chunk.toString("latin1");
        let out = "";
        for (;;) {
          if (c.inData) {
            const end = c.buffer.indexOf("\r\n.\r\n");
            if (end === -1) {
              // Keep only a tail long enough to hold a terminator split across reads.
              if (c.buffer.length > 4) c.buffer = c.buffer.slice(-4);
              break;
            }
            c.buffer = c.buffer.slice(end + 5);
            c.inData = false;
            sink.received++;
            out += "250 2.0.0 Ok: queued\r\n";
            continue;
          }
          const eol = c.buffer.indexOf("\r\n");
          if (eol === -1) break;
          const line = c.buffer.slice(0, eol);
          c.buffer = c.buffer.slice(eol + 2);
          const verb = line.slice(0, 4).toUpperCase();
          if (verb === "EHLO") out += EHLO;
          else if (verb === "HELO") out += "250 sink.test\r\n";
          else if (verb === "DATA") {
            c.inData = true;
            // The CRLF that ended DATA also starts the data, so an empty message's "." is found.
            c.buffer = "\r\n" + c.buffer;
            out += "354 End data with <CR><LF>.<CR><LF>\r\n";
          } else if (verb === "QUIT") {
            socket.end(out + "221 2.0.0 Bye\r\n");
            return;
          } else out += "250 2.0.0 Ok\r\n";
        }
        if (out) socket.write(out);
      },
    },
  });
  sink.port = server.port;
  return sink;
}
