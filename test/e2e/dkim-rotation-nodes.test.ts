// Two `posthorn serve` processes on one PostgreSQL database: a DKIM key rotation started and
// verified through one node (API only) is picked up by the other, which composes and delivers,
// from its next message on and without a restart: signing keys are read from the database with
// each message, not cached per node.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { engine, tempDir, waitFor } from "../helpers.ts";
import { startSink } from "../send/harness.ts";
import { mailauthVerdicts } from "../support/dkim-verdicts.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { testPostgres } from "../support/postgres.ts";
import { freePort, preparePostgresDatabase, spawnServer, type ServerProcess } from "./fixtures/outbound-server.ts";

type Rec = { kind: string; type: string; hostname: string; fqdn: string; content: string; status: string; key_state: string | null };

const nodes: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const n of nodes) n.proc.kill("SIGTERM");
  await Promise.all(nodes.map((n) => n.proc.exited));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// The PostgreSQL run only: the nodes share a database, which SQLite's single file does not offer across processes here.
test.skipIf(engine !== "postgres")(
  "a rotation verified through one node: the other node signs its next message with the new keys, both signatures passing mailauth",
  async () => {
    const url = await (await testPostgres()).createDatabase();
    const data = await preparePostgresDatabase(url);
    const dns = await startDnsServer();
    const sink = await startSink();
    dns.set("dest.test", "MX", [{ exchange: "mx.dest.test", priority: 10 }]);
    dns.set("mx.dest.test", "A", ["127.0.0.1"]);
    // The fixture's domain has an RSA key under ph1 and no record rows; publish that key.
    dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
    const env = { POSTHORN_DATABASE_URL: url, POSTHORN_DELIVERY: "direct", POSTHORN_MX_PORT: String(sink.port), POSTHORN_DNS_SERVERS: dns.server };
    const start = async (apiOnly: boolean) => {
      const dir = tempDir();
      dirs.push(dir);
      const node = await spawnServer({ dataDir: dir, port: await freePort(), env, apiOnly });
      nodes.push(node);
      return node;
    };
    // The delivering node starts first: its start gives the domain its Ed25519 key.
    const sender = await start(false);
    const admin = await start(true);
    try {
      const api = async (method: string, path: string) =>
        (await fetch(`${admin.url}${path}`, { method, headers: { authorization: `Bearer ${data.boot.team_token}` } })).json() as Promise<any>;
      const publish = (records: Rec[]) => {
        for (const r of records) if (r.type === "TXT") dns.set(r.fqdn, "TXT", [r.content]);
      };
      const domain = (await api("GET", "/v1/domains")).data[0] as { id: string; dns_records: Rec[] };
      publish(domain.dns_records);
      const verifyPath = `/v1/domains/${domain.id}/dns-records/verify`;
      const selectors = (records: Rec[], state: string) => records.filter((r) => r.key_state === state).map((r) => r.hostname.split(".")[0]!);
      const before = (await api("POST", verifyPath)).data.dns_records as Rec[];
      expect(before.find((r) => r.kind === "dkim_ed25519")!.status).toBe("active");
      const old = ["ph1", ...selectors(before, "current")];

      const sendOne = async (subject: string) => {
        const res = await fetch(`${sender.url}/v1/send`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-service-token": data.boot.project_token },
          body: JSON.stringify({ from: `news@${data.domain}`, to: ["ann@dest.test"], subject, text: "Hello Ann" }),
        });
        expect(res.status).toBe(202);
        const id = ((await res.json()) as { message_id: string }).message_id;
        return waitFor(() => sink.received.find((m) => m.raw.includes(id))?.raw, 15_000);
      };
      const verdicts = async (raw: Buffer) => (await mailauthVerdicts(raw, dns.server)).map((v) => [v[0], v[2]]);

      expect((await verdicts(await sendOne("Before"))).sort()).toEqual(old.map((s) => ["pass", s]).sort());

      const rotated = (await api("POST", `/v1/domains/${domain.id}/dkim/rotate`)).data.dns_records as Rec[];
      publish(rotated.filter((r) => r.key_state === "next"));
      const next = selectors(rotated, "next");
      expect(next).toHaveLength(2);
      const after = (await api("POST", verifyPath)).data.dns_records as Rec[];
      expect(selectors(after, "current").sort()).toEqual([...next].sort());

      // The sending node was not restarted: its next message carries the new signatures.
      expect((await verdicts(await sendOne("After"))).sort()).toEqual(next.map((s) => ["pass", s]).sort());
    } finally {
      await sink.close();
      await dns.close();
    }
  },
  60_000,
);
