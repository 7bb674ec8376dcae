/**
 * Issue 46, the audit log (docs/access.md "Audit log").
 *
 * - The walk: every mutating operation (POST/PUT/PATCH/DELETE) of the OpenAPI document that a team
 *   token or a dashboard session may call is made by team A with A's own ids and a valid body;
 *   each that succeeds has exactly one new audit row naming the operation ("METHOD /path/{param}")
 *   and its path parameters as target ids; the few that cannot succeed in this world are listed in
 *   NOT_SUCCEEDING with the reason (a new operation that does not succeed fails the test). An
 *   operation that needs more than the world has gets it made just before, as a user would make it
 *   (`prepare`): a TOTP code computed from the secret enrol answered, an invitation to the signed-in
 *   user, the code of the report-forwarding mail as a loopback SMTP sink got it, scheduled and
 *   queued messages sent through the API, the DNS record published on the loopback DNS server, a
 *   GTUBE mail over SMTP held in quarantine. NOT_SUCCEEDING is empty: all of them succeed.
 * - No audit row, read raw from the table, contains any secret the test used: team, project and
 *   named tokens, passwords, session cookies and CSRF tokens, webhook secrets, TOTP secrets,
 *   recovery codes, the invitation's token.
 * - Refused changes (4xx) and project-token sends write no row; the list endpoint pages and filters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { crossTeamWorld, PASSWORD, signedIn, type CrossTeamWorld, type TeamWorld } from "../security/cross-team-fixtures.ts";
import { engine } from "../helpers.ts";
import { READS_BY_POST } from "../../src/http/audit.ts";
import { totpCode, base32Decode, TOTP_STEP_SECONDS } from "../../src/auth/totp.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { closeOutbound, registerOutboundJobs } from "../../src/mail/outbound-job.ts";
import { createAuthResolver } from "../../src/smtp/auth-resolver.ts";
import { registerInboundJobs, stopInboundAnalysis } from "../../src/smtp/inbound-job.ts";
import { startInboundListener } from "../../src/smtp/inbound.ts";
import { GTUBE } from "../../src/smtp/spam.ts";
import { waitFor } from "../helpers.ts";
import { linkTokenOf } from "../security/cross-team-fixtures.ts";
import { startSink, type Sink } from "../send/harness.ts";
import { sendRaw } from "../smtp/support.ts";

type Op = { method: string; path: string; key: string; security: string[]; params: string[]; bodySchema: any };
type Res = { status: number; text: string; json: any };

/** Operations of the document that need no team principal, so are no team change: not walked. */
const NO_TEAM_PRINCIPAL = new Set(["POST /v1/auth/sign-in", "POST /v1/auth/password", "POST /v1/unsubscribe/{token}"]);

/** Mutating team operations the walk makes but that cannot succeed here, and why (their refusal writes no row, checked too). */
const NOT_SUCCEEDING: Record<string, string> = {};

/**
 * Operations that build on one another, made in this order after the others (and before the
 * deletes): the report-forwarding destination mails a code, another is asked for a minute later,
 * the latest verifies; two-factor sign-in is enrolled, confirmed with a TOTP code, its recovery
 * codes renewed with the next step's code, required of the team, and turned off again (so that the
 * owner signs in with a password afterwards, as the sign-outs and the other tests do).
 */
const CHAIN = [
  "PUT /v1/projects/{projectId}/report-forwarding",
  "POST /v1/projects/{projectId}/report-forwarding/resend-code",
  "POST /v1/projects/{projectId}/report-forwarding/verify",
  "POST /v1/auth/two-factor/enrol",
  "POST /v1/auth/two-factor/confirm",
  "POST /v1/auth/two-factor/recovery-codes",
  "PUT /v1/auth/two-factor/requirement",
  "POST /v1/auth/two-factor/disable",
];

let w: CrossTeamWorld;
beforeAll(async () => {
  w = await crossTeamWorld();
}, 60_000);
afterAll(async () => {
  await liveDelivery?.stop();
  await w?.close();
});

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Res> {
  const h: Record<string, string> = { "user-agent": "audit-walk/1", ...headers };
  let text: string | undefined;
  if (body !== undefined) {
    text = JSON.stringify(body);
    h["content-type"] = "application/json";
    h["content-length"] = String(Buffer.byteLength(text));
  }
  const res = await w.t.app.handle(new Request(`http://localhost${path}`, { method, headers: h, body: text }));
  const out = await res.text();
  let json: any = null;
  try {
    json = out ? JSON.parse(out) : null;
  } catch {}
  return { status: res.status, text: out, json };
}

const resolve = (doc: any, ref: string): any => ref.replace(/^#\//, "").split("/").reduce((o, k) => o?.[k], doc);

async function mutatingOps(): Promise<Op[]> {
  const doc = (await call("GET", "/openapi/json", {})).json;
  const ops: Op[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!["put", "post", "delete", "patch"].includes(method)) continue;
      const security = (op.security ?? doc.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
      if (!security.includes("teamToken") && !security.includes("sessionCookie")) continue;
      const key = `${method.toUpperCase()} ${path}`;
      if (NO_TEAM_PRINCIPAL.has(key) || READS_BY_POST.has(key)) continue;
      let bodySchema = op.requestBody?.content?.["application/json"]?.schema ?? null;
      if (bodySchema?.$ref) bodySchema = resolve(doc, bodySchema.$ref);
      const params = (op.parameters ?? []).filter((p: any) => p.in === "path").map((p: any) => p.name as string);
      ops.push({ method: method.toUpperCase(), path, key, security, params, bodySchema });
    }
  }
  return ops;
}

/** Objects made for the walk, so that deleting one leaves the world's own for the other operations. */
type Spare = Record<string, string>;

function pathId(a: TeamWorld, spare: Spare, op: Op, name: string): string {
  const del = op.method === "DELETE";
  switch (name) {
    case "domainId":
      return del ? spare.domainId! : op.params.includes("recordId") ? a.pendingDomainId : a.domainId;
    case "recordId":
      return a.dnsRecordIds[0]!;
    case "routeId":
      return del ? spare.routeId! : op.path.includes("inbound") ? a.routes.inbound : a.routes.custom;
    case "memberId":
      return a.member.memberId;
    case "projectId":
      return del ? spare.projectId! : op.path.includes("report-forwarding") ? a.team.projectId : a.project2Id;
    case "messageId":
      return op.path.endsWith("/process") ? a.inboundMessageId : a.outboundMessageId;
    case "suppressionId":
      return a.suppressionIds[0]!;
    case "id":
      return del ? spare.webhookId! : op.params.includes("deliveryId") ? a.webhookId : a.webhook2Id;
    case "deliveryId":
      return a.deliveryId;
    case "roleId":
      return del ? spare.roleId! : a.roleId;
    case "tokenId":
      return del ? spare.tokenId! : a.tokenId;
  }
  throw new Error(`${op.key}: no id for {${name}}`);
}

function bodyFor(op: Op, a: TeamWorld, n: number): unknown {
  const mark = `audit walk ${n} zq`;
  const addr = `audit.walk${n}@alpha-dest-zq.test`;
  const hook = w.receiver.url("hooks.example.test", "/alpha-audit");
  switch (op.key) {
    case "POST /v1/domains":
      return { domain: `alpha-audit${n}-zq.test` };
    case "PUT /v1/domains/{domainId}/projects":
      return { project_ids: [a.team.projectId] };
    case "PUT /v1/team":
      return { name: `alpha audit team zq` };
    case "POST /v1/team/members":
      return { email: addr, name: mark };
    case "POST /v1/team/roles":
      return { name: mark, permissions: ["domains:read"] };
    case "PUT /v1/team/roles/{roleId}":
      return { permissions: ["domains:read", "routes:read"] };
    case "POST /v1/team/tokens":
      return { name: mark, permissions: ["domains:read"] };
    case "POST /v1/projects":
      return { name: mark };
    case "PUT /v1/projects/{projectId}":
      return { name: mark, smtp_enabled: true };
    case "PUT /v1/projects/{projectId}/members":
      return { team_member_ids: [a.member.memberId] };
    case "POST /v1/projects/{projectId}/routes":
      return { name: mark, route_type: "transactional" };
    case "PUT /v1/routes/{routeId}":
      return { name: mark };
    case "POST /v1/suppressions":
      return { email: addr, scope: "route", route_id: a.routes.custom, reason: "manual" };
    case "POST /v1/webhooks":
      return { route_id: a.routes.transactional, name: mark, url: hook, events: ["message.created"] };
    case "PUT /v1/webhooks/{id}":
      return { name: mark, url: hook, enabled: true };
  }
  return op.bodySchema ? generate(op.bodySchema, a, mark, addr) : undefined;
}

function generate(schema: any, a: TeamWorld, mark: string, addr: string, name = ""): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== "null") : schema.type;
  const idOf = (n: string): string =>
    ({ route: a.routes.transactional, project: a.team.projectId, domain: a.domainId, webhook: a.webhookId, message: a.outboundMessageId, team_member: a.member.memberId, member: a.member.memberId, role: a.roleId })[
      n.replace(/_ids?$/, "")
    ] ?? a.team.projectId;
  if (type === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries<any>(schema.properties ?? {})) if ((schema.required ?? []).includes(k)) out[k] = generate(v, a, mark, addr, k);
    return out;
  }
  if (type === "array") return /_ids$/.test(name) ? [idOf(name)] : [generate(schema.items ?? {}, a, mark, addr, name)];
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return generate(schema.anyOf.find((s: any) => s.type !== "null") ?? {}, a, mark, addr, name);
  if (type === "boolean") return true;
  if (type === "integer" || type === "number") return schema.minimum ?? 1;
  if (/_id$/.test(name)) return idOf(name);
  if (schema.format === "email" || /email/.test(name)) return addr;
  if (schema.format === "uri" || name === "url") return w.receiver.url("hooks.example.test", "/generated");
  return mark;
}

/** The chain after the others, deletes last, the caller's own sign-outs after everything (they end the session the walk uses). */
const order = (op: Op): number =>
  op.path.startsWith("/v1/auth/sign-out") ? 3 : op.method === "DELETE" ? 2 : CHAIN.includes(op.key) ? 1.1 + CHAIN.indexOf(op.key) / 100 : 1;

/** What one operation gets instead of the world's ids, body or caller; `secrets` are the fixture's, kept out of every row. */
interface Prepared {
  ids?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  secrets?: string[];
}
/** What earlier operations of the walk answered, for later ones. */
interface Carried {
  totpSecret?: string;
  recoveryCodes?: string[];
  quarantinedId?: string;
  delivery?: Delivery;
}

/** Where report forwarding's code mails go: an address whose MX is the loopback sink. */
const FORWARD_TO = "reports.forwarded@alpha-forward-zq.test";

interface Delivery {
  sink: Sink;
  stop(): Promise<void>;
}

/**
 * Delivery for real while the report-forwarding chain runs (the world otherwise delivers
 * nothing): the outbound job delivers directly, through the loopback DNS server, to a loopback
 * SMTP sink that FORWARD_TO's MX names, where the code is read as its recipient would.
 */
async function startDelivery(): Promise<Delivery> {
  const sink = await startSink();
  w.dns.set(FORWARD_TO.split("@")[1]!, "MX", [{ exchange: "mx.sink-zq.test", priority: 10 }]);
  w.dns.set("mx.sink-zq.test", "A", ["127.0.0.1"]);
  const deps = { ...w.t.deps, config: { ...w.t.deps.config, delivery: "direct" as const, mxPort: sink.port } };
  const runner = new JobRunner(deps);
  registerOutboundJobs(runner, deps, { retryScheduleMs: [50, 100, 150], mxCacheMs: 0, shaping: false });
  runner.start();
  let stopped: Promise<void> | null = null;
  return (liveDelivery = {
    sink,
    stop: () =>
      (stopped ??= (async () => {
        await closeOutbound(deps);
        await runner.stop(2000);
        await sink.close();
      })()),
  });
}
/** Stopped after the walk even when it fails half-way. */
let liveDelivery: Delivery | undefined;

/** The code in the `n`th mail the sink got for FORWARD_TO (a line of its body, indented by four spaces). */
async function forwardingCode(delivery: Delivery, n: number): Promise<string> {
  const mail = await waitFor(() => delivery.sink.received.filter((m) => m.to.includes(FORWARD_TO))[n - 1], 20_000);
  const code = /^ {4}(\d{6})\r?$/m.exec(mail.raw.toString("latin1"))?.[1];
  if (!code) throw new Error(`no code in the mail's body: ${mail.raw.toString("latin1").slice(0, 2000)}`);
  return code;
}

const ok = (res: Res, status: number, what: string): Res => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
};

/** A message sent through the API with the project token: queued for delivery, or scheduled for `scheduledAt`. */
async function sent(a: TeamWorld, n: number, scheduledAt?: string): Promise<string> {
  const body: Record<string, unknown> = { from: a.fromEmail, to: [`audit.queued${n}@alpha-dest-zq.test`], subject: `audit walk ${n} zq`, text: "audit walk" };
  if (scheduledAt) body.scheduled_at = scheduledAt;
  return ok(await call("POST", "/v1/send", { "x-service-token": a.team.projectToken }, body), 202, "send").json.message_id;
}

const inHours = (h: number) => new Date(Date.now() + h * 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * A quarantined inbound message, made as mail arrives: GTUBE (scored 1000, over the route's
 * threshold of 5) over SMTP to the inbound route's address, held by the inbound job. The MX and
 * the job run only for this.
 */
async function quarantined(a: TeamWorld): Promise<string> {
  const deps = w.t.deps;
  const runner = new JobRunner(deps);
  registerInboundJobs(runner, deps, { resolver: createAuthResolver(deps.dns, { ttlMs: 0 }) });
  runner.start();
  const mx = await startInboundListener(deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 200 });
  try {
    const from = "prize@spammer-zq.test";
    const raw = [`From: ${from}`, `To: ${a.inboundAddress}`, "Subject: You won a prize", `Date: ${new Date().toUTCString()}`, "Message-ID: <audit-walk-gtube@spammer-zq.test>", "", "Win now!", "", GTUBE, ""].join("\r\n");
    const info = await sendRaw(mx.port, { from, to: [a.inboundAddress] }, raw);
    const id = /Queued as (\S+)/.exec(info.response)?.[1];
    if (!id) throw new Error(`the MX answered ${info.response}`);
    await waitFor(async () => (await w.t.sql.get<{ status: string }>("SELECT status FROM messages WHERE id = ?", [id]))?.status === "quarantined", 20_000);
    return id;
  } finally {
    await mx.stop();
    await runner.stop(2000);
    stopInboundAnalysis(deps);
  }
}

/** Makes what `op` needs that the world lacks, as a user would, just before the walk calls it. */
async function prepare(op: Op, a: TeamWorld, n: number, carried: Carried): Promise<Prepared> {
  const owner = { authorization: `Bearer ${a.team.teamToken}` };
  const session = { cookie: a.ownerSession.cookie, "x-csrf-token": a.ownerSession.csrf };
  switch (op.key) {
    case "POST /v1/auth/invitations/accept": {
      // Team B invites A's owner, who accepts signed in (a session of its own: accepting replaces it).
      const invited = ok(await call("POST", "/v1/team/members", { authorization: `Bearer ${w.b.team.teamToken}` }, { email: a.owner.email }), 201, "invite");
      const token = linkTokenOf(invited.json);
      if (!token) throw new Error(`no invitation link: ${invited.text}`);
      const own = await signedIn(w.t, a.owner.email);
      return { body: { token }, headers: { cookie: own.cookie, "x-csrf-token": own.csrf }, secrets: [token, own.csrf, own.cookie.split("=")[1]!] };
    }
    case "POST /v1/auth/two-factor/confirm":
      return { body: { code: totpCode(base32Decode(carried.totpSecret!), Date.now()) } };
    case "POST /v1/auth/two-factor/recovery-codes":
      // The confirming step's code is used up (a replay is refused): the next step's, which the window accepts.
      return { body: { code: totpCode(base32Decode(carried.totpSecret!), Date.now() + TOTP_STEP_SECONDS * 1000) } };
    case "PUT /v1/auth/two-factor/requirement":
      return { body: { required: true } };
    case "POST /v1/auth/two-factor/disable":
      // Refused while the team requires it: the owner lifts the requirement first; a recovery code stands in for the authenticator.
      ok(await call("PUT", "/v1/auth/two-factor/requirement", session, { required: false }), 200, "requirement off");
      return { body: { code: carried.recoveryCodes![0]! } };
    case "PUT /v1/projects/{projectId}/report-forwarding":
      carried.delivery = await startDelivery();
      return { body: { destination: FORWARD_TO } };
    case "POST /v1/projects/{projectId}/report-forwarding/resend-code":
      // The first code has arrived; another is refused for a minute after it: the minute is taken as passed.
      await forwardingCode(carried.delivery!, 1);
      await w.t.sql.run("UPDATE report_forwarding SET code_sent_at = code_sent_at - 61000 WHERE project_id = ?", [a.team.projectId]);
      return {};
    case "POST /v1/projects/{projectId}/report-forwarding/verify": {
      // The second code (the first stopped working when it was sent), as the sink got it.
      const code = await forwardingCode(carried.delivery!, 2);
      await carried.delivery!.stop();
      return { body: { code } };
    }
    case "PATCH /v1/messages/{messageId}":
      return { ids: { messageId: await sent(a, n, inHours(2)) }, body: { scheduled_at: inHours(3) } };
    case "POST /v1/messages/{messageId}/cancel":
      return { ids: { messageId: await sent(a, n, inHours(2)) } };
    case "POST /v1/messages/{messageId}/retry":
    case "POST /v1/messages/{messageId}/cancel-delivery":
      return { ids: { messageId: await sent(a, n) } };
    case "POST /v1/domains/{domainId}/dns-records/{recordId}/verify": {
      const record = (await w.t.sql.get<{ id: string; type: string; fqdn: string; content: string }>("SELECT id, type, fqdn, content FROM dns_records WHERE domain_id = ? AND type = 'TXT' ORDER BY fqdn", [a.pendingDomainId]))!;
      w.dns.set(record.fqdn, "TXT", [record.content]);
      return { ids: { domainId: a.pendingDomainId, recordId: record.id } };
    }
    case "POST /v1/messages/{messageId}/process": {
      // Released to the route's webhooks: one receives message.inbound.
      ok(await call("POST", "/v1/webhooks", owner, { route_id: a.routes.inbound, name: "inbound hook", url: w.receiver.url("hooks.example.test", "/alpha-inbound"), events: ["message.inbound"] }), 201, "inbound webhook");
      return { ids: { messageId: carried.quarantinedId! } };
    }
  }
  return {};
}

describe(`audit log (${engine})`, () => {
  test("every mutating team operation of the OpenAPI document writes one row naming it and its targets; refusals write none; no row holds a secret", async () => {
    const a = w.a;
    const owner = { authorization: `Bearer ${a.team.teamToken}` };
    const session = { cookie: a.ownerSession.cookie, "x-csrf-token": a.ownerSession.csrf };
    const secrets = new Set<string>([a.team.teamToken, a.team.projectToken, a.project2Token, PASSWORD, a.ownerSession.csrf, a.memberSession.csrf, a.ownerSession.cookie.split("=")[1]!, a.memberSession.cookie.split("=")[1]!]);
    const hook = await call("POST", "/v1/webhooks", owner, { route_id: a.routes.transactional, name: "spare hook", url: w.receiver.url("hooks.example.test", "/spare"), events: ["message.created"] });
    expect(hook.status).toBe(201);
    secrets.add(hook.json.data.secret);
    const spare: Spare = { webhookId: hook.json.data.id };
    const project = await call("POST", "/v1/projects", owner, { name: "spare project" });
    spare.projectId = project.json.data.id;
    secrets.add(project.json.token);
    spare.routeId = (await call("POST", `/v1/projects/${a.team.projectId}/routes`, owner, { name: "spare route", route_type: "transactional" })).json.data.id;
    spare.domainId = (await call("POST", "/v1/domains", owner, { domain: "alpha-spare-zq.test" })).json.id;
    spare.roleId = (await call("POST", "/v1/team/roles", owner, { name: "spare role", permissions: ["domains:read"] })).json.data.id;
    const token = await call("POST", "/v1/team/tokens", owner, { name: "spare token", permissions: ["domains:read"] });
    spare.tokenId = token.json.data.id;
    secrets.add(token.json.token);
    for (const [k, v] of Object.entries(spare)) expect([k, v]).toEqual([k, expect.any(String)]);

    const ops = (await mutatingOps()).sort((x, y) => order(x) - order(y));
    expect(ops.length).toBeGreaterThan(40);
    const failures: string[] = [];
    const notSucceeding: string[] = [];
    let n = 0;
    const carried: Carried = { quarantinedId: await quarantined(a) };
    for (const op of ops) {
      const prepared = await prepare(op, a, ++n, carried);
      for (const v of prepared.secrets ?? []) secrets.add(v);
      const ids = { ...Object.fromEntries(op.params.map((p) => [p, pathId(a, spare, op, p)])), ...prepared.ids };
      const path = op.path.replace(/\{(\w+)\}/g, (_, p) => ids[p]!);
      // Signing out ends the session: each sign-out has a session of its own.
      const own = op.path.startsWith("/v1/auth/sign-out") ? await signedIn(w.t, a.owner.email) : null;
      if (own) for (const v of [own.csrf, own.cookie.split("=")[1]!]) secrets.add(v);
      const headers = prepared.headers ?? (own ? { cookie: own.cookie, "x-csrf-token": own.csrf } : op.security.includes("teamToken") ? owner : session);
      const before = Number((await w.t.sql.get<{ n: number }>("SELECT count(*) AS n FROM audit_log", []))!.n);
      const res = await call(op.method, path, headers, prepared.body !== undefined ? prepared.body : bodyFor(op, a, n));
      for (const s of [res.json?.token, res.json?.data?.secret, res.json?.data?.token, res.json?.api_token, res.json?.data?.totp_secret, res.json?.data?.secret_base32]) if (typeof s === "string" && s.length >= 8) secrets.add(s);
      if (op.key === "POST /v1/auth/two-factor/enrol") carried.totpSecret = res.json?.data?.secret;
      if (Array.isArray(res.json?.data?.recovery_codes)) {
        carried.recoveryCodes = res.json.data.recovery_codes;
        for (const c of carried.recoveryCodes!) secrets.add(c);
      }
      const rows = await w.t.sql.all<{ operation: string; target_ids: string; actor_kind: string; actor_id: string | null; status: number; team_id: string; user_agent: string }>(
        "SELECT operation, target_ids, actor_kind, actor_id, status, team_id, user_agent FROM audit_log ORDER BY created_at, id",
        [],
      );
      const added = rows.slice(before);
      if (res.status >= 200 && res.status < 300) {
        if (added.length !== 1) {
          failures.push(`${op.key}: ${res.status} with ${added.length} audit rows`);
          continue;
        }
        const row = added[0]!;
        if (row.operation !== op.key) failures.push(`${op.key}: row names ${row.operation}`);
        if (!Bun.deepEquals(JSON.parse(row.target_ids), ids)) failures.push(`${op.key}: targets ${row.target_ids}, expected ${JSON.stringify(ids)}`);
        // Accepting an invitation is logged in the team joined (B invited A's owner), the others in A.
        const team = op.key === "POST /v1/auth/invitations/accept" ? w.b.team.teamId : a.team.teamId;
        if (row.team_id !== team || Number(row.status) !== res.status || row.user_agent !== "audit-walk/1") failures.push(`${op.key}: ${JSON.stringify(row)}`);
        if (row.actor_kind !== (headers === owner ? "team_token" : "user") || (headers !== owner && row.actor_id !== a.owner.userId)) failures.push(`${op.key}: actor ${row.actor_kind} ${row.actor_id} (owner ${a.owner.userId})`);
        if (NOT_SUCCEEDING[op.key]) failures.push(`${op.key}: succeeds now (${res.status}); take it out of NOT_SUCCEEDING`);
      } else {
        if (added.length !== 0) failures.push(`${op.key}: refused (${res.status}) but wrote ${added.length} audit rows`);
        if (!NOT_SUCCEEDING[op.key]) notSucceeding.push(`${op.key}: ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    await carried.delivery?.stop();
    expect(failures).toEqual([]);
    expect(notSucceeding).toEqual([]);

    const raw = JSON.stringify(await w.t.sql.all("SELECT * FROM audit_log", []));
    const found = [...secrets].filter((s) => raw.includes(s));
    expect(found).toEqual([]);
  }, 120_000);

  test("GET /v1/team/audit-log: newest first, paged, filtered by actor, target, operation and time; audit:read needed", async () => {
    const a = w.a;
    const owner = { authorization: `Bearer ${a.team.teamToken}` };
    const reader = await call("POST", "/v1/team/tokens", owner, { name: "auditor", permissions: ["audit:read"] });
    const other = await call("POST", "/v1/team/tokens", owner, { name: "no audit", permissions: ["domains:read", "projects:create"] });
    expect(reader.status).toBe(201);
    const as = (tok: string) => ({ authorization: `Bearer ${tok}` });
    // A change by a named token names the token.
    // A change in the dashboard names the signed-in user, with the client's user agent.
    const dashboard = await signedIn(w.t, a.owner.email);
    const renamed = await call("PUT", "/v1/team", { cookie: dashboard.cookie, "x-csrf-token": dashboard.csrf, "user-agent": "Mozilla/5.0 audit" }, { name: "alpha renamed in the dashboard zq" });
    expect(renamed.status).toBe(200);
    const bySession = await call("GET", `/v1/team/audit-log?filter[actor]=${a.owner.userId}`, owner);
    expect(bySession.json.data[0]).toMatchObject({ operation: "PUT /v1/team", actor: { kind: "user", id: a.owner.userId }, changes: { name: "alpha renamed in the dashboard zq" }, user_agent: "Mozilla/5.0 audit" });
    const made = await call("POST", "/v1/projects", as(other.json.token), { name: "by the named token" });
    expect(made.status).toBe(201);
    const all = await call("GET", "/v1/team/audit-log?page[size]=2", as(reader.json.token));
    expect(all.status).toBe(200);
    expect(all.json.data).toHaveLength(2);
    expect(all.json.data[0]).toMatchObject({ operation: "POST /v1/projects", actor: { kind: "named_token", id: other.json.data.id, name: "no audit" }, changes: { name: "by the named token" }, status: 201 });
    expect(all.json.next_cursor).toEqual(expect.any(String));
    const next = await call("GET", `/v1/team/audit-log?page[size]=2&page[cursor]=${all.json.next_cursor}`, as(reader.json.token));
    expect(next.json.data[0].created_at <= all.json.data[1].created_at).toBe(true);
    expect(next.json.data.map((r: any) => r.id)).not.toContain(all.json.data[1].id);

    const byActor = await call("GET", `/v1/team/audit-log?filter[actor]=${other.json.data.id}`, as(reader.json.token));
    expect(byActor.json.data.map((r: any) => r.operation)).toEqual(["POST /v1/projects"]);
    const byTarget = await call("GET", `/v1/team/audit-log?filter[target]=${a.webhook2Id}`, owner);
    expect(byTarget.json.data.length).toBeGreaterThan(0);
    expect(byTarget.json.data.every((r: any) => Object.values(r.target_ids).includes(a.webhook2Id))).toBe(true);
    const byOp = await call("GET", `/v1/team/audit-log?filter[operation]=${encodeURIComponent("PUT /v1/team")}`, owner);
    expect(byOp.json.data.length).toBeGreaterThan(0);
    expect(byOp.json.data.every((r: any) => r.operation === "PUT /v1/team")).toBe(true);
    const future = await call("GET", "/v1/team/audit-log?filter[from]=2999-01-01", owner);
    expect(future.json.data).toEqual([]);
    const past = await call("GET", "/v1/team/audit-log?filter[to]=2000-01-01", owner);
    expect(past.json.data).toEqual([]);
    expect((await call("GET", "/v1/team/audit-log?filter[from]=yesterday", owner)).status).toBe(422);
    // Only A's rows, never B's.
    const bravo = await call("GET", "/v1/team/audit-log?page[size]=100", { authorization: `Bearer ${w.b.team.teamToken}` });
    expect(JSON.stringify(bravo.json.data)).not.toContain(a.team.teamId);
    const ofA = new Set((await w.t.sql.all<{ id: string }>("SELECT id FROM audit_log WHERE team_id = ?", [a.team.teamId])).map((r) => r.id));
    expect(ofA.size).toBeGreaterThan(30);
    expect(bravo.json.data.length).toBeGreaterThan(0);
    expect(bravo.json.data.filter((r: any) => ofA.has(r.id))).toEqual([]);
    // Without audit:read: 403, and reading writes no row.
    const refused = await call("GET", "/v1/team/audit-log", as(other.json.token));
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe("missing_permission");
  });

  test("a sent message (project token) and a refused change write no row", async () => {
    const count = async () => Number((await w.t.sql.get<{ n: number }>("SELECT count(*) AS n FROM audit_log", []))!.n);
    const before = await count();
    const sent = await call("POST", "/v1/send", { "x-service-token": w.a.team.projectToken }, { from: w.a.fromEmail, to: ["audit.send@alpha-dest-zq.test"], subject: "audit", text: "audit" });
    expect(sent.status).toBeLessThan(300);
    const refused = await call("POST", "/v1/projects", { authorization: `Bearer ${w.a.team.teamToken}` }, { name: "" });
    expect(refused.status).toBe(422);
    expect(await count()).toBe(before);
  });
});
