/**
 * The send fields Lettermint's SDKs send beside the spec's: settings.track_opens/track_clicks are
 * taken as Posthorn's track_opens/track_clicks; a key settings does not know is refused rather than
 * ignored. scheduled_at, tags and settings.tls are taken (their tests: test/send/scheduled-sending.test.ts,
 * test/send/message-tags.test.ts, test/send/enforced-tls.test.ts); a time beyond the 30-day window is a 422.
 */
import { describe, expect, test } from "bun:test";
import { createTestApp, insertTestDomain } from "../helpers.ts";

const app = createTestApp();
const DOMAIN = "fields.example";
insertTestDomain(app.deps, { teamId: app.team.teamId, projectId: app.team.projectId, domain: DOMAIN, status: "active" });
const mail = (extra: Record<string, unknown> = {}) => ({ from: `a@${DOMAIN}`, to: ["b@dest.example"], subject: "Fields", html: "<p>Hello</p>", ...extra });
const send = (body: unknown) => app.request("POST", "/v1/send", { projectToken: app.team.projectToken, body });
const tracking = async (id: string) =>
  app.sql.get<{ track_opens: number; track_clicks: number }>("SELECT track_opens, track_clicks FROM message_contents WHERE message_id = ?", [id]);
const count = async () => (await app.sql.get<{ n: number }>("SELECT count(*) AS n FROM messages"))!.n;

describe("Lettermint's send fields", () => {
  test("settings.track_opens and track_clicks are the email's tracking; Posthorn's own fields win when both are given", async () => {
    const a = await send(mail({ settings: { track_opens: true, track_clicks: true } }));
    expect(a.status).toBe(202);
    expect(await tracking(a.json.message_id)).toEqual({ track_opens: 1, track_clicks: 1 });
    const b = await send(mail({ settings: { track_opens: true, track_clicks: true }, track_opens: false }));
    expect(await tracking(b.json.message_id)).toEqual({ track_opens: 0, track_clicks: 1 });
    const c = await send(mail({ settings: { tls: "opportunistic" } }));
    expect(await tracking(c.json.message_id)).toEqual({ track_opens: 0, track_clicks: 0 });
  });

  test("an unknown settings key, a settings object of 10,000 keys and a scheduled_at beyond the window are each a 422 on that field, and nothing is stored", async () => {
    const before = await count();
    const huge = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, true]));
    for (const [extra, field] of [
      [{ scheduled_at: "2099-01-01T00:00:00Z" }, "scheduled_at"],
      [{ settings: { track_opens: true, track_bounces: true } }, "settings"],
      [{ settings: huge }, "settings"],
    ] as const) {
      const res = await send(mail(extra));
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual([field]);
      expect(res.json.error).toBe("validation_failed");
    }
    // In a batch, keyed by the item.
    const batch = await app.request("POST", "/v1/send/batch", { projectToken: app.team.projectToken, body: [mail(), mail({ scheduled_at: "2099-01-01T00:00:00Z" })] });
    expect(batch.status).toBe(422);
    expect(Object.keys(batch.json.errors)).toEqual(["1.scheduled_at"]);
    expect(await count()).toBe(before);
    // Empty or null ones ask for nothing.
    expect((await send(mail({ scheduled_at: null, tags: [], settings: null }))).status).toBe(202);
  });
});
