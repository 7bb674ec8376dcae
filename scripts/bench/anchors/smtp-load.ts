// An SMTP load client for the benchmarks, run as a subprocess so that it does not share the
// measured server's thread: `sessions` sessions send `count` copies of a message file (already
// dot-stuffed, CRLF line ends) to 127.0.0.1:port, MAIL/RCPT/DATA pipelined, message after message
// on one connection, or with a new connection per message ("1"). Prints {"ms", "refused"}.
//
//   bun scripts/bench/anchors/smtp-load.ts PORT SESSIONS COUNT FILE PER_CONNECTION(0|1) RCPT
import { connect } from "node:net";

/** Spawns this client and waits for its figures. */
export async function runSmtpLoad(opts: {
  port: number;
  sessions: number;
  count: number;
  file: string;
  perConnection: boolean;
  to: string;
}): Promise<{ ms: number; refused: number }> {
  const client = Bun.spawn(
    [process.execPath, import.meta.path, String(opts.port), String(opts.sessions), String(opts.count), opts.file, opts.perConnection ? "1" : "0", opts.to],
    { stdout: "pipe", stderr: "inherit" },
  );
  const out = await new Response(client.stdout).text();
  if ((await client.exited) !== 0) throw new Error(`SMTP load client failed (port ${opts.port})`);
  return JSON.parse(out.trim().split("\n").pop()!) as { ms: number; refused: number };
}

if (import.meta.main) {
  // Bounded: a server that stops answering (or a bench stopped meanwhile) does not leave this waiting.
  setTimeout(() => {
    console.error("smtp-load: gave up after 10 minutes");
    process.exit(2);
  }, 600_000).unref();
  // Its parent gone (a bench stopped with ^C), it stops too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(2);
  }, 1000).unref();
  const [port, sessions, count, file, perConnection, to] = process.argv.slice(2);
  const raw = await Bun.file(file!).bytes();
  const body = Buffer.concat([Buffer.from(raw), Buffer.from("\r\n.\r\n")]);
  let next = 0;
  let refused = 0;
  const total = Number(count);

  async function session(): Promise<void> {
    for (;;) {
      const socket = connect({ port: Number(port), host: "127.0.0.1" });
      socket.setNoDelay(true);
      let buffer = "";
      const waiters: ((line: string) => void)[] = [];
      const lines: string[] = [];
      socket.on("data", (c: Buffer) => {
        buffer += c.toString("latin1");
        let i: number;
        while ((i = buffer.indexOf("\r\n")) >= 0) {
          const line = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (line[3] === "-") continue;
          const w = waiters.shift();
          if (w) w(line);
          else lines.push(line);
        }
      });
      const reply = () => new Promise<string>((r) => (lines.length ? r(lines.shift()!) : waiters.push(r)));
      const greeting = await reply();
      if (!greeting.startsWith("220")) throw new Error(`unexpected greeting: ${greeting}`);
      socket.write("EHLO bench.client\r\n");
      await reply();
      while (next < total) {
        next++;
        socket.write(`MAIL FROM:<alice@sender.test>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
        const [m, r, d] = [await reply(), await reply(), await reply()];
        if (!m.startsWith("250") || !r.startsWith("250") || !d.startsWith("354")) throw new Error(`unexpected: ${m} / ${r} / ${d}`);
        socket.write(body);
        const final = await reply();
        if (!final.startsWith("250")) refused++;
        if (perConnection === "1") break;
      }
      socket.write("QUIT\r\n");
      socket.end();
      if (next >= total) return;
    }
  }
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Number(sessions) }, session));
  console.log(JSON.stringify({ ms: performance.now() - t0, refused }));
  process.exit(0);
}
