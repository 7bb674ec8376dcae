import { afterAll, beforeAll, expect, test } from "bun:test";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { giveDomainsEd25519Keys } from "../../src/upgrades/dkim-ed25519.ts";
import { startServer } from "../../src/server.ts";
import { engine, insertTestDomainWith, sqlOf, testConfig } from "../helpers.ts";
import { dkimpyVerdicts, mailauthVerdicts as mailauthOf } from "../support/dkim-verdicts.ts";
import { startOutbound, SENDER_DOMAIN, type OutboundHarness } from "./harness.ts";

// The harness's domain is inserted as one from before Ed25519 DKIM: RSA key only, no records.
let h: OutboundHarness;
beforeAll(async () => {
  h = await startOutbound();
  h.routeToSink("dest.test");
});
afterAll(() => h.close());

type Rec = { kind: string; fqdn: string; content: string; status: string };
const domainRecords = async (): Promise<Rec[]> => (await h.request("GET", `/v1/domains/${h.domain.domainId}`)).json.dns_records;
const edRecord = async () => (await domainRecords()).find((r) => r.kind === "dkim_ed25519");

const mailauthVerdicts = (raw: Buffer) => mailauthOf(raw, h.dns.server);

async function sendOne(subject: string): Promise<Buffer> {
  const res = await h.send({ from: `news@${SENDER_DOMAIN}`, to: ["ann@dest.test"], subject, html: "<p>Hello  Ann</p>\n", text: "Hello Ann \n\n" });
  expect(res.status).toBe(202);
  const id = res.json.message_id as string;
  expect(await h.waitForStatus(id, ["delivered"])).toBe("delivered");
  return h.sink.received.find((m) => m.raw.includes(id))!.raw;
}

test("an existing domain gets its Ed25519 key on upgrade: a pending record that does not stop sending, and RSA alone signs until it verifies", async () => {
  expect(await edRecord()).toBeUndefined();
  // Two nodes starting at once: one key, one record.
  const given = await Promise.all([giveDomainsEd25519Keys(h.deps.store), giveDomainsEd25519Keys(h.deps.store)]);
  expect(given[0]! + given[1]!).toBeGreaterThanOrEqual(1);
  expect(await giveDomainsEd25519Keys(h.deps.store)).toBe(0);
  const records = (await domainRecords()).filter((r) => r.kind === "dkim_ed25519");
  expect(records).toHaveLength(1);
  expect(records[0]!).toMatchObject({ status: "pending", content: expect.stringMatching(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/) });
  expect(records[0]!.fqdn).toMatch(new RegExp(`^phe\\d{8}[0-9a-f]{3}\\._domainkey\\.${SENDER_DOMAIN.replace(".", "\\.")}$`));
  expect((await h.request("GET", `/v1/domains/${h.domain.domainId}`)).json.sending_status).toBe("active");

  const raw = await sendOne("Before the Ed25519 record verified");
  expect(raw.toString("latin1").match(/^DKIM-Signature:/gim)).toHaveLength(1);
  expect(await mailauthVerdicts(raw)).toEqual([["pass", "rsa-sha256", h.domain.selector]]);
});

test("once its record verifies, a sent message carries ed25519-sha256 and rsa-sha256 signatures that mailauth and dkimpy both pass", async () => {
  const ed = (await edRecord())!;
  h.dns.set(ed.fqdn, "TXT", [ed.content]);
  const verify = await h.request("POST", `/v1/domains/${h.domain.domainId}/dns-records/verify`);
  expect(verify.status).toBe(200);
  expect(verify.json.data.dns_records.find((r: Rec) => r.kind === "dkim_ed25519").status).toBe("active");
  const edSelector = ed.fqdn.split(".")[0]!;

  const raw = await sendOne("Signed twice");
  const text = raw.toString("latin1");
  expect(text.match(/^DKIM-Signature:/gim)).toHaveLength(2);
  expect(text).toMatch(/a=ed25519-sha256;[^]*a=rsa-sha256;/);
  // Both sign the same header list (with oversigning) over the same body hash.
  const tag = (name: string) => [...text.matchAll(new RegExp(`\\b${name}=([^;]+);`, "g"))].map((m) => m[1]!.replace(/\s+/g, ""));
  expect(new Set(tag("h")).size).toBe(1);
  expect(new Set(tag("bh")).size).toBe(1);
  expect(tag("c")).toEqual(["relaxed/relaxed", "relaxed/relaxed"]);

  const expected = [
    ["pass", "ed25519-sha256", edSelector],
    ["pass", "rsa-sha256", h.domain.selector],
  ];
  expect(await mailauthVerdicts(raw)).toEqual(expected);
  const txt = { [ed.fqdn]: ed.content, [`${h.domain.selector}._domainkey.${SENDER_DOMAIN}`]: dkimRecordContent(h.domain.publicKeyBase64) };
  expect(await dkimpyVerdicts(raw, txt)).toEqual(expected);

  // A changed subject breaks both, for both verifiers: they check what they claim to.
  const tampered = Buffer.from(text.replace("Subject: Signed twice", "Subject: Signed thrice"), "latin1");
  const broken = await dkimpyVerdicts(tampered, txt);
  expect(broken).toEqual([
    ["fail", "ed25519-sha256", edSelector],
    ["fail", "rsa-sha256", h.domain.selector],
  ]);
  expect((await mailauthVerdicts(tampered)).map((r) => r[0])).toEqual(["fail", "fail"]);
});

// SQLite only: the old-style domain is written with SQL the test holds, which it has for a
// server's SQLite file and not for its PostgreSQL pool; the step itself runs on both engines
// (the first test, two at once under the lock), and the start wiring is the same for both.
test.skipIf(engine === "postgres")("a server started on a database with a domain from before Ed25519 DKIM gives it its key and a pending record; a restart changes nothing more", async () => {
  const config = testConfig({ POSTHORN_HTTP_HOST: "127.0.0.1", POSTHORN_HTTP_PORT: "0" });
  const first = await startServer(config);
  let domainId: string;
  try {
    domainId = (await insertTestDomainWith(sqlOf(first.deps), { teamId: first.bootstrap!.team_id, domain: "old.example.test" })).domainId;
  } finally {
    await first.stop();
  }
  const keyOf = async (deps: typeof first.deps) =>
    (await sqlOf(deps).get<{ dkim_ed25519_selector: string | null; dkim_ed25519_public_key: string | null; status: string }>(
      "SELECT dkim_ed25519_selector, dkim_ed25519_public_key, status FROM domains WHERE id = ?",
      [domainId],
    ))!;
  const edRecords = (deps: typeof first.deps) => sqlOf(deps).all<{ fqdn: string; content: string; status: string }>("SELECT fqdn, content, status FROM dns_records WHERE domain_id = ? AND purpose = 'dkim_ed25519'", [domainId]);
  let given: Awaited<ReturnType<typeof keyOf>>;
  for (let i = 0; i < 2; i++) {
    const server = await startServer(config);
    try {
      const key = await keyOf(server.deps);
      if (i === 0) given = key;
      expect(key).toEqual(given!); // the second start keeps the first start's key
      expect(key.status).toBe("active");
      expect(key.dkim_ed25519_selector).toMatch(/^phe\d{8}[0-9a-f]{3}$/);
      expect(await edRecords(server.deps)).toEqual([
        { fqdn: `${key.dkim_ed25519_selector}._domainkey.old.example.test`, content: `v=DKIM1; k=ed25519; p=${key.dkim_ed25519_public_key}`, status: "pending" },
      ]);
    } finally {
      await server.stop();
    }
  }
});
