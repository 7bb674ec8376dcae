/**
 * GET /v1/queue/destinations when two teams send to one destination (issue 41, finding 10). A
 * destination (the MX host set) and its shaping are the server's: a pause one team's mail caused
 * holds every team's mail there, and every team with mail waiting there sees it paused. The
 * remote's reply text is about one team's mail (it can name the recipient or the message): a
 * team sees only replies to its own. Real SMTP to the harness's sink, DNS on loopback.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { insertTestDomain, waitFor } from "../../helpers.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";

const SHARED = "shared.test";
const SECRET_RECIPIENT = "alice.private@shared.test";
const REPLY_TEXT = `4.7.28 Too many messages to ${SECRET_RECIPIENT} from sender.test, try again later`;

let h: OutboundHarness;
beforeAll(async () => {
  // A pause long enough to look at; retries wait for it.
  h = await startOutbound({ outbound: { retryScheduleMs: [60_000], shaping: { firstPauseMs: 30_000, maxPauseMs: 30_000, rampEveryMs: 1000, quietMs: 60_000 } } });
  h.routeToSink(SHARED);
  h.sink.onData = (mail) => (mail.to.includes(SECRET_RECIPIENT) ? { code: 421, message: REPLY_TEXT } : null);
});
afterAll(async () => {
  await h.close();
});

const destinations = async (token: string) => {
  const res = await h.request("GET", "/v1/queue/destinations", { token });
  expect(res.status).toBe(200);
  return res.json.data as any[];
};

test("a team sees a shared destination's pause, but not the reply another team's mail got, nor its domains", async () => {
  // Team A's mail gets a rate reply that names its recipient: the destination is paused.
  h.routeToSink("a-only.test");
  const a = await h.send({ from: "app@sender.test", to: [SECRET_RECIPIENT, "carol@a-only.test"], subject: "Team A's mail", text: "Hello" });
  expect(a.status).toBe(202);
  // Team A sees the pause and, once the attempt's outcome is on record, the reply its own mail got.
  const aView = await waitFor(async () => (await destinations(h.team.teamToken)).find((d) => d.name === "mx.sink.test" && d.paused && d.last_reply) ?? null, 10_000);
  expect(aView.last_reply).toMatchObject({ code: 421, message: expect.stringContaining(SECRET_RECIPIENT) });

  // Team B has mail waiting for the same destination: held by the pause (not attempted).
  const b = h.addTeam("Team B");
  insertTestDomain(h.deps, { teamId: b.teamId, projectId: b.projectId, domain: "b-sender.test", status: "active" });
  const sent = await h.request("POST", "/v1/send", { projectToken: b.projectToken, body: { from: "app@b-sender.test", to: ["bob@shared.test"], subject: "Team B's mail", text: "Hello" } });
  expect(sent.status).toBe(202);
  await Bun.sleep(300);
  expect(h.messageStatus(sent.json.message_id)).toBe("pending");

  const bView = (await destinations(b.teamToken)).find((d) => d.name === "mx.sink.test");
  // Shared operational state: the pause and the limits hold B's mail too, so B is shown them.
  expect(bView).toMatchObject({ paused: true, strikes: 1, domains: [SHARED] });
  expect(bView.paused_until).toBe(aView.paused_until);
  // Team data: no reply to A's mail, no domain only A mails to.
  expect(bView.last_reply).toBeNull();
  expect(JSON.stringify(bView)).not.toContain("alice");
  expect(JSON.stringify(bView)).not.toContain("a-only.test");
});
