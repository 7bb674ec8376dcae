/**
 * Issue 46, the audit log (docs/access.md "Audit log").
 *
 * - The walk: every mutating operation (POST/PUT/PATCH/DELETE) of the OpenAPI document that a team
 *   token or a dashboard session may call is made by team A with A's own ids and a valid body;
 *   each that succeeds has exactly one new audit row naming the operation ("METHOD /path/{param}")
 *   and its path parameters as target ids; the few that cannot succeed in this world are listed in
 *   NOT_SUCCEEDING with the reason (a new operation that does not succeed fails the test).
 * - No audit row, read raw from the table, contains any secret the test used: team, project and
 *   named tokens, passwords, session cookies and CSRF tokens, webhook secrets, TOTP secrets.
 * - Refused changes (4xx) and project-token sends write no row; the list endpoint pages and filters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { crossTeamWorld, PASSWORD, signedIn, type CrossTeamWorld, type TeamWorld } from "../security/cross-team-fixtures.ts";
import { engine } from "../helpers.ts";
import { READS_BY_POST } from "../../src/http/audit.ts";

type Op = { method: string; path: string; key: string; security: string[]; params: string[]; bodySchema: any };
type Res = { status: number; text: string; json: any };

/** Operations of the document that need no team principal, so are no team change: not walked. */
const NO_TEAM_PRINCIPAL = new Set(["POST /v1/auth/sign-in", "POST /v1/auth/password", "POST /v1/unsubscribe/{token}"]);

/** Mutating team operations the walk makes but that cannot succeed here, and why (their refusal writes no row, checked too). */
const NOT_SUCCEEDING: Record<string, string> = {
  "POST /v1/auth/invitations/accept": "needs an invitation sent to the signed-in user (test/security/invitations.test.ts)",
  "POST /v1/auth/two-factor/confirm": "needs a TOTP code of the secret enrol answered",
  "POST /v1/auth/two-factor/disable": "needs two-factor sign-in on (a TOTP code)",
  "POST /v1/auth/two-factor/recovery-codes": "needs two-factor sign-in on",
  "POST /v1/projects/{projectId}/report-forwarding/verify": "needs the code mailed to the destination",
  "PATCH /v1/messages/{messageId}": "needs a scheduled message (the world's are sent or failed)",
  "POST /v1/messages/{messageId}/cancel": "needs a scheduled message",
  "POST /v1/messages/{messageId}/retry": "needs a message still in the delivery queue",
  "POST /v1/messages/{messageId}/cancel-delivery": "needs a message still in the delivery queue",
  "POST /v1/domains/{domainId}/dns-records/{recordId}/verify": "needs the record published in DNS (the pending domain's are not; verification is domains' test)",
  "POST /v1/projects/{projectId}/report-forwarding/resend-code": "the PUT just mailed a code: another is refused for a while (429)",
  "POST /v1/messages/{messageId}/process": "needs a quarantined inbound message (the world's was delivered)",
  "PUT /v1/auth/two-factor/requirement": "the owner must have two-factor sign-in on first (a TOTP code)",
};

let w: CrossTeamWorld;
beforeAll(async () => {
  w = await crossTeamWorld();
}, 60_000);
afterAll(async () => {
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
    case "PUT /v1/projects/{projectId}/report-forwarding":
      return { destination: addr };
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

/** Deletes last, the caller's own sign-outs after everything (they end the session the walk uses). */
const order = (op: Op): number => (op.path.startsWith("/v1/auth/sign-out") ? 3 : op.method === "DELETE" ? 2 : 1);

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
    for (const op of ops) {
      const ids = Object.fromEntries(op.params.map((p) => [p, pathId(a, spare, op, p)]));
      const path = op.path.replace(/\{(\w+)\}/g, (_, p) => ids[p]!);
      // Signing out ends the session: each sign-out has a session of its own.
      const own = op.path.startsWith("/v1/auth/sign-out") ? await signedIn(w.t, a.owner.email) : null;
      if (own) for (const v of [own.csrf, own.cookie.split("=")[1]!]) secrets.add(v);
      const headers = own ? { cookie: own.cookie, "x-csrf-token": own.csrf } : op.security.includes("teamToken") ? owner : session;
      const before = Number((await w.t.sql.get<{ n: number }>("SELECT count(*) AS n FROM audit_log", []))!.n);
      const res = await call(op.method, path, headers, bodyFor(op, a, ++n));
      for (const s of [res.json?.token, res.json?.data?.secret, res.json?.data?.token, res.json?.api_token, res.json?.data?.totp_secret, res.json?.data?.secret_base32]) if (typeof s === "string" && s.length >= 8) secrets.add(s);
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
        if (row.team_id !== a.team.teamId || Number(row.status) !== res.status || row.user_agent !== "audit-walk/1") failures.push(`${op.key}: ${JSON.stringify(row)}`);
        if (row.actor_kind !== (headers === owner ? "team_token" : "user") || (headers !== owner && row.actor_id !== a.owner.userId)) failures.push(`${op.key}: actor ${row.actor_kind} ${row.actor_id} (owner ${a.owner.userId})`);
        if (NOT_SUCCEEDING[op.key]) failures.push(`${op.key}: succeeds now (${res.status}); take it out of NOT_SUCCEEDING`);
      } else {
        if (added.length !== 0) failures.push(`${op.key}: refused (${res.status}) but wrote ${added.length} audit rows`);
        if (!NOT_SUCCEEDING[op.key]) notSucceeding.push(`${op.key}: ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
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
