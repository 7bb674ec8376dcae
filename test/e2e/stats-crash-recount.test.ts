// The statistics rollups survive a real crash: the server runs as a subprocess (bun src/main.ts
// serve, on the test engine: SQLite, or PostgreSQL under POSTHORN_TEST_ENGINE=postgres) and gets
// a randomized run over real sockets: sends through the HTTP API (transactional and broadcast,
// tags, tracking on and off) to a loopback MX that answers 250, 4xx (retried: POST /v1/queue/retry
// makes them due now) or 5xx (hard bounces), suppressed addresses, opens and clicks from people,
// privacy proxies and machines (and link bursts that re-judge clicks), ARF complaints to the VERP
// address on the server's own MX, one-click unsubscribes, cancelled deliveries, inbound mail to the
// inbound route, and a webhook
// receiver that fails at random, its failed deliveries redelivered through the API. Mid-run, with
// sends, hits and complaints in flight, the server is SIGKILLed; it is started again on the same
// data and ports, and the run finishes and drains. Then every counter of every rollup table equals,
// key by key, a recount from message_events, tracking_hits and the messages' rows
// (test/support/stats-recount.ts). The run is seeded (STATS_CRASH_SEED replays the choices; the
// timing of the crash is the machine's): the seed is printed.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, rmSync } from "node:fs";
import { simpleParser } from "mailparser";
import { databasePath } from "../../src/db/connection.ts";
import { dkimRecordContent } from "../../src/dns/dkim-key.ts";
import { tempDir, waitFor } from "../helpers.ts";
import { startSink, type ReceivedMail } from "../send/harness.ts";
import { sendRaw } from "../smtp/support.ts";
import { startDnsServer } from "../support/dns-server.ts";
import { testPostgres } from "../support/postgres.ts";
import { diffRollups, recountRollups, seededRandom, storedRollups, totalsOf, type RecountDb, RUN_DOMAINS, RUN_FAMILY, RUN_USER_AGENTS } from "../support/stats-recount.ts";
import { engine } from "../support/test-database.ts";
import { makeTestCert, startReceiver } from "../webhooks/support.ts";
import { freePort, preparePostgresDatabase, prepareDataDir, smtpAgentsOf, spawnServer, type ServerProcess } from "./fixtures/outbound-server.ts";

const SEED = Number(process.env.STATS_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

const UA = RUN_USER_AGENTS;
const DOMAINS = RUN_DOMAINS;
const FAMILY = RUN_FAMILY;
/** Each address's fate at the MX: ok; soft1/soft2 refused that many times with a 4xx, then taken; stuck always 4xx (its message cancelled after two); hard 5xx; gone suppressed before the run. */
const FATES = ["ok", "ok", "ok", "ok", "soft1", "soft2", "hard", "stuck", "gone"] as const;
type Fate = (typeof FATES)[number];
const UNFINISHED = "('pending', 'queued', 'processed', 'soft_bounced', 'scheduled')";

const live: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const s of live) s.proc.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** An RFC 5965 abuse report about `recipient`, as a mailbox provider's feedback loop sends it to the VERP address. */
const arf = (verp: string, recipient: string, n: number) =>
  [
    "From: Feedback Loop <fbl@isp.example>",
    `To: ${verp}`,
    "Subject: Abuse report",
    `Message-ID: <arf-${n}@isp.example>`,
    "Date: Mon, 7 Dec 2026 01:00:00 +0000",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
    "",
    "--ARF",
    "Content-Type: text/plain",
    "",
    "This is an email abuse report.",
    "",
    "--ARF",
    "Content-Type: message/feedback-report",
    "",
    "Feedback-Type: abuse",
    "User-Agent: ExampleFBL/1.0",
    "Version: 1",
    `Original-Mail-From: <${verp}>`,
    `Original-Rcpt-To: <${recipient}>`,
    "Source-IP: 192.0.2.1",
    "",
    "--ARF",
    "Content-Type: message/rfc822",
    "",
    "From: app@sender.test",
    `To: ${recipient}`,
    "Subject: Run",
    "",
    "Hello",
    "--ARF--",
    "",
  ].join("\r\n");

test(
  `SIGKILL mid-run (${engine}): after a randomized run with retries, bounces, complaints, machine hits and webhook redeliveries, every rollup table equals the recount`,
  async () => {
    const rand = seededRandom(SEED);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    console.log(`stats crash recount (${engine}): seed ${SEED} (STATS_CRASH_SEED=${SEED} replays the choices)`);

    const dir = tempDir("posthorn-stats-crash-");
    dirs.push(dir);
    const dns = await startDnsServer();
    const sink = await startSink();
    sink.dataDelayMs = 2;
    sink.dataDelayJitterMs = 10;
    const cert = makeTestCert(["hooks.example.test"]);
    const receivers = [startReceiver(cert), startReceiver(cert)];
    for (const d of DOMAINS) dns.set(d, "MX", [{ exchange: "mx.sink.test", priority: 10 }]);
    dns.set("mx.sink.test", "A", ["127.0.0.1"]);
    dns.set("hooks.example.test", "A", ["127.0.0.1"]);

    // The data: a team with an active sending domain, on the test engine.
    const httpPort = await freePort();
    const smtpPort = await freePort();
    const env: Record<string, string> = {
      POSTHORN_DELIVERY: "direct",
      POSTHORN_MX_PORT: String(sink.port),
      POSTHORN_DNS_SERVERS: dns.server,
      POSTHORN_SMTP_HOST: "127.0.0.1",
      POSTHORN_SMTP_PORT: String(smtpPort),
      POSTHORN_INBOUND_DOMAIN: "inbound.posthorn.test",
      POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
      NODE_EXTRA_CA_CERTS: cert.caPath,
    };
    let db: RecountDb;
    let teamToken: string;
    let projectToken: string;
    let projectId: string;
    let closeDb: () => Promise<void>;
    if (engine === "sqlite") {
      const data = prepareDataDir(dir);
      dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
      ({ teamToken, projectToken, projectId } = data);
      let sqlite: Database | null = null;
      const open = () => (sqlite ??= new Database(databasePath(dir), { readonly: true }));
      db = { all: async <T>(q: string) => open().query(q).all() as T[] };
      closeDb = async () => sqlite?.close();
    } else {
      const url = await (await testPostgres()).createDatabase();
      const data = await preparePostgresDatabase(url);
      dns.set(`ph1._domainkey.${data.domain}`, "TXT", [dkimRecordContent(data.publicKeyBase64)]);
      env.POSTHORN_DATABASE_URL = url;
      teamToken = data.boot.team_token;
      projectToken = data.boot.project_token;
      projectId = data.boot.project_id;
      db = { all: async <T>(q: string) => (await data.sql.unsafe(q)) as unknown as T[] };
      closeDb = () => data.sql.close();
    }
    const count = async (q: string) => Number((await db.all<{ n: number | string }>(q))[0]!.n);

    let server = await spawnServer({ dataDir: dir, port: httpPort, env });
    live.push(server);
    const started = Date.now();
    const base = server.url;
    const team = { authorization: `Bearer ${teamToken}`, "content-type": "application/json" };
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: team, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: (await res.json().catch(() => null)) as any };
    };

    // A broadcast route beside the bootstrap's transactional one (its mail carries one-click unsubscribe links), a webhook on each.
    const routes = (await api("GET", `/v1/projects/${projectId}/routes`)).json.data as { id: string; route_type: string; inbound_address: string | null }[];
    const transactional = routes.find((r) => r.route_type === "transactional")!.id;
    const inboundAddress = routes.find((r) => r.route_type === "inbound")!.inbound_address!;
    // Mail to the inbound route through the server's MX: counted as received when its job finishes.
    let inboundSent = 0;
    const receive = () => {
      const n = ++inboundSent;
      return sendRaw(smtpPort, { from: `someone${n}@outside.test`, to: [inboundAddress] }, `From: someone${n}@outside.test\r\nTo: ${inboundAddress}\r\nSubject: hello ${n}\r\nMessage-ID: <in-${n}@outside.test>\r\n\r\nHello\r\n`);
    };
    const inboundPending = () => count("SELECT count(*) AS n FROM messages WHERE type = 'inbound' AND status = 'pending'");
    const news = await api("POST", `/v1/projects/${projectId}/routes`, { name: "News", route_type: "broadcast", slug: "news" });
    expect(news.status).toBe(201);
    const hookEvents = ["message.delivered", "message.bounced", "message.hard_bounced", "message.spam_complaint", "message.opened", "message.clicked", "message.unsubscribed"];
    const hooks: string[] = [];
    // Each receiver fails a third of the deliveries (as a busy customer endpoint does); those are redelivered through the API.
    const hookRand = seededRandom(SEED ^ 0x5eed);
    for (const [route, receiver] of [
      [transactional, receivers[0]!],
      [news.json.data.id as string, receivers[1]!],
    ] as const) {
      const hook = await api("POST", "/v1/webhooks", { route_id: route, name: `stats ${route}`, url: receiver.url(), events: hookEvents });
      expect(hook.status).toBe(201);
      receiver.secret = hook.json.data.secret;
      receiver.respond = () => (hookRand() < 0.33 ? new Response("busy", { status: 503 }) : new Response("ok"));
      hooks.push(hook.json.data.id);
    }

    // The MX's answers by each address's fate.
    const fates = new Map<string, Fate>();
    const refusals = new Map<string, number>();
    sink.onRcpt = (address) => {
      const fate = fates.get(address.toLowerCase()) ?? "ok";
      if (fate === "hard") return { code: 550, message: pick(["5.1.1 No such user", "5.2.2 Mailbox full", "5.7.1 Blocked as spam"]) };
      if (fate === "stuck" || fate.startsWith("soft")) {
        const n = refusals.get(address) ?? 0;
        refusals.set(address, n + 1);
        if (fate === "stuck" || n < Number(fate.slice(4))) return { code: 451, message: "4.3.0 Temporary server error" };
      }
      return null;
    };
    const gone = ["gone1@dest.test", "gone2@gmail.com"];
    for (const g of gone) fates.set(g, "gone");
    expect((await api("POST", "/v1/suppressions", { reason: "manual", scope: "team", emails: gone })).status).toBeLessThan(300);

    // Sends through the API: each a few recipients of random fates, some on the broadcast route, some tagged.
    let sent = 0;
    const sendOne = async () => {
      const i = sent++;
      const to = Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, j) => {
        // The first messages take each fate once, so that every kind of event happens in every run.
        const fate: Fate = i < FATES.length && j === 0 ? FATES[i]! : pick(FATES);
        const address = fate === "gone" ? pick(gone) : `${fate}${i}x${j}@${pick(DOMAINS)}`;
        fates.set(address, fate);
        return address;
      });
      const body = {
        from: "app@sender.test",
        to: [...new Set(to)],
        subject: `Run ${i}`,
        html: '<p><a href="https://a.example/1">1</a> <a href="https://a.example/2">2</a> <a href="https://a.example/3">3</a></p>',
        tag: pick(["welcome", "receipt", null]),
        tags: rand() < 0.5 ? [{ name: "campaign", value: pick(["spring", "fall"]) }] : null,
        route: i % 3 === 2 ? "news" : null,
        settings: { track_opens: rand() < 0.8, track_clicks: rand() < 0.8 },
      };
      const res = await fetch(`${base}/v1/send`, { method: "POST", headers: { "x-service-token": projectToken, "content-type": "application/json" }, body: JSON.stringify(body) });
      if (res.status !== 202) throw new Error(`send answered ${res.status}: ${await res.text()}`);
    };

    // Engagement with the mail the MX took: opens and clicks by people, proxies and machines,
    // link bursts, complaints to the VERP address, unsubscribes. Each received copy once, in order.
    let seen = 0;
    let complaints = 0;
    const inFlight = new Set<Promise<unknown>>();
    const failedAtKill = { n: 0 };
    const track = (p: Promise<unknown>) => {
      const q = p.catch(() => void failedAtKill.n++).finally(() => inFlight.delete(q));
      inFlight.add(q);
    };
    const answers = new Map<number, number>();
    const answered = (r: Response) => {
      answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
      return r.arrayBuffer();
    };
    const hit = (url: string, ua: string) => fetch(url, { headers: { "user-agent": ua }, redirect: "manual" }).then(answered);
    // People take their time: a hit within 10 s of the 250 is a machine's (src/modules/tracking/classify.ts), so
    // people's opens and clicks (and link bursts, which re-judge a person's clicks) come 10.5 s after it. Only
    // the copies taken before the crash get them, so that the run need not wait 10 s after the last copy.
    let people = true;
    const forced = { opens: 3, clicks: 3, unsubscribes: 1 };
    const at = (when: number, run: () => Promise<unknown>) => async () => {
      await Bun.sleep(Math.max(0, when - Date.now()));
      return run();
    };
    const engage = async (mail: ReceivedMail) => {
      const parsed = await simpleParser(mail.raw);
      const html = typeof parsed.html === "string" ? parsed.html : "";
      const opens = [...html.matchAll(/"(http:\/\/127\.0\.0\.1:\d+\/t\/o\/[^"]+)"/g)].map((m) => m[1]!);
      const clicks = [...new Set([...html.matchAll(/"(http:\/\/127\.0\.0\.1:\d+\/t\/c\/[^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&")))];
      const later = mail.at + 10_500;
      const actions: (() => Promise<unknown>)[] = [];
      const who = () => pick(people ? (["human", "human", "privacy", "machine"] as const) : (["privacy", "machine"] as const));
      for (const url of opens) {
        // The first few copies of the run get a person's open whatever the dice say: every run has some.
        if (people && forced.opens-- > 0) actions.push(at(later, () => hit(url, UA.human)));
        for (let k = Math.floor(rand() * 4); k > 0; k--) {
          const ua = who();
          actions.push(ua === "human" ? at(later, () => hit(url, UA.human)) : () => hit(url, UA[ua]));
        }
      }
      if (clicks.length > 0 && (rand() < 0.6 || (people && forced.clicks > 0))) {
        // A burst: three links within the second by a "person", which re-judges them as a scanner's.
        if (people && rand() < 0.3) actions.push(at(later, async () => { for (const url of clicks.slice(0, 3)) await hit(url, UA.human); }));
        else {
          const ua = people ? (forced.clicks-- > 0 ? "human" : pick(["human", "machine"] as const)) : "machine";
          const url = pick(clicks);
          actions.push(ua === "human" ? at(later, () => hit(url, UA.human)) : () => hit(url, UA[ua]));
        }
      }
      // One-click unsubscribe (broadcast mail) and complaints, a moment after the 250 is on record.
      const unsubscribe = /^List-Unsubscribe:\s*<([^>]+)>/im.exec(mail.raw.toString("latin1"))?.[1];
      const roll = rand();
      if (roll < 0.12 || (complaints === 0 && seen > 5)) {
        const n = ++complaints;
        actions.push(at(mail.at + 1000, () => sendRaw(smtpPort, { from: "", to: [mail.from] }, arf(mail.from, mail.to[0]!, n))));
      } else if (unsubscribe && (roll < 0.4 || forced.unsubscribes-- > 0)) {
        actions.push(at(mail.at + 1000, () => fetch(unsubscribe, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" }).then(answered)));
      }
      for (const a of actions) track(a());
    };
    const engageNew = async () => {
      while (seen < sink.received.length) await engage(sink.received[seen++]!);
    };

    // Phase 1: 30 messages, engagement as they arrive; 3 inbound, finished before the crash (a job
    // under way at a SIGKILL waits out its 5-minute lease).
    for (let i = 0; i < 3; i++) await receive();
    for (let i = 0; i < 30; i++) await sendOne();
    await waitFor(async () => (await inboundPending()) === 0, 20_000, 50);
    await waitFor(async () => {
      await engageNew();
      return sink.received.length >= 15;
    }, 20_000, 20);

    // The crash: 10 sends, and as soon as one is answered (the server is committing sends) a stream
    // of sends, one every millisecond or so, and the engagement of everything received so far; then
    // SIGKILL 0-15 ms later: some sends are answered, the last ones are under way (committed without
    // their answer, or lost), and so are hits and complaints. A fixed second batch of 10 could all be
    // answered within those milliseconds on a quiet machine (the clean-clone CI saw 20 of 20, twice),
    // and the kill then cut nothing short; a stream always has a send in flight.
    let answeredBeforeKill = 0;
    let firstAnswer: () => void = () => {};
    const answeredOne = new Promise<void>((resolve) => (firstAnswer = resolve));
    const burstSend = () =>
      sendOne().then(
        () => {
          answeredBeforeKill++;
          firstAnswer();
        },
        () => void failedAtKill.n++,
      );
    const burst = Array.from({ length: 10 }, burstSend);
    const agents = smtpAgentsOf(server.proc.pid);
    await Promise.race([answeredOne, Bun.sleep(3000)]);
    let streaming = true;
    const stream = (async () => {
      for (let i = 0; i < 200 && streaming; i++) {
        burst.push(burstSend());
        await Bun.sleep(1);
      }
    })();
    // Not awaited before the kill: waiting for every hit to be answered first let the sends finish
    // too.
    const engaging = engageNew();
    await Bun.sleep(5 + Math.floor(rand() * 15));
    people = false;
    // The stream stops first, so that no send of it meets a dead server (refused, not cut short).
    streaming = false;
    server.proc.kill("SIGKILL");
    await server.proc.exited;
    await stream;
    live.splice(live.indexOf(server), 1);
    const receivedAtKill = sink.received.length;
    const killedAt = Date.now();
    await Promise.all([...burst, engaging]);
    const cutShort = failedAtKill.n;
    // Its orphaned SMTP agent records what it knows and exits by itself.
    await waitFor(() => agents.every((a) => !existsSync(`/proc/${a}`)), 6_000, 10);

    // Restart on the same data and ports (the tracking and unsubscribe links name them), and finish the run.
    server = await spawnServer({ dataDir: dir, port: httpPort, env });
    live.push(server);
    const restartedAt = Date.now();
    for (let i = 0; i < 20; i++) await sendOne();
    for (let i = 0; i < 3; i++) await receive();
    // Drain: retries made due now, the engagement of each new copy; a message whose "stuck" address has been
    // refused twice is cancelled (its remaining recipients fail).
    await waitFor(async () => {
      await engageNew();
      for (const m of await db.all<{ message_id: string }>("SELECT DISTINCT message_id FROM recipients WHERE status = 'soft_bounced' AND email LIKE 'stuck%' AND attempts >= 2")) {
        expect((await api("POST", `/v1/messages/${m.message_id}/cancel-delivery`)).status).toBe(200);
      }
      if ((await count(`SELECT count(*) AS n FROM recipients WHERE status IN ${UNFINISHED}`)) === 0 && (await inboundPending()) === 0) return true;
      await api("POST", "/v1/queue/retry");
      await Bun.sleep(150);
      return false;
    }, 40_000, 50);
    await engageNew();
    await Promise.all([...inFlight]);

    // A complaint and an unsubscribe in every run: those of the dice may all have fallen while the server was down.
    const happened = (status: string) => count(`SELECT count(*) AS n FROM message_events WHERE status = '${status}'`);
    if ((await happened("spam_complaint")) === 0) {
      const m = sink.received[0]!;
      await sendRaw(smtpPort, { from: "", to: [m.from] }, arf(m.from, m.to[0]!, ++complaints));
    }
    if ((await happened("unsubscribed")) === 0) {
      const reached = new Set((await db.all<{ email: string }>("SELECT email FROM recipients WHERE status IN ('delivered', 'opened', 'clicked')")).map((r) => r.email));
      const url = sink.received
        .filter((m) => reached.has(m.to[0]!))
        .map((m) => /^List-Unsubscribe:\s*<([^>]+)>/im.exec(m.raw.toString("latin1"))?.[1])
        .find((u) => u !== undefined)!;
      expect((await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" })).status).toBe(200);
    }
    const drainedAt = Date.now();
    // Webhook redeliveries: every failed delivery attempt redelivered once through the API.
    let redelivered = 0;
    for (const id of hooks) {
      const failed = (await api("GET", `/v1/webhooks/${id}/deliveries?filter[outcome]=failed&page[size]=100`)).json.data as { id: string }[];
      for (const d of failed.slice(0, 10)) {
        const r = await api("POST", `/v1/webhooks/${id}/deliveries/${d.id}/redeliver`);
        expect(r.status).toBe(200);
        redelivered++;
      }
    }

    // Stopped cleanly: nothing is written while the tables are read.
    server.proc.kill("SIGTERM");
    await server.proc.exited;
    live.splice(live.indexOf(server), 1);

    const family = (email: string) => FAMILY[email.split("@")[1]!] ?? "other";
    const recounted = await recountRollups(db, { family });
    const stored = await storedRollups(db);
    const totals = totalsOf(recounted, "stat_days");
    const accepted = totalsOf(recounted, "stat_accepts");
    const posts = receivers.flatMap((r) => r.deliveries);
    const retries = posts.filter((d) => d.attempt > 1).length;
    console.log(
      `stats crash recount (${engine}, seed ${SEED}): ${accepted.accepted} messages / ${accepted.recipients} recipients accepted, SIGKILL ${((killedAt - started) / 1000).toFixed(1)} s in with ${receivedAtKill} copies at the MX and ${cutShort} requests cut short (${answeredBeforeKill} of the ${burst.length} burst sends answered), serving again ${((restartedAt - killedAt) / 1000).toFixed(1)} s later, drained ${((drainedAt - restartedAt) / 1000).toFixed(1)} s after that; ` +
        `sent ${totals.sent}, retried ${totals.retried ?? 0}, delivered ${totals.delivered}, soft ${totals.soft_bounced ?? 0}, hard ${totals.hard_bounced ?? 0}, failed ${totals.failed ?? 0}, suppressed ${totals.suppressed ?? 0}, ` +
        `complaints ${totals.complained ?? 0}, unsubscribes ${totals.unsubscribed ?? 0}, opens h/p/m ${totals.opens_human ?? 0}/${totals.opens_privacy ?? 0}/${totals.opens_machine ?? 0}, ` +
        `clicks h/m ${totals.clicks_human ?? 0}/${totals.clicks_machine ?? 0}, inbound ${totals.inbound_received ?? 0}; hits and unsubscribes answered ${JSON.stringify(Object.fromEntries(answers))}, ${failedAtKill.n - cutShort} refused later; webhook posts ${posts.length} (${redelivered} redelivered by hand, ${retries} attempts > 1); ` +
        `rows: ${Object.entries(stored).map(([t, m]) => `${t} ${m.size}`).join(", ")}`,
    );
    // The run had every kind of event, and the crash cut work short.
    for (const c of ["sent", "retried", "delivered", "soft_bounced", "hard_bounced", "failed", "suppressed", "complained", "unsubscribed", "opens_human", "opens_privacy", "opens_machine", "clicks_human", "clicks_machine", "inbound_received"]) {
      expect(`${c}: ${(totals[c] ?? 0) > 0}`).toBe(`${c}: true`);
    }
    expect(cutShort).toBeGreaterThan(0);
    expect(redelivered).toBeGreaterThan(0);
    expect(retries).toBeGreaterThan(0);
    // Every counter of every rollup table equals the recount.
    expect(diffRollups(stored, recounted)).toEqual([]);

    await closeDb();
    await sink.close();
    await dns.close();
    for (const r of receivers) await r.stop();
  },
  90_000,
);
