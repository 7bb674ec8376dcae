/**
 * The rollups equal a recount from the events: after a randomized run (retries, hard bounces,
 * suppressions, complaints, unsubscribes, opens and clicks of people, privacy proxies and
 * machines, link bursts that re-judge clicks, writes that crash after their event), every counter of stat_hours and stat_days adds up
 * to what message_events, tracking_hits and the messages' rows say, in total, per hour and per
 * provider family, and the latency histogram to the delivered events' own latencies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { trackingToken } from "../../../src/auth/tracking-tokens.ts";
import { serverSecretOf } from "../../../src/secrets.ts";
import { changeRecipientStatus } from "../../../src/events/message-status.ts";
import { LATENCY_COLUMNS, latencyBucket, STAT_COLUMNS } from "../../../src/db/stat-columns.ts";
import { startOutbound, type OutboundHarness } from "../../send/harness.ts";

const SEED = Number(process.env.STATS_RECOUNT_SEED ?? 0x45);
function mulberry32(a: number) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UA = {
  human: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
  privacy: "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
  machine: "python-requests/2.31",
} as const;
const DOMAINS = ["gmail.com", "outlook.com", "yahoo.com", "dest.test", "corp.test"];
const FAMILY: Record<string, string> = { "gmail.com": "google", "outlook.com": "microsoft", "yahoo.com": "yahoo", "dest.test": "other", "corp.test": "other" };
const HOUR = 3600_000;

describe("statistics rollups equal a recount from the events after a randomized run", () => {
  let h: OutboundHarness;
  const rand = mulberry32(SEED);
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

  /** Counters recounted from the events, keyed by `${hour}|${provider}`. */
  async function recount(): Promise<Map<string, Record<string, number>>> {
    const out = new Map<string, Record<string, number>>();
    const add = (at: number, provider: string, col: string, n = 1) => {
      const key = `${at - (at % HOUR)}|${provider}`;
      const row = out.get(key) ?? Object.fromEntries(STAT_COLUMNS.map((c) => [c, 0]));
      row[col] = (row[col] ?? 0) + n;
      out.set(key, row);
    };
    const fam = (email: string) => FAMILY[email.split("@")[1]!] ?? "other";
    const messages = await h.sql.all<{ id: string; created_at: number; track_opens: number; track_clicks: number }>(
      "SELECT m.id, m.created_at, c.track_opens, c.track_clicks FROM messages m JOIN message_contents c ON c.message_id = m.id WHERE m.type = 'outbound'",
    );
    const byId = new Map(messages.map((m) => [m.id, m]));
    const recipients = await h.sql.all<{ id: string; message_id: string; email: string }>("SELECT id, message_id, email FROM recipients ORDER BY id");
    // accepted: once per message under its first recipient's family; recipients: each under its own.
    const firstEmail = new Map<string, string>();
    for (const r of recipients) if (!firstEmail.has(r.message_id)) firstEmail.set(r.message_id, r.email);
    for (const m of messages) add(Number(m.created_at), fam(firstEmail.get(m.id)!), "accepted");
    for (const r of recipients) add(Number(byId.get(r.message_id)!.created_at), fam(r.email), "recipients");
    const email = new Map(recipients.map((r) => [r.id, r.email]));
    const rows = await h.sql.all<{ recipient_id: string; message_id: string; status: string; created_at: number }>(
      "SELECT recipient_id, message_id, status, created_at FROM message_events WHERE recipient_id IS NOT NULL AND status IS NOT NULL ORDER BY created_at, id",
    );
    const processed = new Set<string>();
    const COL: Record<string, string> = { delivered: "delivered", soft_bounced: "soft_bounced", hard_bounced: "hard_bounced", failed: "failed", suppressed: "suppressed", spam_complaint: "complained", unsubscribed: "unsubscribed" };
    for (const e of rows) {
      // The history was moved a minute back after delivery; the rollups kept the real time. Shift back the rows before the move.
      const at = Number(e.created_at) + (e.status === "spam_complaint" || e.status === "unsubscribed" ? 0 : 60000);
      const p = fam(email.get(e.recipient_id)!);
      if (e.status === "processed") {
        add(at, p, processed.has(e.recipient_id) ? "retried" : "sent");
        processed.add(e.recipient_id);
      } else if (COL[e.status]) {
        add(at, p, COL[e.status]!);
        if (e.status === "delivered") {
          const m = byId.get(e.message_id)!;
          add(at, p, LATENCY_COLUMNS[latencyBucket(at - Number(m.created_at))]!);
          if (m.track_opens) add(at, p, "open_tracked_delivered");
          if (m.track_clicks) add(at, p, "click_tracked_delivered");
        }
      }
    }
    const hits = await h.sql.all<{ recipient_id: string; kind: string; machine: number; machine_reason: string | null; created_at: number }>(
      "SELECT recipient_id, kind, machine, machine_reason, created_at FROM tracking_hits ORDER BY created_at, id",
    );
    const firsts = new Set<string>();
    for (const x of hits) {
      const cls = !x.machine ? "human" : x.machine_reason === "privacy_proxy" ? "privacy" : "machine";
      const col = `${x.kind}s_${cls}`;
      const p = fam(email.get(x.recipient_id)!);
      add(Number(x.created_at), p, col);
      const first = `${x.recipient_id}|${col}`;
      if (!firsts.has(first)) add(Number(x.created_at), p, `${col}_unique`);
      firsts.add(first);
    }
    return out;
  }

  const sumBy = (rows: Record<string, unknown>[], keyOf: (r: Record<string, unknown>) => string) => {
    const out = new Map<string, Record<string, number>>();
    for (const r of rows) {
      const k = keyOf(r);
      const acc = out.get(k) ?? Object.fromEntries(STAT_COLUMNS.map((c) => [c, 0]));
      for (const c of STAT_COLUMNS) acc[c] = acc[c]! + Number(r[c]);
      out.set(k, acc);
    }
    return out;
  };
  const nonZero = (m: Map<string, Record<string, number>>) =>
    Object.fromEntries([...m].map(([k, v]) => [k, Object.fromEntries(Object.entries(v).filter(([, n]) => n !== 0))] as const).filter(([, v]) => Object.keys(v).length > 0).sort(([a], [b]) => a.localeCompare(b)));

  test("stat_days by provider family, and stat_hours by hour, equal the recount; the run had every kind of event", async () => {
    const expected = await recount();
    const totals = sumBy([...expected.values()], () => "all").get("all")!;
    for (const c of ["sent", "retried", "delivered", "soft_bounced", "hard_bounced", "suppressed", "complained", "unsubscribed", "opens_human", "opens_privacy", "opens_machine", "clicks_human", "clicks_machine", "clicks_human_unique", "clicks_machine_unique"]) {
      expect(`${c}: ${totals[c]! > 0}`).toBe(`${c}: true`);
    }
    const days = await h.sql.all<Record<string, unknown>>("SELECT * FROM stat_days");
    const hours = await h.sql.all<Record<string, unknown>>("SELECT * FROM stat_hours");
    const expectedByProvider = sumBy(
      [...expected].map(([k, v]) => ({ ...v, provider: k.split("|")[1] })),
      (r) => String(r.provider),
    );
    expect(nonZero(sumBy(days, (r) => String(r.provider)))).toEqual(nonZero(expectedByProvider));
    const expectedByHour = sumBy(
      [...expected].map(([k, v]) => ({ ...v, hour: k.split("|")[0] })),
      (r) => String(r.hour),
    );
    expect(nonZero(sumBy(hours, (r) => String(r.hour)))).toEqual(nonZero(expectedByHour));
    // Messages and recipients accepted, in stat_accepts: by provider family and day.
    const accepts = new Map<string, { accepted: number; recipients: number }>();
    for (const [k, v] of expected) {
      const [hour, provider] = k.split("|");
      const key = `${Number(hour) - (Number(hour) % (24 * HOUR))}|${provider}`;
      const a = accepts.get(key) ?? { accepted: 0, recipients: 0 };
      a.accepted += v.accepted ?? 0;
      a.recipients += v.recipients ?? 0;
      if (a.accepted + a.recipients > 0) accepts.set(key, a);
    }
    const stored = await h.sql.all<{ day: number; provider: string; accepted: number; recipients: number }>(
      "SELECT day, provider, sum(accepted) AS accepted, sum(recipients) AS recipients FROM stat_accepts GROUP BY day, provider",
    );
    expect(Object.fromEntries(stored.map((r) => [`${Number(r.day)}|${r.provider}`, { accepted: Number(r.accepted), recipients: Number(r.recipients) }]))).toEqual(Object.fromEntries(accepts));
    expect([...accepts.values()].reduce((n, a) => n + a.accepted, 0)).toBe(40);
  });
});
