// Smoke test of the compiled binary, run by .ci/run: from an empty directory, `init --json`,
// `serve`, then the main paths through the binary itself — /healthz, token checks, the docs page,
// a domain, a send that reaches `delivered` (relayed over SMTP to a sink here, composed on the
// compiled compose worker and sent by the binary's SMTP agent process), and an inbound message
// over SMTP that reaches `processed` (the compiled analysis worker).
// Usage: bun scripts/smoke.ts dist/posthorn
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { smtpAgentsOf } from "../test/e2e/fixtures/outbound-server.ts";
import { startLeanSink } from "./bench/lean-sink.ts";

const bin = resolve(process.argv[2] ?? "dist/posthorn");
const dir = mkdtempSync(join(tmpdir(), "posthorn-smoke-"));
const httpPort = 18765;
const smtpPort = 18766;
const base = `http://127.0.0.1:${httpPort}`;
const relay = startLeanSink();
const env = {
  ...process.env,
  POSTHORN_DATA_DIR: join(dir, "data"),
  POSTHORN_HTTP_HOST: "127.0.0.1",
  POSTHORN_HTTP_PORT: String(httpPort),
  POSTHORN_SMTP_HOST: "127.0.0.1",
  POSTHORN_SMTP_PORT: String(smtpPort),
  POSTHORN_SUBMISSION_PORT: "0",
  POSTHORN_HOSTNAME: "mx.smoke.test",
  POSTHORN_DNS_SERVERS: "127.0.0.1:1",
  POSTHORN_DELIVERY: "relay",
  POSTHORN_RELAY_URL: `smtp://127.0.0.1:${relay.port}`,
  POSTHORN_REQUIRE_VERIFIED_DOMAIN: "false",
  POSTHORN_LOG_LEVEL: "warn",
};

function check(cond: unknown, what: string): asserts cond {
  if (!cond) throw new Error(`smoke: ${what}`);
  console.log(`ok  ${what}`);
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`smoke: timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** A minimal SMTP client: one message, one recipient. Returns the server's last reply. */
function smtpSend(port: number, from: string, to: string, data: string): Promise<string> {
  return new Promise((res, rej) => {
    const socket = connect(port, "127.0.0.1");
    const steps = [`EHLO smoke.test`, `MAIL FROM:<${from}>`, `RCPT TO:<${to}>`, "DATA", `${data.replace(/\n/g, "\r\n")}\r\n.`, "QUIT"];
    let buffer = "";
    let last = "";
    socket.setTimeout(10_000, () => rej(new Error("smtp timeout")));
    socket.on("data", (chunk) => {
      buffer += chunk.toString();
      const lines = buffer.split("\r\n");
      buffer = lines.pop()!;
      for (const line of lines) {
        if (/^\d{3} /.test(line)) {
          last = line;
          if (/^[45]/.test(line)) return rej(new Error(`smtp: ${line}`));
          const next = steps.shift();
          if (next !== undefined) socket.write(next + "\r\n");
        }
      }
    });
    socket.on("close", () => res(last));
    socket.on("error", rej);
  });
}

let server: ReturnType<typeof Bun.spawn> | null = null;
try {
  const version = Bun.spawnSync([bin, "--version"], { cwd: dir, env });
  check(version.exitCode === 0 && /^\d+\.\d+\.\d+/.test(version.stdout.toString()), "--version");
  const init = Bun.spawnSync([bin, "init", "--json"], { cwd: dir, env });
  const tokens = JSON.parse(init.stdout.toString()) as { team_token: string; project_id: string; project_token: string };
  check(init.exitCode === 0 && tokens.team_token.startsWith("ph_team_"), "init --json");

  server = Bun.spawn([bin, "serve"], { cwd: dir, env, stdout: "inherit", stderr: "inherit" });
  await waitFor(async () => (await fetch(`${base}/healthz`)).ok, "/healthz");
  check(true, "serve answers /healthz");
  // The log's checkpoints run on a worker thread of the binary, on a connection of its own.
  const databaseHandles = () =>
    readdirSync(`/proc/${server!.pid}/fd`).filter((fd) => {
      try {
        return readlinkSync(`/proc/${server!.pid}/fd/${fd}`) === join(dir, "data", "posthorn.db");
      } catch {
        return false;
      }
    }).length;
  await waitFor(async () => databaseHandles() >= 2, "the checkpoint thread's connection");
  check(true, "the checkpoint thread runs (a second connection to the database)");
  const team = { authorization: `Bearer ${tokens.team_token}`, "content-type": "application/json" };
  const project = { "x-service-token": tokens.project_token, "content-type": "application/json" };
  check((await fetch(`${base}/v1/ping`, { headers: team })).status === 200, "team token → 200");
  check((await fetch(`${base}/v1/ping`, { headers: project })).status === 200, "project token → 200");
  check((await fetch(`${base}/v1/ping`, { headers: { authorization: "Bearer ph_team_wrong" } })).status === 401, "wrong token → 401");
  check((await fetch(`${base}/openapi/json`)).status === 200, "OpenAPI document");
  // The docs page's assets are embedded in the binary, not read from node_modules.
  const docs = await fetch(`${base}/openapi`);
  const bundleUrl = (await docs.text()).match(/src="([^"]*swagger-ui-bundle\.js)"/)?.[1];
  const bundle = bundleUrl ? await fetch(base + bundleUrl) : null;
  const bundleBytes = bundle?.ok ? (await bundle.arrayBuffer()).byteLength : 0;
  check(docs.status === 200 && bundleBytes > 500_000, `docs page /openapi and its Swagger UI bundle (${bundleBytes} bytes)`);
  // Production mode in the binary: a body named like Object's members is a plain 422, never a stack or a path.
  const hostile = await fetch(`${base}/v1/webhooks`, { method: "POST", headers: team, body: '{"toString":1}' });
  const hostileText = await hostile.text();
  check(
    hostile.status === 422 && hostile.headers.get("content-type") === "application/json" && !/\n\s+at |\.ts:\d|\/src\/|node_modules/.test(hostileText),
    "hostile body → JSON 422 without a stack",
  );

  const domain = (await (await fetch(`${base}/v1/domains`, { method: "POST", headers: team, body: JSON.stringify({ domain: "smoke.example" }) })).json()) as { id: string };
  check(typeof domain.id === "string", "POST /v1/domains");
  const attach = await fetch(`${base}/v1/domains/${domain.id}/projects`, { method: "PUT", headers: team, body: JSON.stringify({ project_ids: [tokens.project_id] }) });
  check(attach.status === 200, "PUT /v1/domains/{id}/projects");

  const sent = await fetch(`${base}/v1/send`, {
    method: "POST",
    headers: project,
    body: JSON.stringify({ from: "Smoke <hello@smoke.example>", to: ["someone@receiver.example"], subject: "Smoke test", text: "Hello from the binary." }),
  });
  const accepted = (await sent.json()) as { message_id: string; status: string };
  check(sent.status === 202 && accepted.status === "pending", "POST /v1/send → 202 pending");
  const delivered = await waitFor(async () => {
    const m = (await (await fetch(`${base}/v1/messages/${accepted.message_id}`, { headers: team })).json()) as { status: string };
    return m.status === "delivered" ? m : null;
  }, "the sent message to be delivered");
  check(delivered.status === "delivered" && relay.received === 1, "sent message reaches delivered and the relay (composed and signed in the binary)");
  const agents = smtpAgentsOf(server.pid);
  check(agents.length === 1, "the message went out through the binary's SMTP agent process");

  const routes = (await (await fetch(`${base}/v1/projects/${tokens.project_id}/routes`, { headers: team })).json()) as {
    data: { route_type: string; inbound_address?: string | null }[];
  };
  const inbound = routes.data.find((r) => r.route_type === "inbound")?.inbound_address;
  check(inbound, "the default inbound route has an address");
  const reply = await smtpSend(smtpPort, "alice@sender.example", inbound!, [
    "From: Alice <alice@sender.example>",
    `To: ${inbound}`,
    "Subject: Inbound smoke",
    `Date: ${new Date().toUTCString()}`,
    "Message-ID: <smoke-1@sender.example>",
    "",
    "Hello inbound.",
  ].join("\n"));
  check(reply.startsWith("221"), "inbound SMTP conversation accepted");
  await waitFor(async () => {
    const list = (await (await fetch(`${base}/v1/messages?filter[type]=inbound`, { headers: team })).json()) as { data: { status: string }[] };
    return list.data.some((m) => m.status === "processed");
  }, "the inbound message to be processed");
  check(true, "inbound message processed (analysed in the binary)");

  server.kill("SIGTERM");
  check((await server.exited) === 0, "SIGTERM → clean exit");
  await waitFor(async () => !existsSync(`/proc/${agents[0]}`), "the SMTP agent to exit with the server", 6_000);
  check(true, "the SMTP agent exits with the server");
  server = null;
  console.log("smoke test passed");
} catch (err) {
  console.error(String(err));
  process.exitCode = 1;
} finally {
  server?.kill("SIGKILL");
  relay.close();
  rmSync(dir, { recursive: true, force: true });
}
