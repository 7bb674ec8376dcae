/**
 * A strict receiver, as Gmail plays it with bulk senders: an SMTP server on loopback (the test
 * harness's sink) that answers `421 4.7.28` at RCPT when a recipient domain has had more than
 * `limit` messages accepted in the last `windowMs` (10 s), and closes the connection, as 421
 * means. Other domains are received without a limit.
 */
import { waitFor } from "../helpers.ts";
import { startSink, type OutboundHarness, type Sink } from "../send/harness.ts";

export interface StrictSink {
  sink: Sink;
  port: number;
  /** 421 replies given, per strict domain. */
  refusals: Map<string, number>;
  /** Messages accepted, per recipient domain. */
  accepted: Map<string, number>;
  close(): Promise<void>;
}

export const RATE_LIMITED_REPLY =
  "4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address. To protect our users from spam, mail sent from your IP address has been temporarily rate limited.";

export async function startStrictSink(opts: { limit: number; windowMs?: number; strictDomains: string[] }): Promise<StrictSink> {
  const windowMs = opts.windowMs ?? 10_000;
  const strict = new Set(opts.strictDomains.map((d) => d.toLowerCase()));
  const sink = await startSink();
  /** Acceptance times per strict domain, oldest first (RCPTs let through: a message under way counts). */
  const recent = new Map<string, number[]>();
  const refusals = new Map<string, number>();
  const accepted = new Map<string, number>();
  const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  sink.onRcpt = (address) => {
    const domain = domainOf(address);
    if (!strict.has(domain)) return null;
    const now = Date.now();
    const times = recent.get(domain) ?? [];
    while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
    recent.set(domain, times);
    if (times.length >= opts.limit) {
      refusals.set(domain, (refusals.get(domain) ?? 0) + 1);
      return { code: 421, message: RATE_LIMITED_REPLY };
    }
    times.push(now);
    return null;
  };
  sink.onData = (mail) => {
    for (const to of mail.to) accepted.set(domainOf(to), (accepted.get(domainOf(to)) ?? 0) + 1);
    return null;
  };
  return { sink, port: sink.port, refusals, accepted, close: () => sink.close() };
}

/** Sends `n` one-recipient messages to `<prefix><i>@<domain>` in batches of 500; returns their ids. */
export async function sendTo(h: OutboundHarness, domain: string, n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 500) {
    const body = Array.from({ length: Math.min(500, n - i) }, (_, k) => ({ from: "app@sender.test", to: [`${prefix}${i + k}@${domain}`], subject: "Shaped", text: "Hello" }));
    const res = await h.request("POST", "/v1/send/batch", { projectToken: h.team.projectToken, body });
    if (res.status !== 202) throw new Error(`batch refused: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
    for (const item of res.json as { message_id: string }[]) ids.push(item.message_id);
  }
  return ids;
}

/** Recipient statuses of the messages to `domain`, counted. */
export function statusCounts(h: OutboundHarness, domain: string): Record<string, number> {
  const rows = h.sqlNow.all<{ status: string; n: number }>("SELECT status, count(*) AS n FROM recipients WHERE email LIKE ? GROUP BY status", [`%@${domain}`]);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Waits until `n` recipients at `domain` are delivered or failed. */
export async function drain(h: OutboundHarness, domain: string, n: number, timeoutMs: number): Promise<void> {
  await waitFor(() => {
    const c = statusCounts(h, domain);
    return (c.delivered ?? 0) + (c.failed ?? 0) >= n;
  }, timeoutMs, 200);
}
