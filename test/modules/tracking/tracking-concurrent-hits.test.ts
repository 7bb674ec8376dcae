/**
 * Hits of one recipient that arrive at once (a mail client and a provider's image proxy fetching
 * the pixel together, a scanner following every link at once) count one first hit per class in the
 * statistics, and leave rollups equal to a recount from tracking_hits. On PostgreSQL their writes
 * run side by side: before each hit's write took a lock on its recipient and its time, a hit
 * stamped later could commit first and both took the recipient's first (found by
 * test/e2e/stats-crash-recount.test.ts: opens_human_unique stored 7, recounted 5).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";
import { diffRollups, recountRollups, storedRollups, totalsOf } from "../../support/stats-recount.ts";

const UA = {
  human: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
  privacy: "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
  machine: "python-requests/2.31",
} as const;

describe("tracking hits of one recipient at once", () => {
  let h: OutboundHarness;
  const recipients: { id: string; message_id: string }[] = [];

  beforeAll(async () => {
    h = await startOutbound();
    h.routeToSink("dest.test");
    for (let i = 0; i < 4; i++) {
      const sent = await h.send({
        from: "hello@sender.test",
        to: [`reader${i}@dest.test`],
        subject: "Links",
        html: '<p><a href="https://a.example/1">1</a> <a href="https://a.example/2">2</a> <a href="https://a.example/3">3</a> <a href="https://a.example/4">4</a></p>',
        settings: { track_opens: true, track_clicks: true },
      });
      expect(sent.status).toBe(202);
      await h.waitForStatus(sent.json.message_id, ["delivered"], 10_000);
      recipients.push((await h.sql.get<{ id: string; message_id: string }>("SELECT id, message_id FROM recipients WHERE message_id = ?", [sent.json.message_id]))!);
    }
    // Read a minute after delivery, as people do (a hit within 10 s of the 250 is a machine's); the rollups keep the real times.
    await h.sql.run("UPDATE message_events SET created_at = created_at - 60000");
  }, 60_000);
  afterAll(() => h?.close());

  test("twelve opens at once by a person and by a proxy, and a scanner on four links at once: one first hit of each class per recipient, rollups equal the recount", async () => {
    const secret = await serverSecretOf(h.deps.store);
    const hit = (path: string, ua: string) => h.app.handle(new Request(`http://localhost${path}`, { headers: { "user-agent": ua } })).then((r) => r.status);
    const all: Promise<number>[] = [];
    for (const r of recipients) {
      const open = `/t/o/${trackingToken(secret, { kind: "open", messageId: r.message_id, recipientId: r.id })}`;
      for (let k = 0; k < 6; k++) all.push(hit(open, UA.human), hit(open, UA.privacy));
      for (let link = 0; link < 4; link++) all.push(hit(`/t/c/${trackingToken(secret, { kind: "click", messageId: r.message_id, recipientId: r.id, link })}`, UA.machine));
    }
    const statuses = await Promise.all(all);
    expect(statuses.filter((s) => s !== 200 && s !== 302)).toEqual([]);

    const eventAt = (e: { status: string; created_at: number }) => e.created_at + 60000;
    const recounted = await recountRollups(h.sql, { family: () => "other", eventAt });
    const stored = await storedRollups(h.sql);
    const totals = totalsOf(stored, "stat_days");
    expect({ opens_human: totals.opens_human, opens_privacy: totals.opens_privacy, clicks_machine: totals.clicks_machine }).toEqual({ opens_human: 24, opens_privacy: 24, clicks_machine: 16 });
    expect({ opens_human_unique: totals.opens_human_unique, opens_privacy_unique: totals.opens_privacy_unique, clicks_machine_unique: totals.clicks_machine_unique }).toEqual({
      opens_human_unique: 4,
      opens_privacy_unique: 4,
      clicks_machine_unique: 4,
    });
    expect(diffRollups(stored, recounted)).toEqual([]);
  });
});
