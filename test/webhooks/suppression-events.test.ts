/**
 * suppression.added and suppression.removed (Lettermint's WebhookEvent): published for every
 * suppression made (the API, a hard bounce, a complaint, an unsubscribe link) and lifted (the
 * API), to the webhooks of the suppression's scope subscribed to the kind — a route's to that
 * route's webhooks, a project's to those of the project's routes, a team's to every webhook of
 * the team — with SuppressedRecipientData. Delivered by the webhook job to real HTTPS receivers,
 * each verifying its webhook's signature.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { recipientUnsubscribeToken } from "../../src/auth/unsubscribe-tokens.ts";
import { useWebhookSender, WebhookSender } from "../../src/events/webhook-post.ts";
import { changeRecipientStatus } from "../../src/events/message-status.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { newId } from "../../src/ids.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { createTestApp, waitFor } from "../helpers.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "./support.ts";

const KINDS = ["suppression.added", "suppression.removed"];

let dns: TestDnsServer;
let app: ReturnType<typeof createTestApp>;
let runner: JobRunner;
let sender: WebhookSender;
const receivers: Record<"tx" | "bc" | "other" | "unsubscribed", TestReceiver> = {} as never;
const routes: Record<"tx" | "bc" | "other", string> = {} as never;

beforeAll(async () => {
  dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  const cert = makeTestCert(["hooks.example.test"]);
  app = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" } });
  sender = new WebhookSender({ dns: app.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 3000, dnsCacheMs: 0 });
  useWebhookSender(app.deps, sender);
  runner = new JobRunner(app.deps);
  registerWebhookJobs(runner, app.deps, { sender, scheduleMs: [50, 50, 50] });
  runner.start();

  const routeOf = async (projectId: string, type: string) =>
    (await app.sql.get<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = ?", [projectId, type]))!.id;
  routes.tx = await routeOf(app.team.projectId, "transactional");
  routes.bc = await routeOf(app.team.projectId, "broadcast");
  const other = await app.request("POST", "/v1/projects", { body: { name: "Other project" } });
  expect(other.status).toBe(201);
  routes.other = await routeOf(other.json.data.id, "transactional");

  const hook = async (name: keyof typeof receivers, routeId: string, events: string[]) => {
    const receiver = startReceiver(cert);
    const res = await app.request("POST", "/v1/webhooks", { body: { route_id: routeId, name, url: receiver.url(), events } });
    expect(res.status).toBe(201);
    receiver.secret = res.json.data.secret;
    receivers[name] = receiver;
  };
  await hook("tx", routes.tx, KINDS);
  await hook("bc", routes.bc, KINDS);
  await hook("other", routes.other, KINDS);
  await hook("unsubscribed", routes.tx, ["message.delivered"]);
});
afterAll(async () => {
  await runner.stop(2000);
  sender.close();
  for (const r of Object.values(receivers)) await r.stop();
  await dns.close();
});

/** Waits until no webhook job is left, then what each receiver got (verified) of `kind` for `value` (an address, domain or extension). */
async function got(kind: string, value: string) {
  await waitFor(async () => (await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'webhook' AND dead_at IS NULL"))!.n === 0, 10_000);
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const [name, r] of Object.entries(receivers)) {
    for (const d of r.deliveries) expect(d.verified).toBe(true);
    out[name] = r.deliveries.filter((d) => d.json?.event === kind && d.json.data.value === value).map((d) => d.json!.data);
  }
  return out;
}
const names = (o: Record<string, unknown[]>) => Object.keys(o).filter((k) => o[k]!.length > 0).sort();

async function insertRecipient(routeId: string, email: string, status = "processed") {
  const messageId = newId();
  const recipientId = newId();
  const now = Date.now();
  await app.sql.run(
    `INSERT INTO messages (id, team_id, project_id, route_id, type, status, status_changed_at, tag, from_email, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'outbound', ?, ?, NULL, 'a@shop.example', '[]', '[]', '[]', '[]', '{}', ?, ?)`,
    [messageId, app.team.teamId, app.team.projectId, routeId, status, now, now, now],
  );
  await app.sql.run("INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, created_at) VALUES (?, ?, ?, 'to', ?, ?, ?)", [
    recipientId,
    messageId,
    email,
    status,
    now,
    now,
  ]);
  return recipientId;
}

describe("suppression.added and suppression.removed", () => {
  test("a team suppression made through the API goes to every subscribed webhook of the team, as SuppressedRecipientData; lifting it sends suppression.removed; a skipped address sends nothing", async () => {
    const res = await app.request("POST", "/v1/suppressions", { body: { email: "Team@Example.net", scope: "team", reason: "manual" } });
    expect(res.json.data.created).toEqual(["team@example.net"]);
    const added = await got("suppression.added", "team@example.net");
    expect(names(added)).toEqual(["bc", "other", "tx"]);
    const id = (await app.request("GET", "/v1/suppressions?filter[email]=team@example.net")).json.data[0].id;
    expect(added.tx).toEqual([
      {
        id,
        email: "team@example.net",
        type: "email",
        value: "team@example.net",
        reason: "manual",
        scope: "team",
        project_id: null,
        route_id: null,
        source_message: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const delivery = receivers.tx.deliveries.find((d) => d.json?.event === "suppression.added")!;
    expect(delivery.headers["x-service-event"]).toBe("suppression.added");

    // Already suppressed: skipped, nothing published.
    expect((await app.request("POST", "/v1/suppressions", { body: { email: "team@example.net", scope: "team", reason: "manual" } })).json.data.skipped).toEqual(["team@example.net"]);
    expect(names(await got("suppression.added", "team@example.net"))).toEqual(["bc", "other", "tx"]);
    expect((await got("suppression.added", "team@example.net")).tx).toHaveLength(1);

    expect((await app.request("DELETE", `/v1/suppressions/${id}`)).status).toBe(200);
    const removed = await got("suppression.removed", "team@example.net");
    expect(names(removed)).toEqual(["bc", "other", "tx"]);
    expect(removed.bc![0]).toMatchObject({ id, email: "team@example.net", scope: "team", reason: "manual" });
    expect(receivers.unsubscribed.deliveries).toEqual([]);
  });

  test("a project's suppression goes to the webhooks of that project's routes; a route's to that route's only", async () => {
    const project = await app.request("POST", "/v1/suppressions", { body: { email: "project@example.net", scope: "project", project_id: app.team.projectId, reason: "manual" } });
    expect(project.status).toBe(201);
    const added = await got("suppression.added", "project@example.net");
    expect(names(added)).toEqual(["bc", "tx"]);
    expect(added.tx![0]).toMatchObject({ scope: "project", project_id: app.team.projectId, route_id: null });

    const route = await app.request("POST", "/v1/suppressions", { body: { email: "route@example.net", scope: "route", route_id: routes.bc, reason: "unsubscribe" } });
    expect(route.status).toBe(201);
    const routeAdded = await got("suppression.added", "route@example.net");
    expect(names(routeAdded)).toEqual(["bc"]);
    const id = (await app.request("GET", "/v1/suppressions?filter[email]=route@example.net")).json.data[0].id;
    expect((await app.request("DELETE", `/v1/suppressions/${id}`)).status).toBe(200);
    expect(names(await got("suppression.removed", "route@example.net"))).toEqual(["bc"]);
  });

  test("automatic suppressions are published too: a hard bounce and a complaint (team-wide), an unsubscribe link (the message's route)", async () => {
    const bounced = await insertRecipient(routes.tx, "bounced@example.org");
    await app.deps.store.write((tx) =>
      changeRecipientStatus(tx, { recipientId: bounced, status: "hard_bounced", response: { code: 550, enhanced_code: "5.1.1", message: "no such user" }, suppress: "hard_bounce" }),
    );
    const bounce = await got("suppression.added", "bounced@example.org");
    expect(names(bounce)).toEqual(["bc", "other", "tx"]);
    // source_message names the message whose bounce caused it (Lettermint's SuppressionSourceMessageData).
    const bouncedMessage = (await app.sql.get<{ message_id: string }>("SELECT message_id FROM recipients WHERE id = ?", [bounced]))!.message_id;
    expect(bounce.other![0]).toMatchObject({ reason: "hard_bounce", scope: "team", type: "email", source_message: { id: bouncedMessage, available: true, subject: "", created_at: expect.any(String) } });

    const complained = await insertRecipient(routes.tx, "complained@example.org", "delivered");
    await app.deps.store.write((tx) => changeRecipientStatus(tx, { recipientId: complained, status: "spam_complaint", suppress: "spam_complaint" }));
    const complaint = await got("suppression.added", "complained@example.org");
    expect(names(complaint)).toEqual(["bc", "other", "tx"]);
    expect(complaint.tx![0]).toMatchObject({ reason: "spam_complaint", scope: "team" });

    const reader = await insertRecipient(routes.bc, "reader@example.org", "delivered");
    const token = recipientUnsubscribeToken(await serverSecretOf(app.deps.store), reader);
    const res = await app.request("POST", `/v1/unsubscribe/${token}`);
    expect(res.status).toBeLessThan(300);
    const unsubscribed = await got("suppression.added", "reader@example.org");
    expect(names(unsubscribed)).toEqual(["bc"]);
    expect(unsubscribed.bc![0]).toMatchObject({ reason: "unsubscribe", scope: "route", route_id: routes.bc, project_id: null });
    const readerMessage = (await app.sql.get<{ message_id: string }>("SELECT message_id FROM recipients WHERE id = ?", [reader]))!.message_id;
    expect((unsubscribed.bc![0] as { source_message: { id: string } }).source_message.id).toBe(readerMessage);
  });

  test("domain and extension suppressions are published with their type, value and scope (email null); lifting one sends suppression.removed", async () => {
    const domain = await app.request("POST", "/v1/suppressions", { body: { type: "domain", value: "Blocked.Example", scope: "project", project_id: app.team.projectId, reason: "manual" } });
    expect(domain.json.data.created).toEqual(["blocked.example"]);
    const added = await got("suppression.added", "blocked.example");
    expect(names(added)).toEqual(["bc", "tx"]);
    expect(added.tx![0]).toMatchObject({ type: "domain", value: "blocked.example", email: null, scope: "project", project_id: app.team.projectId, source_message: null });

    const extension = await app.request("POST", "/v1/suppressions", { body: { type: "extension", values: [".ru"], scope: "team", reason: "manual" } });
    expect(extension.json.data.created).toEqual(["ru"]);
    const ext = await got("suppression.added", "ru");
    expect(names(ext)).toEqual(["bc", "other", "tx"]);
    expect(ext.other![0]).toMatchObject({ type: "extension", value: "ru", email: null, scope: "team" });

    expect((await app.request("DELETE", `/v1/suppressions/${(ext.other![0] as { id: string }).id}`)).status).toBe(200);
    expect((await got("suppression.removed", "ru")).tx![0]).toMatchObject({ type: "extension", value: "ru", scope: "team" });
  });
});
