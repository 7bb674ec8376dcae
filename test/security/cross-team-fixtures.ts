/**
 * Two teams on one server, each with everything a team can own (projects, routes, domains, a
 * webhook with a recorded delivery, outbound and inbound messages with recipients, events,
 * sources and attachments, suppressions, members with passwords, sessions), for the cross-team
 * test (cross-team.test.ts). Every value a team chooses carries its own marker ("alpha" for A,
 * "bravo" for B), so A's data can be searched for in B's responses as plain substrings.
 */
import { hashPassword } from "../../src/auth/passwords.ts";
import { attachmentDownloadUrl } from "../../src/auth/attachment-links.ts";
import { WebhookSender, useWebhookSender } from "../../src/events/webhook-post.ts";
import { newId } from "../../src/ids.ts";
import { serverSecretOf } from "../../src/secrets.ts";
import { createTestApp, insertTestDomain, type TestApp, type TestTeam } from "../helpers.ts";
import { insertMessage, insertMessageEvent, insertRecipient } from "../modules/messages/fixtures.ts";
import { startDnsServer, type TestDnsServer } from "../support/dns-server.ts";
import { makeTestCert, startReceiver, type TestReceiver } from "../webhooks/support.ts";

export const PASSWORD = "cross team password 1";

export interface Session {
  cookie: string;
  csrf: string;
}

/** Everything of one team the walk substitutes, searches for or signs in with. */
export interface TeamWorld {
  label: "alpha" | "bravo";
  team: TestTeam;
  teamName: string;
  /** The team's own sending domain (active, attached to the project), a pending one added through the API. */
  domainId: string;
  domain: string;
  pendingDomainId: string;
  pendingDomain: string;
  dnsRecordIds: string[];
  /** A second project made through the API, with its sending token. */
  project2Id: string;
  project2Token: string;
  routes: { transactional: string; broadcast: string; inbound: string; custom: string };
  customRouteSlug: string;
  inboundAddress: string;
  inboundDomain: string;
  webhookId: string;
  webhook2Id: string;
  /** A custom role of the team (issue 46), made through the API, and its name. */
  roleId: string;
  roleName: string;
  /** A named team token of the team (issue 46). */
  tokenId: string;
  deliveryId: string;
  webhookEventId: string;
  outboundMessageId: string;
  broadcastMessageId: string;
  inboundMessageId: string;
  recipientIds: string[];
  eventIds: string[];
  attachmentId: string;
  attachmentUrl: string;
  suppressionIds: string[];
  suppressedEmail: string;
  recipientEmail: string;
  recipientDomain: string;
  fromEmail: string;
  subject: string;
  tag: string;
  idempotencyKey: string;
  owner: { userId: string; memberId: string; email: string };
  member: { userId: string; memberId: string; email: string; name: string };
  ownerSession: Session;
  memberSession: Session;
}

export interface CrossTeamWorld {
  t: TestApp;
  a: TeamWorld;
  b: TeamWorld;
  receiver: TestReceiver;
  dns: TestDnsServer;
  close(): Promise<void>;
}

export async function signIn(t: TestApp, email: string, password = PASSWORD, teamId?: string) {
  const body: Record<string, string> = { email, password };
  if (teamId) body.team_id = teamId;
  const res = await t.request("POST", "/v1/auth/sign-in", { token: null, body });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  return { res, session: { cookie, csrf: res.json?.data?.csrf_token as string } };
}

export async function signedIn(t: TestApp, email: string, password = PASSWORD, teamId?: string): Promise<Session> {
  const { res, session } = await signIn(t, email, password, teamId);
  if (res.status !== 201) throw new Error(`sign-in of ${email} failed: ${res.status} ${res.text}`);
  return session;
}

/** The one-time token in an invitation's link (password_url, or another *_url the answer carries). */
export function linkTokenOf(json: any): string | null {
  const urls = [json?.password_url, json?.invitation_url, json?.data?.password_url, json?.data?.invitation_url].filter((u) => typeof u === "string");
  return urls.length ? (urls[0] as string).split("/").pop()! : null;
}

async function must(res: { status: number; text: string }, status: number, what: string) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
}

async function buildTeam(t: TestApp, team: TestTeam, label: "alpha" | "bravo", receiver: TestReceiver, dns: TestDnsServer): Promise<TeamWorld> {
  const tok = { token: team.teamToken };
  const teamName = `${label} team zq`;
  await must(await t.request("PUT", "/v1/team", { ...tok, body: { name: teamName } }), 200, "rename team");

  const domain = `${label}-zq.test`;
  const { domainId } = insertTestDomain(t.deps, { teamId: team.teamId, projectId: team.projectId, domain, status: "active" });
  const pendingDomain = `${label}-pending-zq.test`;
  const pd = await t.request("POST", "/v1/domains", { ...tok, body: { domain: pendingDomain } });
  await must(pd, 201, "add domain");
  const pendingDomainId: string = pd.json.id ?? pd.json.data?.id;
  const dnsRecordIds = (await t.sql.all<{ id: string }>("SELECT id FROM dns_records WHERE domain_id IN (?, ?)", [domainId, pendingDomainId])).map((r) => r.id);

  const p2 = await t.request("POST", "/v1/projects", { ...tok, body: { name: `${label} second project zq` } });
  await must(p2, 201, "create project");

  // The project's default routes (the only ones yet).
  const routeRows = await t.sql.all<{ id: string; route_type: string }>("SELECT id, route_type FROM routes WHERE project_id = ?", [team.projectId]);
  const customRouteSlug = `${label}-route-zq`;
  const custom = await t.request("POST", `/v1/projects/${team.projectId}/routes`, { ...tok, body: { name: `${label} custom route zq`, route_type: "broadcast", slug: customRouteSlug } });
  await must(custom, 201, "create route");
  const routes = {
    transactional: routeRows.find((r) => r.route_type === "transactional")!.id,
    broadcast: routeRows.find((r) => r.route_type === "broadcast")!.id,
    inbound: routeRows.find((r) => r.route_type === "inbound")!.id,
    custom: custom.json.data.id as string,
  };
  const inboundDomain = `in.${label}-inbound-zq.test`;
  const inb = await t.request("PUT", `/v1/routes/${routes.inbound}`, {
    ...tok,
    body: { name: `${label} inbound zq`, inbound_settings: { inbound_domain: inboundDomain, attachment_delivery: "url" } },
  });
  await must(inb, 200, "inbound settings");
  const inboundAddress: string = inb.json.data.inbound_address;
  // Its records published on the loopback DNS server, and verified: a claim backed by DNS proof.
  for (const r of inb.json.data.inbound_domain_records as { type: string; fqdn: string; content: string }[]) {
    dns.set(r.fqdn, r.type as "MX" | "TXT", r.type === "MX" ? [{ exchange: r.content, priority: 10 }] : [r.content]);
  }
  const verified = await t.request("POST", `/v1/routes/${routes.inbound}/verify-inbound-domain`, tok);
  if (verified.json?.data?.verified !== true) throw new Error(`inbound domain not verified: ${verified.text}`);

  // A webhook on the transactional route, and one delivery of it recorded for real (webhook.test to the loopback receiver).
  const wh = await t.request("POST", "/v1/webhooks", {
    ...tok,
    body: { route_id: routes.transactional, name: `${label} hook zq`, url: receiver.url("hooks.example.test", `/${label}`), events: ["message.delivered", "message.created"] },
  });
  await must(wh, 201, "create webhook");
  const webhookId: string = wh.json.data.id;
  receiver.secret = wh.json.data.secret;
  // Two attempts (lists of two give cursors), and a second webhook on the custom route.
  for (let i = 0; i < 2; i++) await must(await t.request("POST", `/v1/webhooks/${webhookId}/test`, tok), 200, "webhook test");
  const wh2 = await t.request("POST", "/v1/webhooks", {
    ...tok,
    body: { route_id: routes.custom, name: `${label} second hook zq`, url: receiver.url("hooks.example.test", `/${label}`), events: ["message.created"], enabled: false },
  });
  await must(wh2, 201, "create webhook");
  const deliveries = await t.request("GET", `/v1/webhooks/${webhookId}/deliveries`, tok);
  const deliveryId: string = deliveries.json.data[0].id;
  const webhookEventId: string = deliveries.json.data[0].event_id;

  // Outbound mail through the API (stays queued: the test app runs no jobs).
  const fromEmail = `news@${domain}`;
  const recipientDomain = `${label}-partner-zq.test`;
  const recipientEmail = `${label}.rcpt@${recipientDomain}`;
  const subject = `${label} secret subject zq`;
  const tag = `${label}tagzq`;
  const idempotencyKey = `shared-idempotency-key`;
  const sent = await t.request("POST", "/v1/send", {
    projectToken: team.projectToken,
    headers: { "idempotency-key": idempotencyKey },
    body: {
      from: `${label} sender <${fromEmail}>`,
      to: [recipientEmail],
      cc: [`${label}.cc@${recipientDomain}`],
      subject,
      tag,
      html: `<p>${label} body zq <a href="https://${label}-link-zq.test/x">link</a></p>`,
      text: `${label} body zq`,
      metadata: { [`${label}_meta`]: `${label}-meta-value-zq` },
    },
  });
  await must(sent, 202, "send");
  const bc = await t.request("POST", "/v1/send", {
    projectToken: team.projectToken,
    body: { from: fromEmail, to: [`${label}.list@${recipientDomain}`], subject: `${label} broadcast zq`, text: `${label} news zq`, route: customRouteSlug },
  });
  await must(bc, 202, "broadcast send");

  // Inbound mail with an attachment, as the inbound job stores it.
  const inboundMessageId = insertMessage(t.deps, {
    teamId: team.teamId,
    projectId: team.projectId,
    routeId: routes.inbound,
    type: "inbound",
    status: "delivered",
    fromEmail: `${label}.customer@${label}-customer-zq.test`,
    subject: `${label} inbound subject zq`,
    to: [{ email: inboundAddress, name: "" }],
    spamScore: 1.5,
    spamSymbols: [{ name: `${label.toUpperCase()}_SYMBOL_ZQ`, score: 1.5, options: [], description: `${label} symbol zq` }],
    raw: `From: ${label}.customer@${label}-customer-zq.test\r\nTo: ${inboundAddress}\r\nSubject: ${label} inbound subject zq\r\n\r\n${label} inbound body zq\r\n`,
    attachments: [{ filename: `${label}-invoice-zq.pdf`, contentType: "application/pdf", content: `${label} attachment bytes zq` }],
  });
  const inboundRecipient = insertRecipient(t.deps, inboundMessageId, inboundAddress, "delivered");
  insertMessageEvent(t.deps, { messageId: inboundMessageId, recipientId: inboundRecipient, kind: "inbound", data: { note: `${label} event zq` }, createdAt: Date.now() });
  const attachmentId = (await t.sql.get<{ id: string }>("SELECT id FROM attachments WHERE message_id = ?", [inboundMessageId]))!.id;
  const attachmentUrl = attachmentDownloadUrl(await serverSecretOf(t.deps.store), "http://localhost", attachmentId).url;

  const outboundMessageId: string = sent.json.message_id;
  for (const kind of ["queued", "deferred"]) insertMessageEvent(t.deps, { messageId: outboundMessageId, kind, data: { note: `${label} event zq` }, createdAt: Date.now() });
  const broadcastMessageId: string = bc.json.message_id;
  const recipientIds = (
    await t.sql.all<{ id: string }>("SELECT id FROM recipients WHERE message_id IN (?, ?, ?)", [outboundMessageId, broadcastMessageId, inboundMessageId])
  ).map((r) => r.id);
  const eventIds = (await t.sql.all<{ id: string }>("SELECT id FROM message_events WHERE message_id IN (?, ?, ?)", [outboundMessageId, broadcastMessageId, inboundMessageId])).map(
    (r) => r.id,
  );

  const suppressedEmail = `${label}.blocked@${recipientDomain}`;
  const suppressionIds: string[] = [];
  for (const body of [
    { email: suppressedEmail, scope: "team", reason: "manual" },
    { email: `${label}.project-blocked@${recipientDomain}`, scope: "project", project_id: team.projectId, reason: "hard_bounce" },
    { email: `${label}.route-blocked@${recipientDomain}`, scope: "route", route_id: routes.custom, reason: "unsubscribe" },
  ]) {
    const s = await t.request("POST", "/v1/suppressions", { ...tok, body });
    await must(s, 201, "suppression");
    const listed = await t.request("GET", `/v1/suppressions?filter[email]=${encodeURIComponent(body.email)}&filter[scope]=${body.scope}`, tok);
    suppressionIds.push(listed.json.data[0].id);
  }

  // The owner (made with the team) gets a password; a member is invited and sets theirs through the link.
  const owner = (await t.sql.get<{ user_id: string; id: string; email: string }>(
    "SELECT tm.user_id, tm.id, u.email FROM team_members tm JOIN users u ON u.id = tm.user_id WHERE tm.team_id = ? AND tm.role = 'owner'",
    [team.teamId],
  ))!;
  const hash = await hashPassword(PASSWORD);
  await t.deps.store.write((tx) => tx.accounts.setPassword(owner.user_id, hash, Date.now()));
  // A member who joined (as an accepted invitation leaves them: active, with a password); the
  // invitation flows themselves are the invitation test's.
  const memberEmail = `${label}.member@${label}-zq.test`;
  const memberName = `${label} member name zq`;
  const member = { userId: newId(), memberId: newId(), email: memberEmail, name: memberName };
  const now = Date.now();
  await t.sql.run("INSERT INTO users (id, name, email, password_hash, password_changed_at, created_at) VALUES (?, ?, ?, ?, ?, ?)", [member.userId, memberName, memberEmail, hash, now, now]);
  await t.sql.run("INSERT INTO team_members (id, team_id, user_id, role, status, joined_at, created_at) VALUES (?, ?, ?, 'member', 'active', ?, ?)", [
    member.memberId,
    team.teamId,
    member.userId,
    now,
    now,
  ]);
  const ownerSession = await signedIn(t, owner.email, PASSWORD, team.teamId);
  const memberSession = await signedIn(t, memberEmail, PASSWORD, team.teamId);

  const roleName = `${label} role name zq`;
  const role = await t.request("POST", "/v1/team/roles", { token: team.teamToken, body: { name: roleName, permissions: ["messages:read"] } });
  await must(role, 201, "role");
  const named = await t.request("POST", "/v1/team/tokens", { token: team.teamToken, body: { name: `${label} token name zq`, role_id: role.json.data.id } });
  await must(named, 201, "team token");

  return {
    label,
    team,
    teamName,
    roleId: role.json.data.id,
    roleName,
    tokenId: named.json.data.id,
    domainId,
    domain,
    pendingDomainId,
    pendingDomain,
    dnsRecordIds,
    project2Id: p2.json.data.id,
    project2Token: p2.json.token,
    routes,
    customRouteSlug,
    inboundAddress,
    inboundDomain,
    webhookId,
    webhook2Id: wh2.json.data.id,
    deliveryId,
    webhookEventId,
    outboundMessageId,
    broadcastMessageId,
    inboundMessageId,
    recipientIds,
    eventIds,
    attachmentId,
    attachmentUrl,
    suppressionIds,
    suppressedEmail,
    recipientEmail,
    recipientDomain,
    fromEmail,
    subject,
    tag,
    idempotencyKey,
    owner: { userId: owner.user_id, memberId: owner.id, email: owner.email },
    member,
    ownerSession,
    memberSession,
  };
}

/** The app with teams A and B built through the API (as far as it goes) against a loopback webhook receiver. */
export async function crossTeamWorld(): Promise<CrossTeamWorld> {
  const dns = await startDnsServer();
  dns.set("hooks.example.test", "A", ["127.0.0.1"]);
  const cert = makeTestCert(["hooks.example.test"]);
  const receiver = startReceiver(cert);
  const t = createTestApp({ env: { POSTHORN_DNS_SERVERS: dns.server, POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8" } });
  useWebhookSender(t.deps, new WebhookSender({ dns: t.deps.dns, allowedNetworks: ["127.0.0.0/8"], ca: cert.caPem, timeoutMs: 2000 }));
  const a = await buildTeam(t, t.team, "alpha", receiver, dns);
  const b = await buildTeam(t, t.addTeam("Team B"), "bravo", receiver, dns);
  // From here on nothing is verified: any request to the receiver is counted by its path (a
  // delivery to A's "/alpha" made by B's doing is a leak the walk looks for) and answered 401.
  receiver.secret = "no secret after setup";
  return {
    t,
    a,
    b,
    receiver,
    dns,
    close: async () => {
      await receiver.stop();
      await dns.close();
    },
  };
}

/**
 * The strings by which A's data would show in a response: every id, address, domain, subject,
 * name and content marker of A's (lower case). Values B also has (none: each carries "alpha") are
 * not listed.
 */
export function distinctiveStrings(w: TeamWorld): string[] {
  const s = new Set<string>([
    w.team.teamId,
    w.team.projectId,
    w.team.teamToken,
    w.team.projectToken,
    w.project2Id,
    w.project2Token,
    w.teamName,
    w.domainId,
    w.domain,
    w.pendingDomainId,
    w.pendingDomain,
    ...w.dnsRecordIds,
    ...Object.values(w.routes),
    w.customRouteSlug,
    w.inboundAddress,
    w.inboundDomain,
    w.webhookId,
    w.webhook2Id,
    w.roleId,
    w.roleName,
    w.tokenId,
    w.deliveryId,
    w.webhookEventId,
    w.outboundMessageId,
    w.broadcastMessageId,
    w.inboundMessageId,
    ...w.recipientIds,
    ...w.eventIds,
    w.attachmentId,
    ...w.suppressionIds,
    w.suppressedEmail,
    w.recipientEmail,
    w.recipientDomain,
    w.fromEmail,
    w.subject,
    w.tag,
    w.owner.userId,
    w.owner.memberId,
    w.owner.email,
    w.member.userId,
    w.member.memberId,
    w.member.email,
    w.member.name,
    `${w.label}-link-zq`,
    `${w.label}-meta-value-zq`,
    `${w.label} body zq`,
    `${w.label} inbound`,
    `${w.label}-invoice-zq`,
    `${w.label} attachment bytes`,
    `${w.label}_symbol_zq`,
    `${w.label} symbol zq`,
    `${w.label} hook zq`,
    `${w.label} second hook zq`,
    `${w.label} custom route zq`,
    `${w.label} second project zq`,
    `${w.label}-customer-zq`,
    `${w.label} broadcast zq`,
    w.ownerSession.csrf,
    w.memberSession.csrf,
    w.ownerSession.cookie.split("=")[1]!,
    w.memberSession.cookie.split("=")[1]!,
  ]);
  return [...s].filter(Boolean).map((x) => x.toLowerCase());
}
