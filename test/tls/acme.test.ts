// ACME against Debian's pebble on loopback: a real `posthorn serve` with POSTHORN_ACME_EMAIL gets a
// certificate for its hostname and tracking host by HTTP-01 (pebble resolves both through the
// test's DNS server and fetches the token from our HTTP listener), serves it on HTTPS and on both
// SMTP listeners' STARTTLS within a minute of start, and after `posthorn tls renew` serves a new
// one while connections opened before the renewal keep working.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { databaseEnv, tempDir, waitFor } from "../helpers.ts";
import { freePort } from "../e2e/fixtures/outbound-server.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { httpsCertificate, openHttps, openStartTls, pebbleAvailable, startPebble, type Pebble } from "./support.ts";

const ROOT = join(import.meta.dir, "..", "..");
const HOST = "mx.posthorn.test";
const TRACKING = "links.posthorn.test";

let pebble: Pebble | null = null;
let dns: TestDnsServer | null = null;
let server: Subprocess | null = null;
afterAll(async () => {
  server?.kill();
  pebble?.stop();
  await dns?.close();
});

/** `bun src/main.ts ARGS` with the server's environment; its output for when a check fails. */
function posthorn(args: string[], env: Record<string, string>, logFile?: string) {
  return Bun.spawn([process.execPath, join(ROOT, "src", "main.ts"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdout: logFile ? Bun.file(logFile) : "pipe",
    stderr: "inherit",
  });
}

test.skipIf(!pebbleAvailable())(
  "pebble issues the certificate: HTTPS and both SMTP listeners present it within a minute; a forced renewal swaps it while open connections keep working",
  async () => {
    dns = await startDnsServer();
    dns.set(HOST, "A", ["127.0.0.1"]);
    dns.set(TRACKING, "A", ["127.0.0.1"]);
    const [httpPort, httpsPort, smtpPort, submissionPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    pebble = await startPebble({ httpPort, dnsServer: dns.server });
    const dir = tempDir("posthorn-acme-");
    const env: Record<string, string> = {
      ...databaseEnv(),
      POSTHORN_DATA_DIR: dir,
      POSTHORN_HTTP_HOST: "127.0.0.1",
      POSTHORN_HTTP_PORT: String(httpPort),
      POSTHORN_HTTPS_PORT: String(httpsPort),
      POSTHORN_SMTP_HOST: "127.0.0.1",
      POSTHORN_SMTP_PORT: String(smtpPort),
      POSTHORN_SUBMISSION_PORT: String(submissionPort),
      POSTHORN_HOSTNAME: HOST,
      POSTHORN_PUBLIC_URL: `https://${TRACKING}`,
      POSTHORN_DNS_SERVERS: dns.server,
      POSTHORN_DELIVERY: "sink",
      POSTHORN_LOG_LEVEL: "info",
      POSTHORN_ACME_EMAIL: "ops@posthorn.test",
      POSTHORN_ACME_DIRECTORY: pebble.directoryUrl,
      // The one way to trust an extra CA (README): here, pebble's API certificate.
      NODE_EXTRA_CA_CERTS: pebble.apiCaPath,
    };
    const init = posthorn(["init", "--json"], env);
    const tokens = JSON.parse(await new Response(init.stdout as ReadableStream).text()) as { team_token: string; project_id: string };
    expect(await init.exited).toBe(0);

    const started = Date.now();
    server = posthorn(["serve"], env, join(dir, "serve.log"));
    const root = pebble.root;
    const first = await waitFor(
      async () => {
        if (server!.exitCode !== null) throw new Error(`serve exited with ${server!.exitCode}; log in ${dir}/serve.log`);
        try {
          const cert = await httpsCertificate(httpsPort, HOST, root);
          return cert.authorized ? cert : null;
        } catch {
          return null; // not listening yet: no certificate
        }
      },
      60_000,
      100,
    );
    const firstAfterMs = Date.now() - started;
    console.log(`HTTPS presented pebble's certificate ${firstAfterMs} ms after serve started`);
    expect(firstAfterMs).toBeLessThan(60_000);
    expect(first.names.sort()).toEqual([TRACKING, HOST].sort());
    expect(first.issuer).toContain("Pebble Intermediate CA");
    // The tracking host's name verifies too (SNI with the second name).
    expect((await httpsCertificate(httpsPort, TRACKING, root)).authorized).toBe(true);

    // STARTTLS on both SMTP listeners: the same certificate, verified against pebble's root.
    const mx = await openStartTls(smtpPort, HOST, root);
    const submission = await openStartTls(submissionPort, HOST, root);
    for (const s of [mx, submission]) {
      expect(s.cert.authorized).toBe(true);
      expect(s.cert.fingerprint).toBe(first.fingerprint);
    }
    // Connections open across the renewal: an SMTP session in TLS, and an HTTPS request half sent.
    expect(await mx.send("EHLO client.test")).toStartWith("250");
    const https = await openHttps(httpsPort, HOST, root);
    expect(https.cert.fingerprint).toBe(first.fingerprint);
    https.write(`GET /healthz HTTP/1.1\r\nHost: ${HOST}\r\n`);
    // A header line every 2 s, as a slow client's: the request stays in progress (Bun drops a connection idle for 10 s).
    let line = 0;
    const trickle = setInterval(() => https.write(`X-Slow-Client: ${++line}\r\n`), 2000);

    const routes = await fetch(`http://127.0.0.1:${httpPort}/v1/projects/${tokens.project_id}/routes`, { headers: { authorization: `Bearer ${tokens.team_token}` } });
    const inbound = ((await routes.json()) as { data: { route_type: string; inbound_address: string | null }[] }).data.find((r) => r.route_type === "inbound")!;

    // A forced renewal, as an operator asks for it while the server runs.
    const renew = posthorn(["tls", "renew"], env);
    expect(await renew.exited).toBe(0);
    const renewedAt = Date.now();
    const second = await waitFor(
      async () => {
        const cert = await httpsCertificate(httpsPort, HOST, root);
        return cert.fingerprint !== first.fingerprint ? cert : null;
      },
      60_000,
      100,
    );
    console.log(`HTTPS presented the renewed certificate ${Date.now() - renewedAt} ms after posthorn tls renew`);
    expect(second.authorized).toBe(true);
    expect(second.names.sort()).toEqual([TRACKING, HOST].sort());
    for (const port of [smtpPort, submissionPort]) {
      const s = await waitFor(async () => {
        const session = await openStartTls(port, HOST, root);
        session.close();
        return session.cert.fingerprint === second.fingerprint ? session : null;
      }, 15_000);
      expect(s.cert.authorized).toBe(true);
    }

    // The HTTPS request in progress since before the renewal is answered on its old connection.
    clearInterval(trickle);
    https.write("\r\n");
    expect(await https.response()).toEqual({ status: 200, body: '{"status":"ok"}' });
    https.close();
    // The SMTP session that began before the renewal still takes mail.
    expect(await mx.send("MAIL FROM:<alice@sender.test>")).toStartWith("250");
    expect(await mx.send(`RCPT TO:<${inbound.inbound_address}>`)).toStartWith("250");
    expect(await mx.send("DATA")).toStartWith("354");
    const accepted = await mx.send("From: alice@sender.test\r\nTo: inbox\r\nSubject: across a renewal\r\n\r\nstill here\r\n.");
    expect(accepted).toMatch(/^250 .*Queued as/);
    mx.close();
    submission.close();

    const status = posthorn(["tls", "status", "--json"], env);
    const shown = JSON.parse(await new Response(status.stdout as ReadableStream).text()) as Record<string, unknown>;
    expect(shown).toMatchObject({ source: "acme", names: [HOST, TRACKING], failures: 0, renewal_requested_at: null, last_error: null });
  },
  180_000,
);
