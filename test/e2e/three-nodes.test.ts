// Three `posthorn serve` processes on one PostgreSQL database behave as one service: 3,000
// messages sent across all three reach a remote MX (2–20 ms per DATA) exactly once although one
// node is SIGKILLed mid-delivery; inbound mail accepted by one node reaches its webhook once
// although all three run webhook workers; an Idempotency-Key used on one node and repeated on
// another returns the first answer.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startSink } from "../send/harness.ts";
import { sendRaw } from "../smtp/support.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { testPostgres } from "../support/postgres.ts";
import { makeTestCert, startReceiver } from "../webhooks/support.ts";
import { freePort, preparePostgresDatabase, smtpAgentsOf, spawnServer, type ServerProcess } from "./fixtures/outbound-server.ts";
import { requireTool } from "../support/tools.ts";

const TOTAL = 3000;
const nodes: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const n of nodes) n.proc.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test.skipIf(!requireTool("postgresql"))(
  "three nodes on one PostgreSQL: a SIGKILLed node loses nothing and delivers nothing twice; inbound reaches its webhook once; idempotency holds across nodes",
  async () => {
    const url = await (await testPostgres()).createDatabase();
    const data = await preparePostgresDatabase(url);
    const DOMAIN = data.domain;
    const dns = await startDnsServer();
    const sink = await startSink();
    sink.dataDelayMs = 2;
    sink.dataDelayJitterMs = 18;
    const cert = makeTestCert(["hooks.example.test"]);
    const receiver = startReceiver(cert);
    dns.set(`ph1._domainkey.${DOMAIN}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
    dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
    dns.set("mx.dest.test", "A", ["127.0.0.1"]);
    dns.set("hooks.example.test", "A", ["127.0.0.1"]);

    const mxPorts: number[] = [];
    for (const name of ["node-a", "node-b", "node-c"]) {
      const dir = tempDir(`posthorn-${name}-`);
      dirs.push(dir);
      const mx = await freePort();
      mxPorts.push(mx);
      nodes.push(
        await spawnServer({
          dataDir: dir,
          port: await freePort(),
          env: {
            POSTHORN_DATABASE_URL: url,
            POSTHORN_NODE_NAME: name,
            POSTHORN_DELIVERY: "direct",
            POSTHORN_MX_PORT: String(sink.port),
            POSTHORN_DNS_SERVERS: dns.server,
            POSTHORN_SMTP_HOST: "127.0.0.1",
            POSTHORN_SMTP_PORT: String(mx),
            POSTHORN_INBOUND_DOMAIN: "inbound.posthorn.test",
            POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
            NODE_EXTRA_CA_CERTS: cert.caPath,
          },
        }),
      );
    }
    const [a, b, c] = nodes as [ServerProcess, ServerProcess, ServerProcess];
    const team = { authorization: `Bearer ${data.boot.team_token}`, "content-type": "application/json" };
    const project = { "x-service-token": data.boot.project_token, "content-type": "application/json" };

    // Idempotency across nodes: the second node answers with the first node's answer.
    const once = { from: `app@${DOMAIN}`, to: ["once@dest.test"], subject: "once", text: "once" };
    const first = await fetch(`${a.url}/v1/send`, { method: "POST", headers: { ...project, "idempotency-key": "k-1" }, body: JSON.stringify(once) });
    expect(first.status).toBe(202);
    const again = await fetch(`${b.url}/v1/send`, { method: "POST", headers: { ...project, "idempotency-key": "k-1" }, body: JSON.stringify(once) });
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual(await first.json());

    // Inbound: a webhook on the inbound route, then one message through node b's MX.
    const hook = await fetch(`${c.url}/v1/webhooks`, {
      method: "POST",
      headers: team,
      body: JSON.stringify({ route_id: data.inbound.id, name: "inbound", url: receiver.url(), events: ["message.inbound"] }),
    });
    expect(hook.status).toBe(201);
    receiver.secret = ((await hook.json()) as { data: { secret: string } }).data.secret;
    const raw = `From: someone@outside.test\r\nTo: ${data.inbound.inbound_address}\r\nSubject: to the cluster\r\nMessage-ID: <in-1@outside.test>\r\n\r\nHello cluster\r\n`;
    await sendRaw(mxPorts[1]!, { from: "someone@outside.test", to: [data.inbound.inbound_address] }, raw);

    // 3,000 messages in batches of 100, sent to the three nodes at once.
    const accepted = Promise.all(
      Array.from({ length: TOTAL / 100 }, async (_, batch) => {
        const node = nodes[batch % 3]!;
        const body = Array.from({ length: 100 }, (_, i) => ({ from: `app@${DOMAIN}`, to: [`user${batch * 100 + i}@dest.test`], subject: `cluster ${batch * 100 + i}`, text: "exactly once" }));
        const res = await fetch(`${node.url}/v1/send/batch`, { method: "POST", headers: project, body: JSON.stringify(body) });
        expect(res.status).toBe(202);
        return ((await res.json()) as { message_id: string }[]).map((r) => r.message_id);
      }),
    );
    const ids = (await accepted).flat();
    expect(ids).toHaveLength(TOTAL);

    await waitFor(() => sink.received.length >= 300, 30_000, 5);
    await Bun.sleep(Math.random() * 20);
    expect(smtpAgentsOf(a.proc.pid).length).toBe(1);
    a.proc.kill("SIGKILL");
    await a.proc.exited;
    const atKill = sink.received.length;
    const killedAt = Date.now();
    expect(atKill).toBeLessThan(TOTAL);

    // The others take the dead node's jobs over when their leases run out.
    const unfinished = async () =>
      Number(((await data.sql.unsafe("SELECT count(*) AS n FROM messages WHERE type = 'outbound' AND status <> 'delivered'")) as { n: bigint }[])[0]!.n);
    await waitFor(async () => (await unfinished()) === 0, 90_000, 200);

    const byMessageId = new Map<string, number>();
    for (const m of sink.received) {
      const id = /^Message-ID:\s*<([^>]+)>/im.exec(m.raw.toString("latin1"))![1]!;
      byMessageId.set(id, (byMessageId.get(id) ?? 0) + 1);
    }
    const lost = ids.filter((id) => !byMessageId.has(`${id}@${DOMAIN}`));
    const twice = [...byMessageId].filter(([, n]) => n > 1).map(([id]) => id);
    console.log(
      `three nodes: ${TOTAL} accepted across 3 nodes, ${atKill} received before node-a was SIGKILLed, all delivered ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill; ` +
        `${byMessageId.size} distinct received; lost ${lost.length}, twice ${twice.length}`,
    );
    expect(lost).toEqual([]);
    expect(twice).toEqual([]);

    // The inbound message reached its webhook once, although three nodes run webhook workers.
    await waitFor(() => receiver.deliveries.some((d) => d.json?.event === "message.inbound"), 20_000, 50);
    await Bun.sleep(1500);
    const inbound = receiver.deliveries.filter((d) => d.verified && d.json?.event === "message.inbound");
    expect(inbound).toHaveLength(1);
    expect((inbound[0]!.json!.data as { subject: string }).subject).toBe("to the cluster");

    for (const n of [b, c]) {
      n.proc.kill("SIGTERM");
      await n.proc.exited;
    }
    nodes.length = 0;
    await data.sql.close();
    await receiver.stop();
    await sink.close();
    await dns.close();
  },
  180_000,
);
