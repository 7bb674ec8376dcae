/**
 * The rollups equal a recount from the events: after a randomized run (retries, hard bounces,
 * suppressions, complaints, unsubscribes, opens and clicks of people, privacy proxies and
 * machines, link bursts that re-judge clicks, writes that crash after their event), every counter of
 * every rollup table (stat_hours, stat_days, stat_provider_days, stat_tag_days, stat_accepts) equals,
 * key by key, what message_events, tracking_hits and the messages' rows say
 * (test/support/stats-recount.ts, shared with test/e2e/stats-crash-recount.test.ts, which crashes a real server).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { changeRecipientStatus } from "../../../src/events/message-status.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";
import { diffRollups, recountRollups, seededRandom, storedRollups, totalsOf, RUN_DOMAINS, RUN_FAMILY, RUN_USER_AGENTS } from "../../support/stats-recount.ts";

const SEED = Number(process.env.STATS_RECOUNT_SEED ?? 0x45);

const UA = RUN_USER_AGENTS;
const DOMAINS = RUN_DOMAINS;
const FAMILY = RUN_FAMILY;

describe("statistics rollups equal a recount from the events after a randomized run", () => {
  let h: OutboundHarness;
  const rand = seededRandom(SEED);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

  beforeAll(async () => {
    h = await startOutbound();
    for (const d of DOMAINS) h.routeToSink(d);
    // Fates by local part: soft-N refuses N times with a 4xx, then takes it; hard refuses for good.
    const refusals = new Map<string, number>();
    h.sink.onRcpt = (address) => {
      const local = address.split("@")[0]!;
      if (local.startsWith("hard")) return { code: 550, message: pick(["5.1.1 No such user", "5.2.2 Mailbox full", "5.7.1 Blocked as spam"]) };
      const soft = /^soft(\d)/.exec(local);
      if (soft) {
        const n = refusals.get(address) ?? 0;
        refusals.set(address, n + 1);
        if (n < Number(soft[1])) return { code: 451, message: "4.7.1 Greylisted, try again later" };
      }
      return null;
    };
    // A few suppressed addresses: suppressed at acceptance.
    await h.request("POST", "/v1/suppressions", { body: { reason: "manual", scope: "team", emails: ["gone1@dest.test", "gone2@gmail.com"] } });

    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const to = Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, j) => {
        const fate = pick(["ok", "ok", "ok", "soft1", "soft2", "hard", "gone1", "gone2"]);
        const domain = fate.startsWith("gone") ? (fate === "gone1" ? "dest.test" : "gmail.com") : pick(DOMAINS);
        return fate.startsWith("gone") ? `${fate}@${domain}` : `${fate}${i}x${j}@${domain}`;
      });
      const sent = await h.send({
        from: "hello@sender.test",
        to: [...new Set(to)],
        subject: `Run ${i}`,
        html: '<p><a href="https://a.example/1">1</a> <a href="https://a.example/2">2</a> <a href="https://a.example/3">3</a></p>',
        tag: pick(["welcome", "receipt", null]),
        settings: { track_opens: rand() < 0.7, track_clicks: rand() < 0.7 },
      });
      expect(sent.status).toBe(202);
      ids.push(sent.json.message_id);
    }
    for (const id of ids) await h.waitForStatus(id, ["delivered", "hard_bounced", "suppressed", "failed"], 20_000);

    // Engagement a minute after the 250s, as in life: people, proxies and machines, repeated hits, and link bursts.
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000");
    const secret = await serverSecretOf(h.deps.store);
    const delivered = await h.sql.all<{ id: string; message_id: string }>("SELECT id, message_id FROM recipients WHERE status = 'delivered'");
    const links = await h.sql.all<{ message_id: string; link_index: number }>("SELECT message_id, link_index FROM tracked_links");
    const hit = (path: string, ua: string) => h.app.handle(new Request(`http://localhost${path}`, { headers: { "user-agent": ua } }));
    for (const r of delivered) {
      const mine = links.filter((l) => l.message_id === r.message_id).map((l) => l.link_index);
      for (let k = Math.floor(rand() * 4); k > 0; k--) {
        const ua = UA[pick(["human", "human", "privacy", "machine"] as const)];
        await hit(`/t/o/${trackingToken(secret, { kind: "open", messageId: r.message_id, recipientId: r.id })}`, ua);
      }
      if (mine.length > 0 && rand() < 0.6) {
        const burst = rand() < 0.3;
        // A burst: a person's clicks, then a third link within the second, which re-judges them all.
        for (const link of burst ? mine.slice(0, 3) : [pick(mine)]) {
          await hit(`/t/c/${trackingToken(secret, { kind: "click", messageId: r.message_id, recipientId: r.id, link })}`, burst ? UA.human : UA[pick(["human", "machine"] as const)]);
        }
      }
    }
    // Complaints and unsubscribes, as the report and List-Unsubscribe paths apply them.
    for (const r of delivered.filter(() => rand() < 0.15)) {
      const status = rand() < 0.5 ? "spam_complaint" : "unsubscribed";
      await h.deps.store.write((tx) => changeRecipientStatus(tx, { recipientId: r.id, status, suppress: status === "spam_complaint" ? "spam_complaint" : null }));
    }
    // Crashes in the middle of a write: the event and its counters go together (nothing of either is kept).
    for (const r of delivered.filter(() => rand() < 0.1)) {
      const crashed = h.deps.store.write(async (tx) => {
        await changeRecipientStatus(tx, { recipientId: r.id, status: "spam_complaint", suppress: "spam_complaint" });
        throw new Error("crash after the complaint was written");
      });
      await expect(crashed).rejects.toThrow("crash after");
    }
  }, 120_000);
  afterAll(() => h?.close());

  test("every rollup table (hours, days, by provider, by tag, accepts) equals the recount, key by key; the run had every kind of event", async () => {
    // The history was moved a minute back after delivery; the rollups kept the real time. Shift back the rows before the move.
    const eventAt = (e: { status: string; created_at: number }) => e.created_at + (e.status === "spam_complaint" || e.status === "unsubscribed" ? 0 : 60000);
    const recounted = await recountRollups(h.sql, { family: (email) => FAMILY[email.split("@")[1]!] ?? "other", eventAt });
    const totals = totalsOf(recounted, "stat_days");
    for (const c of ["sent", "retried", "delivered", "soft_bounced", "hard_bounced", "suppressed", "complained", "unsubscribed", "opens_human", "opens_privacy", "opens_machine", "clicks_human", "clicks_machine", "clicks_human_unique", "clicks_machine_unique"]) {
      expect(`${c}: ${(totals[c] ?? 0) > 0}`).toBe(`${c}: true`);
    }
    expect(totalsOf(recounted, "stat_accepts").accepted).toBe(40);
    expect(diffRollups(await storedRollups(h.sql), recounted)).toEqual([]);
  });
});
