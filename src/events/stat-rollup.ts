/**
 * The statistics rollups' side of each event (docs/statistics.md): which counters an event adds
 * to, under which dimensions, written with the event in its own transaction (src/db/stats.ts).
 * Called from the few places events are written: a recipient's status change
 * (message-status.ts), a message accepted (src/sending/acceptance.ts), a tracking hit
 * (src/modules/tracking/service.ts) and an inbound message processed (src/smtp/inbound-job.ts).
 */
import type { Repositories } from "../db/store.ts";
import type { MessageFacts, StatKey, Tag } from "../db/stats.ts";
import { latencyBucket, LATENCY_COLUMNS } from "../db/stat-columns.ts";

/** Off only for the benchmark's A/B of the send path (scripts/bench/stats.ts); always on in a server. */
let enabled = true;
export const setStatRollups = (on: boolean): void => void (enabled = on);

// ---------------------------------------------------------------------------------------------
// Dimensions.

/**
 * Provider families by the recipient's domain: the mailbox providers most mail goes to, by the
 * domains they host. A domain not listed (a company's own, even when Google or Microsoft host its
 * mailboxes) is "other": the family comes from the address alone, so every event of a recipient
 * (sent, delivered, bounced, opened) counts under the same family, with no DNS lookup in a write.
 */
const PROVIDER_DOMAINS: Record<string, string> = {};
for (const [family, domains] of Object.entries({
  google: ["gmail.com", "googlemail.com"],
  microsoft: ["outlook.com", "hotmail.com", "live.com", "msn.com", "hotmail.co.uk", "hotmail.fr", "hotmail.de", "hotmail.it", "hotmail.es", "live.nl", "live.co.uk", "live.fr", "outlook.de", "outlook.fr"],
  yahoo: ["yahoo.com", "ymail.com", "rocketmail.com", "yahoo.co.uk", "yahoo.fr", "yahoo.de", "yahoo.co.jp", "yahoo.it", "yahoo.es", "aol.com", "aim.com"],
  apple: ["icloud.com", "me.com", "mac.com"],
  proton: ["proton.me", "protonmail.com", "pm.me"],
  gmx: ["gmx.com", "gmx.de", "gmx.net", "gmx.at", "gmx.ch", "web.de", "mail.com"],
  yandex: ["yandex.ru", "yandex.com", "ya.ru"],
  mailru: ["mail.ru", "bk.ru", "inbox.ru", "list.ru"],
  zoho: ["zoho.com", "zohomail.com"],
  fastmail: ["fastmail.com", "fastmail.fm"],
  orange: ["orange.fr", "wanadoo.fr"],
  comcast: ["comcast.net"],
  tonline: ["t-online.de"],
  qq: ["qq.com", "163.com", "126.com"],
})) {
  for (const d of domains) PROVIDER_DOMAINS[d] = family;
}
export const PROVIDER_FAMILIES = [...new Set(Object.values(PROVIDER_DOMAINS)), "other"];

/** The provider family of a recipient address (see PROVIDER_DOMAINS). */
export function providerFamily(email: string): string {
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return PROVIDER_DOMAINS[domain] ?? "other";
}

export type Reply = { code: number | null; enhanced_code: string | null; message: string } | null | undefined;

/**
 * A bounce's class from the remote reply: the enhanced status code's subject and detail (RFC 3463)
 * first, the reply code and words next. One of: invalid_recipient, mailbox_full, mailbox_disabled,
 * rate_limited, reputation (blocked as spam or by reputation), policy (other security or policy),
 * content, authentication (SPF, DKIM, DMARC), routing, network, system, expired, unknown.
 */
export function bounceClass(reply: Reply, status: string): string {
  const text = (reply?.message ?? "").toLowerCase();
  const code = reply?.enhanced_code ?? "";
  const [, subject, detail] = code.split(".");
  if (status === "failed" && !reply) return "expired";
  if (/\b(spf|dkim|dmarc)\b/.test(text) || code.endsWith(".7.26") || code.endsWith(".7.27") || code.endsWith(".7.25")) return "authentication";
  if (/rate|too many|try again later|throttl/.test(text) || (subject === "7" && detail === "28") || reply?.code === 421) return "rate_limited";
  if (/spam|blocklist|blacklist|block list|reputation|\brbl\b|spamhaus/.test(text)) return "reputation";
  if (subject === "1") return detail === "2" ? "routing" : "invalid_recipient";
  if (subject === "2") return detail === "2" ? "mailbox_full" : detail === "1" ? "mailbox_disabled" : "invalid_recipient";
  if (subject === "3") return "system";
  if (subject === "4") return detail === "7" ? "expired" : "network";
  if (subject === "6") return "content";
  if (subject === "7") return "policy";
  if (/user unknown|no such user|does not exist|unknown user|invalid recipient|mailbox unavailable/.test(text)) return "invalid_recipient";
  if (/quota|mailbox full|over quota/.test(text)) return "mailbox_full";
  if (status === "failed") return "expired";
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// The facts of a message, read once per message and node: they never change.

/**
 * Two generations of FACTS_MAX messages: when the young one is full it becomes the old one, and
 * the old one is dropped. (Deleting a Map's oldest key one at a time costs a scan over the
 * deleted slots at each eviction: 130 µs per send at 20,000 entries, measured.)
 */
const FACTS_MAX = 20_000;
/** A message's facts as kept: its tags parsed once, when read or accepted. */
type Facts = Omit<MessageFacts, "tags"> & { tags: Tag[] };

let facts = new Map<string, Facts>();
let olderFacts = new Map<string, Facts>();
const routeTypes = new Map<string, string>();

function remember(messageId: string, f: Facts): void {
  if (facts.size >= FACTS_MAX) {
    olderFacts = facts;
    facts = new Map();
  }
  facts.set(messageId, f);
}

async function factsOf(tx: Repositories, messageId: string): Promise<Facts | null> {
  const known = facts.get(messageId) ?? olderFacts.get(messageId);
  if (known) return known;
  const f = await tx.stats.messageFacts(messageId);
  if (!f) return null;
  const read = { ...f, created_at: Number(f.created_at), tags: tagsOf(f.tags) };
  remember(messageId, read);
  return read;
}

/** A message's name-value tags from its row's JSON text. */
function tagsOf(raw: MessageFacts["tags"]): Tag[] {
  if (raw === null || raw === undefined || raw === "") return [];
  const list = JSON.parse(raw) as unknown;
  if (!Array.isArray(list)) return [];
  return list.filter((t): t is Tag => typeof t?.name === "string").map((t) => ({ name: t.name, value: String(t.value ?? "") }));
}

async function routeTypeOf(tx: Repositories, routeId: string): Promise<string> {
  let t = routeTypes.get(routeId);
  if (t === undefined) {
    t = (await tx.stats.routeType(routeId)) ?? "";
    if (routeTypes.size > 10_000) routeTypes.clear();
    routeTypes.set(routeId, t);
  }
  return t;
}

const EMPTY_KEY = { sendingDomain: "", provider: "", tag: "", bounceClass: "", enhancedCode: "" };

// ---------------------------------------------------------------------------------------------
// The events.

export interface AcceptedMessage {
  teamId: string;
  projectId: string;
  routeId: string;
  messageId: string;
  sendingDomain: string;
  tag: string | null;
  trackOpens: boolean;
  trackClicks: boolean;
  recipients: readonly string[];
  /** Its name-value tags, kept with its facts for the events that follow (read from its row when not given). */
  tags?: readonly Tag[];
}

/**
 * Outbound messages accepted in one transaction: each `accepted` once (under its first
 * recipient's provider) and `recipients` per provider family, in stat_accepts (one narrow row:
 * the send path's only write to the statistics), added up first, so one upsert per distinct key
 * (a batch's messages share a few). Their facts are kept for the events that follow. On
 * PostgreSQL an upsert travels with the transaction's next change (runWithNext: a single send's
 * outbound job).
 */
export async function rollAccepted(tx: Repositories, messages: readonly AcceptedMessage[], now: number): Promise<void> {
  if (!enabled) return;
  const sums = new Map<string, { key: Omit<StatKey, "bounceClass" | "enhancedCode">; accepted: number; recipients: number }>();
  for (const m of messages) {
    const type = await routeTypeOf(tx, m.routeId);
    const domain = m.sendingDomain.toLowerCase();
    if (m.tags !== undefined) {
      const tags = m.tags.map((t) => ({ name: t.name, value: t.value }));
      remember(m.messageId, { project_id: m.projectId, created_at: now, route_type: type, sending_domain: domain, track_opens: m.trackOpens ? 1 : 0, track_clicks: m.trackClicks ? 1 : 0, tags });
    }
    let first = true;
    for (const r of m.recipients) {
      const provider = providerFamily(r);
      const id = `${m.teamId}\0${m.projectId}\0${m.routeId}\0${domain}\0${provider}\0${m.tag ?? ""}`;
      let sum = sums.get(id);
      if (!sum) sums.set(id, (sum = { key: { teamId: m.teamId, projectId: m.projectId, routeId: m.routeId, messageType: type, sendingDomain: domain, provider, tag: m.tag ?? "" }, accepted: 0, recipients: 0 }));
      // The message counts once, under its first recipient's provider.
      if (first) sum.accepted++;
      first = false;
      sum.recipients++;
    }
  }
  for (const s of sums.values()) await tx.stats.addAccepted(now, s.key, s.accepted, s.recipients);
}

export interface StatRecipient {
  team_id: string;
  project_id?: string | null;
  route_id: string | null;
  message_id: string;
  email: string;
  tag: string | null;
}

async function keyOf(tx: Repositories, r: StatRecipient): Promise<{ key: StatKey; f: Facts | null }> {
  const f = await factsOf(tx, r.message_id);
  const key: StatKey = {
    teamId: r.team_id,
    projectId: r.project_id ?? f?.project_id ?? "",
    routeId: r.route_id ?? "",
    messageType: f?.route_type ?? "",
    sendingDomain: f?.sending_domain ?? "",
    provider: providerFamily(r.email),
    tag: r.tag ?? "",
    bounceClass: "",
    enhancedCode: "",
    tags: f?.tags ?? [],
  };
  return { key, f };
}

/** A recipient's status change (src/events/message-status.ts). `retried`: a "processed" of a further attempt. */
export async function rollStatusChange(tx: Repositories, r: StatRecipient, change: { status: string; response?: Reply }, retried: boolean, now: number): Promise<void> {
  if (!enabled) return;
  const s = change.status;
  if (!(s in STATUS_COUNTER)) return;
  const { key, f } = await keyOf(tx, r);
  const counts: Record<string, number> = {};
  if (s === "processed") counts[retried ? "retried" : "sent"] = 1;
  else counts[STATUS_COUNTER[s]!] = 1;
  if (s === "delivered") {
    if (f) counts[LATENCY_COLUMNS[latencyBucket(now - f.created_at)]!] = 1;
    if (f?.track_opens) counts.open_tracked_delivered = 1;
    if (f?.track_clicks) counts.click_tracked_delivered = 1;
  }
  if (s === "soft_bounced" || s === "hard_bounced" || s === "failed") {
    key.bounceClass = bounceClass(change.response, s);
    key.enhancedCode = change.response?.enhanced_code ?? "";
  }
  await tx.stats.add(now, key, counts);
}

const STATUS_COUNTER: Record<string, string> = {
  processed: "sent",
  delivered: "delivered",
  soft_bounced: "soft_bounced",
  hard_bounced: "hard_bounced",
  failed: "failed",
  suppressed: "suppressed",
  spam_complaint: "complained",
  unsubscribed: "unsubscribed",
};

export type HitClass = "human" | "privacy" | "machine";
export const hitClass = (v: { machine: boolean; reason: string | null }): HitClass => (!v.machine ? "human" : v.reason === "privacy_proxy" ? "privacy" : "machine");

/**
 * A tracking hit, before it is stored: the event of its class, and the recipient's first hit of
 * that class (_unique) when there was none before.
 */
export async function rollTrackingHit(tx: Repositories, r: StatRecipient & { id: string }, kind: "open" | "click", cls: HitClass, now: number): Promise<void> {
  if (!enabled) return;
  const { key } = await keyOf(tx, r);
  const base = `${kind}s_${cls}`;
  const counts: Record<string, number> = { [base]: 1 };
  if ((await tx.stats.earliestHit(r.id, kind, cls, now + 1)) === null) counts[`${base}_unique`] = 1;
  await tx.stats.add(now, key, counts);
}

/**
 * A link burst re-judges the recipient's human clicks since `since` as a machine's, before they
 * are updated: each moves from the human count to the machine count at its own time, and the
 * recipient's first human (machine) click moves with it when it was among them.
 */
export async function rollReclassifiedClicks(tx: Repositories, r: StatRecipient & { id: string }, since: number): Promise<void> {
  if (!enabled) return;
  const moved = (await tx.stats.humanClicksSince(r.id, since)).map((h) => Number(h.created_at));
  if (moved.length === 0) return;
  const { key } = await keyOf(tx, r);
  for (const at of moved) await tx.stats.add(at, key, { clicks_human: -1, clicks_machine: 1 });
  const firstMoved = moved[0]!;
  // The first human click was among them unless an older one stays human.
  if ((await tx.stats.earliestHit(r.id, "click", "human", since)) === null) {
    await tx.stats.add(firstMoved, key, { clicks_human_unique: -1 });
    // A later human click outside the window cannot exist (the window ends now).
  }
  const machineBefore = await tx.stats.earliestHit(r.id, "click", "machine", Number.MAX_SAFE_INTEGER);
  if (machineBefore === null || machineBefore > firstMoved) {
    if (machineBefore !== null) await tx.stats.add(machineBefore, key, { clicks_machine_unique: -1 });
    await tx.stats.add(firstMoved, key, { clicks_machine_unique: 1 });
  }
}

/** An inbound message finished by its job: received, and rejected when the spam policy held (quarantined) or refused it. */
export async function rollInbound(tx: Repositories, m: { teamId: string; routeId: string | null; messageId: string; status: string }, now: number): Promise<void> {
  if (!enabled) return;
  const f = await factsOf(tx, m.messageId);
  const key: StatKey = { ...EMPTY_KEY, teamId: m.teamId, projectId: f?.project_id ?? "", routeId: m.routeId ?? "", messageType: "inbound" };
  await tx.stats.add(now, key, m.status === "policy_rejected" || m.status === "quarantined" ? { inbound_received: 1, inbound_rejected: 1 } : { inbound_received: 1 });
}
