/**
 * Debian's pebble (Let's Encrypt's test ACME server) on loopback, and TLS probes of our listeners:
 * the certificate an HTTPS or STARTTLS handshake presents, and sessions kept open across a renewal.
 */
import { X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import { connect as netConnect, type Socket } from "node:net";
import { join } from "node:path";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import type { Subprocess } from "bun";
import { tempDir, waitFor } from "../helpers.ts";
import { freePort } from "../e2e/fixtures/outbound-server.ts";
import { makeTestCert } from "../webhooks/support.ts";
import { hasTool } from "../support/tools.ts";

export const pebbleAvailable = (): boolean => hasTool("pebble");

export interface Pebble {
  directoryUrl: string;
  /** The CA of pebble's own HTTPS listener (its API), for NODE_EXTRA_CA_CERTS. */
  apiCaPath: string;
  /** Pebble's issuing root, made afresh at each start (management API /roots/0). */
  root: string;
  stop(): void;
}

/**
 * Starts pebble with HTTP-01 validation against `httpPort` on loopback, names resolved by the
 * test's DNS server (`dnsServer`, "127.0.0.1:PORT"), every nonce accepted and no random sleeps.
 */
export async function startPebble(opts: { httpPort: number; dnsServer: string; validityDays?: number }): Promise<Pebble> {
  const dir = tempDir("pebble-");
  const api = makeTestCert(["127.0.0.1", "localhost"]);
  writeFileSync(join(dir, "cert.pem"), api.certPem);
  writeFileSync(join(dir, "key.pem"), api.keyPem);
  const [acmePort, managementPort, tlsPort] = [await freePort(), await freePort(), await freePort()];
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: join(dir, "cert.pem"),
      privateKey: join(dir, "key.pem"),
      httpPort: opts.httpPort,
      tlsPort,
      ocspResponderURL: "",
      externalAccountBindingRequired: false,
      certificateValidityPeriod: (opts.validityDays ?? 90) * 86_400,
    },
  };
  writeFileSync(join(dir, "pebble.json"), JSON.stringify(config));
  const proc: Subprocess = Bun.spawn(["pebble", "-config", join(dir, "pebble.json"), "-dnsserver", opts.dnsServer, "-strict"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PEBBLE_VA_NOSLEEP: "1", PEBBLE_WFE_NONCEREJECT: "0", PEBBLE_AUTHZREUSE: "0" },
    stdout: Bun.file(join(dir, "pebble.log")),
    stderr: "inherit",
  });
  const management = `https://127.0.0.1:${managementPort}`;
  const root = await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`pebble exited with ${proc.exitCode} (log in ${dir})`);
      try {
        const res = await fetch(`${management}/roots/0`, { tls: { ca: api.caPem } });
        return res.ok ? await res.text() : null;
      } catch {
        return null;
      }
    },
    10_000,
    50,
  );
  return { directoryUrl: `https://127.0.0.1:${acmePort}/dir`, apiCaPath: api.caPath, root, stop: () => proc.kill() };
}

/** What a TLS handshake showed: the leaf, and whether it verified against the CA given. */
export interface Presented {
  fingerprint: string;
  names: string[];
  issuer: string;
  authorized: boolean;
  authorizationError: string | null;
}

function presented(socket: TLSSocket): Presented {
  const leaf = new X509Certificate(socket.getPeerCertificate().raw);
  return {
    fingerprint: leaf.fingerprint256,
    names: (leaf.subjectAltName ?? "").split(",").map((s) => s.trim().replace(/^DNS:/, "")),
    issuer: leaf.issuer,
    authorized: socket.authorized,
    authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
  };
}

function handshake(opts: { socket?: Socket; host?: string; port?: number; servername: string; ca: string }): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ ...opts, rejectUnauthorized: false }, () => resolve(s));
    s.once("error", reject);
  });
}

/** A TLS connection to an HTTPS listener, kept open: its certificate, and requests written by hand. */
export async function openHttps(port: number, servername: string, ca: string) {
  const socket = await handshake({ host: "127.0.0.1", port, servername, ca });
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
  socket.on("error", () => {});
  return {
    cert: presented(socket),
    write: (data: string) => socket.write(data),
    /** The response received so far once it is complete (Content-Length), or null while it is not, or the connection closed. */
    async response(timeoutMs = 10_000): Promise<{ status: number; body: string }> {
      return await waitFor(() => {
        const head = received.indexOf("\r\n\r\n");
        if (head < 0) return socket.destroyed ? Promise.reject(new Error(`connection closed; received ${JSON.stringify(received)}`)) : null;
        const length = Number(/content-length: *(\d+)/i.exec(received.slice(0, head))?.[1] ?? "0");
        if (received.length < head + 4 + length) return null;
        return { status: Number(received.slice(9, 12)), body: received.slice(head + 4, head + 4 + length) };
      }, timeoutMs);
    },
    close: () => socket.destroy(),
  };
}

/** The certificate a new HTTPS connection gets. */
export async function httpsCertificate(port: number, servername: string, ca: string): Promise<Presented> {
  const c = await openHttps(port, servername, ca);
  c.close();
  return c.cert;
}

/** An SMTP session taken through STARTTLS and kept open: its certificate, and commands in TLS. */
export async function openStartTls(port: number, servername: string, ca: string) {
  const plain = netConnect({ host: "127.0.0.1", port });
  plain.on("error", () => {});
  let buffer = "";
  let waiting: ((line: string) => void) | null = null;
  const onData = (d: Buffer) => {
    buffer += d.toString("latin1");
    const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
    if (m && waiting) {
      const reply = buffer;
      buffer = "";
      const w = waiting;
      waiting = null;
      w(reply);
    }
  };
  let socket: Socket = plain;
  socket.on("data", onData);
  const read = () =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no SMTP reply; have ${JSON.stringify(buffer)}`)), 10_000);
      waiting = (r) => {
        clearTimeout(timer);
        resolve(r);
      };
      onData(Buffer.alloc(0));
    });
  const send = (line: string) => {
    socket.write(`${line}\r\n`);
    return read();
  };
  await read();
  const ehlo = await send("EHLO client.test");
  if (!/STARTTLS/.test(ehlo)) throw new Error(`STARTTLS not offered: ${ehlo}`);
  if (!(await send("STARTTLS")).startsWith("220")) throw new Error("STARTTLS refused");
  plain.off("data", onData);
  const secure = await handshake({ socket: plain, servername, ca });
  socket = secure;
  secure.on("data", onData);
  secure.on("error", () => {});
  return { cert: presented(secure), send, write: (data: string) => secure.write(data), read, close: () => secure.destroy() };
}
