/**
 * The route setting suppress_auto_responders on the receiving side: an automatic reply to a
 * message of such a route reaches the MX (a real SMTP session to the VERP address), is recorded
 * in the message's events as auto_replied (the operator sees it) and goes to no webhook. The same
 * reply to another route's message is published as before. docs/sending.md, Route settings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventBodies, insertDeliveredOutbound, sendRaw, startInbound, type InboundHarness } from "./support.ts";

let h: InboundHarness;
beforeAll(async () => {
  h = await startInbound();
});
afterAll(() => h.stop());

const autoReply = (from: string, to: string, id: string) =>
  [`From: ${from}`, `To: ${to}`, "Subject: Out of Office: Welcome", `Message-ID: <${id}@example.net>`, "Auto-Submitted: auto-replied", "", "I am away until Monday.", ""].join("\r\n");

const apiEvents = async (messageId: string) => (await h.app.request("GET", `/v1/messages/${messageId}/events`)).json.data as { event: string; metadata: any }[];

describe("suppress_auto_responders", () => {
  test("an auto-reply to the route's mail is recorded (auto_replied, suppressed) and not sent to webhooks; with the setting off it is published", async () => {
    const team = { teamId: h.app.team.teamId, projectId: h.app.team.projectId };
    const before = await insertDeliveredOutbound(h.deps, team);
    const info = await sendRaw(h.port, { from: "", to: [before.verp] }, autoReply(before.email, before.verp, "ooo-off"));
    expect(info.response).toStartWith("250 ");
    expect((await eventBodies(h.deps, "message.auto_replied")).filter((e) => e.data.message_id === before.messageId)).toHaveLength(1);

    const put = await h.app.request("PUT", `/v1/routes/${before.routeId}`, { body: { settings: { suppress_auto_responders: true } } });
    expect(put.json.data.settings.suppress_auto_responders).toBe(true);
    const o = await insertDeliveredOutbound(h.deps, team);
    expect(o.routeId).toBe(before.routeId);
    const reply = await sendRaw(h.port, { from: "", to: [o.verp] }, autoReply(o.email, o.verp, "ooo-on"));
    expect(reply.response).toStartWith("250 ");
    // Applied in the commit of the 250: nothing published for this message…
    expect((await eventBodies(h.deps, "message.auto_replied")).filter((e) => e.data.message_id === o.messageId)).toHaveLength(0);
    // …and the message's events show the reply, marked suppressed; the recipient stays delivered.
    const auto = (await apiEvents(o.messageId)).filter((e) => e.event === "auto_replied");
    expect(auto).toHaveLength(1);
    const history = await h.app.sql.get<{ data: string }>("SELECT data FROM message_events WHERE message_id = ? AND kind = 'message.auto_replied'", [o.messageId]);
    expect(JSON.parse(history!.data).report).toMatchObject({ type: "auto_reply", suppressed: true });
    expect((await h.app.sql.get<{ status: string }>("SELECT status FROM recipients WHERE id = ?", [o.recipientId]))!.status).toBe("delivered");
  });
});
