/**
 * Inbound quarantine end to end: real SMTP to the MX on loopback, the built-in scorer (GTUBE scores
 * 1000, over the route's threshold of 5), a real HTTPS webhook receiver that checks signatures with
 * its own code, and POST /v1/messages/{id}/process releasing the held message to it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { useWebhookSender, WebhookSender } from "../../src/events/webhook-post.ts";
import { registerWebhookJobs } from "../../src/events/webhook-job.ts";
import { GTUBE } from "../../src/smtp/spam.ts";
import { newId } from "../../src/ids.ts";
import { waitFor } from "../helpers.ts";
import { SUBSCRIBER_URL } from "../support/event-subscriber.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";
import { compose, dkimSigned, sendRaw, startInbound, type InboundHarness } from "./support.ts";

let h: InboundHarness;
let receiver: TestReceiver;
let sender: WebhookSender;
let webhookId: string;

beforeAll(async () => {
  const cert = makeTestCert(["hooks.example.test"]);
  receiver = startReceiver(cert);
  h = await startInbound({
    env: { POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" },
    beforeStart: ({ deps, runner, dns }) => {
      dns.set("hooks.example.test", "A", ["127.0.0.1"]);
      sender = new WebhookSender({ dns: deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 3000, dnsCacheMs: 0 });
      useWebhookSender(deps, sender);
      registerWebhookJobs(runner, deps, { sender, scheduleMs: [50, 50, 50] });
    },
  });
  // The harness's catch-all subscriber (a closed port) is off: the receiver is the route's one webhook.
  await h.app.sql.run("UPDATE webhooks SET enabled = 0 WHERE url = ?", [SUBSCRIBER_URL]);
  const created = await h.app.request("POST", "/v1/webhooks", {
    body: { route_id: h.inboundRouteId, name: "inbound receiver", url: receiver.url(), events: ["message.inbound"] },
  });
  expect(created.status).toBe(201);
  webhookId = created.json.data.id;
  receiver.secret = created.json.data.secret;
}, 30_000);

afterAll(async () => {
  await h.stop();
  sender.close();
  await receiver.stop();
});

/** Sends one message to the route over SMTP; its id from the 250. */
async function deliver(subject: string, body: string, attachments: { filename: string; content: string }[] = []): Promise<{ id: string; response: string }> {
  const raw = await dkimSigned(await compose({ from: "alice@sender.test", to: h.inboundAddress, subject, text: body, attachments }), h.sender);
  const info = await sendRaw(h.port, { from: "alice@sender.test", to: [h.inboundAddress] }, raw);
  return { id: /Queued as (\S+)/.exec(info.response)![1]!, response: info.response };
}

const messageOf = async (id: string) => {
  const res = await h.app.request("GET", `/v1/messages/${id}`);
  return (res.json.data ?? res.json) as { status: string; subject: string; spam_score: number; attachments: unknown[] };
};
const statusOf = async (id: string) => (await messageOf(id)).status;
const eventsOf = async (id: string) => ((await h.app.request("GET", `/v1/messages/${id}/events`)).json.data as { event: string; kind: string; status: string }[]).map((e) => e.event);
const deliveriesOf = (id: string) => receiver.deliveries.filter((d) => d.json?.data?.message_id === id);
const release = (id: string, init: { key?: string; token?: string } = {}) =>
  h.app.request("POST", `/v1/messages/${id}/process`, { token: init.token, headers: init.key === undefined ? {} : { "idempotency-key": init.key } });

/** Sends a GTUBE message and waits until the inbound job has held it. */
async function heldMessage(subject: string): Promise<string> {
  const { id } = await deliver(subject, `Win now!\n\n${GTUBE}\n`, [{ filename: "offer.txt", content: "50% off" }]);
  await waitFor(async () => (await statusOf(id)) === "quarantined", 10_000);
  return id;
}

/** Waits until no inbound or webhook job is left (done, or dead). */
const settled = () => waitFor(async () => (await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue IN ('inbound', 'webhook') AND dead_at IS NULL"))!.n === 0, 10_000);

describe("inbound quarantine", () => {
  test("mail over the threshold: 250 at SMTP, held with its content and delivered to no webhook; process → 202 and the receiver gets one signed message.inbound", async () => {
    const { id, response } = await deliver("WIN A PRIZE", `Win now!\n\n${GTUBE}\n`, [{ filename: "offer.txt", content: "50% off" }]);
    // The sender is told 250, as for any accepted message: it does not learn the mail was held.
    expect(response).toStartWith("250 ");
    // A clean message sent after it reaches the receiver: the pipeline runs, the held one stays back.
    const clean = await deliver("Order question", "Where is my order?");
    await waitFor(() => deliveriesOf(clean.id).length === 1, 10_000);
    await waitFor(async () => (await statusOf(id)) === "quarantined", 10_000);
    await settled();
    expect(deliveriesOf(id)).toHaveLength(0);

    const held = await messageOf(id);
    expect(held).toMatchObject({ status: "quarantined", subject: "WIN A PRIZE" });
    expect(held.spam_score).toBeGreaterThan(900); // GTUBE 1000, less what SPF, DKIM and DMARC passing take off
    expect(held.attachments).toHaveLength(1);
    expect(await eventsOf(id)).toEqual(["inbound_spam_blocked"]);
    const listed = await h.app.request("GET", "/v1/messages?filter[status]=quarantined");
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((m: { id: string }) => m.id)).toContain(id);
    expect(listed.json.data.map((m: { id: string }) => m.id)).not.toContain(clean.id);

    const key = `release-${newId()}`;
    const first = await release(id, { key });
    expect(first.status).toBe(202);
    expect(first.json).toEqual({ data: { message_id: id, status: "queued", webhook_target_count: 1 } });

    const got = await waitFor(() => deliveriesOf(id)[0], 10_000);
    expect(got.verified).toBe(true);
    expect(got.headers["x-service-event"]).toBe("message.inbound");
    const data = got.json!.data as { status: string; subject: string; spam_score: number; attachments: { filename: string; content: string }[] };
    expect(data).toMatchObject({ status: "processed", subject: "WIN A PRIZE" });
    expect(data.spam_score).toBeGreaterThan(900);
    expect(data.attachments.map((a) => [a.filename, Buffer.from(a.content, "base64").toString()])).toEqual([["offer.txt", "50% off"]]);

    // The same key again: the same answer, nothing released twice. Without a key: 409, not quarantined any more.
    const again = await release(id, { key });
    expect(again.status).toBe(202);
    expect(again.json).toEqual(first.json);
    const twice = await release(id);
    expect(twice.status).toBe(409);
    expect(twice.json).toEqual({ message: expect.stringContaining("quarantined"), error: "INBOUND_MESSAGE_NOT_QUARANTINED" });

    await settled();
    expect(deliveriesOf(id)).toHaveLength(1);
    const after = await messageOf(id);
    expect(after.status).toBe("processed");
    expect(after.attachments).toHaveLength(1);
    expect(await eventsOf(id)).toEqual(["inbound_spam_blocked", "inbound_released", "inbound_received"]);
    // Statistics count each message received once: the held one when it arrived, not again at its release.
    const counted = await h.app.sql.get<{ n: number | string }>("SELECT coalesce(sum(inbound_received), 0) AS n FROM stat_hours");
    expect(Number(counted!.n)).toBe(2);
  }, 40_000);

  test("two releases at once: one 202, one 409; the receiver gets it once", async () => {
    const id = await heldMessage("Twice at once");
    const answers = await Promise.all([release(id), release(id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    await waitFor(() => deliveriesOf(id).length === 1, 10_000);
    await settled();
    expect(deliveriesOf(id)).toHaveLength(1);
  }, 30_000);

  test("refused, nothing changed: not quarantined, outbound, unknown, another team's, a bad or reused key, no webhook, a purged source", async () => {
    const id = await heldMessage("Held for the refusals");
    const unchanged = async () => {
      expect(await statusOf(id)).toBe("quarantined");
      expect(await eventsOf(id)).toEqual(["inbound_spam_blocked"]);
      expect((await h.app.sql.get<{ n: number }>("SELECT count(*) AS n FROM jobs WHERE queue = 'inbound' AND dead_at IS NULL"))!.n).toBe(0);
    };

    // Processed mail is not quarantined.
    const clean = await deliver("Plain question", "Hello there");
    await waitFor(async () => (await statusOf(clean.id)) === "processed", 10_000);
    const notHeld = await release(clean.id);
    expect(notHeld.status).toBe(409);
    expect(notHeld.json).toEqual({ message: "Only a quarantined message can be processed; this one is processed.", error: "INBOUND_MESSAGE_NOT_QUARANTINED" });
    expect(await eventsOf(clean.id)).toEqual(["inbound_received"]);

    // Outbound mail is never quarantined: a 422.
    const outbound = newId();
    const now = Date.now();
    await h.app.sql.run(
      `INSERT INTO messages (id, team_id, project_id, route_id, type, status, status_changed_at, from_email, from_name, subject, "to", cc, bcc, reply_to, metadata, created_at, updated_at)
       VALUES (?, ?, ?, NULL, 'outbound', 'delivered', ?, 'me@sender.test', '', 'Sent', '[]', '[]', '[]', '[]', '{}', ?, ?)`,
      [outbound, h.app.team.teamId, h.app.team.projectId, now, now, now],
    );
    const out = await release(outbound);
    expect(out.status).toBe(422);
    expect(out.json).toMatchObject({ error: "validation_failed", errors: { messageId: [expect.stringContaining("outbound")] } });
    expect(await statusOf(outbound)).toBe("delivered");

    // Unknown, and another team's: 404 alike.
    const unknown = await release(newId());
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ message: "Message not found.", error: "not_found" });
    const other = h.app.addTeam();
    const foreign = await release(id, { token: other.teamToken });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ message: "Message not found.", error: "not_found" });
    // A project token is not the team token this takes.
    expect((await h.app.request("POST", `/v1/messages/${id}/process`, { projectToken: h.app.team.projectToken })).status).toBe(401);

    // A key longer than 255 characters; a key already used for another message.
    const long = await release(id, { key: "k".repeat(256) });
    expect(long.status).toBe(422);
    expect(long.json.errors["Idempotency-Key"]).toEqual(["The Idempotency-Key header must be 1 to 255 characters."]);
    const usedKey = `used-${newId()}`;
    const otherHeld = await heldMessage("Held too");
    expect((await release(otherHeld, { key: usedKey })).status).toBe(202);
    const reused = await release(id, { key: usedKey });
    expect(reused.status).toBe(409);
    expect(reused.json).toEqual({ message: "This Idempotency-Key was already used with a different request.", error: "conflict" });
    await settled();

    // No enabled webhook of the route receives message.inbound: nobody to release it to.
    await h.app.request("PUT", `/v1/webhooks/${webhookId}`, { body: { enabled: false } });
    const noHook = await release(id);
    expect(noHook.status).toBe(409);
    expect(noHook.json.error).toBe("INBOUND_WEBHOOK_NOT_CONFIGURED");
    await h.app.request("PUT", `/v1/webhooks/${webhookId}`, { body: { enabled: true } });
    await unchanged();

    // Kept as long as any final message (POSTHORN_RETENTION_DAYS); once retention purged its source, it cannot be released.
    const purged = await h.deps.store.write((tx) => tx.retention.purge([id], Date.now() + 1, Date.now()));
    expect(purged).toEqual([id]);
    const gone = await release(id);
    expect(gone.status).toBe(409);
    expect(gone.json.error).toBe("MESSAGE_SOURCE_UNAVAILABLE");
    await unchanged();
    expect(deliveriesOf(id)).toHaveLength(0);
  }, 60_000);
});
