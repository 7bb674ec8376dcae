// Outbound MTA-STS end to end: the real server (`posthorn serve`, a subprocess, with its SMTP
// agent) delivers through the loopback DNS server to MX sinks on loopback that offer STARTTLS
// with a test CA's certificate, and fetches policies from an HTTPS policy server on loopback with
// a certificate of the same CA. The server trusts that CA the production way: NODE_EXTRA_CA_CERTS,
// read at process start by the server and by its SMTP agent. Everything is checked through the
// API (status, the events' reply and tls) and at the sinks (what arrived, over TLS or not).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { databaseEnv, tempDir, waitFor } from "../helpers.ts";
import { startSink, type Sink } from "../send/harness.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, type TestCert } from "../webhooks/support.ts";
import { freePort } from "./fixtures/outbound-server.ts";

const policy = (mode: string, ...mx: string[]) => `version: STSv1\nmode: ${mode}\n${mx.map((m) => `mx: ${m}\n`).join("")}max_age: 86400\n`;

/** Recipient domains: the policy mta-sts.<domain> serves, and the domain's MX hosts (name: priority). */
const DOMAINS: Record<string, { policy: () => Response; mx: Record<string, number> }> = {
  // Without a policy mx.other.test (preference 10) would be tried first; the policy allows only mx.good.test.
  "ok.test": { policy: () => text(policy("enforce", "mx.good.test")), mx: { "mx.other.test": 10, "mx.good.test": 20 } },
  "nomatch.test": { policy: () => text(policy("enforce", "mx.good.test")), mx: { "mx.other.test": 10 } },
  "notls.test": { policy: () => text(policy("enforce", "*.plain.test")), mx: { "mx.plain.test": 10 } },
  "badcert.test": { policy: () => text(policy("enforce", "mx.wrongname.test")), mx: { "mx.wrongname.test": 10 } },
  "testing.test": { policy: () => text(policy("testing", "mx.good.test")), mx: { "mx.other.test": 10 } },
  "badversion.test": { policy: () => text(policy("enforce", "mx.good.test").replace("STSv1", "STSv2")), mx: { "mx.other.test": 10 } },
  "redirect.test": { policy: () => new Response(null, { status: 302, headers: { location: "https://mta-sts.ok.test/.well-known/mta-sts.txt" } }), mx: { "mx.other.test": 10 } },
  "huge.test": { policy: () => text(policy("enforce", "mx.good.test") + "#".repeat(1 << 20)), mx: { "mx.other.test": 10 } },
  "cached.test": { policy: () => text(policy("enforce", "mx.good.test")), mx: { "mx.other.test": 10, "mx.good.test": 20 } },
  "uncached.test": { policy: () => text(policy("enforce", "mx.good.test")), mx: { "mx.other.test": 10, "mx.good.test": 20 } },
};
const text = (body: string) => new Response(body, { headers: { "content-type": "text/plain" } });

let dns: TestDnsServer;
let cert: TestCert;
let sink: Sink; // 127.0.0.1: STARTTLS with the test CA's certificate for mx.good.test
let plainSink: Sink; // 127.0.0.2, same port: no STARTTLS
let policyServer: Server<undefined>;
const policyRequests: string[] = [];
let proc: Subprocess<"ignore", "pipe", "inherit">;
const logs: any[] = [];
/** Waits for a log line: the server's stdout is read as it comes, and may lag behind what the API shows. */
const logged = (msg: string, domain: string) => waitFor(() => logs.find((l) => l.msg === msg && l.domain === domain), 5_000);
let base = "";
let tokens: { team_token: string; project_token: string; project_id: string };

beforeAll(async () => {
  dns = await startDnsServer();
  cert = makeTestCert(["mx.good.test", ...Object.keys(DOMAINS).map((d) => `mta-sts.${d}`)]);
  sink = await startSink({ tls: { key: cert.keyPem, cert: cert.certPem } });
  plainSink = await startSink({ host: "127.0.0.2", port: sink.port, noSTARTTLS: true });
  policyServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: cert.certPem, key: cert.keyPem },
    fetch(req) {
      const host = (req.headers.get("host") ?? "").replace(/:\d+$/, "").replace(/^mta-sts\./, "");
      policyRequests.push(host);
      return DOMAINS[host]?.policy() ?? new Response("unknown", { status: 404 });
    },
  });
  for (const [domain, d] of Object.entries(DOMAINS)) {
    dns.set(`_mta-sts.${domain}`, "TXT", ["v=STSv1; id=20260101"]);
    dns.set(`mta-sts.${domain}`, "A", ["127.0.0.1"]);
    dns.set(domain, "MX", Object.entries(d.mx).map(([exchange, priority]) => ({ exchange, priority })));
  }
  for (const host of ["mx.good.test", "mx.other.test", "mx.wrongname.test"]) dns.set(host, "A", ["127.0.0.1"]);
  dns.set("mx.plain.test", "A", ["127.0.0.2"]);

  const env = {
    ...process.env,
    POSTHORN_DATA_DIR: tempDir("posthorn-mta-sts-"),
    POSTHORN_HTTP_HOST: "127.0.0.1",
    POSTHORN_HTTP_PORT: String(await freePort()),
    POSTHORN_SMTP_PORT: "0",
    POSTHORN_SUBMISSION_PORT: "0",
    POSTHORN_HOSTNAME: "mta.posthorn.test",
    POSTHORN_DELIVERY: "direct",
    POSTHORN_MX_PORT: String(sink.port),
    POSTHORN_MTA_STS_PORT: String(policyServer.port),
    POSTHORN_DNS_SERVERS: dns.server,
    POSTHORN_REQUIRE_VERIFIED_DOMAIN: "false",
    POSTHORN_LOG_LEVEL: "info",
    NODE_EXTRA_CA_CERTS: cert.caPath,
    ...databaseEnv(),
  };
  base = `http://127.0.0.1:${env.POSTHORN_HTTP_PORT}`;
  const main = join(import.meta.dir, "..", "..", "src", "main.ts");
  const init = Bun.spawnSync([process.execPath, main, "init", "--json"], { env });
  tokens = JSON.parse(init.stdout.toString());
  proc = Bun.spawn([process.execPath, main, "serve"], { env, stdout: "pipe", stderr: "inherit" });
  void (async () => {
    let rest = "";
    for await (const chunk of proc.stdout) {
      rest += new TextDecoder().decode(chunk);
      const lines = rest.split("\n");
      rest = lines.pop()!;
      for (const l of lines) {
        try {
          logs.push(JSON.parse(l));
        } catch {
          // the first start's token box is not JSON
        }
      }
    }
  })();
  await waitFor(() => fetch(`${base}/healthz`).then((r) => r.ok, () => false), 20_000, 50);

  const domain = await api("POST", "/v1/domains", { domain: "sender.test" });
  expect(domain.status).toBe(201);
  expect((await api("PUT", `/v1/domains/${domain.json.id}/projects`, { project_ids: [tokens.project_id] })).status).toBe(200);
});

afterAll(async () => {
  proc?.kill("SIGKILL");
  await policyServer?.stop(true);
  await sink?.close();
  await plainSink?.close();
  await dns?.close();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens.team_token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function send(to: string): Promise<string> {
  const res = await fetch(`${base}/v1/send`, {
    method: "POST",
    headers: { "x-service-token": tokens.project_token, "content-type": "application/json" },
    body: JSON.stringify({ from: "app@sender.test", to: [to], subject: `to ${to}`, text: "MTA-STS test" }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { message_id: string }).message_id;
}

/** The message's first delivery outcome (delivered or soft_bounced event) once there is one. */
async function outcome(id: string): Promise<{ kind: string; data: { mx: string | null; tls: any; response: any } }> {
  return waitFor(async () => {
    const events = (await api("GET", `/v1/messages/${id}/events?page[size]=100`)).json.data as { kind: string; data: any }[];
    return events.find((e) => e.kind === "message.delivered" || e.kind === "message.soft_bounced" || e.kind === "message.hard_bounced");
  }, 20_000, 50) as any;
}

const receivedBy = (s: Sink, to: string) => s.received.filter((m) => m.to.includes(to));

test("enforce with a matching MX that offers STARTTLS with a valid certificate: delivered there over verified TLS", async () => {
  const id = await send("alice@ok.test");
  const o = await outcome(id);
  expect(o.kind).toBe("message.delivered");
  expect(o.data.mx).toBe("mx.good.test"); // mx.other.test has the better preference but is not in the policy
  expect(o.data.tls).toEqual({ protocol: expect.stringMatching(/^TLSv1\.[23]$/), cipher: expect.any(String), verified: true, mta_sts: "enforce" });
  expect(receivedBy(sink, "alice@ok.test")).toHaveLength(1);
  expect(receivedBy(sink, "alice@ok.test")[0]!.secure).toBe(true);
  expect(await logged("MTA-STS policy fetched", "ok.test")).toMatchObject({ id: "20260101", mode: "enforce" });
});

test("enforce, and no MX host matches the policy: deferred with the reason, never delivered", async () => {
  const id = await send("bob@nomatch.test");
  const o = await outcome(id);
  expect(o.kind).toBe("message.soft_bounced");
  expect(o.data.response).toEqual({
    code: null,
    enhanced_code: "4.7.5",
    message: "MTA-STS policy of nomatch.test (enforce, id 20260101) allows none of its MX hosts (mx.other.test; the policy allows mx.good.test); not sent",
  });
  expect(o.data.tls).toEqual({ protocol: null, cipher: null, verified: false, mta_sts: "enforce" });
  expect((await api("GET", `/v1/messages/${id}`)).json.status).toBe("soft_bounced");
  await Bun.sleep(300);
  expect(receivedBy(sink, "bob@nomatch.test")).toEqual([]);
});

/** Sends to `to`: the outcome is a 4.7.5 soft bounce whose reason starts with `reason`, and `at` never gets it. */
async function expectTlsDeferral(to: string, reason: string, at: Sink) {
  const o = await outcome(await send(to));
  expect(o.kind).toBe("message.soft_bounced");
  expect(o.data.response).toMatchObject({ code: null, enhanced_code: "4.7.5" });
  expect(o.data.response.message).toStartWith(reason);
  expect(o.data.tls).toEqual({ protocol: null, cipher: null, verified: false, mta_sts: "enforce" });
  expect(receivedBy(at, to)).toEqual([]);
  return o.data.response.message as string;
}

test("enforce, and the MX does not offer STARTTLS: deferred, never sent in plaintext", async () => {
  await expectTlsDeferral(
    "carol@notls.test",
    "MTA-STS policy of notls.test (enforce, id 20260101): mx.plain.test [127.0.0.2]: TLS required, the server does not offer STARTTLS",
    plainSink,
  );
  expect(plainSink.connections).toBeGreaterThan(0); // it was asked, and refused to go on without TLS
});

test("enforce, and the certificate is not valid for the MX name: deferred, never sent", async () => {
  const reason = await expectTlsDeferral(
    "dave@badcert.test",
    "MTA-STS policy of badcert.test (enforce, id 20260101): mx.wrongname.test [127.0.0.1]: TLS required, TLS handshake failed:",
    sink,
  );
  expect(reason).toContain("is not in the cert's altnames");
});

test("testing: delivered to an MX outside the policy, without a certificate valid for it, and logged", async () => {
  const id = await send("erin@testing.test");
  const o = await outcome(id);
  expect(o.kind).toBe("message.delivered");
  expect(o.data.mx).toBe("mx.other.test");
  expect(o.data.tls).toMatchObject({ protocol: expect.stringMatching(/^TLSv1\.[23]$/), verified: false, mta_sts: "testing" });
  expect(await logged("MTA-STS testing: MX hosts not in the policy", "testing.test")).toMatchObject({ hosts: ["mx.other.test"] });
  expect(await logged("MTA-STS testing: delivered without the verified TLS enforce would require", "testing.test")).toMatchObject({ tls: "certificate not verified" });
});

test("a malformed, redirected or 1 MB policy is refused with a logged reason; delivery goes on as without MTA-STS", async () => {
  const ids = await Promise.all(["frank@badversion.test", "grace@redirect.test", "heidi@huge.test"].map(send));
  for (const id of ids) {
    const o = await outcome(id);
    expect(o.kind).toBe("message.delivered");
    expect(o.data.mx).toBe("mx.other.test");
    expect(o.data.tls.mta_sts).toBeNull();
  }
  const refused = (domain: string) => logged("MTA-STS policy refused", domain);
  expect(await refused("badversion.test")).toMatchObject({ reason: 'malformed policy: version "STSv2" is not STSv1', applies: "none: delivery as without MTA-STS" });
  expect((await refused("redirect.test")).reason).toBe("HTTP 302 redirect to https://mta-sts.ok.test/.well-known/mta-sts.txt; redirects are not followed");
  expect((await refused("huge.test")).reason).toMatch(/^policy (of \d+ bytes, more than 65536|larger than 65536 bytes)$/);
  expect(policyRequests.filter((h) => h === "ok.test")).toHaveLength(1); // the redirect was not followed
});

test("the policy server is down: a cached policy still applies; a domain without one is delivered as without MTA-STS", async () => {
  const first = await outcome(await send("ivan@cached.test"));
  expect(first.data).toMatchObject({ mx: "mx.good.test", tls: { verified: true, mta_sts: "enforce" } });
  await policyServer.stop(true);
  const fetchesBefore = policyRequests.length;

  const again = await outcome(await send("judy@cached.test"));
  expect(again.kind).toBe("message.delivered");
  expect(again.data).toMatchObject({ mx: "mx.good.test", tls: { verified: true, mta_sts: "enforce" } });

  const uncached = await outcome(await send("mallory@uncached.test"));
  expect(uncached.kind).toBe("message.delivered");
  expect(uncached.data).toMatchObject({ mx: "mx.other.test", tls: { mta_sts: null } });
  expect((await logged("MTA-STS policy refused", "uncached.test")).reason).toContain("request to mta-sts.uncached.test (127.0.0.1) failed");
  expect(policyRequests.length).toBe(fetchesBefore);
});
