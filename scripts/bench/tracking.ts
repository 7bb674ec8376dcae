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
// A section is an async function in `sections`; add one there and it runs by name.
import { rewriteHtml, type RewriteOptions } from "../../src/mail/tracking-rewrite.ts";

const DEADLINE_MS = 120_000;

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
