import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { databaseEnv, tempDir, waitFor } from "../helpers.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver } from "./support.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

test("`posthorn serve` delivers with the default sender, trusting the receiver's CA through NODE_EXTRA_CA_CERTS", async () => {
  const dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  const cert = makeTestCert(["hooks.example.test"]);
  const receiver = startReceiver(cert);
  cleanups.push(() => receiver.stop(), () => dns.close());

  const env = {
    ...process.env,
    POSTHORN_DATA_DIR: tempDir(),
    POSTHORN_HTTP_HOST: "127.0.0.1",
    POSTHORN_HTTP_PORT: "0",
    POSTHORN_SMTP_PORT: "0",
    POSTHORN_SUBMISSION_PORT: "0",
    POSTHORN_DELIVERY: "sink",
    POSTHORN_HOSTNAME: "mx.posthorn.test",
    POSTHORN_DNS_SERVERS: dns.server,
    POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
    NODE_EXTRA_CA_CERTS: cert.caPath,
    ...databaseEnv(),
  };
  const main = join(import.meta.dir, "..", "..", "src", "main.ts");
  const init = Bun.spawnSync([process.execPath, main, "init", "--json"], { env });
  const tokens = JSON.parse(init.stdout.toString()) as { team_token: string; project_id: string };

  const proc = Bun.spawn([process.execPath, main, "serve"], { env, stdout: "pipe", stderr: "inherit" });
  cleanups.push(() => proc.kill("SIGKILL"));
  let out = "";
  const reader = proc.stdout.getReader();
  const port = await waitFor(async () => {
    const { value } = await reader.read();
    out += new TextDecoder().decode(value);
    return /"http":"127\.0\.0\.1:(\d+)"/.exec(out)?.[1];
  }, 10_000);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens.team_token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  const routes = (await api("GET", `/v1/projects/${tokens.project_id}/routes`)).json.data as { id: string; route_type: string }[];
  const routeId = routes.find((r) => r.route_type === "transactional")!.id;
  const created = await api("POST", "/v1/webhooks", { route_id: routeId, name: "prod path", url: receiver.url(), events: ["message.delivered"] });
  expect(created.status).toBe(201);
  receiver.secret = created.json.data.secret;
  const sent = await api("POST", `/v1/webhooks/${created.json.data.id}/test`);
  expect(sent.json.data).toMatchObject({ success: true, status_code: 200 });
  expect(receiver.deliveries).toHaveLength(1);
  expect(receiver.deliveries[0]!.verified).toBe(true);
  proc.kill("SIGTERM");
  await proc.exited;
}, 20_000);
