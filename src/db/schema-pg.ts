/**
 * The PostgreSQL twin of src/db/schema.ts: the same tables, columns, indexes, defaults and foreign
 * keys under the same names, so that repositories write one SQL text for both engines
 * (test/db/schema-pg.test.ts checks the parity on live databases). Change both files together
 * and run `npm run db:generate -- NAME`, which generates a migration for each dialect.
 *
 * How SQLite's types map here:
 * - epoch-ms timestamps (`*_at`) and the queue's ids: `bigint` read as numbers; other integers
 *   (counts, HTTP codes, sizes under 2^31): `integer`;
 * - booleans stay integers 0/1 (repositories compare `enabled = 1`);
 * - JSON columns are `text` holding the JSON string, as on SQLite (no jsonb);
 * - real → double precision (SQLite's REAL is an 8-byte float); blob → bytea;
 * - text is `text COLLATE "C"`: SQLite compares text byte by byte (BINARY), and so does the "C"
 *   collation, whatever locale the database was created with. `=`, `<`, ORDER BY, keyset cursors,
 *   and lower()/ILIKE (ASCII-only case folding, like SQLite's lower() and LIKE) then give the same
 *   answers on both engines, and LIKE 'prefix%' can use a plain btree index.
 * Row types differ from schema.ts where drizzle's SQLite modes convert values (boolean, json):
 * here those columns read as the numbers and strings they are stored as.
 */
import { sql } from "drizzle-orm";
import { STAT_COLUMNS } from "./stat-columns.ts";
import { bigint, customType, doublePrecision, index, integer, pgTable, primaryKey, uniqueIndex } from "drizzle-orm/pg-core";

/** text with byte-wise comparison (see above). */
const text = customType<{ data: string; driverData: string }>({ dataType: () => 'text COLLATE "C"' });
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });
const ts = (name: string) => bigint(name, { mode: "number" });
/** JSON as text, exactly as on SQLite. */
const json = (name: string) => text(name);
/** 0 or 1. */
const bool = (name: string) => integer(name);

export const teams = pgTable("teams", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  plan: text("plan").notNull().default("free"),
  tier: integer("tier").notNull().default(0),
  features: json("features").notNull().default("[]"),
  addons: json("addons").notNull().default("[]"),
  /** SHA-256 hex of the team API token. */
  tokenHash: text("token_hash").notNull(),
  tokenGeneratedAt: ts("token_generated_at").notNull(),
  tokenLastUsedAt: ts("token_last_used_at"),
  tokenLastUsedIp: text("token_last_used_ip"),
  verifiedAt: ts("verified_at"),
  /** An owner requires two-factor sign-in: a member's session without a second factor may only enrol (docs/access.md). */
  requireTwoFactor: bool("require_two_factor").notNull().default(0),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [uniqueIndex("teams_token_hash").on(t.tokenHash)]);

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  avatar: text("avatar"),
  /** Argon2id (PHC string, Bun.password) of the dashboard password; null until one is set. */
  passwordHash: text("password_hash"),
  passwordChangedAt: ts("password_changed_at"),
  /** TOTP (RFC 6238) secret in base32 once enrolment was confirmed with a code; null: no two-factor sign-in. */
  totpSecret: text("totp_secret"),
  /** The secret shown at enrolment, until a code confirms it (then it becomes totp_secret). */
  totpPendingSecret: text("totp_pending_secret"),
  totpEnabledAt: ts("totp_enabled_at"),
  /** The last time step whose code was accepted: a code of that step or an earlier one is refused (no replay). */
  totpLastStep: ts("totp_last_step"),
  createdAt: ts("created_at").notNull(),
}, (t) => [uniqueIndex("users_email").on(t.email)]);

/** Single-use recovery codes of a user's two-factor sign-in, as SHA-256 hex; a used code is deleted. */
export const userRecoveryCodes = pgTable("user_recovery_codes", {
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  codeHash: text("code_hash").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.userId, t.codeHash] })]);

/**
 * OpenID Connect sign-ins under way: the state (SHA-256 hex; the browser keeps it in a cookie and
 * the provider sends it back), the nonce the ID token must carry and the PKCE code verifier.
 * Used once; expired rows are deleted by the next sign-in.
 */
export const ssoRequests = pgTable("sso_requests", {
  stateHash: text("state_hash").primaryKey(),
  nonce: text("nonce").notNull(),
  codeVerifier: text("code_verifier").notNull(),
  createdAt: ts("created_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
}, (t) => [index("sso_requests_expires").on(t.expiresAt)]);

/**
 * Dashboard sign-ins. The cookie holds a random token; only its SHA-256 is kept. A session is for
 * one team (the member's), ends after idle time or at its absolute end, and is checked against the
 * membership on every request, so removing a member ends their sessions at once.
 */
export const sessions = pgTable("sessions", {
  id: text("id").primaryKey(),
  tokenHash: text("token_hash").notNull(),
  /** Sent back in X-CSRF-Token on every state-changing request (with the cookie, it is no credential alone). */
  csrfToken: text("csrf_token").notNull(),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  ip: text("ip"),
  userAgent: text("user_agent"),
  /** How the sign-in proved more than a password: 'totp', 'recovery' or 'sso'; null: a password alone. */
  secondFactor: text("second_factor"),
  createdAt: ts("created_at").notNull(),
  lastSeenAt: ts("last_seen_at").notNull(),
}, (t) => [uniqueIndex("sessions_token_hash").on(t.tokenHash), index("sessions_user").on(t.userId)]);

/**
 * Invitations to a team, one per pending membership (team_members.status = 'pending'), removed
 * with it. The link's token is stored as SHA-256. kind 'password': the invited user exists in no
 * other team and has no password; the link sets one and accepts this invitation. kind 'accept':
 * the user exists already; they accept signed in as themselves, with the token.
 */
export const teamInvitations = pgTable("team_invitations", {
  memberId: text("member_id").primaryKey().references(() => teamMembers.id, { onDelete: "cascade" }),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  tokenHash: text("token_hash").notNull(),
  kind: text("kind").notNull(),
  createdAt: ts("created_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
}, (t) => [uniqueIndex("team_invitations_token_hash").on(t.tokenHash), index("team_invitations_user").on(t.userId)]);

/**
 * Failed authentications per key in its current window, shared by every node: "ip:<address>" for
 * every kind (API tokens, SMTP AUTH, dashboard sign-in) and "email:<address>" for sign-in.
 */
export const authFailures = pgTable("auth_failures", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  windowStartedAt: ts("window_started_at").notNull(),
});

/** API rate limit token buckets ("send:<project id>", "api:<team id>") on PostgreSQL, shared by every node. */
export const rateLimitBuckets = pgTable("rate_limit_buckets", {
  key: text("key").primaryKey(),
  tokens: doublePrecision("tokens").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/**
 * Per-destination shaping (src/mail/shaping.ts): one row per destination, the sorted MX host set
 * of a recipient domain ("relay:<host>" through a relay), shared by every node. concurrency and
 * per_minute are the limits in force (null: none); paused_until holds every node off after a
 * rate reply; strikes grow the next pause; last_reply is the remote's reply as JSON.
 */
export const destinations = pgTable("destinations", {
  name: text("name").primaryKey(),
  domains: text("domains").notNull(),
  concurrency: integer("concurrency"),
  perMinute: integer("per_minute"),
  pausedUntil: ts("paused_until"),
  strikes: integer("strikes").notNull().default(0),
  lastReply: text("last_reply"),
  throttledAt: ts("throttled_at"),
  updatedBy: text("updated_by").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [index("destinations_updated").on(t.updatedAt)]);

export const teamMembers = pgTable("team_members", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** The member's role: a built-in role's key (owner, admin, member) or the id of one of the team's team_roles. */
  role: text("role").notNull().default("member"),
  /** The projects the member works on: null for all of the team's, else a JSON array of project ids (src/auth/permissions.ts). */
  projectIds: text("project_ids"),
  /** 'active', or 'pending' while the invitation (team_invitations) is not accepted: no access, no sessions, not an owner. */
  status: text("status").notNull().default("active"),
  /** When the member joined; for a pending member, when they were invited (the API shows null). */
  joinedAt: ts("joined_at").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [uniqueIndex("team_members_team_user").on(t.teamId, t.userId), index("team_members_team_created").on(t.teamId, t.createdAt, t.id)]);

/**
 * A team's custom roles (the built-in owner, admin and member are in code, src/auth/permissions.ts):
 * a name unique in the team and a JSON array of the service's permission names.
 */
export const teamRoles = pgTable("team_roles", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  permissions: text("permissions").notNull(),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [uniqueIndex("team_roles_team_name").on(t.teamId, t.name)]);

/**
 * A team's named API tokens beside the one team token (teams.token_hash, an owner's): each with a
 * role (a built-in key or a team_roles id) or its own permissions (JSON array), optionally limited
 * to projects (JSON array; null: all) and to a time. Stored as SHA-256 of the token only.
 */
export const teamTokens = pgTable("team_tokens", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull(),
  role: text("role"),
  permissions: text("permissions"),
  projectIds: text("project_ids"),
  expiresAt: ts("expires_at"),
  createdAt: ts("created_at").notNull(),
  rotatedAt: ts("rotated_at").notNull(),
  lastUsedAt: ts("last_used_at"),
  lastUsedIp: text("last_used_ip"),
}, (t) => [uniqueIndex("team_tokens_token_hash").on(t.tokenHash), index("team_tokens_team").on(t.teamId, t.createdAt)]);

export const projects = pgTable("projects", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  smtpEnabled: bool("smtp_enabled").notNull().default(0),
  /** SHA-256 hex of the project sending token. */
  tokenHash: text("token_hash").notNull(),
  tokenGeneratedAt: ts("token_generated_at").notNull(),
  tokenLastUsedAt: ts("token_last_used_at"),
  tokenLastUsedIp: text("token_last_used_ip"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [uniqueIndex("projects_token_hash").on(t.tokenHash), index("projects_team").on(t.teamId, t.createdAt)]);

export const projectMembers = pgTable("project_members", {
  projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  teamMemberId: text("team_member_id").notNull().references(() => teamMembers.id, { onDelete: "cascade" }),
  role: text("role").notNull().default("member"),
  joinedAt: ts("joined_at").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.projectId, t.teamMemberId] })]);

export const routes = pgTable("routes", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  slug: text("slug").notNull(),
  name: text("name").notNull(),
  /** transactional | broadcast | inbound */
  routeType: text("route_type").$type<"transactional" | "broadcast" | "inbound">().notNull(),
  isDefault: bool("is_default").notNull().default(0),
  /** Generated local@POSTHORN_INBOUND_DOMAIN for inbound routes. */
  inboundAddress: text("inbound_address"),
  inboundDomain: text("inbound_domain"),
  inboundDomainVerifiedAt: ts("inbound_domain_verified_at"),
  inboundSpamThreshold: doublePrecision("inbound_spam_threshold"),
  /** inline | url */
  attachmentDelivery: text("attachment_delivery").notNull().default("inline"),
  trackOpens: bool("track_opens").notNull().default(0),
  trackClicks: bool("track_clicks").notNull().default(0),
  /** Route settings (docs/sending.md, Route settings): a text part made from the HTML when a send has only HTML. */
  generatePlaintextFallback: bool("generate_plaintext_fallback").notNull().default(0),
  /** X-Auto-Response-Suppress on its mail; auto-replies to it are recorded, not published to webhooks. */
  suppressAutoResponders: bool("suppress_auto_responders").notNull().default(0),
  /** Recipients at disposable domains are suppressed at acceptance. */
  suppressDisposableRecipients: bool("suppress_disposable_recipients").notNull().default(0),
  /** opportunistic | enforced: the TLS policy of its deliveries. */
  tls: text("tls").notNull().default("opportunistic"),
  /** Bodies, source and attachment contents of its messages are dropped once every recipient is final. */
  redactEmailContent: bool("redact_email_content").notNull().default(0),
  /** Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added. */
  disableHostedUnsubscribe: bool("disable_hosted_unsubscribe").notNull().default(0),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [
  uniqueIndex("routes_project_slug").on(t.projectId, t.slug),
  uniqueIndex("routes_inbound_address").on(t.inboundAddress),
  index("routes_inbound_domain").on(t.inboundDomain),
  index("routes_team").on(t.teamId),
]);

export const domains = pgTable("domains", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  /** Lower-case ASCII (punycode) name, no trailing dot. */
  domain: text("domain").notNull(),
  /** pending | active | failed */
  status: text("status").notNull().default("pending"),
  statusChangedAt: ts("status_changed_at"),
  dkimSelector: text("dkim_selector").notNull(),
  /** PKCS#8 PEM; never leaves the server. */
  dkimPrivateKey: text("dkim_private_key").notNull(),
  /** Base64 SPKI DER, as published in the p= tag. */
  dkimPublicKey: text("dkim_public_key").notNull(),
  /**
   * The Ed25519 key signing next to the RSA one (RFC 8463): its selector, PKCS#8 PEM private
   * key and base64 raw 32-byte public key. Null only for a domain created before Ed25519 DKIM
   * until the startup step (src/upgrades/dkim-ed25519.ts) gives it one: SQL cannot make keys.
   */
  dkimEd25519Selector: text("dkim_ed25519_selector"),
  dkimEd25519PrivateKey: text("dkim_ed25519_private_key"),
  dkimEd25519PublicKey: text("dkim_ed25519_public_key"),
  /** Host under the domain used as envelope sender / bounce domain, e.g. "ph-bounces". */
  returnPathHost: text("return_path_host").notNull(),
  lastCheckedAt: ts("last_checked_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [uniqueIndex("domains_team_domain").on(t.teamId, t.domain), index("domains_domain").on(t.domain)]);

export const dnsRecords = pgTable("dns_records", {
  id: text("id").primaryKey(),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  /** dkim | dkim_ed25519 | spf | return_path | dmarc */
  purpose: text("purpose").notNull(),
  type: text("type").notNull(),
  hostname: text("hostname").notNull(),
  fqdn: text("fqdn").notNull(),
  content: text("content").notNull(),
  /** pending | active | failed */
  status: text("status").notNull().default("pending"),
  /** Why the last check did not pass, in words a user can act on. */
  statusReason: text("status_reason"),
  verifiedAt: ts("verified_at"),
  lastCheckedAt: ts("last_checked_at"),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("dns_records_domain").on(t.domainId)]);

/**
 * The DKIM keys of a domain besides the two that sign (those are in domains): a rotation's new
 * pair while its records are pending (state next), and the replaced pair, kept published until
 * keep_until (state retiring). Each key belongs to its DNS record, and goes with it.
 */
export const dkimKeys = pgTable("dkim_keys", {
  id: text("id").primaryKey(),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  recordId: text("record_id").notNull().references(() => dnsRecords.id, { onDelete: "cascade" }),
  /** rsa | ed25519 */
  algorithm: text("algorithm").notNull(),
  selector: text("selector").notNull(),
  /** PKCS#8 PEM; never leaves the server. */
  privateKey: text("private_key").notNull(),
  /** As published in the p= tag. */
  publicKey: text("public_key").notNull(),
  /** next | retiring */
  state: text("state").notNull(),
  /** When a retiring key and its record are dropped; null for next. */
  keepUntil: ts("keep_until"),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("dkim_keys_domain").on(t.domainId), index("dkim_keys_record").on(t.recordId), index("dkim_keys_keep_until").on(t.keepUntil)]);

export const projectDomains = pgTable("project_domains", {
  projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.projectId, t.domainId] }), index("project_domains_domain").on(t.domainId)]);

export const messages = pgTable("messages", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
  routeId: text("route_id").references(() => routes.id, { onDelete: "set null" }),
  domainId: text("domain_id").references(() => domains.id, { onDelete: "set null" }),
  /** inbound | outbound */
  type: text("type").$type<"inbound" | "outbound">().notNull(),
  status: text("status").notNull(),
  statusChangedAt: ts("status_changed_at").notNull(),
  tag: text("tag"),
  /** Name-value tags [{name, value}] as sent, in order (docs/sending.md, Tags); message_tags indexes them for the list's filter. */
  tags: json("tags").notNull().default("[]"),
  fromEmail: text("from_email").notNull(),
  fromName: text("from_name").notNull().default(""),
  subject: text("subject").notNull().default(""),
  to: json("to").notNull(),
  cc: json("cc").notNull(),
  bcc: json("bcc").notNull(),
  replyTo: json("reply_to").notNull(),
  metadata: json("metadata").notNull(),
  /** The RFC 5322 Message-ID header value, without angle brackets. */
  messageIdHeader: text("message_id_header"),
  spamScore: doublePrecision("spam_score"),
  spamSymbols: json("spam_symbols"),
  /** When retention purged the message's bodies, source, attachment contents and published events (null: kept). */
  purgedAt: ts("purged_at"),
  /** When the route's redact_email_content dropped its bodies, source and attachment contents (null: kept). */
  redactedAt: ts("redacted_at"),
  /** When a scheduled send is (or was) to go out (the send's scheduled_at, moved by a reschedule); null: sent on acceptance. */
  scheduledAt: ts("scheduled_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [
  // A team's messages newest first; SQLite's search walk (INDEXED BY messages_team_search) checks
  // subject and from_email on the index entry; kept under the same name so that both engines carry
  // the same index set. No separate (team_id, created_at, id) index: a prefix of this one.
  index("messages_team_search").on(t.teamId, t.createdAt, t.id, t.subject, t.fromEmail),
  index("messages_team_type_created").on(t.teamId, t.type, t.createdAt, t.id),
  index("messages_team_status_created").on(t.teamId, t.status, t.createdAt, t.id),
  index("messages_route_created").on(t.routeId, t.createdAt, t.id),
  // A route's 28-day counts by type and status: one index range per (type, status), no sort.
  index("messages_route_type_status_created").on(t.routeId, t.type, t.status, t.createdAt),
  index("messages_domain_created").on(t.domainId, t.createdAt, t.id),
  index("messages_team_tag_created").on(t.teamId, t.tag, t.createdAt, t.id),
  // No index on message_id_header: nothing looks a message up by it.
]);

/** Bodies and custom headers, kept out of the list rows. raw is the exact MIME sent or received. */
export const messageContents = pgTable("message_contents", {
  messageId: text("message_id").primaryKey().references(() => messages.id, { onDelete: "cascade" }),
  html: text("html"),
  text: text("text"),
  headers: json("headers").notNull(),
  raw: bytea("raw"),
  /** Open and click tracking for this message: the route's settings or the send's override, fixed at acceptance. */
  trackOpens: bool("track_opens").notNull().default(0),
  trackClicks: bool("track_clicks").notNull().default(0),
  /** opportunistic | enforced: the TLS policy of its delivery (the send's settings.tls, else the route's), fixed at acceptance. */
  tls: text("tls").notNull().default("opportunistic"),
  /** 1: content kept from the team (source, text, html answer 410), e.g. a report forwarding verification code's mail (docs/deliverability.md). */
  sealed: bool("sealed").notNull().default(0),
});

export const attachments = pgTable("attachments", {
  id: text("id").primaryKey(),
  messageId: text("message_id").notNull().references(() => messages.id, { onDelete: "cascade" }),
  filename: text("filename").notNull(),
  contentType: text("content_type").notNull(),
  contentId: text("content_id"),
  size: integer("size").notNull(),
  content: bytea("content").notNull(),
}, (t) => [index("attachments_message").on(t.messageId)]);

export const recipients = pgTable("recipients", {
  id: text("id").primaryKey(),
  messageId: text("message_id").notNull().references(() => messages.id, { onDelete: "cascade" }),
  email: text("email").notNull(),
  /** to | cc | bcc */
  kind: text("kind").notNull(),
  status: text("status").notNull(),
  statusChangedAt: ts("status_changed_at").notNull(),
  attempts: integer("attempts").notNull().default(0),
  /** Last remote reply: {code, enhanced_code, message}. */
  lastResponse: json("last_response"),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("recipients_message").on(t.messageId)]);
// No index on recipients.email: no query looks a recipient up by address (the queue's filter is a
// partial match within a message's recipients), and each would be one more B-tree per recipient.

/** See schema.ts: a remote server's acceptance that its job has not recorded yet. */
export const deliveryReceipts = pgTable("delivery_receipts", {
  recipientId: text("recipient_id").primaryKey().references(() => recipients.id, { onDelete: "cascade" }),
  reply: json("reply").notNull(),
  host: text("host"),
  createdAt: ts("created_at").notNull(),
});

/**
 * A message's name-value tags, one row each, for GET /v1/messages' filter[tags][n][name|value]:
 * the list walks message_tags_team_tag from the first pair (team, name, value, newest first) and
 * looks each message up by its id. Names are unique per message (the primary key).
 */
export const messageTags = pgTable("message_tags", {
  messageId: text("message_id").notNull().references(() => messages.id, { onDelete: "cascade" }),
  teamId: text("team_id").notNull(),
  name: text("name").notNull(),
  value: text("value").notNull(),
  /** The message's created_at, copied: the filter's walk is ordered as the list is. */
  createdAt: ts("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.messageId, t.name] }), index("message_tags_team_tag").on(t.teamId, t.name, t.value, t.createdAt, t.messageId)]);

/** The original URL of each tracked link of a message, by the index its click tokens name. */
export const trackedLinks = pgTable("tracked_links", {
  messageId: text("message_id").notNull().references(() => messages.id, { onDelete: "cascade" }),
  linkIndex: integer("link_index").notNull(),
  url: text("url").notNull(),
}, (t) => [primaryKey({ columns: [t.messageId, t.linkIndex] })]);

/** Every open or click seen, people's and machines' alike (machine_reason says which rule). */
export const trackingHits = pgTable("tracking_hits", {
  id: text("id").primaryKey(),
  messageId: text("message_id").notNull().references(() => messages.id, { onDelete: "cascade" }),
  recipientId: text("recipient_id").notNull().references(() => recipients.id, { onDelete: "cascade" }),
  /** open | click */
  kind: text("kind").notNull(),
  linkIndex: integer("link_index"),
  ip: text("ip"),
  userAgent: text("user_agent"),
  machine: bool("machine").notNull(),
  machineReason: text("machine_reason"),
  createdAt: ts("created_at").notNull(),
  /** The message's route and creation time, copied at insert: a route's 28-day opens and clicks read only its hits (no join over its messages). */
  routeId: text("route_id").references(() => routes.id, { onDelete: "set null" }),
  messageCreatedAt: ts("message_created_at"),
}, (t) => [
  index("tracking_hits_recipient").on(t.recipientId, t.createdAt),
  index("tracking_hits_message").on(t.messageId, t.createdAt),
  index("tracking_hits_route").on(t.routeId, t.kind, t.machine, t.messageCreatedAt),
]);

/** A message's history: one row per status change or engagement. */
export const messageEvents = pgTable("message_events", {
  id: text("id").primaryKey(),
  messageId: text("message_id").notNull().references(() => messages.id, { onDelete: "cascade" }),
  recipientId: text("recipient_id"),
  /** The event kind, e.g. message.delivered. */
  kind: text("kind").notNull(),
  status: text("status"),
  data: json("data").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("message_events_message").on(t.messageId, t.createdAt)]);

export const suppressions = pgTable("suppressions", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  /** team | project | route */
  scope: text("scope").notNull(),
  projectId: text("project_id").references(() => projects.id, { onDelete: "cascade" }),
  routeId: text("route_id").references(() => routes.id, { onDelete: "cascade" }),
  /** "team", "project:<id>" or "route:<id>": one unique key per scope. */
  scopeKey: text("scope_key").notNull(),
  /** email | domain | extension: what `email` holds. */
  type: text("type").notNull().default("email"),
  /** The suppressed value, lower-cased: an address (type email), a domain (domain) or a domain extension such as "ru" or "co.uk" (extension). */
  email: text("email").notNull(),
  /** spam_complaint | hard_bounce | unsubscribe | manual */
  reason: text("reason").notNull(),
  /** The message whose hard bounce, complaint or unsubscribe added it (automatic suppressions); kept when the message is deleted. */
  sourceMessageId: text("source_message_id"),
  createdAt: ts("created_at").notNull(),
}, (t) => [
  uniqueIndex("suppressions_scope_value").on(t.teamId, t.scopeKey, t.email, t.type),
  index("suppressions_team_email").on(t.teamId, t.email),
  index("suppressions_team_created").on(t.teamId, t.createdAt, t.id),
]);

/**
 * The operator's Posthorn-wide suppression list (scope global): it applies to every team's mail.
 * Written only through the CLI (posthorn suppressions global …); no team reads or writes it through the API.
 */
export const globalSuppressions = pgTable("global_suppressions", {
  id: text("id").primaryKey(),
  /** email | domain | extension */
  type: text("type").notNull(),
  /** Lower-cased address, domain or extension. */
  value: text("value").notNull(),
  /** spam_complaint | hard_bounce | unsubscribe | manual */
  reason: text("reason").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [uniqueIndex("global_suppressions_value").on(t.value, t.type)]);

/** The counter columns of a statistics rollup row (src/db/stat-columns.ts), each an integer starting at 0. */
const statCounters = () => Object.fromEntries(STAT_COLUMNS.map((c) => [c, integer(c).notNull().default(0)]));

/**
 * Statistics rollups by hour (docs/statistics.md): one row per UTC hour × team × project × route
 * × message type (transactional, broadcast, inbound), added to in the transaction of each event
 * (src/events/stat-rollup.ts). project_id and route_id are "" when there is none. slot spreads
 * concurrent PostgreSQL transactions over rows of their own (always 0 on SQLite); readers add the
 * slots up. No foreign keys: the figures outlive the routes and projects they count.
 */
export const statHours = pgTable("stat_hours", {
  teamId: text("team_id").notNull(),
  hour: ts("hour").notNull(),
  projectId: text("project_id").notNull(),
  routeId: text("route_id").notNull(),
  messageType: text("message_type").notNull(),
  slot: integer("slot").notNull(),
  ...statCounters(),
}, (t) => [primaryKey({ columns: [t.teamId, t.hour, t.projectId, t.routeId, t.messageType, t.slot] })]);

/**
 * The same counters by UTC day with the narrower dimensions too: sending domain, recipient
 * provider family, tag, bounce class and enhanced status code ("" when none applies). A day
 * rather than an hour keeps the rows of a 90-day query in the tens of thousands.
 */
export const statDays = pgTable("stat_days", {
  teamId: text("team_id").notNull(),
  day: ts("day").notNull(),
  projectId: text("project_id").notNull(),
  routeId: text("route_id").notNull(),
  messageType: text("message_type").notNull(),
  sendingDomain: text("sending_domain").notNull(),
  provider: text("provider").notNull(),
  tag: text("tag").notNull(),
  bounceClass: text("bounce_class").notNull(),
  enhancedCode: text("enhanced_code").notNull(),
  slot: integer("slot").notNull(),
  ...statCounters(),
}, (t) => [
  primaryKey({ columns: [t.teamId, t.day, t.projectId, t.routeId, t.messageType, t.sendingDomain, t.provider, t.tag, t.bounceClass, t.enhancedCode, t.slot] }),
]);

/**
 * The counters of stat_days by UTC day × team × project × route × message type × provider family
 * only: what a query by provider (day × provider, the dashboard's breakdown) reads, a tenth of
 * stat_days' rows, so it does not add up the domains, tags and bounce codes beside them. Written
 * with stat_days' row in the same transaction (docs/statistics.md). slot as in stat_hours.
 */
export const statProviderDays = pgTable("stat_provider_days", {
  teamId: text("team_id").notNull(),
  day: ts("day").notNull(),
  projectId: text("project_id").notNull(),
  routeId: text("route_id").notNull(),
  messageType: text("message_type").notNull(),
  provider: text("provider").notNull(),
  slot: integer("slot").notNull(),
  ...statCounters(),
}, (t) => [primaryKey({ columns: [t.teamId, t.day, t.projectId, t.routeId, t.messageType, t.provider, t.slot] })]);

/**
 * The counters by UTC day × team × project × route × message type × name-value tag (name and
 * value, as in message_tags): one row per tag of a tagged message, none for an untagged one, so
 * analytics can group and filter by `tag:<name>` (docs/statistics.md). Keyed by the tag's name
 * before the day: a query reads one name's rows of its window, not every name's. slot as in stat_hours.
 */
export const statTagDays = pgTable("stat_tag_days", {
  teamId: text("team_id").notNull(),
  day: ts("day").notNull(),
  projectId: text("project_id").notNull(),
  routeId: text("route_id").notNull(),
  messageType: text("message_type").notNull(),
  tagName: text("tag_name").notNull(),
  tagValue: text("tag_value").notNull(),
  slot: integer("slot").notNull(),
  ...statCounters(),
}, (t) => [primaryKey({ columns: [t.teamId, t.tagName, t.day, t.tagValue, t.projectId, t.routeId, t.messageType, t.slot] })]);

/**
 * Messages accepted and their recipients by UTC day × team × project × route × message type ×
 * sending domain × provider family × tag: the send path's one write to the statistics, a narrow
 * row (src/db/stat-columns.ts, ACCEPT_COUNTERS). slot as in stat_hours.
 */
export const statAccepts = pgTable("stat_accepts", {
  teamId: text("team_id").notNull(),
  day: ts("day").notNull(),
  projectId: text("project_id").notNull(),
  routeId: text("route_id").notNull(),
  messageType: text("message_type").notNull(),
  sendingDomain: text("sending_domain").notNull(),
  provider: text("provider").notNull(),
  tag: text("tag").notNull(),
  slot: integer("slot").notNull(),
  accepted: integer("accepted").notNull().default(0),
  recipients: integer("recipients").notNull().default(0),
}, (t) => [primaryKey({ columns: [t.teamId, t.day, t.projectId, t.routeId, t.messageType, t.sendingDomain, t.provider, t.tag, t.slot] })]);

export const webhooks = pgTable("webhooks", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  routeId: text("route_id").notNull().references(() => routes.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  url: text("url").notNull(),
  events: json("events").notNull(),
  enabled: bool("enabled").notNull().default(1),
  /** Whether events of hits classified as machines (message.opened/clicked with machine: true) are sent too. */
  includeMachineEvents: bool("include_machine_events").notNull().default(0),
  /** The signing key. Kept as issued: it must be usable as the HMAC key. */
  secret: text("secret").notNull(),
  /** Why the service disabled it, e.g. the receiver answered 410. */
  disabledReason: text("disabled_reason"),
  lastCalledAt: ts("last_called_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
}, (t) => [index("webhooks_route").on(t.routeId), index("webhooks_team_created").on(t.teamId, t.createdAt, t.id)]);

/** An event as published, with its body serialized once. */
export const events = pgTable("events", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  routeId: text("route_id"),
  messageId: text("message_id"),
  kind: text("kind").notNull(),
  /** {id, event, timestamp, data} exactly as it is signed and sent. */
  body: text("body").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("events_message").on(t.messageId)]);

/** One row per HTTP attempt of a webhook delivery. */
export const webhookDeliveries = pgTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  webhookId: text("webhook_id").notNull().references(() => webhooks.id, { onDelete: "cascade" }),
  eventId: text("event_id").notNull(),
  event: text("event").notNull(),
  attempt: integer("attempt").notNull(),
  /** succeeded | failed */
  outcome: text("outcome").notNull(),
  statusCode: integer("status_code"),
  durationMs: integer("duration_ms").notNull(),
  error: text("error"),
  responseExcerpt: text("response_excerpt"),
  /** When the next attempt is due, if one is. */
  nextAttemptAt: ts("next_attempt_at"),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("webhook_deliveries_webhook_created").on(t.webhookId, t.createdAt, t.id), index("webhook_deliveries_event").on(t.eventId)]);

export const idempotencyKeys = pgTable("idempotency_keys", {
  projectId: text("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  key: text("key").notNull(),
  /** SHA-256 of the request body, so a different body under the same key is a conflict. */
  requestHash: text("request_hash").notNull(),
  responseStatus: integer("response_status"),
  responseBody: text("response_body"),
  createdAt: ts("created_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
}, (t) => [primaryKey({ columns: [t.projectId, t.key] }), index("idempotency_keys_expires").on(t.expiresAt)]);

/**
 * The durable job queue (see schema.ts). SQLite's INTEGER PRIMARY KEY AUTOINCREMENT becomes an
 * identity column: ids are never reused, an INSERT without id takes the next one, and one with
 * an id (copy-db) is accepted, after which the copier moves the sequence past the largest id.
 */
export const jobs = pgTable("jobs", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  queue: text("queue").notNull(),
  payload: text("payload").notNull(),
  runAt: ts("run_at").notNull(),
  /** Claims so far; also the fencing token that completes or fails a claim. */
  attempts: integer("attempts").notNull().default(0),
  maxAttempts: integer("max_attempts").notNull(),
  lastError: text("last_error"),
  /** Set when the job is dead (max attempts reached or permanently failed). */
  deadAt: ts("dead_at"),
  createdAt: ts("created_at").notNull(),
}, (t) => [
  index("jobs_claim").on(t.queue, t.runAt).where(sql`dead_at IS NULL`),
  // A message's job by its id (queue control: retry, cancel, next attempt), without a scan of the queue.
  index("jobs_message").on(t.queue, sql`(payload::jsonb ->> 'messageId')`),
]);

/** Server-wide values created on first start, e.g. the HMAC secret for VERP and signed links. */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: ts("created_at").notNull(),
});

/** Certificates obtained by ACME, and the order's claim (see schema.ts). */
export const tlsCertificates = pgTable("tls_certificates", {
  name: text("name").primaryKey(),
  domains: json("domains"),
  certPem: text("cert_pem"),
  keyPem: text("key_pem"),
  fingerprint: text("fingerprint"),
  notBefore: ts("not_before"),
  notAfter: ts("not_after"),
  issuedAt: ts("issued_at"),
  renewRequestedAt: ts("renew_requested_at"),
  failures: integer("failures").notNull().default(0),
  lastError: text("last_error"),
  lastAttemptAt: ts("last_attempt_at"),
  nextAttemptAt: ts("next_attempt_at"),
  leaseOwner: text("lease_owner"),
  leaseUntil: ts("lease_until"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** Pending ACME HTTP-01 answers (see schema.ts). */
export const acmeChallenges = pgTable("acme_challenges", {
  token: text("token").primaryKey(),
  keyAuthorization: text("key_authorization").notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("acme_challenges_expires").on(t.expiresAt)]);

/**
 * DMARC aggregate reports (RFC 7489 Appendix C) received at a domain's report address: one row
 * per report, deduplicated by (domain, reporting organization, report id).
 */
export const dmarcReports = pgTable("dmarc_reports", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  orgName: text("org_name").notNull(),
  reportId: text("report_id").notNull(),
  reporterEmail: text("reporter_email"),
  beginAt: ts("begin_at").notNull(),
  endAt: ts("end_at").notNull(),
  /** The report's day (UTC, YYYY-MM-DD): the date of the middle of its period. */
  day: text("day").notNull(),
  /** JSON {domain, p, sp, adkim, aspf, pct} of the policy_published element. */
  policy: text("policy").notNull(),
  /** Messages the report covers: the sum of its records' counts. */
  messages: integer("messages").notNull(),
  receivedAt: ts("received_at").notNull(),
}, (t) => [uniqueIndex("dmarc_reports_unique").on(t.domainId, t.orgName, t.reportId), index("dmarc_reports_domain_day").on(t.domainId, t.day)]);

/** A record (row) of a DMARC aggregate report: a source IP and what the receiver made of its mail. */
export const dmarcReportRecords = pgTable("dmarc_report_records", {
  id: text("id").primaryKey(),
  reportId: text("report_id").notNull().references(() => dmarcReports.id, { onDelete: "cascade" }),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  day: text("day").notNull(),
  orgName: text("org_name").notNull(),
  sourceIp: text("source_ip").notNull(),
  count: integer("count").notNull(),
  /** none | quarantine | reject (policy_evaluated) */
  disposition: text("disposition").notNull(),
  /** DMARC-aligned DKIM and SPF verdicts (policy_evaluated): pass | fail */
  dkim: text("dkim").notNull(),
  spf: text("spf").notNull(),
  headerFrom: text("header_from").notNull(),
  envelopeFrom: text("envelope_from"),
  /** JSON arrays of auth_results: [{domain, selector, result}] and [{domain, scope, result}]. */
  dkimResults: text("dkim_results").notNull(),
  spfResults: text("spf_results").notNull(),
}, (t) => [index("dmarc_report_records_domain_day").on(t.domainId, t.day), index("dmarc_report_records_report").on(t.reportId)]);

/** TLS reports (RFC 8460) received at a domain's report address, deduplicated as DMARC's. */
export const tlsrptReports = pgTable("tlsrpt_reports", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  orgName: text("org_name").notNull(),
  reportId: text("report_id").notNull(),
  contact: text("contact"),
  beginAt: ts("begin_at").notNull(),
  endAt: ts("end_at").notNull(),
  day: text("day").notNull(),
  receivedAt: ts("received_at").notNull(),
}, (t) => [uniqueIndex("tlsrpt_reports_unique").on(t.domainId, t.orgName, t.reportId), index("tlsrpt_reports_domain_day").on(t.domainId, t.day)]);

/**
 * Session counts of a TLS report: per policy one row of result_type "success" (its successful
 * sessions), and one per failure-details entry (result_type as RFC 8460 §4.3 names it).
 */
export const tlsrptResults = pgTable("tlsrpt_results", {
  id: text("id").primaryKey(),
  reportId: text("report_id").notNull().references(() => tlsrptReports.id, { onDelete: "cascade" }),
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  day: text("day").notNull(),
  orgName: text("org_name").notNull(),
  /** sts | tlsa | no-policy-found */
  policyType: text("policy_type").notNull(),
  policyDomain: text("policy_domain").notNull(),
  /** The receiving MX host the failure was at; "" when the report names none. */
  mxHost: text("mx_host").notNull(),
  resultType: text("result_type").notNull(),
  sendingIp: text("sending_ip"),
  receivingIp: text("receiving_ip"),
  count: integer("count").notNull(),
}, (t) => [index("tlsrpt_results_domain_day").on(t.domainId, t.day), index("tlsrpt_results_report").on(t.reportId)]);

/** The local addresses outbound SMTP connections were made from: "our IP addresses" in DMARC reports. */
export const sendingAddresses = pgTable("sending_addresses", {
  ip: text("ip").primaryKey(),
  firstSeenAt: ts("first_seen_at").notNull(),
  lastSeenAt: ts("last_seen_at").notNull(),
});

/**
 * Report forwarding of a project (Lettermint's report-forwarding): a destination that, once
 * verified with the code mailed to it, also gets every DMARC and TLS report received for the
 * project's domains. The code is kept as an HMAC, never in clear.
 */
export const reportForwarding = pgTable("report_forwarding", {
  projectId: text("project_id").primaryKey().references(() => projects.id, { onDelete: "cascade" }),
  teamId: text("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
  destination: text("destination").notNull(),
  codeHash: text("code_hash"),
  codeExpiresAt: ts("code_expires_at"),
  codeSentAt: ts("code_sent_at"),
  /** Wrong codes given for the current code; at 5 the code is spent. */
  failedAttempts: integer("failed_attempts").notNull().default(0),
  verifiedAt: ts("verified_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** Blocklist state of a sending address or domain in one zone; see schema.ts. */
export const blocklistStatus = pgTable("blocklist_status", {
  target: text("target").notNull(),
  zone: text("zone").notNull(),
  kind: text("kind").notNull(),
  listed: bool("listed").notNull(),
  code: text("code"),
  meaning: text("meaning"),
  since: ts("since").notNull(),
  checkedAt: ts("checked_at").notNull(),
}, (t) => [primaryKey({ columns: [t.target, t.zone] })]);

/** A sending domain's warm-up; see schema.ts. */
export const domainWarmups = pgTable("domain_warmups", {
  domainId: text("domain_id").primaryKey().references(() => domains.id, { onDelete: "cascade" }),
  enabled: bool("enabled").notNull(),
  schedule: text("schedule").notNull(),
  startedAt: ts("started_at").notNull(),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** Recipients a warmed-up domain's mail was first attempted for per UTC day; see schema.ts. */
export const warmupCounts = pgTable("warmup_counts", {
  domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
  day: text("day").notNull(),
  sent: integer("sent").notNull(),
}, (t) => [primaryKey({ columns: [t.domainId, t.day] })]);

/** The team's audit log, append-only; see schema.ts. */
export const auditLog = pgTable("audit_log", {
  id: text("id").primaryKey(),
  teamId: text("team_id").notNull(),
  actorKind: text("actor_kind").notNull(),
  actorId: text("actor_id"),
  actorName: text("actor_name"),
  operation: text("operation").notNull(),
  targetIds: text("target_ids").notNull(),
  changes: text("changes").notNull(),
  status: integer("status").notNull(),
  ip: text("ip"),
  userAgent: text("user_agent"),
  createdAt: ts("created_at").notNull(),
}, (t) => [index("audit_log_team_created").on(t.teamId, t.createdAt, t.id), index("audit_log_created").on(t.createdAt)]);
