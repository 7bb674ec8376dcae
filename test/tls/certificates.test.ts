// Certificates without a CA: the renewal rules, the settings, the HTTP-01 route answering from
// the database, the order's lease between nodes, and certificate files that win over ACME and are
// re-read when they change.
import { describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, LETS_ENCRYPT_DIRECTORY, loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { startServer } from "../../src/server.ts";
import { LiveCertificate, parseCertificate, renewalTime } from "../../src/tls/certificate.ts";
import { HttpsListener } from "../../src/tls/https-listener.ts";
import { ACME_CERTIFICATE, CertificateManager, orderableName, orderDue } from "../../src/tls/manager.ts";
import { createTestApp, databaseEnv, tempDir, testConfig, waitFor } from "../helpers.ts";
import { freePort } from "../e2e/fixtures/outbound-server.ts";
import { makeTestCert } from "../webhooks/support.ts";
import { httpsCertificate, openHttps, openStartTls } from "./support.ts";
import { connect as tlsConnect } from "node:tls";
import { X509Certificate } from "node:crypto";

const DAY = 86_400_000;

describe("when a certificate is renewed", () => {
  test("30 days before expiry, or with a third of a short lifetime left", () => {
    const t0 = Date.parse("2026-01-01T00:00:00Z");
    expect(renewalTime(t0, t0 + 90 * DAY)).toBe(t0 + 60 * DAY);
    expect(renewalTime(t0, t0 + 6 * DAY)).toBe(t0 + 4 * DAY);
  });

  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const issued = { certPem: "x", domains: ["mx.example.org"], notBefore: t0, notAfter: t0 + 90 * DAY, renewRequestedAt: null, nextAttemptAt: null };
  const names = ["mx.example.org"];

  test("an order is due without a certificate, when a name is missing, at the renewal time, or on request", () => {
    expect(orderDue(null, names, t0)).toBe("no certificate yet");
    expect(orderDue(issued, names, t0 + DAY)).toBeNull();
    expect(orderDue(issued, [...names, "links.example.org"], t0 + DAY)).toBe("not valid for links.example.org");
    expect(orderDue(issued, names, t0 + 60 * DAY - 1)).toBeNull();
    expect(orderDue(issued, names, t0 + 60 * DAY)).toStartWith("expires ");
    expect(orderDue({ ...issued, renewRequestedAt: t0 + DAY }, names, t0 + DAY)).toBe("renewal requested");
  });

  test("a name dropped from the wanted list does not cause an order; a failed order waits for its next attempt", () => {
    expect(orderDue({ ...issued, domains: [...names, "old.example.org"] }, names, t0 + DAY)).toBeNull();
    expect(orderDue({ ...issued, certPem: null, nextAttemptAt: t0 + 5 * 60_000 }, names, t0)).toBeNull();
    expect(orderDue({ ...issued, certPem: null, nextAttemptAt: t0 + 5 * 60_000 }, names, t0 + 5 * 60_000)).toBe("no certificate yet");
  });

  test("only names a public CA can issue for are ordered", () => {
    expect(orderableName("mx.example.org")).toBe(true);
    for (const n of ["localhost", "app.localhost", "mailhost", "192.0.2.1", "::1"]) expect(orderableName(n)).toBe(false);
  });
});

describe("settings", () => {
  test("ACME and HTTPS are off by default; the directory defaults to Let's Encrypt", () => {
    const c = loadConfig({ POSTHORN_HOSTNAME: "mail.example.org" });
    expect(c.httpsPort).toBe(0);
    expect(c.acmeEmail).toBeNull();
    expect(c.acmeDirectory).toBe(LETS_ENCRYPT_DIRECTORY);
  });

  const bad: [Record<string, string>, string][] = [
    [{ POSTHORN_HTTPS_PORT: "8080" }, "POSTHORN_HTTPS_PORT"],
    [{ POSTHORN_HTTPS_PORT: "tls" }, "POSTHORN_HTTPS_PORT"],
    [{ POSTHORN_ACME_EMAIL: "ops at example.org" }, "POSTHORN_ACME_EMAIL"],
    [{ POSTHORN_ACME_DIRECTORY: "http://acme.example.org/directory" }, "POSTHORN_ACME_DIRECTORY"],
  ];
  for (const [env, name] of bad) {
    test(`${JSON.stringify(env)} fails naming ${name}`, () => {
      let err: unknown;
      try {
        loadConfig({ POSTHORN_HOSTNAME: "mail.example.org", ...env });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe(name);
    });
  }
});

describe("GET /.well-known/acme-challenge/{token}", () => {
  const t = createTestApp();
  const token = "Zm9vYmFyYmF6cXV4LXRva2VuXzEyMw";

  test("answers a pending challenge from the database, on any node, as text", async () => {
    await t.deps.store.write((tx) => tx.tlsCertificates.putChallenge(token, `${token}.thumbprint`, Date.now() + 60_000, Date.now()));
    const res = await t.app.handle(new Request(`http://localhost/.well-known/acme-challenge/${token}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    expect(await res.text()).toBe(`${token}.thumbprint`);
  });

  test("unknown, expired, removed and malformed tokens are 404s", async () => {
    const expired = "ZXhwaXJlZC10b2tlbi1hYmNkZWZn";
    await t.deps.store.write((tx) => tx.tlsCertificates.putChallenge(expired, "x", Date.now() - 1, Date.now() - 60_000));
    const removed = "cmVtb3ZlZC10b2tlbi1hYmNkZWZn";
    await t.deps.store.write((tx) => tx.tlsCertificates.putChallenge(removed, "x", Date.now() + 60_000, Date.now()));
    await t.deps.store.write((tx) => tx.tlsCertificates.removeChallenge(removed));
    for (const path of ["dW5rbm93bi10b2tlbi1hYmNkZWZn", expired, removed, "short", "x".repeat(300), "..%2F..%2Fetc%2Fpasswd"]) {
      const res = await t.app.handle(new Request(`http://localhost/.well-known/acme-challenge/${path}`));
      expect(res.status).toBe(404);
    }
    // The app's guard for any URL with a NUL, before the route.
    expect((await t.app.handle(new Request("http://localhost/.well-known/acme-challenge/a%00b"))).status).toBe(400);
  });

  test("is not in the API's document", async () => {
    const doc = (await (await t.app.handle(new Request("http://localhost/openapi/json"))).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p.includes("acme-challenge"))).toBe(false);
  });
});

describe("one node orders at a time", () => {
  const t = createTestApp({ env: { POSTHORN_ACME_EMAIL: "ops@example.org", POSTHORN_HOSTNAME: "mx.example.org" } });
  const repo = () => t.deps.store;

  test("the lease goes to one node until it runs out, and a node that lost it cannot store its outcome", async () => {
    const now = Date.now();
    await repo().write((tx) => tx.tlsCertificates.ensure("lease-test", now));
    expect(await repo().write((tx) => tx.tlsCertificates.claim("lease-test", "node-a", now, 60_000, null))).toBe(true);
    expect(await repo().write((tx) => tx.tlsCertificates.claim("lease-test", "node-b", now + 59_999, 60_000, null))).toBe(false);
    // node-a died: its lease runs out and node-b takes over.
    expect(await repo().write((tx) => tx.tlsCertificates.claim("lease-test", "node-b", now + 60_000, 60_000, null))).toBe(true);
    const cert = { domains: ["mx.example.org"], certPem: "pem", keyPem: "key", fingerprint: "f", notBefore: now, notAfter: now + 90 * DAY };
    expect(await repo().write((tx) => tx.tlsCertificates.store("lease-test", "node-a", cert, now, now + 70_000))).toBe(false);
    expect(await repo().write((tx) => tx.tlsCertificates.recordFailure("lease-test", "node-a", "late", now, now + 70_000))).toBe(false);
    expect(await repo().write((tx) => tx.tlsCertificates.store("lease-test", "node-b", cert, now, now + 70_000))).toBe(true);
    expect(await repo().read.tlsCertificates.get("lease-test")).toMatchObject({ fingerprint: "f", leaseOwner: null, failures: 0 });
  });

  test("a node that found an order due on a row another node has since changed cannot claim it: no second order", async () => {
    const now = Date.now();
    const { store } = t.deps;
    await store.write((tx) => tx.tlsCertificates.requestRenewal("stale-test", now));
    const seenByA = await store.read.tlsCertificates.get("stale-test");
    // Node B orders on the same request and stores its certificate before node A claims.
    expect(await store.write((tx) => tx.tlsCertificates.claim("stale-test", "node-b", now, 60_000, seenByA))).toBe(true);
    const cert = { domains: ["mx.example.org"], certPem: "pem", keyPem: "key", fingerprint: "f1", notBefore: now, notAfter: now + 90 * DAY };
    expect(await store.write((tx) => tx.tlsCertificates.store("stale-test", "node-b", cert, now, now + 10))).toBe(true);
    expect(await store.write((tx) => tx.tlsCertificates.claim("stale-test", "node-a", now + 20, 60_000, seenByA))).toBe(false);
    // A failure recorded meanwhile (with its backoff) stops a stale claim too; a fresh read claims.
    const seenAfterCert = await store.read.tlsCertificates.get("stale-test");
    await store.write((tx) => tx.tlsCertificates.requestRenewal("stale-test", now + 30));
    const seenWithRequest = await store.read.tlsCertificates.get("stale-test");
    expect(await store.write((tx) => tx.tlsCertificates.claim("stale-test", "node-a", now + 40, 60_000, seenAfterCert))).toBe(false);
    expect(await store.write((tx) => tx.tlsCertificates.claim("stale-test", "node-b", now + 40, 60_000, seenWithRequest))).toBe(true);
    expect(await store.write((tx) => tx.tlsCertificates.recordFailure("stale-test", "node-b", "refused", now + 5 * 60_000, now + 50))).toBe(true);
    expect(await store.write((tx) => tx.tlsCertificates.claim("stale-test", "node-a", now + 60, 60_000, seenWithRequest))).toBe(false);
    const fresh = await store.read.tlsCertificates.get("stale-test");
    expect(await store.write((tx) => tx.tlsCertificates.claim("stale-test", "node-a", now + 60, 60_000, fresh))).toBe(true);
  });

  test("a renewal requested during an order survives that order's outcome", async () => {
    const now = Date.now();
    await repo().write((tx) => tx.tlsCertificates.ensure("request-test", now));
    expect(await repo().write((tx) => tx.tlsCertificates.claim("request-test", "node-a", now, 60_000, null))).toBe(true);
    await repo().write((tx) => tx.tlsCertificates.requestRenewal("request-test", now + 10));
    const cert = { domains: ["mx.example.org"], certPem: "pem", keyPem: "key", fingerprint: "f", notBefore: now, notAfter: now + 90 * DAY };
    await repo().write((tx) => tx.tlsCertificates.store("request-test", "node-a", cert, now, now + 20));
    expect((await repo().read.tlsCertificates.get("request-test"))!.renewRequestedAt).toBe(now + 10);
  });

  test("a node does not order while another node's lease runs, even with no certificate at all", async () => {
    const lines: string[] = [];
    const deps = { ...t.deps, log: createLogger("debug", (l) => lines.push(l)) };
    const now = Date.now();
    await t.deps.store.write((tx) => tx.tlsCertificates.ensure(ACME_CERTIFICATE, now));
    expect(await t.deps.store.write((tx) => tx.tlsCertificates.claim(ACME_CERTIFICATE, "other-node", now, 60_000, null))).toBe(true);
    const manager = new CertificateManager(deps);
    await manager.load();
    await manager.check();
    await manager.stop();
    expect(lines.filter((l) => l.includes("acme order started"))).toEqual([]);
    expect(await t.deps.store.read.tlsCertificates.get(ACME_CERTIFICATE)).toMatchObject({ leaseOwner: "other-node", failures: 0, certPem: null });
  });
});

describe("certificate files", () => {
  test("win over ACME, are served on HTTPS and STARTTLS, and are re-read when they change; a broken pair keeps the last good one", async () => {
    const a = makeTestCert(["mx.posthorn.test"]);
    const b = makeTestCert(["mx.posthorn.test"]);
    const dir = tempDir("tls-files-");
    const certFile = join(dir, "cert.pem");
    const keyFile = join(dir, "key.pem");
    copyFileSync(join(dirname(a.caPath), "leaf.pem"), certFile);
    copyFileSync(join(dirname(a.caPath), "leaf.key"), keyFile);
    const [httpsPort, smtpPort] = [await freePort(), await freePort()];
    const server = await startServer(
      testConfig({
        ...databaseEnv(),
        POSTHORN_HTTP_HOST: "127.0.0.1",
        POSTHORN_HTTP_PORT: "0",
        POSTHORN_HTTPS_PORT: String(httpsPort),
        POSTHORN_SMTP_HOST: "127.0.0.1",
        POSTHORN_SMTP_PORT: String(smtpPort),
        POSTHORN_TLS_CERT: certFile,
        POSTHORN_TLS_KEY: keyFile,
        // Changed files are served within a check (10 s by default).
        POSTHORN_TLS_CHECK_INTERVAL_MS: "200",
        // Set too, and never used: the files win.
        POSTHORN_ACME_EMAIL: "ops@posthorn.test",
        POSTHORN_ACME_DIRECTORY: "https://127.0.0.1:1/directory",
      }),
    );
    try {
      const first = await httpsCertificate(httpsPort, "mx.posthorn.test", a.caPem);
      expect(first.authorized).toBe(true);
      const smtp = await openStartTls(smtpPort, "mx.posthorn.test", a.caPem);
      expect(smtp.cert.fingerprint).toBe(first.fingerprint);

      // Renewed by hand (or certbot): the key first, then the certificate; served within a check.
      writeFileSync(keyFile, b.keyPem);
      writeFileSync(certFile, b.certPem);
      const second = await waitFor(async () => {
        const c = await httpsCertificate(httpsPort, "mx.posthorn.test", b.caPem);
        return c.fingerprint !== first.fingerprint ? c : null;
      }, 15_000, 200);
      expect(second.authorized).toBe(true);
      const renewedSmtp = await openStartTls(smtpPort, "mx.posthorn.test", b.caPem);
      expect(renewedSmtp.cert).toMatchObject({ fingerprint: second.fingerprint, authorized: true });
      // The session that started before the change goes on with its certificate.
      expect(await smtp.send("EHLO client.test")).toStartWith("250");
      smtp.close();
      renewedSmtp.close();

      // A certificate whose key is not in the key file: the pair served stays.
      writeFileSync(certFile, a.certPem);
      await server.certificates.check();
      expect((await httpsCertificate(httpsPort, "mx.posthorn.test", b.caPem)).fingerprint).toBe(second.fingerprint);
      expect(await server.deps.store.read.tlsCertificates.get(ACME_CERTIFICATE)).toBeNull();
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe("the HTTPS listener and hostile clients", () => {
  test("bytes that are no TLS handshake, a handshake left half-done, a client gone mid-request and an oversized body leave it serving the next client", async () => {
    const a = makeTestCert(["mx.posthorn.test"]);
    const live = new LiveCertificate();
    live.set(parseCertificate(a.certPem, a.keyPem, "file"));
    const listener = new HttpsListener({ host: "127.0.0.1", port: 0, fetch: async (r) => new Response(`${(await r.text()).length}`), maxRequestBodySize: 1 << 16 }, createLogger("error"));
    await listener.start(live);
    const port = listener.port!;
    try {
      const raw = async (bytes: string | Uint8Array, keepOpen = false) => {
        const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {}, close() {}, error() {} } });
        s.write(bytes);
        if (!keepOpen) s.end();
        return s;
      };
      // Plain HTTP and random bytes on the TLS port; the first bytes of a ClientHello and no more.
      await raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      await raw(crypto.getRandomValues(new Uint8Array(4096)));
      const halfDone = await raw(new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]), true);
      // A request whose body never comes: the client goes away after the headers.
      const gone = await openHttps(port, "mx.posthorn.test", a.caPem);
      gone.write("POST /x HTTP/1.1\r\nHost: mx.posthorn.test\r\nContent-Length: 1000\r\n\r\n");
      gone.close();
      // A body over the bound is refused with 413, not read whole.
      const big = await openHttps(port, "mx.posthorn.test", a.caPem);
      big.write(`POST /big HTTP/1.1\r\nHost: mx.posthorn.test\r\nContent-Length: ${1 << 20}\r\n\r\n${"x".repeat(1 << 17)}`);
      expect((await big.response()).status).toBe(413);
      big.close();
      // The next client is answered, while the half-done handshake is still open.
      const next = await openHttps(port, "mx.posthorn.test", a.caPem);
      next.write("POST /ok HTTP/1.1\r\nHost: mx.posthorn.test\r\nContent-Length: 5\r\n\r\nhello");
      expect(await next.response()).toEqual({ status: 200, body: "5" });
      next.close();
      halfDone.end();
    } finally {
      await listener.stop();
    }
  }, 30_000);
});

describe("the HTTPS listener during a renewal", () => {
  test("connections made while the certificate changes are all answered, and a keep-alive connection opened before goes on", async () => {
    const [a, b] = [makeTestCert(["mx.posthorn.test"]), makeTestCert(["mx.posthorn.test"])];
    const pairs = [a, b].map((c) => parseCertificate(c.certPem, c.keyPem, "file"));
    const live = new LiveCertificate();
    live.set(pairs[0]!);
    // The handler answers with the URL it was given.
    const listener = new HttpsListener({ host: "127.0.0.1", port: 0, fetch: (r) => new Response(r.url), maxRequestBodySize: 1 << 20 }, createLogger("error"));
    await listener.start(live);
    const port = listener.port!;
    try {
      const kept = await openHttps(port, "mx.posthorn.test", a.caPem);
      // Eight clients connect in a loop (handshake, one request, close) through 30 renewals, 50 ms apart.
      const failures: string[] = [];
      const seen = new Set<string>();
      let answered = 0;
      let renewing = true;
      const client = async () => {
        while (renewing) {
          await new Promise<void>((resolve) => {
            let got = "";
            const s = tlsConnect({ host: "127.0.0.1", port, servername: "mx.posthorn.test", rejectUnauthorized: false }, () => {
              seen.add(s.getPeerCertificate().fingerprint256);
              s.write("GET /probe HTTP/1.1\r\nHost: mx.posthorn.test\r\nConnection: close\r\n\r\n");
            });
            s.on("data", (d: Buffer) => (got += d.toString()));
            s.on("end", () => {
              if (got.startsWith("HTTP/1.1 200") && got.endsWith("https://mx.posthorn.test/probe")) answered++;
              else failures.push(`answer ${JSON.stringify(got.slice(0, 40))}`);
              s.destroy();
              resolve();
            });
            s.once("error", (err: NodeJS.ErrnoException) => {
              failures.push(err.code ?? err.message);
              resolve();
            });
          });
        }
      };
      const clients = Array.from({ length: 8 }, client);
      for (let i = 1; i <= 30; i++) {
        await Bun.sleep(50);
        live.set(pairs[i % 2]!);
      }
      renewing = false;
      await Promise.all(clients);
      expect(failures).toEqual([]);
      expect(answered).toBeGreaterThan(30);
      expect(seen.size).toBe(2);
      // The connection opened before the renewals still has its certificate and is answered.
      kept.write("GET /kept HTTP/1.1\r\nHost: mx.posthorn.test\r\n\r\n");
      expect(await kept.response()).toEqual({ status: 200, body: "https://mx.posthorn.test/kept" });
      expect(kept.cert.fingerprint).toBe(new X509Certificate(a.certPem).fingerprint256);
      kept.close();
      // A new connection gets the last certificate (the 30th renewal set the first pair again).
      expect((await httpsCertificate(port, "mx.posthorn.test", a.caPem)).authorized).toBe(true);
    } finally {
      await listener.stop();
    }
  }, 30_000);
});
