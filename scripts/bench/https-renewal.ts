// The HTTPS listener (src/tls/https-listener.ts: TLS ended by a node:tls server whose certificate
// is swapped in place, the handler on a loopback Bun server behind it) against the anchor it
// replaced, Bun.serve with `tls` replaced by a new server on the same port (SO_REUSEPORT) at each
// renewal. Rounds alternate A/B in one run; each prints, for each side:
//   - renewals: 8 clients connect in a loop (handshake, one request, close) while the certificate
//     changes RENEWALS times, 50 ms apart: connections that failed (ECONNRESET, …) of all made;
//   - connections/s: the same clients, no renewal;
//   - requests/s: 32 keep-alive clients (fetch), no renewal.
//
//   bun scripts/bench/https-renewal.ts [rounds=2] [renewals=40] [seconds=2]
import type { Server } from "bun";
import { connect } from "node:tls";
import { createLogger } from "../../src/log.ts";
import { LiveCertificate, parseCertificate, type ServedCertificate } from "../../src/tls/certificate.ts";
import { HttpsListener } from "../../src/tls/https-listener.ts";
import { makeTestCert } from "../../test/webhooks/support.ts";

const ROUNDS = Number(process.argv[2] ?? 2);
const RENEWALS = Number(process.argv[3] ?? 40);
const SECONDS = Number(process.argv[4] ?? 2);
const NAME = "mx.posthorn.test";
const certs = [makeTestCert([NAME]), makeTestCert([NAME])].map((c) => parseCertificate(c.certPem, c.keyPem, "file"));
const fetchHandler = () => new Response("ok");

interface Side {
  port: number;
  renew(cert: ServedCertificate): void;
  stop(): Promise<void>;
}

async function listenerSide(): Promise<Side> {
  const live = new LiveCertificate();
  live.set(certs[0]!);
  const listener = new HttpsListener({ host: "127.0.0.1", port: 0, fetch: fetchHandler, maxRequestBodySize: 1e6 }, createLogger("error"));
  await listener.start(live);
  return { port: listener.port!, renew: (c) => live.set(c), stop: () => listener.stop() };
}

/** The anchor: what the listener did before, a new Bun server per certificate. */
async function anchorSide(): Promise<Side> {
  const start = (c: ServedCertificate, port: number) =>
    Bun.serve({ hostname: "127.0.0.1", port, reusePort: true, tls: { cert: c.certPem, key: c.keyPem }, fetch: fetchHandler, development: false });
  let server: Server<undefined> = start(certs[0]!, 0);
  const port = server.port!;
  return {
    port,
    renew: (c) => {
      const previous = server;
      server = start(c, port);
      void previous.stop(false);
    },
    stop: async () => void (await server.stop(true)),
  };
}

async function connections(port: number, during: () => Promise<void>): Promise<{ ok: number; failed: number }> {
  let ok = 0;
  let failed = 0;
  let stop = false;
  const client = async () => {
    while (!stop) {
      await new Promise<void>((resolve) => {
        let got = "";
        const s = connect({ host: "127.0.0.1", port, servername: NAME, rejectUnauthorized: false }, () =>
          s.write(`GET / HTTP/1.1\r\nHost: ${NAME}\r\nConnection: close\r\n\r\n`),
        );
        s.on("data", (d: Buffer) => (got += d.toString()));
        s.on("end", () => {
          if (got.startsWith("HTTP/1.1 200") && got.endsWith("ok")) ok++;
          else failed++;
          s.destroy();
          resolve();
        });
        s.once("error", () => {
          failed++;
          resolve();
        });
      });
    }
  };
  const clients = Array.from({ length: 8 }, client);
  await during();
  stop = true;
  await Promise.all(clients);
  return { ok, failed };
}

async function requests(port: number): Promise<number> {
  let n = 0;
  const until = Date.now() + SECONDS * 1000;
  const client = async () => {
    while (Date.now() < until) {
      const res = await fetch(`https://127.0.0.1:${port}/`, { tls: { rejectUnauthorized: false } });
      if ((await res.text()) === "ok") n++;
    }
  };
  await Promise.all(Array.from({ length: 32 }, client));
  return n / SECONDS;
}

async function measure(make: () => Promise<Side>) {
  const side = await make();
  const renewal = await connections(side.port, async () => {
    for (let i = 1; i <= RENEWALS; i++) {
      await Bun.sleep(50);
      side.renew(certs[i % 2]!);
    }
  });
  const plain = await connections(side.port, () => Bun.sleep(SECONDS * 1000));
  const rps = await requests(side.port);
  await side.stop();
  return { failed: renewal.failed, made: renewal.ok + renewal.failed, cps: plain.ok / SECONDS, rps };
}

const fmt = (r: Awaited<ReturnType<typeof measure>>) =>
  `renewals: ${r.failed} of ${r.made} connections failed; ${r.cps.toFixed(0)} connections/s; ${r.rps.toFixed(0)} requests/s`;
for (let round = 1; round <= ROUNDS; round++) {
  const anchor = await measure(anchorSide);
  const listener = await measure(listenerSide);
  console.log(`round ${round}  anchor (new Bun server per certificate): ${fmt(anchor)}`);
  console.log(`round ${round}  listener (secure context swapped):       ${fmt(listener)}`);
  console.log(`round ${round}  listener/anchor: connections/s ${(listener.cps / anchor.cps).toFixed(2)}, requests/s ${(listener.rps / anchor.rps).toFixed(2)}`);
}
process.exit(0);
