// The dashboard's figures: the size of its first load (JavaScript + CSS, gzipped), and, in Debian's
// Chromium (playwright-core), how long the messages view takes to show its first page and the
// overview its 28-day figures over a large history (default 1,000,000 messages, seeded into a
// temp SQLite file as scripts/bench/messages-list.ts does, with an open on every 7th message and
// a click on every 14th), measured in the page from the moment each is asked for and from the
// sign-in click.
// Usage: bun scripts/bench/dashboard.ts [messages] [repeats]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { createApp } from "../../src/app.ts";
import { addBootstrapTeam } from "../../src/bootstrap.ts";
import { loadConfig } from "../../src/config.ts";
import { dashboardAssetFiles } from "../../src/http/dashboard.ts";
import { createDeps } from "../../src/runtime.ts";
import { sqliteOf } from "../../test/support/test-database.ts";

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const REPEATS = Number(process.argv[3] ?? 7);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

// --- first load ---------------------------------------------------------------------------------
const files = dashboardAssetFiles();
const sizes = [
  ["page (HTML)", files.page],
  ["app.js", files.js],
  ["app.css", files.css],
].map(([name, text]) => ({ name: name!, raw: Buffer.byteLength(text!), gzip: Bun.gzipSync(Buffer.from(text!), { level: 9 }).length }));
console.log("first load (what / fetches):");
for (const s of sizes) console.log(`  ${s.name.padEnd(12)} ${kb(s.raw).padStart(9)} raw  ${kb(s.gzip).padStart(8)} gzipped`);
const jsCss = sizes.filter((s) => s.name !== "page (HTML)").reduce((n, s) => n + s.gzip, 0);
console.log(`  JS + CSS gzipped: ${kb(jsCss)} (budget 150 KB)`);

const chromiumPath = Bun.which("chromium");
if (!chromiumPath) {
  console.log("no chromium: skipping the render timing");
  process.exit(0);
}

// --- a large history ------------------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), "posthorn-bench-dashboard-"));
const config = loadConfig({ POSTHORN_DATA_DIR: dir, POSTHORN_LOG_LEVEL: "silent", POSTHORN_HOSTNAME: "mx.bench.test", POSTHORN_DNS_SERVERS: "127.0.0.1:1" });
const deps = createDeps(config);
const boot = await addBootstrapTeam(deps.store, { teamName: "Bench", inboundDomain: config.inboundDomain, ownerEmail: "bench@example.com", ownerPassword: true });
const sqlite = sqliteOf(deps);
const routes = sqlite.query<{ id: string; route_type: string }, [string]>("SELECT id, route_type FROM routes WHERE project_id = ?").all(boot.project_id);
const seedStart = performance.now();
sqlite.exec("PRAGMA synchronous = OFF"); // seeding only
const insertRecipient = sqlite.prepare(
  `INSERT INTO recipients (id, message_id, email, kind, status, status_changed_at, attempts, last_response, created_at) VALUES (?, ?, ?, 'to', 'opened', ?, 1, NULL, ?)`,
);
const insertHit = sqlite.prepare(
  `INSERT INTO tracking_hits (id, message_id, recipient_id, kind, link_index, ip, user_agent, machine, machine_reason, created_at, route_id, message_created_at)
   VALUES (?, ?, ?, ?, ?, '127.0.0.1', 'bench', ?, NULL, ?, ?, ?)`,
);
const insert = sqlite.prepare(
  `INSERT INTO messages (id, team_id, project_id, route_id, domain_id, type, status, status_changed_at, tag, from_email, from_name, subject,
     "to", cc, bcc, reply_to, metadata, spam_score, spam_symbols, created_at, updated_at)
   VALUES (?, ?, ?, ?, NULL, ?, ?, ?, NULL, ?, 'Sender', ?, ?, '[]', '[]', '[]', '{}', NULL, NULL, ?, ?)`,
);
const STATUSES = ["delivered", "delivered", "delivered", "opened", "soft_bounced", "hard_bounced", "queued"];
const now = Date.now();
const from0 = now - 90 * 86_400_000;
sqlite.transaction(() => {
  for (let i = 0; i < TOTAL; i++) {
    const created = Math.floor(from0 + (i / TOTAL) * (now - from0 - 60_000));
    const route = routes[i % routes.length]!;
    const inbound = route.route_type === "inbound";
    const id = Bun.randomUUIDv7("hex", created);
    const status = inbound ? "delivered" : STATUSES[i % STATUSES.length]!;
    insert.run(
      id,
      boot.team_id,
      boot.project_id,
      route.id,
      inbound ? "inbound" : "outbound",
      status,
      created + 2000,
      `sender${i % 400}@mail.example.com`,
      `Your receipt #${i}`,
      `[{"email":"rcpt${i % 5000}@example.org","name":""}]`,
      created,
      created,
    );
    if (status === "opened") {
      // An open (every third one a machine's), and a click on every other opened message.
      const recipient = Bun.randomUUIDv7("hex", created);
      insertRecipient.run(recipient, id, `rcpt${i % 5000}@example.org`, created + 2000, created);
      insertHit.run(Bun.randomUUIDv7("hex", created + 60_000), id, recipient, "open", null, i % 3 === 0 ? 1 : 0, created + 60_000, route.id, created);
      if (i % 2 === 0) insertHit.run(Bun.randomUUIDv7("hex", created + 90_000), id, recipient, "click", 0, 0, created + 90_000, route.id, created);
    }
  }
})();
sqlite.exec("PRAGMA synchronous = FULL");
sqlite.exec("ANALYZE");
console.log(`\nseeded ${TOTAL.toLocaleString()} messages in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

// --- in the browser -------------------------------------------------------------------------------
const server = createApp(deps).listen({ hostname: "127.0.0.1", port: 0 });
const base = `http://127.0.0.1:${server.server!.port}`;
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(60_000);
  /** ms from now (in the page) until `selector` shows once `hash` is asked for (page code as text: this project has no DOM types). */
  const shownAfter = (hash: string, selector: string) =>
    page.evaluate<number>(`new Promise((resolve) => {
      const start = performance.now();
      new MutationObserver((_, observer) => {
        if (document.querySelector(${JSON.stringify(selector)})) {
          observer.disconnect();
          resolve(performance.now() - start);
        }
      }).observe(document.body, { childList: true, subtree: true });
      location.hash = ${JSON.stringify(hash)};
    })`);
  const messagesShown = () => shownAfter("#/messages", "table.messages tbody tr a");
  const overviewShown = () => shownAfter("#/", "[data-figure=sent]");

  // Signed in on the sign-in page; then the messages view is asked for.
  await page.goto(`${base}/`);
  await page.getByLabel("Email").fill("bench@example.com");
  await page.getByLabel("Password").fill(boot.owner_password!);
  const signInStart = Date.now();
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator(".who").waitFor();
  const signInMs = Date.now() - signInStart;
  const overviewStart = Date.now();
  await page.locator("[data-figure=sent]").waitFor();
  const overviewMs = Date.now() - overviewStart;

  const times: number[] = [];
  const overviewTimes: number[] = [];
  let rows = 0;
  for (let i = 0; i < REPEATS; i++) {
    await page.evaluate(`location.hash = "#/suppressions"`);
    await page.locator("main section").first().waitFor();
    times.push(await messagesShown());
    rows = await page.locator("table.messages tbody tr").count();
    await page.evaluate(`location.hash = "#/suppressions"`);
    await page.locator("main section").first().waitFor();
    overviewTimes.push(await overviewShown());
  }
  times.sort((a, b) => a - b);
  overviewTimes.sort((a, b) => a - b);
  const sentShown = await (async () => {
    await page.evaluate(`location.hash = "#/"`);
    return page.locator("[data-figure=sent]").textContent();
  })();

  /** Signed out, then signed in straight onto `hash`: from the click until `selector` shows, and the sign-in's own part. */
  const fromSignIn = async (hash: string, selector: string) => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.goto(`${base}/${hash}`);
    await page.getByLabel("Email").fill("bench@example.com");
    await page.getByLabel("Password").fill(boot.owner_password!);
    return page.evaluate<{ total: number; signIn: number }>(`new Promise((resolve) => {
      const start = performance.now();
      new MutationObserver((_, observer) => {
        if (document.querySelector(${JSON.stringify(selector)})) {
          observer.disconnect();
          const total = performance.now() - start;
          const post = performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/v1/auth/sign-in")).pop();
          resolve({ total, signIn: post.responseEnd - start });
        }
      }).observe(document.body, { childList: true, subtree: true });
      document.querySelector("button[type=submit]").click();
    })`);
  };
  const messagesFromSignIn = await fromSignIn("#/messages", "table.messages tbody tr a");
  const overviewFromSignIn = await fromSignIn("#/", "[data-figure=sent]");
  const afterSignIn = (what: string, t: { total: number; signIn: number }) =>
    `  sign-in click → ${what}, in the page's clock: ${t.total.toFixed(0)} ms = sign-in answered (Argon2id check) ${t.signIn.toFixed(0)} ms + ${(t.total - t.signIn).toFixed(0)} ms after it`;
  console.log(`\nin Chromium, ${TOTAL.toLocaleString()} messages in the team's history:`);
  // The server runs in this process: its synchronous SQLite work (the overview's statistics) also delays the Playwright client, so these two include it.
  console.log(`  sign-in until the shell and overview figures show (Playwright's clock): ${signInMs + overviewMs} ms`);
  console.log(afterSignIn("messages view's first page", messagesFromSignIn));
  console.log(afterSignIn(`overview's 28-day figures (${sentShown} sent)`, overviewFromSignIn));
  const spread = (t: number[]) => `median ${t[t.length >> 1]!.toFixed(0)} ms, min ${t[0]!.toFixed(0)} ms, max ${t[t.length - 1]!.toFixed(0)} ms (budget 300 ms)`;
  console.log(`  messages view, first page (${rows} rows) after it is asked for, ${REPEATS} runs: ${spread(times)}`);
  console.log(`  overview, 28-day figures of every route after it is asked for, ${REPEATS} runs: ${spread(overviewTimes)}`);
} finally {
  await browser.close();
  await server.stop();
  await deps.store.close();
  rmSync(dir, { recursive: true, force: true });
}
