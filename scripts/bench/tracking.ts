// Open and click tracking figures (issue 13), one line per figure, bounded in count and time.
//
//   bun scripts/bench/tracking.ts [section ...]      (default: every section, in order)
//
// Sections:
//   rewrite  rewriting cost per message (src/mail/tracking-rewrite.ts): a 30 KB HTML with 20 links,
//            median and p99 of 3,000 iterations after 500 of warm-up (target < 0.2 ms); the same
//            document with opens only, and HTMLRewriter passing it through with no handler (the floor);
//            then a 5 MB HTML with 10,000 links, 30 iterations after 3 of warm-up.
//   forms    the HTMLRewriter forms the module could use, on the 30 KB document: transform(string)
//            vs transform(Response), a new rewriter per document vs one reused.
//   hits     pixel and click hits recorded per second by the real server (bun src/main.ts serve,
//            SQLite with synchronous=FULL, POSTHORN_DELIVERY=sink) at 64 concurrent keep-alive
//            clients over loopback HTTP, with p50/p99: 2,000 tracked messages are sent and
//            delivered first, then 20,000 hits (a browser's user agent; opens and clicks on two of
//            their three links, spread over the recipients, so first hits move statuses and later
//            ones are observations), each a durable write with its event and history row.
//            POSTHORN_BENCH_DATABASE=postgres runs the server on a PostgreSQL cluster of its own.
// A section is an async function in `sections`; add one there and it runs by name.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trackingToken } from "../../src/auth/tracking-tokens.ts";
import { databasePath } from "../../src/db/connection.ts";
import { postgresClient } from "../../src/db/postgres.ts";
import { rewriteHtml, type RewriteOptions } from "../../src/mail/tracking-rewrite.ts";
import { freePort, prepareDataDir, preparePostgresDatabase, spawnServer } from "../../test/e2e/fixtures/outbound-server.ts";
import { durablePostgres } from "../../test/support/postgres.ts";

const DEADLINE_MS = 300_000;
const HIT_CLIENTS = 64;
const HIT_MESSAGES = 2_000;
const HITS = 20_000;
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const sections: Record<string, () => Promise<void>> = {
  async rewrite() {
    const small = emailHtml(30 * 1024, 20);
    const r = rewriteHtml(small, options());
    if (r.links.length !== 20) throw new Error(`expected 20 links, got ${r.links.length}`);
    figure("rewrite 30 KB, 20 links, clicks+opens", timeSync(() => rewriteHtml(small, options()), 500, 3000), `target < 0.2 ms; ${kb(small)}`);
    figure("rewrite 30 KB, opens only", timeSync(() => rewriteHtml(small, options({ clicks: false })), 500, 3000), "");
    figure("HTMLRewriter pass-through 30 KB (floor)", timeSync(() => new HTMLRewriter().transform(small), 500, 3000), "");

    const big = emailHtml(5 * 1024 * 1024, 10_000);
    const rb = rewriteHtml(big, options());
    if (rb.links.length !== 10_000) throw new Error(`expected 10,000 links, got ${rb.links.length}`);
    figure("rewrite 5 MB, 10,000 links, clicks+opens", timeSync(() => rewriteHtml(big, options()), 3, 30), kb(big));
  },

  async forms() {
    const html = emailHtml(30 * 1024, 20);
    const build = () =>
      new HTMLRewriter()
        .on("a", {
          element(el) {
            const h = el.getAttribute("href");
            if (h?.startsWith("https:")) el.setAttribute("href", "https://t.example/t/c/token");
          },
        })
        .on("body", {
          element(el) {
            el.onEndTag((end) => {
              end.before("<img src=x>", { html: true });
            });
          },
        });
    const reused = build();
    figure("transform(string), new rewriter per document", timeSync(() => build().transform(html), 500, 3000), "");
    figure("transform(string), one rewriter reused", timeSync(() => reused.transform(html), 500, 3000), "");
    figure("transform(Response).text(), new per document", await timeAsync(() => build().transform(new Response(html)).text(), 500, 3000), "");
    figure("transform(Response).text(), reused", await timeAsync(() => reused.transform(new Response(html)).text(), 500, 3000), "");
  },
};

/** Rows the hits section reads from the server's database, whichever engine. */
type BenchDb = { all<R>(sql: string): Promise<R[]>; run(sql: string): Promise<void>; close(): Promise<void> };

sections.hits = async () => {
  const engine = process.env.POSTHORN_BENCH_DATABASE ?? "sqlite";
  const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-tracking-"));
  const cluster = engine === "postgres" ? durablePostgres() : null;
  const env: Record<string, string> = { POSTHORN_DELIVERY: "sink" };
  let token: string;
  let domain: string;
  let db: BenchDb;
  if (cluster) {
    const url = await cluster.createDatabase();
    const pg = await preparePostgresDatabase(url);
    env.POSTHORN_DATABASE_URL = url;
    token = pg.boot.project_token;
    domain = pg.domain;
    await pg.sql.close();
    const sql = postgresClient(url, { max: 1 });
    db = { all: async (q) => (await sql.unsafe(q)) as never, run: async (q) => void (await sql.unsafe(q)), close: () => sql.close() };
  } else {
    const data = prepareDataDir(dir);
    token = data.projectToken;
    domain = data.domain;
    const sqlite = new Database(databasePath(dir));
    sqlite.run("PRAGMA busy_timeout = 10000");
    db = { all: async (q) => sqlite.query(q).all() as never, run: async (q) => void sqlite.run(q), close: async () => sqlite.close() };
  }
  const server = await spawnServer({ dataDir: dir, port: await freePort(), apiOnly: false, env });
  try {
    const base = server.url;
    // The tracked messages, sent as a client would, and delivered (to the sink mode) before any hit.
    const html = `<p>Your order is ready.</p><p><a href="https://shop.example/orders">Orders</a> · <a href="https://shop.example/help">Help</a> · <a href="https://shop.example/account?x=1&amp;y=2">Account</a></p>`;
    for (let sent = 0; sent < HIT_MESSAGES; sent += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => ({ from: `shop@${domain}`, to: [`user${sent + i}@dest.test`], subject: "Ready", html, track_opens: true, track_clicks: true }));
      const res = await fetch(`${base}/v1/send/batch`, { method: "POST", headers: { "content-type": "application/json", "x-service-token": token }, body: JSON.stringify(batch) });
      if (res.status !== 202) throw new Error(`batch: ${res.status} ${await res.text()}`);
    }
    const deadline = Date.now() + 60_000;
    let delivered = 0;
    while (Date.now() < deadline) {
      delivered = Number((await db.all<{ n: number }>("SELECT count(*) AS n FROM recipients WHERE status = 'delivered'"))[0]!.n);
      if (delivered >= HIT_MESSAGES) break;
      await Bun.sleep(100);
    }
    if (delivered < HIT_MESSAGES) throw new Error(`only ${delivered} of ${HIT_MESSAGES} delivered within 60 s`);
    // Delivered a minute ago, so the hits are not "seconds after delivery" (a machine's rule).
    await db.run("UPDATE message_events SET created_at = created_at - 60000 WHERE kind = 'message.delivered'");
    const secret = (await db.all<{ value: string }>("SELECT value FROM settings WHERE key = 'server_secret'"))[0]!.value;
    const targets = await db.all<{ id: string; message_id: string }>("SELECT id, message_id FROM recipients");
    const links = Number((await db.all<{ n: number }>("SELECT count(*) AS n FROM tracked_links"))[0]!.n);
    if (links !== 3 * HIT_MESSAGES) throw new Error(`expected ${3 * HIT_MESSAGES} tracked links, found ${links}`);
    // Hit i: recipient i mod N, in rounds over all recipients: open, click link 0, open, click
    // link 1. Two links per recipient, so the rounds (a fraction of a second apart here, where a
    // person takes seconds) never make the three-link burst of a scanner.
    const urlOf = (i: number) => {
      const r = targets[i % targets.length]!;
      const round = Math.floor(i / targets.length) % 4;
      const ids = { messageId: r.message_id, recipientId: r.id };
      return round % 2 === 0 ? `${base}/t/o/${trackingToken(secret, { kind: "open", ...ids })}` : `${base}/t/c/${trackingToken(secret, { kind: "click", ...ids, link: (round - 1) / 2 })}`;
    };
    const run = async (count: number, offset: number) => {
      const ms: number[] = [];
      let next = 0;
      let wrong = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: HIT_CLIENTS }, async () => {
          while (next < count) {
            const i = offset + next++;
            const t = performance.now();
            const res = await fetch(urlOf(i), { headers: { "user-agent": CHROME }, redirect: "manual" });
            await res.arrayBuffer();
            ms.push(performance.now() - t);
            if (res.status !== 200 && res.status !== 302) wrong++;
          }
        }),
      );
      return { secs: (performance.now() - t0) / 1000, ms, wrong };
    };
    await run(1_000, 0); // warm-up (its hits are recorded like the others)
    const cpu0 = server.cpuSeconds();
    const r = await run(HITS, 1_000);
    const cpu1 = server.cpuSeconds();
    const t = summarize(r.ms);
    const recorded = Number((await db.all<{ n: number }>("SELECT count(*) AS n FROM tracking_hits"))[0]!.n);
    const human = Number((await db.all<{ n: number }>("SELECT count(*) AS n FROM tracking_hits WHERE machine = 0"))[0]!.n);
    console.log(`  ${engine}, durable; ${HIT_CLIENTS} clients, ${t.n} hits (opens and clicks): ${(t.n / r.secs).toFixed(0)} hits/s   p50 ${t.median.toFixed(1)} ms   p99 ${t.p99.toFixed(1)} ms   not 200/302: ${r.wrong}   (target ≥ 5,000/s)`);
    const reasons = await db.all<{ machine_reason: string | null; n: number }>("SELECT machine_reason, count(*) AS n FROM tracking_hits GROUP BY machine_reason");
    console.log(`  verdicts: ${reasons.map((x) => `${x.machine_reason ?? "person"} ${x.n}`).join(", ")}`);
    console.log(`  recorded ${recorded} hits (warm-up included), ${human} judged people's; recipients opened/clicked: ${(await db.all<{ status: string; n: number }>("SELECT status, count(*) AS n FROM recipients GROUP BY status")).map((x) => `${x.status} ${x.n}`).join(", ")}`);
    if (cpu0 && cpu1) console.log(`  server CPU per hit: ${(((cpu1.process - cpu0.process) * 1000) / t.n).toFixed(3)} ms`);
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    await db.close();
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

async function main() {
  const deadline = setTimeout(() => {
    console.error(`tracking: deadline of ${DEADLINE_MS / 1000} s passed, aborting`);
    process.exit(1);
  }, DEADLINE_MS);
  const wanted = process.argv.slice(2);
  for (const name of wanted) if (!(name in sections)) throw new Error(`no section "${name}"; sections: ${Object.keys(sections).join(", ")}`);
  console.log(`tracking bench: Bun ${Bun.version}`);
  for (const [name, run] of Object.entries(sections)) {
    if (wanted.length && !wanted.includes(name)) continue;
    console.log(`[${name}]`);
    await run();
  }
  clearTimeout(deadline);
}

// --- measuring and printing ------------------------------------------------------------------

type Timing = { median: number; p99: number; n: number };

function summarize(ms: number[]): Timing {
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p99: ms[Math.min(ms.length - 1, Math.ceil(ms.length * 0.99) - 1)]!, n: ms.length };
}

function timeSync(f: () => unknown, warmup: number, n: number): Timing {
  for (let i = 0; i < warmup; i++) f();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

async function timeAsync(f: () => Promise<unknown>, warmup: number, n: number): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await f();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

function figure(name: string, t: Timing, note: string) {
  const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
  console.log(`  ${name.padEnd(48)} median ${fmt(t.median).padStart(9)}  p99 ${fmt(t.p99).padStart(9)}  (n=${t.n})${note ? `  ${note}` : ""}`);
}

const kb = (s: string) => `${(Buffer.byteLength(s) / 1024).toFixed(0)} KiB of HTML`;

// --- the documents ---------------------------------------------------------------------------

function options(over: Partial<RewriteOptions> = {}): RewriteOptions {
  return {
    clicks: true,
    opens: true,
    clickUrl: (i) => `https://track.posthorn.example/t/c/AZ3kLq9xT0mWv2Yc8RbN-${i}`,
    openUrl: "https://track.posthorn.example/t/o/AZ3kLq9xT0mWv2Yc8RbN",
    unsubscribeUrl: "https://news.example.com/unsubscribe?u=8f3a2c&list=weekly",
    ...over,
  };
}

/** A newsletter-shaped HTML (tables, inline styles, utm parameters) of about `bytes` with `links` http(s) links, plus a mailto and the unsubscribe link. */
function emailHtml(bytes: number, links: number): string {
  const head = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Weekly</title><style>body{margin:0}td{font-family:Arial,sans-serif}</style></head><body style="margin:0;padding:0;background:#f4f4f4"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td align="center"><table role="presentation" width="600" style="background:#fff">`;
  const tail = `<tr><td style="padding:24px;font-size:12px;color:#777">Questions? <a href="mailto:hello@news.example.com">hello@news.example.com</a> · <a href="https://news.example.com/unsubscribe?u=8f3a2c&amp;list=weekly">Unsubscribe</a></td></tr></table></td></tr></table></body></html>`;
  const para = `<p style="margin:0 0 12px;font-size:15px;line-height:22px;color:#333">Lorem ipsum dolor sit amet, consectetur <strong>adipiscing</strong> elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>\n`;
  const link = (i: number) =>
    `<tr><td style="padding:16px 24px"><a href="https://shop.example.com/products/${i}?utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=weekly-42#details" style="color:#0a66c2;text-decoration:none;font-weight:bold">Product ${i}</a>\n`;
  // Paragraphs spread evenly between the links, enough to reach `bytes`.
  const paras = Math.max(0, Math.round((bytes - head.length - tail.length - links * (link(0).length + 10)) / para.length));
  const parts = [head];
  for (let i = 0; i < links; i++) {
    parts.push(link(i));
    const n = Math.floor((paras * (i + 1)) / links) - Math.floor((paras * i) / links);
    for (let j = 0; j < n; j++) parts.push(para);
    parts.push("</td></tr>");
  }
  parts.push(tail);
  return parts.join("");
}

await main();
