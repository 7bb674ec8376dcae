import { readFileSync } from "node:fs";
import { hostname as osHostname } from "node:os";
import { resolve } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parseCidr } from "./net/ip.ts";
import { parseDestinationPolicies, type DestinationPolicies } from "./pacing/destination-policy.ts";

/** Raised at start when a POSTHORN_* variable is unusable; names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
    this.name = "ConfigError";
  }
}

const Port = Type.Integer({ minimum: 0, maximum: 65535 });

/** Shortest retention window: webhook deliveries of an event keep retrying for about 2.5 days. */
export const MIN_RETENTION_DAYS = 3;

/** Let's Encrypt's production ACME directory, the default of POSTHORN_ACME_DIRECTORY. */
export const LETS_ENCRYPT_DIRECTORY = "https://acme-v02.api.letsencrypt.org/directory";

export const ConfigSchema = Type.Object({
  dataDir: Type.String({ minLength: 1 }),
  /** null: SQLite in dataDir; otherwise the PostgreSQL database every node shares. */
  databaseUrl: Type.Union([Type.String({ pattern: "^postgres(ql)?://[^\\s]+$" }), Type.Null()]),
  /** PostgreSQL connections this node opens at most, and how long a request waits for a free one. */
  databasePool: Type.Integer({ minimum: 2, maximum: 1000 }),
  databasePoolWaitMs: Type.Integer({ minimum: 1, maximum: 600_000 }),
  /** This node's name in /metrics and logs (several nodes on one database). */
  nodeName: Type.String({ minLength: 1 }),
  httpHost: Type.String({ minLength: 1 }),
  httpPort: Port,
  publicUrl: Type.String({ pattern: "^https?://[^\\s]+$" }),
  /** Base of open and click tracking URLs ({base}/t/o/…, {base}/t/c/…); default publicUrl. */
  trackingUrl: Type.String({ pattern: "^https?://[^\\s]+$" }),
  hostname: Type.String({ minLength: 1 }),
  smtpHost: Type.String({ minLength: 1 }),
  smtpPort: Port,
  submissionPort: Port,
  tlsCert: Type.Union([Type.String(), Type.Null()]),
  tlsKey: Type.Union([Type.String(), Type.Null()]),
  /** HTTPS listener on httpHost (0 = off); it listens once a certificate exists (files or ACME). */
  httpsPort: Port,
  /** Set: certificates for hostname (and the tracking host) come from acmeDirectory by HTTP-01. */
  acmeEmail: Type.Union([Type.String({ pattern: "^[^\\s@]+@[^\\s@]+$" }), Type.Null()]),
  acmeDirectory: Type.String({ pattern: "^https://[^\\s]+$" }),
  /**
   * How often each node checks its certificate (default 10,000 ms): re-reads POSTHORN_TLS_CERT/KEY,
   * loads one another node stored, and orders when one is due or `posthorn tls renew` asked for one.
   */
  tlsCheckIntervalMs: Type.Integer({ minimum: 100, maximum: 3_600_000 }),
  /**
   * The first wait while an ACME order's challenges and the order itself are being validated
   * (default 5,000 ms, acme-client's): each further poll of the same step waits twice as long, up to
   * 30 s. A CA that validates within a second (a private CA on the network, pebble in the tests)
   * issues that much sooner with a shorter wait.
   */
  acmePollMs: Type.Integer({ minimum: 50, maximum: 30_000 }),
  delivery: Type.Union([Type.Literal("direct"), Type.Literal("relay"), Type.Literal("sink")]),
  relayUrl: Type.Union([Type.String({ pattern: "^smtps?://[^\\s]+$" }), Type.Null()]),
  mxPort: Port,
  /** Port of the HTTPS policy hosts (mta-sts.<domain>) for outbound MTA-STS; 443 but in tests. */
  mtaStsPort: Type.Integer({ minimum: 1, maximum: 65535 }),
  /** null means the system resolver. Each entry is "ip" or "ip:port" ("[v6]:port"). */
  dnsServers: Type.Union([Type.Array(Type.String({ minLength: 1 })), Type.Null()]),
  inboundDomain: Type.String({ minLength: 1 }),
  /**
   * The public IP addresses this server's mail leaves from as receivers see them, comma-separated,
   * when they differ from the local addresses of its outbound connections (behind NAT or a relay).
   * DMARC reports count mail from these, and from the local addresses Posthorn learns by itself,
   * as sent by Posthorn ("ours"); everything else is "elsewhere" (docs/deliverability.md).
   */
  sendingAddresses: Type.Array(Type.String()),
  webhookAllowedNetworks: Type.Array(Type.String()),
  /**
   * DNSBL zones the sending addresses (POSTHORN_SENDING_ADDRESSES and those learned from outbound
   * connections) are looked up in, comma-separated (default zen.spamhaus.org, bl.spamcop.net,
   * b.barracudacentral.org; "none" for none). Spamhaus answers queries that come through large
   * public resolvers with 127.255.255.254 (refused), which is not taken for a listing: use a
   * resolver of your own in POSTHORN_DNS_SERVERS (docs/deliverability.md, Blocklists).
   */
  blocklistIpZones: Type.Array(Type.String({ pattern: "^[A-Za-z0-9_.-]+$" })),
  /** URIBL/DBL zones the verified sending domains are looked up in (default dbl.spamhaus.org, multi.uribl.com; "none" for none). */
  blocklistDomainZones: Type.Array(Type.String({ pattern: "^[A-Za-z0-9_.-]+$" })),
  /** Seconds between two blocklist checks of every address and domain (default 21600, 6 hours; 0 = no checks). */
  blocklistIntervalSeconds: Type.Integer({ minimum: 0, maximum: 30 * 86_400 }),
  logLevel: Type.Union([
    Type.Literal("debug"),
    Type.Literal("info"),
    Type.Literal("warn"),
    Type.Literal("error"),
    Type.Literal("silent"),
  ]),
  /** How long outbound mail keeps retrying before it is failed. */
  queueLifetimeSeconds: Type.Integer({ minimum: 1 }),
  /** Days a final message keeps its bodies, source, attachments and published events (0 = forever); see src/modules/retention/. */
  retentionDays: Type.Integer({ minimum: 0, maximum: 36500 }),
  /** Refuse to send from a domain whose DKIM record is not verified. */
  requireVerifiedDomain: Type.Boolean(),
  rspamdUrl: Type.Union([Type.String({ pattern: "^https?://[^\\s]+$" }), Type.Null()]),
  /** How long a received message waits for an unreachable rspamd before the built-in rules score it. */
  rspamdFallbackSeconds: Type.Integer({ minimum: 1, maximum: 60 }),
  /** Largest HTTP request body accepted, in bytes. */
  maxBodyBytes: Type.Integer({ minimum: 1024 }),
  /** Largest message accepted by the SMTP listeners, in bytes. */
  maxMessageBytes: Type.Integer({ minimum: 1024 }),
  /** Refused RCPTs (550) a client IP may have on the MX per 10 minutes before every RCPT gets 421; 0 = no limit. */
  smtpRcptFailureLimit: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  /** How long the MX waits before its greeting (default 0, at once); with a pause, a client that talks first is refused (early-talker check). */
  smtpGreetDelayMs: Type.Integer({ minimum: 0, maximum: 60_000 }),
  /** How far the MX's processing may lag (the oldest message waiting for its inbound job) before each new MAIL FROM is held, up to 1 s (default 1000; 0 = off). */
  smtpInflowLagMs: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
  /**
   * Connections one client may hold at once on each SMTP listener (the MX and submission), by
   * address (IPv4) or /64 (IPv6); the next one is answered 421 4.7.0 and closed, so that one
   * client cannot take every slot (default 50, as Postfix's smtpd_client_connection_count_limit;
   * 0 = no limit, for a listener behind a relay or load balancer that connects from one address).
   */
  smtpMaxConnectionsPerClient: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  /**
   * Seconds an SMTP session may go without doing anything (default 60; 0 = off): only MAIL, RCPT,
   * DATA, BDAT, AUTH and STARTTLS count, so a client that sends NOOP, RSET, HELP, VRFY, EXPN or
   * EHLO to hold its connection open is answered 421 4.4.2 and closed at its next command past
   * this time. A client that sends nothing at all is closed after the socket timeout (120 s).
   */
  smtpIdleTimeoutSeconds: Type.Integer({ minimum: 0, maximum: 86_400 }),
  /** API rate limits, sustained requests per second (burst twice that; 0 = off): per project on the send endpoints, per team on management. */
  rateLimitSend: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  rateLimitApi: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  /** Failed authentications (API tokens, SMTP AUTH, sign-in) a client IP may have per minute before all its attempts are refused; 0 = no limit. */
  authFailureLimit: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  /** CIDRs of reverse proxies whose X-Forwarded-For names the client (rate limits, throttling, sign-in); empty: the TCP peer is the client. */
  trustedProxies: Type.Array(Type.String()),
  /**
   * A secret that lets a scraper read GET /metrics from any address (as `Authorization: Bearer …`,
   * at least 16 characters); unset: /metrics answers clients on loopback and private networks
   * only (10/8, 172.16/12, 192.168/16, fc00::/7), since it carries every team's mail figures.
   */
  metricsToken: Type.Union([Type.String({ minLength: 16 }), Type.Null()]),
  /** Concurrent outbound deliveries and webhook posts. */
  deliveryConcurrency: Type.Integer({ minimum: 1, maximum: 1024 }),
  /**
   * MiB of signed message copies (and contents being composed) that outbound delivery holds at
   * once, across all messages (default 64): a large message to many recipients (with tracking or
   * a broadcast's unsubscribe links, each its own copy) takes turns instead of holding every copy at
   * once, and small mail never waits. The server's RSS above its rest stays within about 5 times
   * this, the SMTP agent's about 3 times, plus the largest message's own (~300 MB at 25 MiB),
   * whatever recipients × size; one copy larger than the setting goes alone.
   */
  deliveryMemoryMb: Type.Integer({ minimum: 1, maximum: 1_048_576 }),
  /** Per-destination shaping limits by recipient domain (POSTHORN_DESTINATION_POLICIES, a JSON file); see src/pacing/destination-policy.ts and src/mail/shaping.ts. */
  destinationPolicies: Type.Record(
    Type.String(),
    Type.Object({ concurrency: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]), per_minute: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]) }),
  ),
  webhookConcurrency: Type.Integer({ minimum: 1, maximum: 1024 }),
  /**
   * Single sign-on to the dashboard with OpenID Connect: the issuer URL of the identity provider
   * exactly as the provider writes it in its ID tokens (its discovery document is at
   * {issuer}/.well-known/openid-configuration). Unset: no single
   * sign-on. https, or http only on a loopback host (127.0.0.1, ::1, localhost) for a provider on
   * the same machine. The provider's redirect URI for Posthorn is {POSTHORN_PUBLIC_URL}/v1/auth/sso/callback
   * (docs/security.md, Single sign-on).
   */
  oidcIssuer: Type.Union([Type.String({ pattern: "^https?://[^\\s]+$" }), Type.Null()]),
  /** The client id Posthorn is registered with at the issuer (required with POSTHORN_OIDC_ISSUER). */
  oidcClientId: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /** The client's secret (client_secret_basic at the token endpoint); unset: a public client, PKCE alone. */
  oidcClientSecret: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /** The role a user created by single sign-on gets in the team: member (default) or admin. */
  oidcDefaultRole: Type.Union([Type.Literal("member"), Type.Literal("admin")]),
  /**
   * The team users created by single sign-on join; unset: the instance's only team (with several
   * teams and no id, single sign-on only signs in users who exist already).
   */
  oidcTeamId: Type.Union([Type.String({ pattern: "^[0-9a-fA-F-]{36}$" }), Type.Null()]),
  /** Email domains single sign-on accepts, comma-separated (default: any); a verified address of another domain is refused. */
  oidcAllowedDomains: Type.Array(Type.String({ minLength: 1 })),
});
export type Config = Static<typeof ConfigSchema>;

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === "" ? fallback : v;
}

/** POSTHORN_DESTINATION_POLICIES: the path of a JSON file of per-domain shaping limits; none when unset. */
function destinationPolicies(env: Env): DestinationPolicies {
  const path = optional(env, "POSTHORN_DESTINATION_POLICIES");
  if (path === null) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError("POSTHORN_DESTINATION_POLICIES", `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return parseDestinationPolicies(text);
  } catch (err) {
    throw new ConfigError("POSTHORN_DESTINATION_POLICIES", `${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function optional(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v === "" ? null : v;
}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  return Number(raw.trim());
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function list(env: Env, name: string): string[] | null {
  const raw = optional(env, name);
  if (raw === null || raw.trim() === "system") return null;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The DNSBL zones of POSTHORN_BLOCKLIST_IP_ZONES when it is unset. */
export const DEFAULT_BLOCKLIST_IP_ZONES = ["zen.spamhaus.org", "bl.spamcop.net", "b.barracudacentral.org"];
/** The domain zones of POSTHORN_BLOCKLIST_DOMAIN_ZONES when it is unset. */
export const DEFAULT_BLOCKLIST_DOMAIN_ZONES = ["dbl.spamhaus.org", "multi.uribl.com"];

/** A comma-separated list of DNS zones, lower-cased without a trailing dot; "none" for none, unset for the defaults. */
function zones(env: Env, name: string, fallback: string[]): string[] {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (raw.trim().toLowerCase() === "none") return [];
  return [...new Set(raw.split(",").map((s) => s.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean))];
}

/** Which env variable each config key comes from, so a validation failure can name it. */
const ENV_NAMES: Record<keyof Config, string> = {
  dataDir: "POSTHORN_DATA_DIR",
  databaseUrl: "POSTHORN_DATABASE_URL",
  databasePool: "POSTHORN_DATABASE_POOL",
  databasePoolWaitMs: "POSTHORN_DATABASE_POOL_WAIT_MS",
  nodeName: "POSTHORN_NODE_NAME",
  httpHost: "POSTHORN_HTTP_HOST",
  httpPort: "POSTHORN_HTTP_PORT",
  publicUrl: "POSTHORN_PUBLIC_URL",
  trackingUrl: "POSTHORN_TRACKING_URL",
  hostname: "POSTHORN_HOSTNAME",
  smtpHost: "POSTHORN_SMTP_HOST",
  smtpPort: "POSTHORN_SMTP_PORT",
  submissionPort: "POSTHORN_SUBMISSION_PORT",
  tlsCert: "POSTHORN_TLS_CERT",
  tlsKey: "POSTHORN_TLS_KEY",
  httpsPort: "POSTHORN_HTTPS_PORT",
  acmeEmail: "POSTHORN_ACME_EMAIL",
  acmeDirectory: "POSTHORN_ACME_DIRECTORY",
  tlsCheckIntervalMs: "POSTHORN_TLS_CHECK_INTERVAL_MS",
  acmePollMs: "POSTHORN_ACME_POLL_MS",
  delivery: "POSTHORN_DELIVERY",
  relayUrl: "POSTHORN_RELAY_URL",
  mxPort: "POSTHORN_MX_PORT",
  mtaStsPort: "POSTHORN_MTA_STS_PORT",
  dnsServers: "POSTHORN_DNS_SERVERS",
  inboundDomain: "POSTHORN_INBOUND_DOMAIN",
  sendingAddresses: "POSTHORN_SENDING_ADDRESSES",
  webhookAllowedNetworks: "POSTHORN_WEBHOOK_ALLOWED_NETWORKS",
  blocklistIpZones: "POSTHORN_BLOCKLIST_IP_ZONES",
  blocklistDomainZones: "POSTHORN_BLOCKLIST_DOMAIN_ZONES",
  blocklistIntervalSeconds: "POSTHORN_BLOCKLIST_INTERVAL",
  logLevel: "POSTHORN_LOG_LEVEL",
  queueLifetimeSeconds: "POSTHORN_QUEUE_LIFETIME",
  retentionDays: "POSTHORN_RETENTION_DAYS",
  requireVerifiedDomain: "POSTHORN_REQUIRE_VERIFIED_DOMAIN",
  rspamdUrl: "POSTHORN_RSPAMD_URL",
  rspamdFallbackSeconds: "POSTHORN_RSPAMD_FALLBACK_SECONDS",
  maxBodyBytes: "POSTHORN_MAX_BODY_BYTES",
  maxMessageBytes: "POSTHORN_MAX_MESSAGE_BYTES",
  smtpRcptFailureLimit: "POSTHORN_SMTP_RCPT_FAILURE_LIMIT",
  smtpGreetDelayMs: "POSTHORN_SMTP_GREET_DELAY_MS",
  smtpInflowLagMs: "POSTHORN_SMTP_INFLOW_LAG_MS",
  smtpMaxConnectionsPerClient: "POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT",
  smtpIdleTimeoutSeconds: "POSTHORN_SMTP_IDLE_TIMEOUT_SECONDS",
  rateLimitSend: "POSTHORN_RATE_LIMIT_SEND",
  rateLimitApi: "POSTHORN_RATE_LIMIT_API",
  authFailureLimit: "POSTHORN_AUTH_FAILURE_LIMIT",
  trustedProxies: "POSTHORN_TRUSTED_PROXIES",
  metricsToken: "POSTHORN_METRICS_TOKEN",
  deliveryConcurrency: "POSTHORN_DELIVERY_CONCURRENCY",
  deliveryMemoryMb: "POSTHORN_DELIVERY_MEMORY_MB",
  destinationPolicies: "POSTHORN_DESTINATION_POLICIES",
  webhookConcurrency: "POSTHORN_WEBHOOK_CONCURRENCY",
  oidcIssuer: "POSTHORN_OIDC_ISSUER",
  oidcClientId: "POSTHORN_OIDC_CLIENT_ID",
  oidcClientSecret: "POSTHORN_OIDC_CLIENT_SECRET",
  oidcDefaultRole: "POSTHORN_OIDC_DEFAULT_ROLE",
  oidcTeamId: "POSTHORN_OIDC_TEAM_ID",
  oidcAllowedDomains: "POSTHORN_OIDC_ALLOWED_DOMAINS",
};

/** Reads and validates every POSTHORN_* setting once. Throws ConfigError naming the bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const host = str(env, "POSTHORN_HOSTNAME", osHostname() || "localhost").toLowerCase();
  const config: Config = {
    dataDir: resolve(str(env, "POSTHORN_DATA_DIR", "./data")),
    databaseUrl: optional(env, "POSTHORN_DATABASE_URL"),
    databasePool: int(env, "POSTHORN_DATABASE_POOL", 20),
    databasePoolWaitMs: int(env, "POSTHORN_DATABASE_POOL_WAIT_MS", 5000),
    nodeName: str(env, "POSTHORN_NODE_NAME", osHostname() || "posthorn"),
    httpHost: str(env, "POSTHORN_HTTP_HOST", "0.0.0.0"),
    httpPort: int(env, "POSTHORN_HTTP_PORT", 8080),
    publicUrl: str(env, "POSTHORN_PUBLIC_URL", "http://localhost:8080").replace(/\/+$/, ""),
    trackingUrl: str(env, "POSTHORN_TRACKING_URL", str(env, "POSTHORN_PUBLIC_URL", "http://localhost:8080")).replace(/\/+$/, ""),
    hostname: host,
    smtpHost: str(env, "POSTHORN_SMTP_HOST", "0.0.0.0"),
    smtpPort: int(env, "POSTHORN_SMTP_PORT", 2525),
    submissionPort: int(env, "POSTHORN_SUBMISSION_PORT", 1587),
    tlsCert: optional(env, "POSTHORN_TLS_CERT"),
    tlsKey: optional(env, "POSTHORN_TLS_KEY"),
    httpsPort: int(env, "POSTHORN_HTTPS_PORT", 0),
    acmeEmail: optional(env, "POSTHORN_ACME_EMAIL"),
    acmeDirectory: str(env, "POSTHORN_ACME_DIRECTORY", LETS_ENCRYPT_DIRECTORY),
    tlsCheckIntervalMs: int(env, "POSTHORN_TLS_CHECK_INTERVAL_MS", 10_000),
    acmePollMs: int(env, "POSTHORN_ACME_POLL_MS", 5_000),
    delivery: str(env, "POSTHORN_DELIVERY", "direct") as Config["delivery"],
    relayUrl: optional(env, "POSTHORN_RELAY_URL"),
    mxPort: int(env, "POSTHORN_MX_PORT", 25),
    mtaStsPort: int(env, "POSTHORN_MTA_STS_PORT", 443),
    dnsServers: list(env, "POSTHORN_DNS_SERVERS"),
    inboundDomain: str(env, "POSTHORN_INBOUND_DOMAIN", `inbound.${host}`).toLowerCase(),
    sendingAddresses: list(env, "POSTHORN_SENDING_ADDRESSES") ?? [],
    webhookAllowedNetworks: list(env, "POSTHORN_WEBHOOK_ALLOWED_NETWORKS") ?? [],
    blocklistIpZones: zones(env, "POSTHORN_BLOCKLIST_IP_ZONES", DEFAULT_BLOCKLIST_IP_ZONES),
    blocklistDomainZones: zones(env, "POSTHORN_BLOCKLIST_DOMAIN_ZONES", DEFAULT_BLOCKLIST_DOMAIN_ZONES),
    blocklistIntervalSeconds: int(env, "POSTHORN_BLOCKLIST_INTERVAL", 6 * 3600),
    logLevel: str(env, "POSTHORN_LOG_LEVEL", "info") as Config["logLevel"],
    queueLifetimeSeconds: int(env, "POSTHORN_QUEUE_LIFETIME", 5 * 24 * 3600),
    retentionDays: int(env, "POSTHORN_RETENTION_DAYS", 30),
    requireVerifiedDomain: bool(env, "POSTHORN_REQUIRE_VERIFIED_DOMAIN", true),
    rspamdUrl: optional(env, "POSTHORN_RSPAMD_URL"),
    rspamdFallbackSeconds: int(env, "POSTHORN_RSPAMD_FALLBACK_SECONDS", 45),
    maxBodyBytes: int(env, "POSTHORN_MAX_BODY_BYTES", 50 * 1024 * 1024),
    maxMessageBytes: int(env, "POSTHORN_MAX_MESSAGE_BYTES", 25 * 1024 * 1024),
    smtpRcptFailureLimit: int(env, "POSTHORN_SMTP_RCPT_FAILURE_LIMIT", 20),
    smtpGreetDelayMs: int(env, "POSTHORN_SMTP_GREET_DELAY_MS", 0),
    smtpInflowLagMs: int(env, "POSTHORN_SMTP_INFLOW_LAG_MS", 1000),
    smtpMaxConnectionsPerClient: int(env, "POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT", 50),
    smtpIdleTimeoutSeconds: int(env, "POSTHORN_SMTP_IDLE_TIMEOUT_SECONDS", 60),
    rateLimitSend: int(env, "POSTHORN_RATE_LIMIT_SEND", 100),
    rateLimitApi: int(env, "POSTHORN_RATE_LIMIT_API", 50),
    authFailureLimit: int(env, "POSTHORN_AUTH_FAILURE_LIMIT", 10),
    trustedProxies: list(env, "POSTHORN_TRUSTED_PROXIES") ?? [],
    metricsToken: optional(env, "POSTHORN_METRICS_TOKEN"),
    deliveryConcurrency: int(env, "POSTHORN_DELIVERY_CONCURRENCY", 64),
    deliveryMemoryMb: int(env, "POSTHORN_DELIVERY_MEMORY_MB", 64),
    destinationPolicies: destinationPolicies(env),
    webhookConcurrency: int(env, "POSTHORN_WEBHOOK_CONCURRENCY", 64),
    oidcIssuer: optional(env, "POSTHORN_OIDC_ISSUER"),
    oidcClientId: optional(env, "POSTHORN_OIDC_CLIENT_ID"),
    oidcClientSecret: optional(env, "POSTHORN_OIDC_CLIENT_SECRET"),
    oidcDefaultRole: str(env, "POSTHORN_OIDC_DEFAULT_ROLE", "member") as Config["oidcDefaultRole"],
    oidcTeamId: optional(env, "POSTHORN_OIDC_TEAM_ID")?.toLowerCase() ?? null,
    oidcAllowedDomains: (list(env, "POSTHORN_OIDC_ALLOWED_DOMAINS") ?? []).map((d) => d.toLowerCase().replace(/^@/, "")),
  };

  // Checked first, and never echoed: the URL carries a password.
  if (config.databaseUrl !== null && !/^postgres(ql)?:\/\/\S+$/.test(config.databaseUrl)) {
    throw new ConfigError("POSTHORN_DATABASE_URL", "expected postgres://user:password@host:port/database");
  }
  const firstError = Value.Errors(ConfigSchema, config).First();
  if (firstError) {
    const key = firstError.path.split("/")[1] as keyof Config;
    const value = (config as Record<string, unknown>)[key];
    throw new ConfigError(ENV_NAMES[key] ?? key, `${firstError.message} (got ${JSON.stringify(value)})`);
  }
  if (config.oidcIssuer !== null) {
    const issuer = new URL(config.oidcIssuer);
    const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(issuer.hostname);
    if (issuer.protocol !== "https:" && !loopback) throw new ConfigError("POSTHORN_OIDC_ISSUER", "must be https (http only on a loopback host)");
    if (config.oidcClientId === null) throw new ConfigError("POSTHORN_OIDC_CLIENT_ID", "required with POSTHORN_OIDC_ISSUER");
  } else if (config.oidcClientId !== null) {
    throw new ConfigError("POSTHORN_OIDC_ISSUER", "required with POSTHORN_OIDC_CLIENT_ID");
  }
  if (config.delivery === "relay" && !config.relayUrl) {
    throw new ConfigError("POSTHORN_RELAY_URL", "required when POSTHORN_DELIVERY=relay");
  }
  if ((config.tlsCert === null) !== (config.tlsKey === null)) {
    throw new ConfigError(config.tlsCert ? "POSTHORN_TLS_KEY" : "POSTHORN_TLS_CERT", "set both POSTHORN_TLS_CERT and POSTHORN_TLS_KEY, or neither");
  }
  if (config.httpsPort !== 0 && config.httpsPort === config.httpPort) {
    throw new ConfigError("POSTHORN_HTTPS_PORT", `must differ from POSTHORN_HTTP_PORT (${config.httpPort}), which answers ACME's HTTP-01 challenges`);
  }
  if (config.retentionDays > 0 && config.retentionDays < MIN_RETENTION_DAYS) {
    // A purged event can no longer be sent: the window must outlast its webhook retries (~2.5 days).
    throw new ConfigError("POSTHORN_RETENTION_DAYS", `must be 0 (keep forever) or at least ${MIN_RETENTION_DAYS} days, the time webhook deliveries keep retrying (got ${config.retentionDays})`);
  }
  // The same parser as where the networks are used (net/ip.ts), so what starts is what works.
  const badNetwork = (cidr: string, bareAddress: boolean) => {
    if (!bareAddress && !cidr.includes("/")) return true;
    try {
      parseCidr(cidr);
      return false;
    } catch {
      return true;
    }
  };
  for (const cidr of config.trustedProxies) {
    if (badNetwork(cidr, true)) throw new ConfigError("POSTHORN_TRUSTED_PROXIES", `"${cidr}" is not an address or a CIDR like 10.0.0.0/8`);
  }
  for (const ip of config.sendingAddresses) {
    if (badNetwork(ip, true) || ip.includes("/")) throw new ConfigError("POSTHORN_SENDING_ADDRESSES", `"${ip}" is not an IP address`);
  }
  for (const cidr of config.webhookAllowedNetworks) {
    if (badNetwork(cidr, false)) throw new ConfigError("POSTHORN_WEBHOOK_ALLOWED_NETWORKS", `"${cidr}" is not a CIDR like 10.0.0.0/8`);
  }
  return config;
}
