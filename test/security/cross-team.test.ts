/**
 * Issue 41: one team never changes or learns anything of another.
 *
 * Teams A ("alpha") and B ("bravo") each own everything a team can (cross-team-fixtures.ts). The
 * walk reads the OpenAPI document the app serves and calls EVERY operation in it with each of B's
 * credentials (team token, project token, an owner's session with its CSRF token):
 *
 * - with A's ids in the path (every A object of that kind, and B's parent with A's child where a
 *   path has two ids): a 404 (401 for a credential the operation does not take), and byte for byte
 *   the answer a random unknown id gets, so another team's object cannot be told from none;
 * - with A's ids and strings in the filters of lists: the answer an unknown value gets;
 * - with B's own objects in the path and A's in the body (route_id, project_id, project_ids,
 *   team_member_ids, a sender on A's domain, A's route in a send...): refused, 404 or 422 (409
 *   only where the README documents a server-wide name, e.g. a domain, with the reason listed);
 * - never a 5xx, and no answer (body or header) contains any of A's ids, addresses, domains,
 *   subjects, names or content markers that B did not send itself.
 *
 * A's state is read before and after the walk (every GET of the document with A's token and A's
 * ids, plus A's rows in the database) and must be identical. An operation of the document that
 * is neither walked nor listed in NOT_WALKED (with its reason) fails the test, so a new endpoint
 * is walked as soon as it is added.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newId } from "../../src/ids.ts";
import { serverSecretOf, signValue } from "../../src/secrets.ts";
import { crossTeamWorld, distinctiveStrings, linkTokenOf, PASSWORD, signIn, signedIn, type CrossTeamWorld, type Session, type TeamWorld } from "./cross-team-fixtures.ts";

let w: CrossTeamWorld;
beforeAll(async () => {
  w = await crossTeamWorld();
}, 60_000);
afterAll(async () => {
  await w?.close();
});

/** Operations the walk does not call with B's credentials and A's ids, and why; each has a test of its own below. */
const NOT_WALKED: Record<string, string> = {
  "GET /healthz": "no credentials and nothing of any team: liveness of the server (its answer is searched for A's strings below)",
  "GET /metrics": "no credentials; server-wide counts by queue, type and status (its answer is searched for A's strings below)",
  "GET /v1/unsubscribe/{token}": "no credentials: the token is an HMAC of one message under the server secret; B's token with A's message id is tested below",
  "POST /v1/unsubscribe/{token}": "as GET: a spliced token is tested below",
  "GET /v1/attachments/{attachmentId}/download": "no credentials: a signed, expiring link; B's link with A's attachment id is tested below",
  "POST /v1/auth/sign-in": "no credentials: B's owner signing in to A's team, and as A's users, is tested below",
  "POST /v1/auth/password": "no credentials: a one-time token of an invitation; the invitation attack is tested below",
  "GET /v1/auth/sso": "no credentials and nothing of any team: whether the server has single sign-on configured (its answer is searched for A's strings below)",
  "GET /v1/auth/sso/start": "no credentials: starts the OpenID Connect flow of the server's one issuer; no team's ids go in (test/e2e/dashboard-sso.test.ts)",
  "GET /v1/auth/sso/callback": "no credentials: the issuer's redirect back, bound to the browser's state cookie; wrong state, nonce, audience and signature are tested in test/e2e/dashboard-sso.test.ts",
  "GET /v1/team/audit-log": "B's own log repeats the bodies of B's own successful requests of this walk, A's domain name among them (BY_DESIGN); B's log holding no row of A's is tested in test/audit/audit-log.test.ts",
};

/**
 * Answers other than 404/422 to a body naming something of A's, allowed by design, and why. A
 * domain name is a public DNS name, not A's secret: registering one proves nothing (the DKIM
 * record decides who may use it), so B may register A's name as its own pending domain (201; the
 * walk deletes it again) or be told it is taken (409); either way A's domain is unchanged (the
 * snapshots). A's custom inbound domain is verified (DNS proof), so it is another route's, and
 * names under A's active sending domain are A's mail: 409.
 */
const BY_DESIGN: Record<string, number[]> = {
  "POST /v1/domains": [201, 409],
  "PUT /v1/routes/{routeId}": [409],
};

type Op = { method: string; path: string; key: string; security: string[]; params: { name: string; in: string }[]; bodySchema: any };
type Cred = "team" | "project" | "session";
type Res = { status: number; text: string; headers: Headers; json: any };

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Res> {
  const h = { ...headers };
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
  return { status: res.status, text: out, headers: res.headers, json };
}

function credHeaders(team: TeamWorld, cred: Cred, session: Session, method: string): Record<string, string> {
  if (cred === "team") return { authorization: `Bearer ${team.team.teamToken}` };
  if (cred === "project") return { "x-service-token": team.team.projectToken };
  return method === "GET" ? { cookie: session.cookie } : { cookie: session.cookie, "x-csrf-token": session.csrf };
}

const accepts = (op: Op, cred: Cred) =>
  cred === "team" ? op.security.includes("teamToken") : cred === "project" ? op.security.includes("projectToken") : op.security.includes("sessionCookie") || op.security.includes("teamToken");

async function operations(): Promise<Op[]> {
  const res = await call("GET", "/openapi/json", {});
  expect(res.status).toBe(200);
  const doc = res.json;
  const ops: Op[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!["get", "put", "post", "delete", "patch", "head"].includes(method)) continue;
      const security = (op.security ?? doc.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
      let bodySchema = op.requestBody?.content?.["application/json"]?.schema ?? null;
      if (bodySchema?.$ref) bodySchema = resolve(doc, bodySchema.$ref);
      ops.push({ method: method.toUpperCase(), path, key: `${method.toUpperCase()} ${path}`, security, params: op.parameters ?? [], bodySchema });
    }
  }
  return ops;
}

function resolve(doc: any, ref: string): any {
  return ref
    .replace(/^#\//, "")
    .split("/")
    .reduce((o, k) => o?.[k], doc);
}

/** The ids of `team` that a path parameter of this name stands for (every one of its kind). */
function pathIds(team: TeamWorld, op: Op, name: string): string[] {
  switch (name) {
    case "domainId":
      return [team.domainId, team.pendingDomainId];
    case "recordId":
      return team.dnsRecordIds;
    case "routeId":
      return Object.values(team.routes);
    case "memberId":
      return [team.member.memberId, team.owner.memberId];
    case "projectId":
      return [team.team.projectId, team.project2Id];
    case "messageId":
      return [team.outboundMessageId, team.broadcastMessageId, team.inboundMessageId];
    case "suppressionId":
      return team.suppressionIds;
    case "id":
      if (op.path.startsWith("/v1/webhooks/")) return [team.webhookId, team.webhook2Id];
      break;
    case "deliveryId":
      return [team.deliveryId];
    case "attachmentId":
      return [team.attachmentId];
    case "roleId":
      return [team.roleId];
    case "tokenId":
      return [team.tokenId];
  }
  throw new Error(`${op.key}: the walk has no ids for the path parameter {${name}}; add its kind to pathIds()`);
}

/** One id of B's own for a path parameter, for the requests that put A's objects in the body. */
function ownPathId(team: TeamWorld, op: Op, name: string): string {
  if (name === "routeId") return team.routes.inbound;
  return pathIds(team, op, name)[0]!;
}

const fill = (path: string, values: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, n) => values[n]!);

/**
 * Bodies that name objects of `ref` (A for an attack, B itself for an own request) from team
 * `self` (B). The first is the plain valid body; more are further ways to reach `ref`'s objects.
 */
function bodiesFor(op: Op, ref: TeamWorld, self: TeamWorld, n: number): unknown[] {
  const mark = `${self.label} walk ${n} zq`;
  const selfAddr = `${self.label}.walk${n}@${self.label}-dest-zq.test`;
  const hook = w.receiver.url("hooks.example.test", `/${self.label}-walk`);
  switch (op.key) {
    case "POST /v1/send":
      return [
        { from: ref.fromEmail, to: [selfAddr], subject: mark, text: mark },
        { from: self.fromEmail, to: [selfAddr], subject: mark, text: mark, route: ref.routes.transactional },
        { from: self.fromEmail, to: [selfAddr], subject: mark, text: mark, route: ref.customRouteSlug },
        { from: self.fromEmail, to: [selfAddr], subject: mark, text: mark, route: ref.routes.inbound },
      ];
    case "POST /v1/send/batch":
      return [
        [{ from: ref.fromEmail, to: [selfAddr], subject: mark, text: mark }],
        [{ from: self.fromEmail, to: [selfAddr], subject: mark, text: mark, route: ref.routes.custom }],
      ];
    case "POST /v1/domains":
      return [{ domain: ref === self ? `${self.label}-walk${n}-zq.test` : ref.domain }];
    case "PUT /v1/domains/{domainId}/projects":
      return [{ project_ids: [ref.team.projectId] }, { project_ids: [self.team.projectId, ref.project2Id] }];
    case "PUT /v1/team":
      return [{ name: `${self.label} team zq` }];
    case "POST /v1/team/members":
      // Inviting A's users by address is the invitation test's (below); the walk invites new addresses.
      return [{ email: selfAddr, name: mark }];
    case "POST /v1/projects":
      return [{ name: mark }];
    case "PUT /v1/projects/{projectId}":
      return [{ name: mark, smtp_enabled: true }];
    case "PUT /v1/projects/{projectId}/members":
      return [{ team_member_ids: [ref.member.memberId] }, { team_member_ids: [self.member.memberId, ref.owner.memberId] }];
    case "POST /v1/projects/{projectId}/routes":
      return [{ name: mark, route_type: "transactional" }];
    case "PUT /v1/routes/{routeId}":
      return [
        { name: mark },
        { inbound_settings: { inbound_domain: ref === self ? `in.${self.label}-walk${n}-zq.test` : ref.inboundDomain } },
        // Names under A's verified sending domain, its bounce name among them, are A's mail.
        { inbound_settings: { inbound_domain: `mail.${ref.domain}` } },
        { inbound_settings: { inbound_domain: `ph-bounces.${ref.domain}` } },
      ];
    case "POST /v1/suppressions":
      return [
        { email: selfAddr, scope: "route", route_id: ref.routes.custom, reason: "manual" },
        { emails: [selfAddr], scope: "project", project_id: ref.team.projectId, reason: "manual" },
        { email: selfAddr, scope: "route", route_id: ref.routes.inbound, reason: "manual" },
      ];
    case "POST /v1/webhooks":
      return [{ route_id: ref.routes.transactional, name: mark, url: hook, events: ["message.created"] }, { route_id: ref.routes.inbound, name: mark, url: hook, events: ["message.inbound"] }];
    case "PUT /v1/webhooks/{id}":
      return [{ name: mark, url: hook, enabled: true }];
  }
  return op.bodySchema ? [generate(op.bodySchema, ref, mark, selfAddr)] : [undefined];
}

/** A body from the schema alone (for an operation bodiesFor does not know yet): required fields, and every *_id(s) naming `ref`'s objects. */
function generate(schema: any, ref: TeamWorld, mark: string, addr: string, name = ""): unknown {
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== "null") : schema.type;
  const idOf = (n: string): string => {
    const kind = n.replace(/_ids?$/, "");
    const ids: Record<string, string> = {
      route: ref.routes.transactional,
      project: ref.team.projectId,
      domain: ref.domainId,
      webhook: ref.webhookId,
      message: ref.outboundMessageId,
      team_member: ref.member.memberId,
      member: ref.member.memberId,
      suppression: ref.suppressionIds[0]!,
      team: ref.team.teamId,
      role: ref.roleId,
    };
    return ids[kind] ?? ref.team.projectId;
  };
  if (type === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries<any>(schema.properties ?? {})) {
      if ((schema.required ?? []).includes(k) || /_ids?$/.test(k)) out[k] = generate(v, ref, mark, addr, k);
    }
    return out;
  }
  if (type === "array") {
    if (/_ids$/.test(name)) return [idOf(name)];
    return [generate(schema.items ?? {}, ref, mark, addr, name)];
  }
  if (schema.enum) return schema.enum[0];
  if (type === "boolean") return true;
  if (type === "integer" || type === "number") return schema.minimum ?? 1;
  if (/_id$/.test(name)) return idOf(name);
  if (schema.format === "email" || /email/.test(name)) return addr;
  if (schema.format === "uri" || name === "url") return w.receiver.url("hooks.example.test", "/generated");
  return mark;
}

/** A's strings found in a response that B's request did not carry itself. */
function leaks(res: Res, request: string, secrets: string[]): string[] {
  const sent = request.toLowerCase();
  const seen = (res.text + "\n" + [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n")).toLowerCase();
  return secrets.filter((s) => !sent.includes(s) && seen.includes(s));
}

/** A session's idle end moves with its own use, at most once a minute (README "Sessions"): the one field the snapshots leave out, of the session's own answer only. */
const withoutIdleEnd = (text: string) => text.replace(/"expires_at":"[^"]*"/g, '"expires_at":"…"');

/** Every GET of the document with A's token (A's session where only a session is taken) and A's ids: A's state as A sees it. */
async function snapshotA(ops: Op[]): Promise<Record<string, string>> {
  const a = w.a;
  const out: Record<string, string> = {};
  for (const op of ops) {
    if (op.method !== "GET" || NOT_WALKED[op.key]) continue;
    const names = op.params.filter((p) => p.in === "path").map((p) => p.name);
    for (const values of combos(names.map((n) => pathIds(a, op, n)))) {
      const path = fill(op.path, Object.fromEntries(names.map((n, i) => [n, values[i]!])));
      const paths = op.key === "GET /v1/routes/{routeId}" ? [path, `${path}?include=project,projectCount,projectExists,statistics`] : [path];
      for (const p of paths) {
        const headers: Record<string, string> = op.security.includes("teamToken") ? { authorization: `Bearer ${a.team.teamToken}` } : { cookie: a.ownerSession.cookie };
        const res = await call("GET", p, headers);
        out[p] = `${res.status} ${res.headers.get("content-type")} ${op.security.includes("teamToken") ? res.text : withoutIdleEnd(res.text)}`;
      }
    }
  }
  out["session (member)"] = withoutIdleEnd((await call("GET", "/v1/auth/session", { cookie: a.memberSession.cookie })).text);
  return out;
}

/**
 * A's rows as stored. Ignored, and why: sessions.last_seen_at (A's own snapshot requests move it),
 * teams.token_last_used_at/_ip (A's token is what the snapshot reads with). Tables another change
 * may not have yet are read only when present.
 */
async function rowsOfA(): Promise<Record<string, unknown>> {
  const a = w.a;
  const team = a.team.teamId;
  const queries: Record<string, string> = {
    teams: "SELECT id, name, plan, tier, features, addons, token_hash, token_generated_at, verified_at, created_at, updated_at FROM teams WHERE id = ?",
    team_members: "SELECT * FROM team_members WHERE team_id = ? ORDER BY id",
    users: "SELECT * FROM users WHERE id IN (SELECT user_id FROM team_members WHERE team_id = ?) ORDER BY id",
    sessions: "SELECT id, token_hash, csrf_token, user_id, team_id, created_at FROM sessions WHERE team_id = ? ORDER BY id",
    team_invitations: "SELECT * FROM team_invitations WHERE team_id = ? ORDER BY member_id",
    password_tokens: "SELECT * FROM password_tokens WHERE user_id IN (SELECT user_id FROM team_members WHERE team_id = ?) ORDER BY user_id",
    projects: "SELECT * FROM projects WHERE team_id = ? ORDER BY id",
    project_members: "SELECT * FROM project_members WHERE project_id IN (SELECT id FROM projects WHERE team_id = ?) ORDER BY project_id, member_id",
    project_domains: "SELECT * FROM project_domains WHERE project_id IN (SELECT id FROM projects WHERE team_id = ?) ORDER BY project_id, domain_id",
    routes: "SELECT * FROM routes WHERE team_id = ? ORDER BY id",
    domains: "SELECT * FROM domains WHERE team_id = ? ORDER BY id",
    dns_records: "SELECT * FROM dns_records WHERE domain_id IN (SELECT id FROM domains WHERE team_id = ?) ORDER BY id",
    dkim_keys: "SELECT * FROM dkim_keys WHERE domain_id IN (SELECT id FROM domains WHERE team_id = ?) ORDER BY id",
    messages: "SELECT * FROM messages WHERE team_id = ? ORDER BY id",
    recipients: "SELECT * FROM recipients WHERE message_id IN (SELECT id FROM messages WHERE team_id = ?) ORDER BY id",
    message_events: "SELECT * FROM message_events WHERE message_id IN (SELECT id FROM messages WHERE team_id = ?) ORDER BY id",
    message_contents: "SELECT * FROM message_contents WHERE message_id IN (SELECT id FROM messages WHERE team_id = ?) ORDER BY message_id",
    attachments: "SELECT * FROM attachments WHERE message_id IN (SELECT id FROM messages WHERE team_id = ?) ORDER BY id",
    tracking_hits: "SELECT * FROM tracking_hits WHERE message_id IN (SELECT id FROM messages WHERE team_id = ?) ORDER BY id",
    suppressions: "SELECT * FROM suppressions WHERE team_id = ? ORDER BY id",
    webhooks: "SELECT * FROM webhooks WHERE team_id = ? ORDER BY id",
    webhook_deliveries: "SELECT * FROM webhook_deliveries WHERE webhook_id IN (SELECT id FROM webhooks WHERE team_id = ?) ORDER BY id",
    events: "SELECT * FROM events WHERE team_id = ? ORDER BY id",
    idempotency_keys: "SELECT * FROM idempotency_keys WHERE project_id IN (SELECT id FROM projects WHERE team_id = ?) ORDER BY key",
  };
  const out: Record<string, unknown> = {};
  for (const [table, q] of Object.entries(queries)) {
    try {
      out[table] = await w.t.sql.all(q, [team]);
    } catch (e) {
      if (!/no such table|does not exist|no such column/i.test(String(e))) throw e;
      out[table] = "absent";
    }
  }
  // The jobs that would act on A's messages or webhooks (outbound, webhook deliveries), by payload.
  const ids = [a.outboundMessageId, a.broadcastMessageId, a.inboundMessageId, a.webhookId, a.webhook2Id];
  const jobs = await w.t.sql.all<{ id: number; queue: string; payload: string; run_at: number; attempts: number; dead_at: number | null }>(
    "SELECT id, queue, payload, run_at, attempts, dead_at FROM jobs ORDER BY id",
  );
  out.jobs = jobs.filter((j) => ids.some((id) => String(j.payload).includes(id)));
  return JSON.parse(JSON.stringify(out, (_k, v) => (v instanceof Uint8Array || Buffer.isBuffer(v) ? Buffer.from(v).toString("hex") : typeof v === "bigint" ? String(v) : v)));
}

function combos(lists: string[][]): string[][] {
  return lists.reduce<string[][]>((acc, list) => acc.flatMap((c) => list.map((v) => [...c, v])), [[]]);
}

/** `text` with every occurrence of the given ids replaced by their placeholder, for comparing answers. */
const masked = (text: string, ids: Record<string, string>) => Object.entries(ids).reduce((s, [id, ph]) => s.split(id).join(ph), text);

describe("cross-team isolation (issue 41)", () => {
  test("every operation of /openapi/json, called by team B with A's ids, refuses without telling A's objects from none, changes nothing of A and shows nothing of A", async () => {
    const { a, b } = w;
    const ops = await operations();
    const secrets = [...distinctiveStrings(a), a.label];
    const failures: string[] = [];
    const walked = new Set<string>();
    let session = b.ownerSession;
    let n = 0;

    const toA = () => w.receiver.deliveries.filter((d) => d.path === `/${a.label}`).length;
    const deliveredToA = toA();
    const beforeApi = await snapshotA(ops);
    const beforeRows = await rowsOfA();

    const check = async (op: Op, cred: Cred, path: string, body: unknown, expect: (r: Res) => string | null, oracle?: { path: string; body: unknown; ids: Record<string, string> }) => {
      const headers = credHeaders(b, cred, session, op.method);
      const res = await call(op.method, path, headers, body);
      const what = `${cred} ${op.method} ${path}${body === undefined ? "" : ` ${JSON.stringify(body)}`}`;
      if (res.status >= 500) failures.push(`${what} → ${res.status} ${res.text}`);
      const problem = expect(res);
      if (problem) failures.push(`${what} → ${res.status} ${res.text.slice(0, 300)}: ${problem}`);
      const found = leaks(res, path + JSON.stringify(body ?? null) + JSON.stringify(headers), secrets);
      if (found.length) failures.push(`${what} → ${res.status}: the answer shows A's ${JSON.stringify(found)}: ${res.text.slice(0, 300)}`);
      if (oracle) {
        const other = await call(op.method, oracle.path, credHeaders(b, cred, session, op.method), oracle.body);
        const x = `${res.status} ${masked(res.text, oracle.ids)}`;
        const y = `${other.status} ${masked(other.text, oracle.ids)}`;
        if (x !== y) failures.push(`${what}: A's ids are told from unknown ones: ${x.slice(0, 200)} against ${y.slice(0, 200)}`);
      }
      // Ending B's session is B's right; a fresh one keeps the walk going.
      if (cred === "session" && op.path.startsWith("/v1/auth/sign-out")) session = await signedIn(w.t, b.owner.email, PASSWORD, b.team.teamId);
      return res;
    };

    /** A's value in each filter of the operation gets the answer an unknown value gets. */
    const probeFilters = async (op: Op, cred: Cred, path: string, body: unknown) => {
      for (const p of op.params.filter((q) => q.in === "query")) {
        if (p.name === "page[cursor]") {
          // A cursor of A's own list of this kind, and the same with every value's type swapped:
          // B's list from there, or a 422, never A's rows and never a 5xx.
          const aPath = fill(op.path, Object.fromEntries(op.params.filter((q) => q.in === "path").map((q) => [q.name, pathIds(a, op, q.name)[0]!])));
          const first = await call("GET", `${aPath}?page[size]=1`, { authorization: `Bearer ${a.team.teamToken}` });
          const cursor: string | null = first.json?.next_cursor ?? null;
          if (!cursor) failures.push(`${op.key}: A's list has no second page to take a cursor from`);
          else {
            const values = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown[];
            const swapped = [values[0], ...values.slice(1).map((v) => (typeof v === "number" ? "1' OR '1'='1" : 1e300))];
            for (const c of [cursor, Buffer.from(JSON.stringify(swapped)).toString("base64url")]) {
              await check(op, cred, `${path}?page[cursor]=${c}`, op.method === "GET" ? undefined : body, () => null);
            }
          }
          continue;
        }
        const probe = filterProbe(a, p.name);
        if (!probe) continue;
        const q = (v: string) => `${path}?${encodeURIComponent(p.name)}=${encodeURIComponent(v)}`;
        const sent = op.method === "GET" ? undefined : body;
        await check(op, cred, q(probe.value), sent, () => null, { path: q(probe.unknown), body: sent, ids: { [probe.value]: "<v>", [probe.unknown]: "<v>" } });
      }
    };

    for (const op of ops) {
      if (NOT_WALKED[op.key]) continue;
      walked.add(op.key);
      const names = op.params.filter((p) => p.in === "path").map((p) => p.name);
      for (const cred of ["team", "project", "session"] as Cred[]) {
        const ok = accepts(op, cred);
        const refused = (r: Res) => (ok ? (r.status === 404 ? null : "expected 404") : r.status === 401 ? null : "expected 401 for a credential the operation does not take");

        if (names.length > 0) {
          // A's ids in the path, with B's own body: every A object, and B's parent with A's child.
          const lists = names.map((nm) => pathIds(a, op, nm));
          const mixed = names.length > 1 ? names.map((nm, i) => (i < names.length - 1 ? [ownPathId(b, op, nm)] : pathIds(a, op, nm))) : null;
          for (const values of [...combos(lists), ...(mixed ? combos(mixed) : [])]) {
            const byName = Object.fromEntries(names.map((nm, i) => [nm, values[i]!]));
            const randoms = Object.fromEntries(values.filter((v) => secrets.includes(v.toLowerCase())).map((v) => [v, newId()]));
            const path = fill(op.path, byName);
            const body = bodiesFor(op, b, b, ++n)[0];
            const ids: Record<string, string> = {};
            for (const [id, r] of Object.entries(randoms)) ids[id] = ids[r] = "<id>";
            const oraclePath = Object.entries(randoms).reduce((p, [id, r]) => p.split(id).join(r), path);
            await check(op, cred, path, body, refused, { path: oraclePath, body, ids });
          }
          // B's own objects in the path, A's in the body.
          if (ok && op.bodySchema) {
            const own = fill(op.path, Object.fromEntries(names.map((nm) => [nm, ownPathId(b, op, nm)])));
            for (const body of bodiesFor(op, a, b, ++n)) {
              if (JSON.stringify(body) === JSON.stringify(bodiesFor(op, b, b, n)[0])) continue;
              await check(op, cred, own, body, (r) => refusedBody(op, r));
            }
          }
          // B's own objects in the path, A's values in the filters.
          if (ok) await probeFilters(op, cred, fill(op.path, Object.fromEntries(names.map((nm) => [nm, ownPathId(b, op, nm)]))), bodiesFor(op, b, b, ++n)[0]);
          continue;
        }

        // No ids in the path: B's own request, then A's references in the body, then A's values in the filters.
        const own = bodiesFor(op, b, b, ++n)[0];
        await check(op, cred, op.path, own, (r) => (ok || r.status === 401 ? null : "expected 401 for a credential the operation does not take"));
        if (ok && op.bodySchema) {
          const mine = JSON.stringify(own);
          for (const body of bodiesFor(op, a, b, ++n)) {
            if (JSON.stringify(body) === mine || !secrets.some((s) => JSON.stringify(body).toLowerCase().includes(s))) continue;
            const res = await check(op, cred, op.path, body, (r) => refusedBody(op, r));
            if (op.key === "POST /v1/domains" && res.status === 201) {
              expect((await call("DELETE", `/v1/domains/${res.json.id}`, credHeaders(b, "team", session, "DELETE"))).status).toBe(200);
            }
          }
        }
        if (ok) await probeFilters(op, cred, op.path, own);
      }
    }
    // The answers without credentials that the walk skips hold nothing of A either.
    for (const path of ["/healthz", "/metrics", "/v1/auth/sso"]) {
      const res = await call("GET", path, {});
      const found = leaks(res, path, secrets);
      if (found.length) failures.push(`GET ${path} shows A's ${JSON.stringify(found)}`);
    }

    const afterApi = await snapshotA(ops);
    const afterRows = await rowsOfA();
    expect(failures).toEqual([]);
    expect(toA()).toBe(deliveredToA);
    expect(afterApi).toEqual(beforeApi);
    expect(afterRows).toEqual(beforeRows);
    // A's credentials all still work, for A.
    expect((await call("GET", "/v1/ping", { "x-service-token": a.team.projectToken })).json).toMatchObject({ project_id: a.team.projectId });
    expect((await call("GET", "/v1/ping", { "x-service-token": a.project2Token })).json).toMatchObject({ project_id: a.project2Id });
    expect((await call("GET", "/v1/team", { cookie: a.memberSession.cookie })).json.id).toBe(a.team.teamId);
    expect((await signIn(w.t, a.owner.email, PASSWORD, a.team.teamId)).res.status).toBe(201);
    // Every operation of the document was walked or is listed with its reason; nothing listed is gone from it.
    const documented = new Set(ops.map((o) => o.key));
    expect(ops.filter((o) => !walked.has(o.key) && !NOT_WALKED[o.key]).map((o) => o.key)).toEqual([]);
    expect(Object.keys(NOT_WALKED).filter((k) => !documented.has(k))).toEqual([]);
    expect(walked.size).toBeGreaterThan(40);
  }, 60_000);

  test("B's own objects, lists and counts read the same before and after A's activity: nothing of B's view depends on A", async () => {
    const { a, b } = w;
    const ops = await operations();
    const bSession = await signedIn(w.t, b.owner.email, PASSWORD, b.team.teamId);
    const viewOfB = async () => {
      const out: Record<string, string> = {};
      for (const op of ops) {
        if (op.method !== "GET" || NOT_WALKED[op.key]) continue;
        const names = op.params.filter((p) => p.in === "path").map((p) => p.name);
        for (const values of combos(names.map((nm) => pathIds(b, op, nm)))) {
          const path = fill(op.path, Object.fromEntries(names.map((nm, i) => [nm, values[i]!])));
          const paths = op.key === "GET /v1/routes/{routeId}" ? [path, `${path}?include=project,projectCount,projectExists,statistics`] : [path];
          for (const p of paths) {
            const headers: Record<string, string> = op.security.includes("teamToken") ? { authorization: `Bearer ${b.team.teamToken}` } : { cookie: bSession.cookie };
            const res = await call("GET", p, headers);
            out[p] = `${res.status} ${op.security.includes("teamToken") ? res.text : withoutIdleEnd(res.text)}`;
          }
        }
      }
      return out;
    };
    const bEvents = async () => ({
      events: await w.t.sql.all("SELECT * FROM events WHERE team_id = ? ORDER BY id", [b.team.teamId]),
      jobs: (await w.t.sql.all<{ payload: string }>("SELECT payload FROM jobs ORDER BY id")).filter((j) => String(j.payload).includes(b.webhookId)),
    });
    const before = await viewOfB();
    const eventsBefore = await bEvents();

    // A sends (to B's recipient domain too), receives, suppresses B's addresses, adds members,
    // projects, routes, webhooks and domains, and gets opens.
    const tok = { token: a.team.teamToken };
    for (const route of [a.customRouteSlug, "transactional"]) {
      const sent = await w.t.request("POST", "/v1/send", {
        projectToken: a.team.projectToken,
        body: { from: a.fromEmail, to: [b.recipientEmail, `x@${b.recipientDomain}`], subject: b.subject, tag: b.tag, text: "alpha again zq", route },
      });
      expect(sent.status).toBe(202);
    }
    expect((await w.t.request("POST", "/v1/suppressions", { ...tok, body: { emails: [b.recipientEmail, b.suppressedEmail], scope: "team", reason: "manual" } })).status).toBe(201);
    expect((await w.t.request("POST", "/v1/suppressions", { ...tok, body: { email: b.recipientEmail, scope: "route", route_id: a.routes.custom, reason: "manual" } })).status).toBe(201);
    expect((await w.t.request("POST", "/v1/projects", { ...tok, body: { name: "alpha third project zq" } })).status).toBe(201);
    expect((await w.t.request("POST", `/v1/projects/${a.team.projectId}/routes`, { ...tok, body: { name: "alpha another route zq", route_type: "inbound" } })).status).toBe(201);
    expect((await w.t.request("POST", "/v1/domains", { ...tok, body: { domain: "alpha-third-zq.test" } })).status).toBe(201);
    expect(
      (await w.t.request("POST", "/v1/webhooks", { ...tok, body: { route_id: a.routes.custom, name: "alpha hook 2 zq", url: w.receiver.url("hooks.example.test", "/alpha2"), events: ["message.created"] } })).status,
    ).toBe(201);
    // A member joins A (as an accepted invitation leaves them).
    const [userId, memberId, now] = [newId(), newId(), Date.now()];
    await w.t.sql.run("INSERT INTO users (id, name, email, created_at) VALUES (?, 'alpha joiner zq', 'alpha.joiner@alpha-zq.test', ?)", [userId, now]);
    await w.t.sql.run("INSERT INTO team_members (id, team_id, user_id, role, status, joined_at, created_at) VALUES (?, ?, ?, 'member', 'active', ?, ?)", [memberId, a.team.teamId, userId, now, now]);
    expect((await w.t.request("PUT", `/v1/projects/${a.team.projectId}/members`, { ...tok, body: { team_member_ids: [a.member.memberId, a.owner.memberId, memberId] } })).status).toBe(200);
    const { trackingToken } = await import("../../src/auth/tracking-tokens.ts");
    const rcpt = (await w.t.sql.get<{ id: string }>("SELECT id FROM recipients WHERE message_id = ? ORDER BY id LIMIT 1", [a.outboundMessageId]))!.id;
    const open = trackingToken(await serverSecretOf(w.t.deps.store), { kind: "open", messageId: a.outboundMessageId, recipientId: rcpt });
    await call("GET", `/t/o/${open}`, { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" });
    for (let i = 0; i < 100 && !(await w.t.sql.get("SELECT 1 AS one FROM tracking_hits WHERE message_id = ?", [a.outboundMessageId])); i++) await Bun.sleep(20);

    expect(await viewOfB()).toEqual(before);
    // No event of A's reached B's webhooks.
    expect(await bEvents()).toEqual(eventsBefore);
  }, 60_000);
});

/** A body naming A's objects: 404 or 422, or a documented conflict (409). */
function refusedBody(op: Op, r: Res): string | null {
  if (r.status === 404 || r.status === 422) return null;
  if (BY_DESIGN[op.key]?.includes(r.status)) return null;
  return "expected a refusal (404 or 422) of a body naming A's objects";
}

/** A's value for a list filter, and an unknown value of the same kind whose answer it must equal; null for filters of enums. */
function filterProbe(a: TeamWorld, name: string): { value: string; unknown: string } | null {
  const m = /^filter\[(\w+)\]$/.exec(name);
  if (!m) return null;
  const f = m[1]!;
  const id = (v: string) => ({ value: v, unknown: newId() });
  switch (f) {
    case "route_id":
      return id(a.routes.custom);
    case "project_id":
      return id(a.team.projectId);
    case "domain_id":
      return id(a.domainId);
    case "event_id":
      return id(a.webhookEventId);
    case "domain":
      return { value: a.recipientDomain, unknown: "unknown-zz.test" };
    case "email":
      return { value: a.suppressedEmail, unknown: "unknown@unknown-zz.test" };
    case "from_email":
      return { value: a.fromEmail, unknown: "unknown@unknown-zz.test" };
    case "subject":
      return { value: a.subject, unknown: "unknown subject zz" };
    case "tag":
      return { value: a.tag, unknown: "unknowntagzz" };
  }
  if (/_id$/.test(f)) throw new Error(`filter[${f}]: the walk has no id of A for this filter; add it to filterProbe()`);
  return null;
}

describe("links and tokens that need no credentials", () => {
  test("B's signed attachment link with A's attachment id is refused (B's own link works)", async () => {
    const { a, b } = w;
    const own = new URL(b.attachmentUrl);
    const ok = await call("GET", own.pathname + own.search, {});
    expect(ok.status).toBe(200);
    expect(ok.text).toContain("bravo attachment bytes zq");
    const spliced = await call("GET", own.pathname.replace(b.attachmentId, a.attachmentId) + own.search, {});
    expect(spliced.status).toBeGreaterThanOrEqual(400);
    expect(spliced.status).toBeLessThan(500);
    expect(spliced.text).not.toContain("alpha");
  });

  test("B's tracking token with A's message and recipient spliced in records nothing for A (B's own token records B's open)", async () => {
    const { a, b } = w;
    const { trackingToken } = await import("../../src/auth/tracking-tokens.ts");
    const secret = await serverSecretOf(w.t.deps.store);
    const rcpt = async (messageId: string) => (await w.t.sql.get<{ id: string }>("SELECT id FROM recipients WHERE message_id = ? ORDER BY id LIMIT 1", [messageId]))!.id;
    const hits = async (messageId: string) => Number((await w.t.sql.get<{ n: number }>("SELECT count(*) AS n FROM tracking_hits WHERE message_id = ?", [messageId]))!.n);
    const bToken = trackingToken(secret, { kind: "open", messageId: b.outboundMessageId, recipientId: await rcpt(b.outboundMessageId) });
    const bytes = Buffer.from(bToken, "base64url");
    Buffer.from(a.outboundMessageId.replace(/-/g, ""), "hex").copy(bytes, 1);
    Buffer.from((await rcpt(a.outboundMessageId)).replace(/-/g, ""), "hex").copy(bytes, 17);
    const spliced = bytes.toString("base64url");
    const before = await hits(a.outboundMessageId);
    for (const path of [`/t/o/${spliced}`, `/t/c/${spliced}`]) {
      const res = await call("GET", path, { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" });
      expect(res.status).toBeLessThan(500);
      expect(res.text).not.toContain("alpha");
    }
    await call("GET", `/t/o/${bToken}`, { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0" });
    for (let i = 0; i < 100 && (await hits(b.outboundMessageId)) === 0; i++) await Bun.sleep(20);
    expect(await hits(b.outboundMessageId)).toBeGreaterThan(0);
    expect(await hits(a.outboundMessageId)).toBe(before);
  });

  test("unsubscribe links naming A's message without A's signature change nothing and show nothing", async () => {
    const { a } = w;
    const suppressions = async () => (await w.t.sql.all("SELECT id FROM suppressions WHERE team_id = ? ORDER BY id", [a.team.teamId])).length;
    const before = await suppressions();
    for (const token of [a.broadcastMessageId, `${a.broadcastMessageId}.${"0".repeat(20)}`, `${a.broadcastMessageId}.${signValue("not the server secret", "unsubscribe", a.broadcastMessageId, 20)}`]) {
      for (const method of ["GET", "POST"]) {
        const res = await call(method, `/v1/unsubscribe/${encodeURIComponent(token)}`, method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {});
        expect(res.status).toBe(404);
        expect(res.text).not.toContain("alpha");
      }
    }
    expect(await suppressions()).toBe(before);
  });
});

describe("sending and suppressing as B", () => {
  test("an Idempotency-Key A used is B's own key: B's request under it gets no answer of A's", async () => {
    const { a, b } = w;
    const key = `key-${newId()}`;
    const aSend = await w.t.request("POST", "/v1/send", {
      projectToken: a.team.projectToken,
      headers: { "idempotency-key": key },
      body: { from: a.fromEmail, to: [a.recipientEmail], subject: a.subject, text: "alpha body zq" },
    });
    expect(aSend.status).toBe(202);
    // The same key and A's very request, from B: refused on A's domain, never A's stored answer.
    const replay = await w.t.request("POST", "/v1/send", {
      projectToken: b.team.projectToken,
      headers: { "idempotency-key": key },
      body: { from: a.fromEmail, to: [a.recipientEmail], subject: a.subject, text: "alpha body zq" },
    });
    expect(replay.status).toBe(422);
    expect(replay.text).not.toContain(aSend.json.message_id);
    // B's own request under the key is B's message.
    const own = await w.t.request("POST", "/v1/send", {
      projectToken: b.team.projectToken,
      headers: { "idempotency-key": key },
      body: { from: b.fromEmail, to: [b.recipientEmail], subject: b.subject, text: "bravo body zq" },
    });
    expect(own.status).toBe(202);
    expect(own.json.message_id).not.toBe(aSend.json.message_id);
    expect((await w.t.request("GET", `/v1/messages/${own.json.message_id}`, { token: b.team.teamToken })).json.subject).toBe(b.subject);
    expect((await w.t.request("GET", `/v1/messages/${aSend.json.message_id}`, { token: a.team.teamToken })).json.subject).toBe(a.subject);
  });

  test("B suppressing an address A suppressed creates B's own suppression: A's is neither reported nor touched", async () => {
    const { a, b } = w;
    const aList = async () => (await w.t.request("GET", "/v1/suppressions?page[size]=100", { token: a.team.teamToken })).text;
    const before = await aList();
    const res = await w.t.request("POST", "/v1/suppressions", { token: b.team.teamToken, body: { emails: [a.suppressedEmail, `alpha.project-blocked@${a.recipientDomain}`], scope: "team", reason: "manual" } });
    expect(res.status).toBe(201);
    expect(res.json.data.skipped).toEqual([]);
    expect([...res.json.data.created].sort()).toEqual([`alpha.project-blocked@${a.recipientDomain}`, a.suppressedEmail].sort());
    const made = (await w.t.request("GET", "/v1/suppressions?page[size]=100", { token: b.team.teamToken })).json.data.filter((s: { email: string }) => res.json.data.created.includes(s.email));
    expect(made).toHaveLength(2);
    for (const s of made) expect(a.suppressionIds).not.toContain(s.id);
    expect(await aList()).toBe(before);
    for (const s of made) expect((await w.t.request("DELETE", `/v1/suppressions/${s.id}`, { token: b.team.teamToken })).status).toBe(200);
  });
});

describe("SMTP submission as B", () => {
  test("B's project token submits nothing under A's project id, from A's domain or on A's route; A's messages are untouched", async () => {
    const { a, b } = w;
    const nodemailer = (await import("nodemailer")).default;
    const { startSubmissionListener } = await import("../../src/smtp/submission.ts");
    expect((await w.t.request("PUT", `/v1/projects/${b.team.projectId}`, { token: b.team.teamToken, body: { smtp_enabled: true } })).status).toBe(200);
    const listener = await startSubmissionListener(w.t.deps, { host: "127.0.0.1", port: 0, closeTimeoutMs: 100 });
    const aMessages = async () => JSON.stringify(await w.t.sql.all("SELECT id, status, updated_at FROM messages WHERE team_id = ? ORDER BY id", [a.team.teamId]));
    const viaAUsing = async (mail: Record<string, unknown>, user: string) => {
      const transport = nodemailer.createTransport({ host: "127.0.0.1", port: listener.port, secure: false, ignoreTLS: true, auth: { user, pass: b.team.projectToken }, logger: false });
      try {
        const info = await transport.sendMail({ to: `x@${b.label}-dest-zq.test`, subject: "bravo smtp zq", text: "bravo smtp zq", ...mail });
        return (/Queued as (\S+)/.exec(info.response) ?? [])[1] ?? info.response;
      } catch (e) {
        return `refused: ${(e as { responseCode?: number }).responseCode ?? String(e)}`;
      } finally {
        transport.close();
      }
    };
    try {
      const before = await aMessages();
      // The control: B's own submission works.
      const own = await viaAUsing({ from: b.fromEmail }, b.team.projectId);
      expect(own).toMatch(/^[0-9a-f-]{36}$/);
      expect((await w.t.sql.get<{ team_id: string }>("SELECT team_id FROM messages WHERE id = ?", [own]))!.team_id).toBe(b.team.teamId);
      const attempts = {
        asAProject: await viaAUsing({ from: a.fromEmail }, a.team.projectId),
        asAProjectOwnDomain: await viaAUsing({ from: b.fromEmail }, a.team.projectId),
        fromADomain: await viaAUsing({ from: a.fromEmail }, b.team.projectId),
        onARoute: await viaAUsing({ from: b.fromEmail, headers: { "X-Posthorn-Route": a.routes.transactional } }, b.team.projectId),
        onARouteSlug: await viaAUsing({ from: b.fromEmail, headers: { "X-Posthorn-Route": a.customRouteSlug } }, b.team.projectId),
      };
      // Whatever a submission under A's project id answers, nothing it stores is A's.
      for (const [what, result] of Object.entries(attempts)) {
        if (/^[0-9a-f-]{36}$/.test(result)) {
          const row = await w.t.sql.get<{ team_id: string; project_id: string; route_id: string; from_email: string }>("SELECT team_id, project_id, route_id, from_email FROM messages WHERE id = ?", [result]);
          expect({ what, row }).toEqual({ what, row: { team_id: b.team.teamId, project_id: b.team.projectId, route_id: b.routes.transactional, from_email: b.fromEmail } });
        } else expect({ what, result }).toEqual({ what, result: expect.stringMatching(/^refused: [45]\d\d$/) });
      }
      expect(attempts.fromADomain).toMatch(/^refused/);
      expect(attempts.onARoute).toMatch(/^refused/);
      expect(attempts.onARouteSlug).toMatch(/^refused/);
      expect(await aMessages()).toBe(before);
    } finally {
      await listener.stop();
    }
  });
});

describe("the server's shared delivery state", () => {
  test("a destination both teams' mail goes to shows B only B's domains and not the remote reply to A's mail", async () => {
    const { a, b } = w;
    const sent = await w.t.request("POST", "/v1/send", { projectToken: b.team.projectToken, body: { from: b.fromEmail, to: [b.recipientEmail], subject: b.subject, text: "bravo body zq" } });
    expect(sent.status).toBe(202);
    const now = Date.now();
    // One provider's MX serves both partners' domains; its last rate reply came to A's mail.
    await w.t.sql.run(
      `INSERT INTO destinations (name, domains, concurrency, per_minute, paused_until, strikes, last_reply, throttled_at, updated_by, updated_at)
       VALUES (?, ?, NULL, NULL, ?, 1, ?, ?, 'node-1', ?)`,
      [
        "mx.shared-provider-zq.test",
        JSON.stringify([a.recipientDomain, b.recipientDomain]),
        now + 600_000,
        JSON.stringify({ code: 421, enhanced_code: "4.7.0", message: `<${a.recipientEmail}>: too many messages for this mailbox` }),
        now,
        now,
      ],
    );
    const res = await w.t.request("GET", "/v1/queue/destinations", { token: b.team.teamToken });
    expect(res.status).toBe(200);
    expect(res.json.data.map((d: { domains: string[] }) => d.domains)).toEqual([[b.recipientDomain]]);
    expect(res.text).not.toContain("alpha");
    const own = await w.t.request("GET", "/v1/queue/destinations", { token: a.team.teamToken });
    // A's view of it (A's mail goes to both domains by now) is A's: its domains and the reply.
    expect(own.json.data[0].domains).toContain(a.recipientDomain);
  });
});

describe("sign-in and sessions across teams", () => {
  test("B's owner cannot sign in to A's team, with or without team_id; A's users' sign-in is untouched by B's", async () => {
    const { a, b } = w;
    const into = await signIn(w.t, b.owner.email, PASSWORD, a.team.teamId);
    expect(into.res.status).not.toBe(201);
    expect(into.res.status).toBeLessThan(500);
    expect(into.res.headers.get("set-cookie") ?? "").not.toContain("ph_sess_");
    expect(into.res.text).not.toContain("alpha");
    const plain = await signIn(w.t, b.owner.email);
    expect(plain.res.status).toBe(201);
    expect(plain.res.json.data.team.id).toBe(b.team.teamId);
    expect(plain.res.json.data.teams.map((t: { id: string }) => t.id)).toEqual([b.team.teamId]);
    expect(plain.res.text).not.toContain("alpha");
    // A session of B's, whatever it sends, is B's: A's team id in a header or query does not move it.
    const s = plain.session;
    const team = await call("GET", `/v1/team?team_id=${a.team.teamId}`, { cookie: s.cookie, "x-team-id": a.team.teamId });
    expect(team.json.id).toBe(b.team.teamId);
    // A's session cookie with B's CSRF token (or the reverse) changes nothing.
    const mixed = await call("PUT", "/v1/team", { cookie: a.ownerSession.cookie, "x-csrf-token": s.csrf }, { name: "renamed by B" });
    expect(mixed.status).toBe(403);
    expect((await call("GET", "/v1/team", { authorization: `Bearer ${a.team.teamToken}` })).json.name).toBe(a.teamName);
    // A's owner and member still sign in to A.
    expect((await signIn(w.t, a.owner.email, PASSWORD)).res.json.data.team.id).toBe(a.team.teamId);
    expect((await signIn(w.t, a.member.email, PASSWORD)).res.json.data.team.id).toBe(a.team.teamId);
  });

  test("B's sign-out everywhere ends B's sessions only", async () => {
    const { a, b } = w;
    const s = await signedIn(w.t, b.member.email, PASSWORD, b.team.teamId);
    expect((await call("POST", "/v1/auth/sign-out-everywhere", { cookie: s.cookie, "x-csrf-token": s.csrf })).status).toBe(200);
    expect((await call("GET", "/v1/team", { cookie: s.cookie })).status).toBe(401);
    expect((await call("GET", "/v1/team", { cookie: a.memberSession.cookie })).json.id).toBe(a.team.teamId);
    expect((await call("GET", "/v1/team", { cookie: a.ownerSession.cookie })).json.id).toBe(a.team.teamId);
  });
});

/**
 * Issue 41: "An invitation must never let one team set or learn a credential that works in
 * another team: a user who already exists (or is pending in any team) gets an invitation they
 * accept themselves, signed in with their own credential; a password link is issued only for a
 * user who exists nowhere else." Outcomes only: whatever B's invitation answers, every token in
 * it is tried as a password link, and B then tries to sign in as the user, to A's team and to
 * its own; the user's own credentials for A keep working.
 */
describe("team B inviting A's users", () => {
  /** Every link token in B's answer tried as a password link and as an invitation B accepts; how many tries were taken. */
  async function useEveryLink(json: any, password: string): Promise<number> {
    const tokens = new Set<string>();
    const walk = (v: unknown) => {
      if (typeof v === "string" && /^https?:\/\//.test(v)) tokens.add(v.split("/").pop()!);
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(json);
    const t = linkTokenOf(json);
    if (t) tokens.add(t);
    let taken = 0;
    const bOwner = await signedIn(w.t, w.b.owner.email, PASSWORD, w.b.team.teamId);
    for (const token of tokens) {
      // As a password link, and as an invitation accepted by B: with B's owner's session, and with
      // the password B chose.
      const tries = [
        await w.t.request("POST", "/v1/auth/password", { token: null, body: { token, password } }),
        await w.t.request("POST", "/v1/auth/invitations/accept", { token: null, body: { token }, headers: { cookie: bOwner.cookie, "x-csrf-token": bOwner.csrf } }),
        await w.t.request("POST", "/v1/auth/invitations/accept", { token: null, body: { token, password } }),
      ];
      for (const res of tries) {
        expect(res.status).toBeLessThan(500);
        if (res.status < 300) taken++;
      }
    }
    return taken;
  }

  /** Whether `password` opens a session for `email` in `teamId` (default team when undefined). */
  async function opensA(email: string, password: string, teamId: string): Promise<boolean> {
    for (const team of [teamId, undefined]) {
      const { res } = await signIn(w.t, email, password, team);
      if (res.status === 201 && res.json?.data?.team?.id === teamId) return true;
    }
    return false;
  }

  test("an owner of A with a password: B's invitation gives B no credential for A, and the owner's own still works", async () => {
    const { a, b } = w;
    const bPassword = "chosen by team b 1";
    const inv = await w.t.request("POST", "/v1/team/members", { token: b.team.teamToken, body: { email: a.owner.email, role: "owner" } });
    expect(inv.status).toBeLessThan(500);
    expect(inv.text).not.toContain(a.team.teamId);
    expect(inv.text).not.toContain(a.teamName);
    expect(await useEveryLink(inv.json, bPassword)).toBe(0);
    expect(await opensA(a.owner.email, bPassword, a.team.teamId)).toBe(false);
    expect(await opensA(a.owner.email, PASSWORD, a.team.teamId)).toBe(true);
    expect((await call("GET", "/v1/team", { cookie: a.ownerSession.cookie })).json.id).toBe(a.team.teamId);
    const members = await w.t.request("GET", "/v1/team/members", { token: b.team.teamToken });
    expect(members.text).not.toContain(a.team.teamId);
  });

  test("a user A invited who has not set a password yet: B's invitation cannot set one, and A's link still lets the user in", async () => {
    const { a, b } = w;
    const email = "carol.pending@alpha-zq.test";
    const aName = "carol named by alpha zq";
    const fromA = await w.t.request("POST", "/v1/team/members", { token: a.team.teamToken, body: { email, name: aName } });
    expect(fromA.status).toBe(201);
    const aLink = linkTokenOf(fromA.json);
    expect(aLink).not.toBeNull();

    const bPassword = "chosen by team b 2";
    const fromB = await w.t.request("POST", "/v1/team/members", { token: b.team.teamToken, body: { email, role: "owner" } });
    const linksTakenByB = await useEveryLink(fromB.json, bPassword);
    const bSignsInToA = await opensA(email, bPassword, a.team.teamId);
    // B learns nothing A chose: not A's team, not the name A gave the user.
    const bLearns = [a.team.teamId, a.teamName, aName].filter((s) => fromB.text.includes(s));
    const bListShows = (await w.t.request("GET", "/v1/team/members", { token: b.team.teamToken })).text.includes(aName);

    // The user's own link from A still sets their password, and that signs in to A.
    const carolPassword = "carol's own password";
    const set = await w.t.request("POST", "/v1/auth/password", { token: null, body: { token: aLink, password: carolPassword } });
    const carolSignsInToA = await opensA(email, carolPassword, a.team.teamId);
    expect({ status: fromB.status < 500, linksTakenByB, bSignsInToA, bLearns, bListShows, aLinkWorks: set.status, carolSignsInToA }).toEqual({
      status: true,
      linksTakenByB: 0,
      bSignsInToA: false,
      bLearns: [],
      bListShows: false,
      aLinkWorks: 200,
      carolSignsInToA: true,
    });
    expect(await opensA(email, bPassword, a.team.teamId)).toBe(false);
  });
});
