// The client's address over the HTTPS listener: the same as over the HTTP listener. The HTTPS
// listener ends TLS in front of an inner server (src/tls/https-listener.ts); the handler must still
// see the TLS client's address, for the session's recorded IP, sign-in throttling per address and
// /metrics' loopback rule. Loopback has a whole /8, so each client here connects from an address
// of its own (127.0.0.x), which the server can only know from the connection itself.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { startServer, type RunningServer } from "../../src/server.ts";
import type { SqlExecutor } from "../../src/db/sql.ts";
import { databaseEnv, engine, testConfig } from "../helpers.ts";
import { freePort } from "../e2e/fixtures/outbound-server.ts";
import { makeTestCert } from "../webhooks/support.ts";

const cert = makeTestCert(["mx.posthorn.test"]);
let server: RunningServer;
let httpsPort: number;

beforeAll(async () => {
  httpsPort = await freePort();
  server = await startServer(
    testConfig({
      ...databaseEnv(),
      POSTHORN_HTTP_HOST: "127.0.0.1",
      POSTHORN_HTTP_PORT: "0",
      POSTHORN_HTTPS_PORT: String(httpsPort),
      POSTHORN_TLS_CERT: join(dirname(cert.caPath), "leaf.pem"),
      POSTHORN_TLS_KEY: join(dirname(cert.caPath), "leaf.key"),
      POSTHORN_AUTH_FAILURE_LIMIT: "3",
    }),
  );
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

type Answer = { status: number; headers: string; body: string };

/** One HTTP/1.1 request on a connection of its own, from `from` (a loopback address), over HTTPS or HTTP. */
function send(over: "https" | "http", from: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const head = [
    `${method} ${path} HTTP/1.1`,
    "Host: mx.posthorn.test",
    "Connection: close",
    ...(body === undefined ? [] : ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(payload)}`]),
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");
  const raw = `${head}\r\n\r\n${payload}`;
  return new Promise((resolve, reject) => {
    let got = "";
    const s: Socket =
      over === "https"
        ? tlsConnect({ host: "127.0.0.1", port: httpsPort, localAddress: from, servername: "mx.posthorn.test", ca: cert.caPem } as ConnectionOptions, () => s.write(raw))
        : netConnect({ host: "127.0.0.1", port: server.httpPort, localAddress: from }, () => s.write(raw));
    s.on("data", (d: Buffer) => (got += d.toString()));
    s.once("error", reject);
    s.on("end", () => {
      s.destroy();
      const split = got.indexOf("\r\n\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0);
      resolve({ status, headers: got.slice(0, split), body: got.slice(split + 4) });
    });
  });
}

const signIn = (over: "https" | "http", from: string, email: string, password: string, headers: Record<string, string> = {}) =>
  send(over, from, "POST", "/v1/auth/sign-in", headers, { email, password });

/** The address recorded with the session a sign-in's answer opened (its cookie's token, stored as SHA-256). */
async function sessionIp(signedIn: Answer): Promise<string | null | undefined> {
  const token = /posthorn_session=([^;\r\n]+)/.exec(signedIn.headers)?.[1];
  expect(token).toBeDefined();
  // The API shows no session's address: read the row, on either engine, through the store's own executor.
  const db = (server.deps.store.read.accounts as unknown as { db: SqlExecutor }).db;
  const row = await db.get<{ ip: string | null }>("SELECT ip FROM sessions WHERE token_hash = ?", [createHash("sha256").update(token!).digest("hex")]);
  return row ? row.ip : undefined;
}

describe(`the client's address over HTTPS (${engine})`, () => {
  test("a sign-in over HTTPS records the client's address, as over HTTP; X-Forwarded-For from a peer that is no trusted proxy changes nothing", async () => {
    const password = server.bootstrap!.owner_password!;
    for (const [over, from] of [["https", "127.0.0.21"], ["http", "127.0.0.22"], ["https", "127.0.0.23"]] as const) {
      const res = await signIn(over, from, "owner@localhost", password, { "X-Forwarded-For": "203.0.113.9" });
      expect(res.status).toBe(201);
      expect(await sessionIp(res)).toBe(from);
    }
  }, 30_000);

  test("failed sign-ins over HTTPS count per client address, as over HTTP", async () => {
    // POSTHORN_AUTH_FAILURE_LIMIT=3: three wrong passwords (each for another address, under the per-address limit), then a 429.
    const run = async (over: "https" | "http", from: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await signIn(over, from, `nobody-${over}-${from}-${i}@example.com`, "wrong password")).status);
      return statuses;
    };
    const overHttp = await run("http", "127.0.0.31");
    expect(overHttp).toEqual([401, 401, 401, 429]);
    expect(await run("https", "127.0.0.32")).toEqual(overHttp);
    // Another client over HTTPS has its own count: not limited by the first one's failures.
    expect((await signIn("https", "127.0.0.33", "nobody-else@example.com", "wrong password")).status).toBe(401);
    // The one limited over HTTPS is limited over HTTP too: one count per address, whatever the listener.
    expect((await signIn("http", "127.0.0.32", "nobody-else@example.com", "wrong password")).status).toBe(429);
  }, 60_000);

  test("/metrics over HTTPS from loopback is answered as over HTTP; a request forwarded by a peer that is no trusted proxy is refused on both", async () => {
    for (const over of ["http", "https"] as const) {
      const plain = await send(over, "127.0.0.41", "GET", "/metrics");
      expect(plain.status).toBe(200);
      expect(plain.body).toContain("posthorn_jobs_pending");
      const forwarded = await send(over, "127.0.0.41", "GET", "/metrics", { "X-Forwarded-For": "203.0.113.7" });
      expect(forwarded.status).toBe(403);
      expect(forwarded.body).not.toContain("posthorn_");
    }
  }, 30_000);
});
