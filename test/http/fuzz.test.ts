/**
 * An HTTP fuzzer over every operation of /openapi/json, against the real server on a loopback
 * port, plus focused regressions for the findings of the security review.
 *
 *   bun test test/http/fuzz.test.ts
 *   FUZZ_SEED=123 FUZZ_REQUESTS=20000 bun test test/http/fuzz.test.ts   # another or longer run
 *   FUZZ_VERBOSE=1 …                                                     # statuses per kind and per operation
 *
 * The server runs in a child process (test/support/fuzz-server-child.ts), so an error escaping
 * it is a finding, not the end of the run. The run: a fixed seed (printed), ≥ 5,000 requests.
 * Phase A fires them with 16 in flight while a Worker GETs /healthz every 20 ms (every probe must
 * be answered, its p99 under a second: a parser or validator that stalls the event loop shows
 * there; the figures are printed, and a p99 over 100 ms is a note). Phase B sends
 * requests to the writing operations one at a time and checks, through TEMP triggers on the
 * server's connection (test/support/write-log.ts), that no answer ≥ 400 left a write behind.
 * Findings are collected, printed as a de-duplicated list (operation × kind of request × status),
 * then asserted by category.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  emptyPools,
  evaluate,
  execute,
  excerpt,
  Findings,
  harvest,
  leakIn,
  nestedArrays,
  nestedObjects,
  operationsOf,
  PROTO_KEYS,
  RequestGenerator,
  Rng,
  type Fixtures,
  type FuzzRequest,
  type Operation,
} from "../support/fuzz.ts";
import { startFuzzServer, type FuzzServer, type TeamTokens } from "../support/fuzz-server.ts";
import { percentile, startHealthProbe } from "../support/healthz-probe.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed2024) >>> 0;
const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 5200);
/** Requests of phase B (sequential, write-checked); the rest go to phase A (concurrent). */
const SEQUENTIAL = Math.round(TOTAL * 0.25);
const CONCURRENCY = 16;
/**
 * Wall-clock bounds of the phases: the run stops there even if the count is not reached. Bounds,
 * not speed targets: phase B checks the log after each request, ~6 ms a request on PostgreSQL and
 * ~12 ms on a slow day (1,055 of its 1,300 in 15 s on 28 Nov, on an idle machine).
 */
const PHASE_A_MS = 30_000;
const PHASE_B_MS = 40_000;
/** The /healthz p99 a quiet machine keeps (printed as a note when exceeded, not a failure: a speed figure). */
const HEALTHZ_P99_TARGET_MS = 100;
/**
 * What the tests assert: a margin a shared 2-core machine running other suites keeps, while an
 * event loop held by one request for a second or more still fails it. The quiet-machine figures
 * are printed on every run (and measured alone by scripts/bench/fuzz-healthz.ts).
 */
const HEALTHZ_P99_MS = 1000;

type Json = any;

/** A JSON API client for fixtures and regressions (not the fuzzer's raw client). */
function client(base: string) {
  return async function api(method: string, path: string, opts: { token?: string | null; project?: string; body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.project) headers["x-service-token"] = opts.project;
    let body: string | Uint8Array | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const started = performance.now();
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    let json: Json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // left null
    }
    return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, json, ms: performance.now() - started };
  };
}
type Api = ReturnType<typeof client>;

const countBy = (items: string[]) => {
  const m = new Map<string, number>();
  for (const i of items) m.set(i, (m.get(i) ?? 0) + 1);
  return m;
};

/** Resource JSON without bookkeeping that any authenticated request may touch. */
function withoutBookkeeping(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutBookkeeping);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => !/last_used/.test(k)).map(([k, x]) => [k, withoutBookkeeping(x)]));
  return v;
}

/** Asserts the shape of an error answer (docs/api.md) and returns its JSON. */
function expectErrorBody(res: { status: number; contentType: string; text: string; json: Json }, statuses: number[]) {
  expect(statuses).toContain(res.status);
  expect(res.contentType).toMatch(/^application\/json\b/i);
  expect(res.json).not.toBeNull();
  expect(typeof res.json.message).toBe("string");
  if (res.status === 422) {
    expect(typeof res.json.errors).toBe("object");
    expect(Array.isArray(res.json.errors)).toBe(false);
  }
  expect(leakIn(res.text)).toBeNull();
  return res.json;
}

/* ====================================================================== the fuzz run */

describe("fuzz: every operation of /openapi/json", () => {
  let srv: FuzzServer;
  let api: Api;
  let ops: Operation[];
  let fx: Fixtures;
  const findings = new Findings();
  const perOp = new Map<string, { n: number; ok: number }>();
  /** kind → status → count, for FUZZ_VERBOSE=1 (is the valid path reached, what do hostile kinds get). */
  const perKind = new Map<string, Map<number, number>>();
  let total = 0;
  let sequentialChecked = 0;
  let healthz = { p50: NaN, p99: NaN, max: NaN, n: 0, errors: 0 };
  /** Set once the run went through: the checks below are vacuous otherwise. */
  let ran = false;

  beforeAll(async () => {
    srv = await startFuzzServer();
    api = client(srv.base);
    const doc = (await (await fetch(`${srv.base}/openapi/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    ops = operationsOf(doc);
    fx = await buildFixtures(srv, api);
    await srv.installWriteLog();
  }, 60_000);

  afterAll(async () => {
    await srv?.stop();
  });

  function record(req: FuzzRequest, out: { status: number }) {
    total++;
    const s = perOp.get(req.op.key) ?? { n: 0, ok: 0 };
    s.n++;
    if (out.status >= 200 && out.status < 300) s.ok++;
    perOp.set(req.op.key, s);
    for (const key of [req.kind, ...(req.kind === "valid" ? [`valid ${req.op.key}`] : [])]) {
      const byStatus = perKind.get(key) ?? new Map<number, number>();
      byStatus.set(out.status, (byStatus.get(out.status) ?? 0) + 1);
      perKind.set(key, byStatus);
    }
  }

  test(
    `runs ≥ ${TOTAL} requests over every operation (seed 0x${SEED.toString(16)})`,
    async () => {
      const rng = new Rng(SEED);
      const gen = new RequestGenerator(rng, fx);
      const started = performance.now();
      const probe = startHealthProbe(`${srv.base}/healthz`, 20);

      // Phase A: concurrent, every operation in turn (shuffled once), a kind picked per request.
      const order = rng.shuffle([...ops]);
      const concurrent = TOTAL - SEQUENTIAL;
      let issued = 0;
      const deadlineA = performance.now() + PHASE_A_MS;
      const worker = async () => {
        while (issued < concurrent && performance.now() < deadlineA) {
          if (issued % 200 === 199) await pruneFixtures(srv, fx).catch(() => {});
          const req = gen.next(order[issued++ % order.length]!);
          const out = await execute(srv.base, req);
          evaluate(req, out, findings);
          harvest(req, out, fx);
          record(req, out);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      // Phase B: one at a time over the operations that write; an answer ≥ 400 must leave no write.
      // Requests phase A gave up on (client timeouts) may still be running and write late: wait
      // for the writes to settle first, and say so in a finding if some were abandoned.
      const abandoned = findings.list.filter((f) => f.finding === "connection-error").length;
      const writers = rng.shuffle(ops.filter((o) => o.method !== "GET"));
      const deadlineB = performance.now() + PHASE_B_MS;
      try {
        // A destination waiting for its code on the main project (it has the verified domain), so
        // that wrong codes of phase B reach the attempt counted on purpose (write-log.ts,
        // COUNTED_ATTEMPTS) in every run, not only when a PUT of phase A happened to pick it.
        const forwarding = await api("PUT", `/v1/projects/${fx.team.projectId}/report-forwarding`, { token: fx.team.teamToken, body: { destination: "dmarc-fuzz@example.net" } });
        if (forwarding.status !== 200) findings.list.push({ severity: "note", finding: "setup", op: "PUT /v1/projects/{projectId}/report-forwarding", kind: "setup", status: forwarding.status, method: "PUT", url: "-", request: "phase B's forwarding destination", response: excerpt(forwarding.text, 200) });
        for (let settle = 0; settle < 20; settle++) {
          const m = await srv.mark();
          await Bun.sleep(250);
          if ((await srv.writesSince(m)).length === 0) break;
        }
        for (let i = 0; i < SEQUENTIAL && performance.now() < deadlineB; i++) {
          if (i % 100 === 0) await pruneFixtures(srv, fx);
          const req = gen.next(writers[i % writers.length]!);
          const mark = await srv.mark();
          const out = await execute(srv.base, req);
          // The child flushes its group-commit writer before it reads the log.
          const writes = await srv.writesSince(mark);
          if (out.status >= 400 && writes.length) {
            const caveat = abandoned ? `; ${abandoned} requests of phase A timed out: may be one of them writing late` : "";
            findings.add("fail", "write-on-4xx", req, out, `wrote ${writes.join(", ")}${caveat}`);
          }
          evaluate(req, out, findings);
          harvest(req, out, fx);
          record(req, out);
          sequentialChecked++;
        }
      } catch (err) {
        // The child answers no IPC while its event loop is blocked.
        findings.list.push({ severity: "fail", finding: "server-unresponsive", op: "(server)", kind: "ipc", status: 0, method: "-", url: "-", request: "phase B", response: String(err) });
      }

      const probed = await probe.stop();
      for (const [message, n] of countBy(await srv.escaped().catch((err: unknown) => [`(no answer: ${String(err)})`]))) {
        findings.list.push({ severity: "fail", finding: "escaped-error", op: "(server)", kind: "uncaught", status: 0, method: "-", url: "-", request: `×${n} during the run`, response: message });
      }
      // Bun prints errors that reach Bun.serve itself (its own 500 page) on stderr.
      const stderrLines = srv.stderr().split("\n").filter((l) => l.trim());
      if (stderrLines.length) {
        findings.list.push({ severity: "note", finding: "server-stderr", op: "(server)", kind: "stderr", status: 0, method: "-", url: "-", request: `${stderrLines.length} lines`, response: excerpt(stderrLines.slice(0, 6).join(" ⏎ "), 400) });
      }
      // The server's error log (the causes of its 500s), de-duplicated by message and error text.
      const logged = countBy(
        srv.logLines().map((line) => {
          try {
            const e = JSON.parse(line) as { level?: string; msg?: string; error?: unknown; code?: unknown };
            const error = String(e.error ?? "").split("\n").slice(0, 3).map((l) => l.trim()).join(" ⏎ ");
            return `${e.level}: ${e.msg}${e.code ? ` (${e.code})` : ""}${error ? ` — ${error}` : ""}`;
          } catch {
            return line;
          }
        }),
      );
      for (const [message, n] of logged) {
        findings.list.push({ severity: "note", finding: "server-log", op: "(server)", kind: "log", status: 0, method: "-", url: "-", request: `×${n}`, response: excerpt(message, 400) });
      }
      healthz = {
        p50: percentile(probed.latencies, 0.5),
        p99: percentile(probed.latencies, 0.99),
        max: Math.max(...probed.latencies),
        n: probed.latencies.length,
        errors: probed.errors,
      };
      const elapsed = (performance.now() - started) / 1000;
      if (healthz.p99 >= HEALTHZ_P99_TARGET_MS) {
        findings.list.push({
          severity: healthz.p99 >= HEALTHZ_P99_MS ? "fail" : "note",
          finding: "healthz-p99",
          op: "GET /healthz",
          kind: "probe",
          status: 200,
          method: "GET",
          url: "/healthz",
          request: `every 20 ms during the run`,
          response: `p50 ${healthz.p50.toFixed(1)} ms, p99 ${healthz.p99.toFixed(1)} ms, max ${healthz.max.toFixed(1)} ms over ${healthz.n}`,
        });
      }

      const fails = findings.failures;
      const noSuccess = [...perOp].filter(([, s]) => s.ok === 0).map(([k]) => k);
      console.log(
        `fuzz: seed=0x${SEED.toString(16)} requests=${total} (concurrent ${total - sequentialChecked}, sequential ${sequentialChecked}) ops=${perOp.size}/${ops.length} ` +
          `elapsed=${elapsed.toFixed(1)}s healthz p50=${healthz.p50.toFixed(1)}ms p99=${healthz.p99.toFixed(1)}ms max=${healthz.max.toFixed(1)}ms n=${healthz.n} errors=${healthz.errors} ` +
          `findings: ${fails.length} failing responses in ${new Set(fails.map((f) => `${f.finding}|${f.status}|${f.op}|${f.kind}`)).size} groups, ${findings.list.length - fails.length} notes`,
      );
      if (process.env.FUZZ_VERBOSE) {
        const fmt = (m: Map<number, number>) => [...m].sort((a, b) => a[0] - b[0]).map(([st, n]) => `${st}×${n}`).join(" ");
        console.log(`fuzz: per kind:\n${[...perKind].sort().map(([k, m]) => `  ${k.padEnd(40)} ${fmt(m)}`).join("\n")}`);
        console.log(`fuzz: per operation (requests / 2xx):\n${[...perOp].sort().map(([k, v]) => `  ${k.padEnd(52)} ${v.n} / ${v.ok}`).join("\n")}`);
      }
      if (noSuccess.length) console.log(`fuzz: operations never answered 2xx (coverage of the valid path): ${noSuccess.join(", ")}`);
      if (findings.list.length) console.log(`fuzz findings (de-duplicated; seed 0x${SEED.toString(16)}):\n${findings.summary()}`);

      ran = true;
      expect(total).toBeGreaterThanOrEqual(TOTAL);
      const missing = ops.filter((o) => (perOp.get(o.key)?.n ?? 0) < 20).map((o) => o.key);
      expect(missing).toEqual([]);
    },
    120_000,
  );

  const countsOf = (...kinds: string[]) => {
    expect(ran).toBe(true);
    const out: Record<string, number> = {};
    for (const f of findings.failures) if (kinds.includes(f.finding)) out[`${f.finding} ${f.status} ${f.op}`] = (out[`${f.finding} ${f.status} ${f.op}`] ?? 0) + 1;
    return out;
  };

  test("no answer is a 5xx or a dropped connection", () => {
    expect(countsOf("5xx", "connection-error", "escaped-error")).toEqual({});
  });

  test("every answer ≥ 400 is JSON with a string message (422: and an errors object), without a stack or a path", () => {
    expect(countsOf("error-not-json", "error-no-message", "422-no-errors", "leak")).toEqual({});
  });

  test(`/healthz p99 stays under ${HEALTHZ_P99_MS} ms during the run`, () => {
    expect(healthz.n).toBeGreaterThan(10);
    expect(healthz.errors).toBe(0);
    expect(healthz.p99).toBeLessThan(HEALTHZ_P99_MS);
  });

  test("no answer ≥ 400 leaves a write behind (sequential phase)", () => {
    expect(sequentialChecked).toBeGreaterThan(0);
    expect(countsOf("write-on-4xx")).toEqual({});
  });

  test("no 2xx without valid credentials, or for another team's ids", () => {
    expect(countsOf("auth-bypass", "cross-team")).toEqual({});
  });

  test("bodies that are not JSON objects of the right shape, unknown sort keys and garbage ids are refused", () => {
    expect(countsOf("accepted-invalid", "accepted-unknown-sort", "accepted-garbage-id")).toEqual({});
  });
});

/** Real ids of both teams, created through the API where the API can create them. */
async function buildFixtures(srv: FuzzServer, api: Api): Promise<Fixtures> {
  const { team } = srv;
  const other = await srv.addTeam("Other team");
  const own = emptyPools();
  const foreign = emptyPools();
  const must = async (what: string, p: Promise<{ status: number; json: Json; text: string }>) => {
    const res = await p;
    if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${res.text.slice(0, 300)}`);
    return res.json;
  };
  const ids = async (sql: string, param: string) => (await srv.query<{ id: string }>(sql, [param])).map((r) => r.id);
  const routesOf = (projectId: string) => ids("SELECT id FROM routes WHERE project_id = ? ORDER BY route_type = 'transactional' DESC, created_at", projectId);
  const membersOf = (teamId: string) => ids("SELECT id FROM team_members WHERE team_id = ?", teamId);

  async function populate(t: TeamTokens, pools: typeof own, domain: string, isOwn: boolean) {
    const sending = await srv.insertDomain({ teamId: t.teamId, projectId: t.projectId, domain, status: "active" });
    pools.domain.push(sending.domainId);
    pools.project.push(t.projectId);
    pools.route.push(...(await routesOf(t.projectId)));
    pools.member.push(...(await membersOf(t.teamId)));
    const mainRoute = pools.route[0]!;
    for (const url of ["https://example.com/h", "https://example.com/h2"]) {
      const hook = await must("webhook", api("POST", "/v1/webhooks", { token: t.teamToken, body: { route_id: mainRoute, name: "Fuzz hook", url, events: ["message.delivered"] } }));
      pools.webhook.push(hook.data?.id ?? hook.id);
    }
    for (const route of ["transactional", "broadcast", "transactional"]) {
      const sent = await must("send", api("POST", "/v1/send", { project: t.projectToken, body: { from: `sender@${domain}`, to: ["rcpt@example.net"], subject: `Fixture ${route}`, text: "Hello fixture", route } }));
      const id = sent.message_id ?? sent.data?.message_id;
      pools.message.push(id);
      // Unsubscribe links are capabilities (no token, any team's link works): only ours, no cross-team check.
      if (route === "broadcast" && isOwn) pools.unsubscribe.push(`${id}.${await srv.sign("unsubscribe", id, 20)}`);
    }
    const supp = await must("suppression", api("POST", "/v1/suppressions", { token: t.teamToken, body: { reason: "manual", scope: "team", emails: ["supp1@example.net", "supp2@example.net"] } }));
    const listed = await must("suppressions", api("GET", "/v1/suppressions?page[size]=100", { token: t.teamToken }));
    pools.suppression.push(...listed.data.filter((s: { email: string }) => supp.data.created.includes(s.email)).map((s: { id: string }) => s.id));
  }

  await populate(team, own, "fuzz-send.example", true);
  await populate(other, foreign, "other-send.example", false);
  // Deletable extras of the main team (the first id of each pool is protected or a default).
  const domain = await must("domain", api("POST", "/v1/domains", { token: team.teamToken, body: { domain: "fuzz-api.example" } }));
  own.domain.push(domain.data?.id ?? domain.id);
  const project = await must("project", api("POST", "/v1/projects", { token: team.teamToken, body: { name: "Fuzz extra" } }));
  own.project.push(project.data?.id ?? project.id);
  const route = await must("route", api("POST", `/v1/projects/${team.projectId}/routes`, { token: team.teamToken, body: { name: "Fuzz route", route_type: "transactional" } }));
  own.route.push(route.data?.id ?? route.id);
  own.attachment.push(...(await srv.query<{ id: string }>("SELECT id FROM attachments LIMIT 5")).map((r) => r.id));

  const fx: Fixtures = {
    team,
    sendingDomain: "fuzz-send.example",
    own,
    foreign,
    protectedIds: new Set([team.projectId, own.domain[0]!, own.webhook[0]!, own.message[0]!]),
    cursors: new Map(),
  };
  // Real cursors: page[size]=1 of every list operation.
  const lists: [string, string][] = [
    ["GET /v1/domains", "/v1/domains"],
    ["GET /v1/team/members", "/v1/team/members"],
    ["GET /v1/projects", "/v1/projects"],
    ["GET /v1/projects/{projectId}/routes", `/v1/projects/${team.projectId}/routes`],
    ["GET /v1/messages", "/v1/messages"],
    ["GET /v1/messages/{messageId}/events", `/v1/messages/${own.message[0]}/events`],
    ["GET /v1/suppressions", "/v1/suppressions"],
    ["GET /v1/webhooks", "/v1/webhooks"],
    ["GET /v1/webhooks/{id}/deliveries", `/v1/webhooks/${own.webhook[0]}/deliveries`],
  ];
  for (const [key, path] of lists) {
    const res = await api("GET", `${path}?page[size]=1`, { token: team.teamToken });
    const next = res.json?.next_cursor;
    if (typeof next === "string") fx.cursors.set(key, [next]);
    const res2 = next ? await api("GET", `${path}?page[size]=1&page[cursor]=${encodeURIComponent(next)}`, { token: team.teamToken }) : null;
    if (typeof res2?.json?.prev_cursor === "string") fx.cursors.get(key)!.push(res2.json.prev_cursor);
  }
  return fx;
}

/**
 * Drops ids of resources that are gone (deleted, or removed with their project or route) from
 * the pools, so that "valid" requests keep reaching the handlers. The first id of each pool
 * stays: it is a protected fixture or a default route.
 */
async function pruneFixtures(srv: FuzzServer, fx: Fixtures) {
  const tables: [keyof Fixtures["own"], string][] = [
    ["project", "projects"],
    ["route", "routes"],
    ["domain", "domains"],
    ["message", "messages"],
    ["suppression", "suppressions"],
    ["webhook", "webhooks"],
  ];
  for (const [resource, table] of tables) {
    const pool = fx.own[resource];
    if (pool.length < 2) continue;
    const alive = new Set((await srv.query<{ id: string }>(`SELECT id FROM ${table} WHERE id IN (${pool.map(() => "?").join(",")})`, pool)).map((r) => r.id));
    const keep = pool.filter((id, i) => i === 0 || alive.has(id));
    pool.splice(0, pool.length, ...keep);
  }
}

/* ====================================================================== review regressions */

describe("review regressions", () => {
  let srv: FuzzServer;
  let api: Api;
  let ops: Operation[];
  let routeId: string;
  let webhookId: string;

  beforeAll(async () => {
    srv = await startFuzzServer();
    api = client(srv.base);
    ops = operationsOf((await (await fetch(`${srv.base}/openapi/json`)).json()) as { paths: Record<string, Record<string, unknown>> });
    routeId = (await srv.query<{ id: string }>("SELECT id FROM routes WHERE project_id = ? AND route_type = 'transactional'", [srv.team.projectId]))[0]!.id;
    const hook = await api("POST", "/v1/webhooks", { token: srv.team.teamToken, body: { route_id: routeId, name: "Regression hook", url: "https://example.com/h", events: ["message.delivered"] } });
    expect(hook.status).toBe(201);
    webhookId = hook.json.data.id;
    await srv.installWriteLog();
  }, 30_000);

  afterAll(async () => {
    await srv?.stop();
  });

  describe("1. prototype-named body keys are a 422, not a stack trace", () => {
    for (const key of PROTO_KEYS) {
      test(`POST /v1/webhooks {"${key}":1} → 422 JSON`, async () => {
        const res = await api("POST", "/v1/webhooks", { token: srv.team.teamToken, raw: `{"${key}":1}`, headers: { "content-type": "application/json" } });
        expectErrorBody(res, [422]);
      });
    }
  });

  describe("2. prototype-named sort keys are a 422 on every list endpoint", () => {
    const values = ["constructor", "toString", "valueOf", "__proto__", "-__proto__", "hasOwnProperty"];
    test("every list endpoint of the document", async () => {
      const lists = ops.filter((o) => o.query.has("sort"));
      expect(lists.length).toBeGreaterThan(5);
      const wrong: string[] = [];
      for (const op of lists) {
        const path = op.path.replace("{projectId}", srv.team.projectId);
        for (const v of values) {
          const res = await api("GET", `${path}?sort=${encodeURIComponent(v)}`, { token: srv.team.teamToken });
          const ok = res.status === 422 && /^application\/json/.test(res.contentType) && typeof res.json?.message === "string" && res.json?.errors && "sort" in res.json.errors && !leakIn(res.text);
          if (!ok) wrong.push(`${op.key} sort=${v} → ${res.status} ${excerpt(res.text, 100)}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  });

  describe("3. deep nesting is refused quickly and does not stall the server", () => {
    test("400 KB of 200,000 nested arrays on POST /v1/webhooks → 400/422 JSON in < 1 s; /healthz keeps answering meanwhile", async () => {
      const probe = startHealthProbe(`${srv.base}/healthz`, 10);
      await Bun.sleep(150);
      const body = `{"route_id":"${routeId}","name":"deep","url":"https://example.com/h","events":${nestedArrays(200_000)}}`;
      expect(body.length).toBeGreaterThan(400_000);
      const res = await api("POST", "/v1/webhooks", { token: srv.team.teamToken, raw: body, headers: { "content-type": "application/json" } });
      await Bun.sleep(150);
      const { latencies } = await probe.stop();
      expectErrorBody(res, [400, 422]);
      expect(res.ms).toBeLessThan(1000);
      // The first probe opens its connection; none of the rest waited out a stalled event loop
      // (printed: under 100 ms on a quiet machine; the assertion keeps a shared machine's margin).
      const slowest = Math.max(...latencies.slice(1));
      console.log(`deep nesting: refused in ${res.ms.toFixed(0)} ms; /healthz meanwhile: ${latencies.length} probes, slowest ${slowest.toFixed(1)} ms`);
      expect(latencies.length).toBeGreaterThan(5);
      expect(slowest).toBeLessThan(HEALTHZ_P99_MS / 2);
    });

    test("the same as the whole body: 200,000 nested arrays → 400/422 JSON in < 1 s", async () => {
      const res = await api("POST", "/v1/webhooks", { token: srv.team.teamToken, raw: nestedArrays(200_000), headers: { "content-type": "application/json" } });
      expectErrorBody(res, [400, 422]);
      expect(res.ms).toBeLessThan(1000);
    });

    test("5,000 and 10,000 levels in any field of any body → 4xx JSON, never 5xx", async () => {
      const wrong: string[] = [];
      const rng = new Rng(SEED);
      const gen = new RequestGenerator(rng, {
        team: srv.team,
        sendingDomain: "nowhere.example",
        own: { ...emptyPools(), project: [srv.team.projectId], route: [routeId], webhook: [webhookId] },
        foreign: emptyPools(),
        protectedIds: new Set([srv.team.projectId, webhookId]),
        cursors: new Map(),
      });
      for (const op of ops.filter((o) => o.body)) {
        const base = gen.baseline(op);
        const item = op.body!.type === "array" ? op.body!.items : op.body!;
        for (const field of Object.keys(item?.properties ?? {})) {
          for (const [label, fragment] of [
            ["[×5000", nestedArrays(5000)],
            ["[×10000", nestedArrays(10_000)],
            ["{×10000", nestedObjects(10_000)],
          ] as const) {
            const obj = `{"${field}":${fragment}}`;
            const raw = op.body!.type === "array" ? `[${obj}]` : obj;
            let path = op.path;
            for (const [k, v] of Object.entries(base.params)) path = path.replace(`{${k}}`, v);
            const res = await fetch(srv.base + path, { method: op.method, headers: { ...base.headers, "content-type": "application/json" }, body: raw });
            const text = await res.text();
            const ok = res.status >= 400 && res.status < 500 && /^application\/json/.test(res.headers.get("content-type") ?? "") && !leakIn(text);
            if (!ok) wrong.push(`${op.key} ${field} ${label} → ${res.status} ${excerpt(text, 100)}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    }, 60_000);
  });

  describe("found by the fuzzer: large arrays and objects in any field are refused in linear time", () => {
    // POST /v1/send with "headers" as an array of 30,000 strings (~500 KB) held the event loop
    // for 47 s: a duplicate-name check over all names seen so far, for every name, past the limit.
    // A plain string of 10,000 characters there took 4.8 s (its characters are its entries).
    test("an array of 10,000 strings, an object of 10,000 keys and a 10,000-character string in every field of every body → 4xx JSON in < 1 s", async () => {
      const slow: string[] = [];
      // A verified sending domain, so that send bodies are valid apart from the field under test.
      await srv.insertDomain({ teamId: srv.team.teamId, projectId: srv.team.projectId, domain: "regress-send.example", status: "active" });
      const gen = new RequestGenerator(new Rng(SEED), {
        team: srv.team,
        sendingDomain: "regress-send.example",
        own: { ...emptyPools(), project: [srv.team.projectId], route: [routeId], webhook: [webhookId] },
        foreign: emptyPools(),
        protectedIds: new Set([srv.team.projectId, webhookId]),
        cursors: new Map(),
      });
      // Big enough that quadratic work shows (seconds), small enough that each case still answers.
      const N = 10_000;
      const bigArray = "[" + '"a@example.net",'.repeat(N - 1) + '"a@example.net"]';
      const bigObject = "{" + Array.from({ length: N }, (_, i) => `"X-K${i}":"v"`).join(",") + "}";
      for (const op of ops.filter((o) => o.body)) {
        const base = gen.baseline(op);
        const item = op.body!.type === "array" ? op.body!.items : op.body!;
        let path = op.path;
        for (const [k, v] of Object.entries(base.params)) path = path.replace(`{${k}}`, v);
        for (const field of Object.keys(item?.properties ?? {})) {
          for (const [label, fragment] of [
            [`[${N} strings]`, bigArray],
            [`{${N} keys}`, bigObject],
            [`"x"×${N}`, JSON.stringify("x".repeat(N))],
          ] as const) {
            // The rest of the body valid (generated from the schema), so the field reaches the handler's own checks.
            const valid = JSON.parse(JSON.stringify(base.body ?? {}));
            const target = Array.isArray(valid) ? valid[0] : valid;
            target[field] = "@@BIG@@";
            const body = JSON.stringify(valid).replace('"@@BIG@@"', fragment);
            const started = performance.now();
            const res = await fetch(srv.base + path, {
              method: op.method,
              headers: { ...base.headers, "content-type": "application/json" },
              body,
              signal: AbortSignal.timeout(30_000),
            }).catch((err: unknown) => err as Error);
            const ms = Math.round(performance.now() - started);
            if (res instanceof Error) slow.push(`${op.key} ${field} ${label} → no answer in 30 s (${res.name})`);
            else {
              const text = await res.text();
              // A string may be a valid value (a name): only its time matters then.
              const refused = res.status >= 400 || label.startsWith('"');
              if (!refused || res.status >= 500 || ms > 1000 || leakIn(text)) slow.push(`${op.key} ${field} ${label} → ${res.status} in ${ms} ms`);
            }
          }
        }
      }
      expect(slow).toEqual([]);
    }, 120_000);
  });

  describe("the write log tells a wrong report forwarding code's counted attempt from a write left behind", () => {
    // Found by the fuzzer's sequential phase (seed 0xb, 1 of 29 runs): a 422 "code is not valid"
    // left report_forwarding UPDATE×1, the attempt counted on purpose outside the request's unit
    // of work. Reached then only when a PUT …/report-forwarding of the run had succeeded, which
    // depended on the concurrent phase's timing; phase B now sets a destination first.
    test("PUT destination → logged; wrong code → 422, counted (failed_attempts 1), not logged; a counter change beyond +1 or with another column → logged", async () => {
      const token = srv.team.teamToken;
      const projectId = srv.team.projectId;
      const path = `/v1/projects/${projectId}/report-forwarding`;
      await srv.insertDomain({ teamId: srv.team.teamId, projectId, domain: "forwarding-log.example", status: "active" });
      const failed = async () => (await srv.query<{ n: number }>("SELECT failed_attempts AS n FROM report_forwarding WHERE project_id = ?", [projectId]))[0]?.n;

      let mark = await srv.mark();
      const set = await api("PUT", path, { token, body: { destination: "dmarc@example.net" } });
      expect(set.status).toBe(200);
      expect(await srv.writesSince(mark)).toContain("report_forwarding INSERT×1");

      mark = await srv.mark();
      const wrong = await api("POST", `${path}/verify`, { token, body: { code: "000000" } });
      expect(wrong.status).toBe(422);
      expect(wrong.json.errors.code[0]).toContain("4 attempts left");
      expect(await srv.writesSince(mark)).toEqual([]);
      expect(Number(await failed())).toBe(1);

      for (const change of ["failed_attempts = failed_attempts + 2", "failed_attempts = 0", "failed_attempts = failed_attempts + 1, destination = 'other@example.net'"]) {
        mark = await srv.mark();
        await srv.query(`UPDATE report_forwarding SET ${change} WHERE project_id = ? RETURNING project_id`, [projectId]);
        expect({ change, writes: await srv.writesSince(mark) }).toEqual({ change, writes: ["report_forwarding UPDATE×1"] });
      }
      expect((await api("DELETE", path, { token })).status).toBe(204);
    });
  });

  describe("5. an IDN webhook URL is stored in its punycode form and stays usable", () => {
    test("POST https://bücher.example/h → 201 as https://xn--bcher-kva.example/h; list 200; PUT 200", async () => {
      const mark = await srv.mark();
      const created = await api("POST", "/v1/webhooks", {
        token: srv.team.teamToken,
        body: { route_id: routeId, name: "IDN", url: "https://bücher.example/h", events: ["message.delivered"] },
      });
      // Whatever the answer, a refusal must not leave the webhook behind.
      if (created.status >= 400) expect(await srv.writesSince(mark)).toEqual([]);
      expect(created.status).toBe(201);
      expect(created.json.data.url).toBe("https://xn--bcher-kva.example/h");
      const id = created.json.data.id;

      const one = await api("GET", `/v1/webhooks/${id}`, { token: srv.team.teamToken });
      expect(one.status).toBe(200);
      expect(one.json.url ?? one.json.data?.url).toBe("https://xn--bcher-kva.example/h");

      const list = await api("GET", "/v1/webhooks?page[size]=100", { token: srv.team.teamToken });
      expect(list.status).toBe(200);
      expect(list.json.data.find((w: { id: string }) => w.id === id)?.url).toBe("https://xn--bcher-kva.example/h");

      const put = await api("PUT", `/v1/webhooks/${id}`, { token: srv.team.teamToken, body: { url: "https://bücher.example/h" } });
      expect(put.status).toBe(200);
      expect(put.json.data.url).toBe("https://xn--bcher-kva.example/h");
    });
  });

  describe("found by the fuzzer: a write racing the deletion of what it refers to", () => {
    // Both requests in flight together: the write checks the row exists, the DELETE removes it,
    // the write's INSERT then fails its foreign key. That must be a 404/422, not a 500.
    test("PUT /v1/domains/{id}/projects ∥ DELETE /v1/domains/{id}; POST /v1/webhooks ∥ DELETE /v1/routes/{route_id} → never 5xx", async () => {
      const token = srv.team.teamToken;
      const bad: string[] = [];
      for (let i = 0; i < 20; i++) {
        const domain = await api("POST", "/v1/domains", { token, body: { domain: `race-${i}.example` } });
        const domainId = domain.json?.id ?? domain.json?.data?.id;
        const [, put] = await Promise.all([
          api("DELETE", `/v1/domains/${domainId}`, { token }),
          api("PUT", `/v1/domains/${domainId}/projects`, { token, body: { project_ids: [srv.team.projectId] } }),
        ]);
        if (put.status >= 500) bad.push(`PUT /v1/domains/{id}/projects → ${put.status} ${excerpt(put.text, 80)}`);
        const route = await api("POST", `/v1/projects/${srv.team.projectId}/routes`, { token, body: { name: `race ${i}`, route_type: "transactional" } });
        const raceRoute = route.json?.data?.id ?? route.json?.id;
        const [, hook] = await Promise.all([
          api("DELETE", `/v1/routes/${raceRoute}`, { token }),
          api("POST", "/v1/webhooks", { token, body: { route_id: raceRoute, name: "race", url: "https://example.com/h", events: ["message.delivered"] } }),
        ]);
        if (hook.status >= 500) bad.push(`POST /v1/webhooks → ${hook.status} ${excerpt(hook.text, 80)}`);
      }
      expect(bad).toEqual([]);
    });

    // On PostgreSQL these three took a domain's row and its children's rows in different orders
    // and deadlocked (a 409 after deadlock_timeout, or a wait past the fuzzer's timeout under load).
    test("DELETE ∥ POST …/dns-records/verify ∥ PUT …/projects on one domain → each 2xx or 404, never a 409 or 5xx", async () => {
      const token = srv.team.teamToken;
      const bad: string[] = [];
      for (let i = 0; i < 15; i++) {
        const domain = await api("POST", "/v1/domains", { token, body: { domain: `lock-order-${i}.example` } });
        const domainId = domain.json?.id ?? domain.json?.data?.id;
        const answers = await Promise.all([
          api("PUT", `/v1/domains/${domainId}/projects`, { token, body: { project_ids: [srv.team.projectId] } }),
          api("POST", `/v1/domains/${domainId}/dns-records/verify`, { token }),
          api("PUT", `/v1/domains/${domainId}/projects`, { token, body: { project_ids: [] } }),
          api("DELETE", `/v1/domains/${domainId}`, { token }),
          api("POST", `/v1/domains/${domainId}/dns-records/verify`, { token }),
        ]);
        for (const [j, res] of answers.entries()) if (!(res.status < 300 || res.status === 404)) bad.push(`#${i}.${j} → ${res.status} ${excerpt(res.text, 80)}`);
      }
      expect(bad).toEqual([]);
    }, 30_000);
  });

  describe("8. PUT bodies of the wrong type or media type are refused and change nothing", () => {
    const bodies: [string, string | null, string][] = [
      ["123", "application/json", "123"],
      ["[]", "application/json", "[]"],
      ['"str"', "application/json", '"str"'],
      ["null", "application/json", "null"],
      ["XML", "application/xml", '<?xml version="1.0"?><body><name>Changed</name></body>'],
      ["text/plain", "text/plain", '{"name":"Changed"}'],
      ["form", "application/x-www-form-urlencoded", "name=Changed"],
      ["no content-type", null, '{"name":"Changed"}'],
    ];
    const targets = () => [
      ["/v1/team", "/v1/team"],
      [`/v1/projects/${srv.team.projectId}`, `/v1/projects/${srv.team.projectId}`],
      [`/v1/routes/${routeId}`, `/v1/routes/${routeId}`],
      [`/v1/webhooks/${webhookId}`, `/v1/webhooks/${webhookId}`],
    ];
    for (const [label, ct, raw] of bodies) {
      test(`PUT with ${label} body → 400/415/422 JSON, nothing changed`, async () => {
        const wrong: string[] = [];
        for (const [path, getPath] of targets()) {
          const before = await api("GET", getPath, { token: srv.team.teamToken });
          expect(before.status).toBe(200);
          const mark = await srv.mark();
          const res = await api("PUT", path, { token: srv.team.teamToken, raw, headers: ct ? { "content-type": ct } : {} });
          const writes = await srv.writesSince(mark);
          const after = await api("GET", getPath, { token: srv.team.teamToken });
          const okBody = [400, 415, 422].includes(res.status) && /^application\/json/.test(res.contentType) && typeof res.json?.message === "string" && !leakIn(res.text);
          if (!okBody) wrong.push(`PUT ${path} ${label} → ${res.status} ${excerpt(res.text, 100)}`);
          if (writes.length) wrong.push(`PUT ${path} ${label} → wrote ${writes.join(", ")}`);
          if (JSON.stringify(withoutBookkeeping(after.json)) !== JSON.stringify(withoutBookkeeping(before.json))) wrong.push(`PUT ${path} ${label} → resource changed`);
        }
        expect(wrong).toEqual([]);
      });
    }
  });
});

/**
 * 413 through the production entry point (src/server.ts startServer, which sets the listener's
 * body limit), with POSTHORN_MAX_BODY_BYTES at its minimum.
 */
describe("8. oversized bodies → 413 JSON, with and without content-length", () => {
  const LIMIT = 1024;
  let srv: FuzzServer;
  let base: string;
  let api: Api;
  let token: string;

  beforeAll(async () => {
    srv = await startFuzzServer({ mode: "server", env: { POSTHORN_MAX_BODY_BYTES: String(LIMIT) } });
    base = srv.base;
    api = client(base);
    token = srv.team.teamToken;
  }, 30_000);

  afterAll(async () => {
    await srv?.stop();
  });

  const big = () => JSON.stringify({ name: "y".repeat(LIMIT * 4) });

  test("PUT /v1/team with content-length over the limit → 413 JSON {message}, name unchanged", async () => {
    const before = await api("GET", "/v1/team", { token });
    const res = await api("PUT", "/v1/team", { token, raw: big(), headers: { "content-type": "application/json" } });
    expectErrorBody(res, [413]);
    expect(res.json.message).toContain(String(LIMIT));
    const after = await api("GET", "/v1/team", { token });
    expect(withoutBookkeeping(after.json)).toEqual(withoutBookkeeping(before.json));
  });

  test("PUT /v1/team with a chunked body (no content-length) over the limit → 413 JSON {message}, name unchanged", async () => {
    const before = await api("GET", "/v1/team", { token });
    const bytes = new TextEncoder().encode(big());
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 1000) c.enqueue(bytes.subarray(i, i + 1000));
        c.close();
      },
    });
    let status = 0;
    let contentType = "";
    let text = "";
    try {
      const res = await fetch(`${base}/v1/team`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: stream, duplex: "half" } as RequestInit);
      status = res.status;
      contentType = res.headers.get("content-type") ?? "";
      text = await res.text();
    } catch (err) {
      text = `transport error: ${String(err)}`;
    }
    let json: Json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // asserted below
    }
    expectErrorBody({ status, contentType, text, json }, [413]);
    const after = await api("GET", "/v1/team", { token });
    expect(withoutBookkeeping(after.json)).toEqual(withoutBookkeeping(before.json));
  });

  test("POST /v1/webhooks over the limit without a token → 401 or 413, JSON either way", async () => {
    const res = await api("POST", "/v1/webhooks", { raw: big(), headers: { "content-type": "application/json" } });
    expectErrorBody(res, [401, 413]);
  });
});
