/**
 * Writes docs/configuration.md, the reference of every setting, from src/config.ts: the variable
 * names (ENV_NAMES), their defaults (loadConfig), what each accepts (ConfigSchema) and, where this
 * file has no note for it, the setting's doc comment. Read with the TypeScript compiler API, so
 * the reference cannot drift from the code: test/config-reference.test.ts fails when the committed
 * file differs from what this writes.
 *
 *   bun scripts/config-reference.ts           rewrite docs/configuration.md
 *   bun scripts/config-reference.ts --check   exit 1 if it is out of date
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const root = join(import.meta.dir, "..");
export const CONFIG_PATH = join(root, "src", "config.ts");
export const REFERENCE_PATH = join(root, "docs", "configuration.md");

/**
 * What a reader needs beyond the name, default and accepted values, per variable. A setting
 * without a note here is described by its doc comment in src/config.ts.
 */
const NOTES: Record<string, string> = {
  POSTHORN_DATA_DIR: "SQLite database (`posthorn.db`) and anything else stored.",
  POSTHORN_DATABASE_URL: "`postgres://user:password@host:port/database`: store everything in PostgreSQL 15+ instead, shared by any number of nodes.",
  POSTHORN_DATABASE_POOL: "PostgreSQL connections this node opens at most.",
  POSTHORN_DATABASE_POOL_WAIT_MS: "How long a request waits for a free connection before it gets `503` (nothing is changed).",
  POSTHORN_NODE_NAME: "This node's `node` label in `/metrics`.",
  POSTHORN_HTTP_HOST: "Address the API (HTTP, and HTTPS when on) listens on. Every start warns while it is `0.0.0.0` in plain HTTP: on a public address set `127.0.0.1` behind a TLS reverse proxy.",
  POSTHORN_HTTP_PORT: "Port of the API, the dashboard, tracking and unsubscribe links, in plain HTTP; it also answers ACME's HTTP-01 challenges.",
  POSTHORN_PUBLIC_URL: "Base of page URLs, tracking, unsubscribe and attachment links.",
  POSTHORN_TRACKING_URL: "Base of open and click tracking URLs (`{base}/t/o/…`, `{base}/t/c/…`); e.g. a host of its own such as `https://track.example.com`.",
  POSTHORN_HOSTNAME: "HELO name, MX target, DNS record targets.",
  POSTHORN_SMTP_HOST: "Address of the SMTP listeners (the MX and submission).",
  POSTHORN_SMTP_PORT: "Port of the inbound MX listener (mail for routes, bounces, complaints); forward port 25 to it, or set 25. `0` turns it off.",
  POSTHORN_SUBMISSION_PORT: "Authenticated SMTP submission for projects with `smtp_enabled`. `0` turns it off.",
  POSTHORN_TLS_CERT: "PEM files (set both or neither): the certificate of STARTTLS on both SMTP listeners and of the HTTPS listener; re-read when they change; win over ACME.",
  POSTHORN_TLS_KEY: "The key of `POSTHORN_TLS_CERT`. PEM files (set both or neither): the certificate of STARTTLS on both SMTP listeners and of the HTTPS listener; re-read when they change; win over ACME.",
  POSTHORN_HTTPS_PORT: "HTTPS listener on `POSTHORN_HTTP_HOST`, the same API and pages as HTTP; listens once there is a certificate.",
  POSTHORN_ACME_EMAIL: "Contact address of the ACME account: certificates for `POSTHORN_HOSTNAME` and the tracking host are obtained and renewed by themselves; setting it accepts the CA's terms of service. Unset, ACME is off.",
  POSTHORN_ACME_DIRECTORY: "ACME directory URL (`https://acme-v02.api.letsencrypt.org/directory`; e.g. `https://acme-staging-v02.api.letsencrypt.org/directory` to try things out).",
  POSTHORN_DELIVERY: "`direct` (MX lookup), `relay` (smarthost), `sink` (accept and record, send nothing).",
  POSTHORN_RELAY_URL: "`smtp(s)://user:pass@host:port`; required for `relay`.",
  POSTHORN_MX_PORT: "Port used when delivering to MX hosts.",
  POSTHORN_MTA_STS_PORT: "HTTPS port of recipient domains' MTA-STS policy hosts (`mta-sts.<domain>`); only tests change it.",
  POSTHORN_DNS_SERVERS: "Comma list of `ip[:port]` used for MX lookups and DNS verification.",
  POSTHORN_INBOUND_DOMAIN: "Domain of generated route inbound addresses.",
  POSTHORN_WEBHOOK_ALLOWED_NETWORKS: "CIDRs webhooks may target although private/loopback.",
  POSTHORN_LOG_LEVEL: "`debug`, `info`, `warn`, `error`, `silent`; JSON lines on stdout.",
  POSTHORN_QUEUE_LIFETIME: "Seconds outbound mail keeps retrying before it is `failed`.",
  POSTHORN_RETENTION_DAYS: "Days a message keeps its bodies, raw source, attachment contents, published events and webhook delivery logs once it is final. `0` keeps everything forever; otherwise at least 3 days.",
  POSTHORN_REQUIRE_VERIFIED_DOMAIN: "Refuse to send from a domain whose DKIM record is not verified (`false` for testing).",
  POSTHORN_RSPAMD_URL: "Use rspamd for inbound spam scoring instead of the built-in checks.",
  POSTHORN_RSPAMD_FALLBACK_SECONDS: "How long received mail waits for an unreachable rspamd before the built-in rules score it.",
  POSTHORN_MAX_BODY_BYTES: "Largest HTTP request body (larger → 413).",
  POSTHORN_MAX_MESSAGE_BYTES: "Largest message the SMTP listeners accept (SIZE; larger → 552).",
  POSTHORN_SMTP_RCPT_FAILURE_LIMIT: "RCPTs a client IP may have refused (550) on the MX per 10 minutes; beyond it all its RCPTs get `421 4.7.0`. `0` turns it off.",
  POSTHORN_SMTP_INFLOW_LAG_MS: "How far behind the MX's processing (parse, checks, webhook event) may fall before each new `MAIL FROM` is held, up to 1 s, until it catches up ([receiving.md](receiving.md#flow-control)). `0` turns it off.",
  POSTHORN_SMTP_MAX_CONNECTIONS_PER_CLIENT: "Connections one client (one address; one /64 for IPv6) may hold at once on each SMTP listener (MX and submission); the next is answered `421 4.7.0` and closed, so one client cannot take every slot (as Postfix's `smtpd_client_connection_count_limit`). Set `0` behind a relay or load balancer that connects from one address. `0` turns it off.",
  POSTHORN_SMTP_IDLE_TIMEOUT_SECONDS: "How long an SMTP session may go without `MAIL`, `RCPT`, `DATA`, `BDAT`, `AUTH` or `STARTTLS`; past it, its next `NOOP`, `RSET`, `HELP`, `VRFY`, `EXPN` or `EHLO` is answered `421 4.4.2` and the connection closed (a silent client is closed after 2 minutes anyway). `0` turns it off.",
  POSTHORN_SMTP_GREET_DELAY_MS: "How long the MX waits before its 220 greeting. `0` greets at once, as Postfix's smtpd, Exim and Haraka do by default (spam is left to the scoring). With a pause (e.g. `100`, smtp-server's own), a client that talks before the greeting is answered `421 You talk too soon` (early-talker check, which ratware that blasts commands fails); the pause costs every connection that long and a session slot, so one sender opening a connection per message is capped at about its concurrent connections × 1000 / pause per second (~1,000/s at 100 sessions and 100 ms).",
  POSTHORN_RATE_LIMIT_SEND: "API requests per second per project on `POST /v1/send` and `/v1/send/batch` (a batch is one request), burst twice that. `0` turns it off.",
  POSTHORN_RATE_LIMIT_API: "API requests per second per team on every other endpoint a token or session calls, burst twice that. `0` turns it off.",
  POSTHORN_AUTH_FAILURE_LIMIT: "Failed authentications (API tokens, SMTP AUTH, dashboard sign-in) a client IP may have per minute; beyond it all its attempts get `429` / `421 4.7.0` until the minute is over. `0` turns it off.",
  POSTHORN_TRUSTED_PROXIES: "Comma list of addresses or CIDRs of reverse proxies whose `X-Forwarded-For` names the client, for the failed-authentication throttle and sign-in; unset, the TCP peer is the client.",
  POSTHORN_DELIVERY_CONCURRENCY: "Outbound messages in progress at once (composing or delivering). Higher delivers faster to slow or distant servers at the cost of API latency while delivering: on the bench, 256 gave ~10% more deliveries/s but 1,194 instead of 2,630 sends/s accepted meanwhile.",
  POSTHORN_DELIVERY_MEMORY_MB: "MiB of signed message copies (and contents being composed) that outbound delivery holds at once, across all messages. A message with tracking or a broadcast's unsubscribe links gets a copy per recipient, and every recipient's transaction hands its copy to the SMTP agent: a large message to many recipients takes turns within this instead of holding every copy at once, and takes at most half of it unless one copy needs more; small mail never waits behind it. The server's RSS above its rest stays within about 5 times this and the agent's about 3 times, plus the largest message's own (~300 MB at 25 MiB), whatever recipients × size (`scripts/bench/large-tracked-send.ts`: 25 MiB to 20 tracked recipients, server 419 MB and agent 253 MB at 64; it passed 20 GB before this bound). One copy larger than the setting goes alone.",
  POSTHORN_DESTINATION_POLICIES: "Path of a JSON file of per-destination limits, e.g. `{\"gmail.com\": {\"concurrency\": 5, \"per_minute\": 600}}`. A missing or malformed file stops the start with what is wrong.",
  POSTHORN_WEBHOOK_CONCURRENCY: "Webhook posts in flight.",
};

/** Where each setting is explained at length. */
const PAGES: Array<[RegExp, string]> = [
  [/^POSTHORN_DATA_DIR$/, "install.md#backups"],
  [/^POSTHORN_(DATABASE_|NODE_NAME)/, "install.md#several-nodes-on-postgresql"],
  [/^POSTHORN_(TLS_|HTTPS_PORT|ACME_)/, "https.md"],
  [/^POSTHORN_(TRACKING_URL)$/, "tracking.md"],
  [/^POSTHORN_(DELIVERY|RELAY_URL|MX_PORT|QUEUE_LIFETIME|REQUIRE_VERIFIED_DOMAIN|DELIVERY_CONCURRENCY|DELIVERY_MEMORY_MB)$/, "sending.md#delivery"],
  [/^POSTHORN_MTA_STS_PORT$/, "sending.md#outbound-tls-and-mta-sts"],
  [/^POSTHORN_DESTINATION_POLICIES$/, "sending.md#per-destination-shaping"],
  [/^POSTHORN_(SMTP_|SUBMISSION_PORT|INBOUND_DOMAIN|RSPAMD_|MAX_MESSAGE_BYTES)/, "receiving.md"],
  [/^POSTHORN_(WEBHOOK_)/, "webhooks.md"],
  [/^POSTHORN_(RATE_LIMIT_|AUTH_FAILURE_LIMIT|TRUSTED_PROXIES|MAX_BODY_BYTES)/, "api.md"],
  [/^POSTHORN_RETENTION_DAYS$/, "install.md#retention"],
  [/^POSTHORN_DNS_SERVERS$/, "domains.md"],
  [/^POSTHORN_BLOCKLIST_/, "deliverability.md#blocklists"],
  [/^POSTHORN_(HTTP_HOST|HTTP_PORT|PUBLIC_URL|HOSTNAME|LOG_LEVEL)$/, "install.md#install-as-a-service"],
];

interface Setting {
  key: string;
  variable: string;
  defaultText: string;
  accepts: string;
  comment: string | null;
}

class ReferenceError extends Error {}

function unquote(node: ts.Expression): string {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  throw new ReferenceError(`expected a string literal, got ${node.getText()}`);
}

/** The /** … *\/ comment right before a node, as one paragraph; null when there is none. */
function docComment(sf: ts.SourceFile, node: ts.Node): string | null {
  const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? [];
  const doc = ranges.filter((r) => sf.text.startsWith("/**", r.pos)).at(-1);
  if (!doc) return null;
  return sf.text
    .slice(doc.pos + 3, doc.end - 2)
    .split("\n")
    .map((l) => l.replace(/^\s*\* ?/, "").trim())
    .filter(Boolean)
    .join(" ");
}

/** Evaluates a numeric constant expression of literals (`5 * 24 * 3600`, `50 * 1024 * 1024`). */
function evalNumber(node: ts.Expression): number {
  if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ""));
  if (ts.isParenthesizedExpression(node)) return evalNumber(node.expression);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) return -evalNumber(node.operand);
  if (ts.isBinaryExpression(node)) {
    const [a, b] = [evalNumber(node.left), evalNumber(node.right)];
    switch (node.operatorToken.kind) {
      case ts.SyntaxKind.AsteriskToken:
        return a * b;
      case ts.SyntaxKind.PlusToken:
        return a + b;
      case ts.SyntaxKind.MinusToken:
        return a - b;
    }
  }
  throw new ReferenceError(`not a numeric constant: ${node.getText()}`);
}

const fmtNumber = (n: number) => String(n);

function humanSeconds(variable: string, n: number): string {
  if (!/_LIFETIME$|_SECONDS$/.test(variable) || n < 3600) return "";
  return n % 86_400 === 0 ? ` (${n / 86_400} days)` : n % 3600 === 0 ? ` (${n / 3600} hours)` : "";
}

function humanBytes(variable: string, n: number): string {
  return /_BYTES$/.test(variable) && n % (1024 * 1024) === 0 ? ` (${n / (1024 * 1024)} MiB)` : "";
}

export function generateConfigReference(source: string): string {
  const sf = ts.createSourceFile("config.ts", source, ts.ScriptTarget.Latest, true);
  const consts = new Map<string, ts.Expression>();
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) consts.set(node.name.text, node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(sf);

  // The schema: each setting's accepted values and doc comment, in the file's order.
  const schemaCall = consts.get("ConfigSchema");
  if (!schemaCall || !ts.isCallExpression(schemaCall) || !ts.isObjectLiteralExpression(schemaCall.arguments[0]!)) throw new ReferenceError("ConfigSchema = Type.Object({...}) not found");
  const schemaProps = schemaCall.arguments[0].properties.filter(ts.isPropertyAssignment);

  const envNames = consts.get("ENV_NAMES");
  if (!envNames || !ts.isObjectLiteralExpression(envNames)) throw new ReferenceError("ENV_NAMES = {...} not found");
  const variableOf = new Map(envNames.properties.filter(ts.isPropertyAssignment).map((p) => [p.name.getText(sf), unquote(p.initializer)]));

  // loadConfig's object literal: each key's reader call (str/int/bool/optional/list/…) and its fallback.
  const load = sf.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === "loadConfig");
  let configLiteral: ts.ObjectLiteralExpression | undefined;
  const localConsts = new Map<string, ts.Expression>();
  const findLiteral = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      localConsts.set(node.name.text, node.initializer);
      if (node.name.text === "config" && ts.isObjectLiteralExpression(node.initializer)) configLiteral = node.initializer;
    }
    ts.forEachChild(node, findLiteral);
  };
  if (load) findLiteral(load);
  if (!configLiteral) throw new ReferenceError("loadConfig's `const config: Config = {...}` not found");
  const readers = new Map(configLiteral.properties.filter(ts.isPropertyAssignment).map((p) => [p.name.getText(sf), p.initializer]));

  /** The reader call inside `str(...).replace(...)`, `resolve(str(...))`, `list(...) ?? []`. */
  const readerCall = (e: ts.Expression): ts.CallExpression => {
    if (ts.isAsExpression(e) || ts.isParenthesizedExpression(e)) return readerCall(e.expression);
    if (ts.isIdentifier(e) && localConsts.has(e.text)) return readerCall(localConsts.get(e.text)!);
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return readerCall(e.left);
    if (ts.isCallExpression(e)) {
      const callee = e.expression;
      if (ts.isPropertyAccessExpression(callee)) return readerCall(callee.expression);
      if (ts.isIdentifier(callee) && callee.text === "resolve") return readerCall(e.arguments[0]!);
      return e;
    }
    throw new ReferenceError(`no reader call in ${e.getText()}`);
  };

  const describeFallback = (e: ts.Expression, variable: string): string => {
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return `\`${e.text}\``;
    if (ts.isIdentifier(e)) {
      const v = consts.get(e.text) ?? localConsts.get(e.text);
      if (v) return describeFallback(v, variable);
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.BarBarToken && ts.isCallExpression(e.left) && /hostname/i.test(e.left.expression.getText())) {
      return "the machine's hostname";
    }
    if (ts.isTemplateExpression(e)) {
      let text = e.head.text;
      for (const span of e.templateSpans) {
        const inner = ts.isIdentifier(span.expression) ? localConsts.get(span.expression.text) : undefined;
        const from = inner ? readerCall(inner) : undefined;
        text += (from ? `<${unquote(from.arguments[1]!)}>` : `<${span.expression.getText()}>`) + span.literal.text;
      }
      return `\`${text}\``;
    }
    if (ts.isCallExpression(e)) {
      const call = readerCall(e);
      const fn = call.expression.getText();
      if (fn === "str" || fn === "int") return `the value of \`${unquote(call.arguments[1]!)}\``;
      if (fn === "osHostname" || /hostname/i.test(fn)) return "the machine's hostname";
    }
    const n = evalNumber(e);
    return `\`${fmtNumber(n)}\`${humanSeconds(variable, n)}${humanBytes(variable, n)}`;
  };

  const accepts = (schema: ts.Expression): string => {
    if (ts.isIdentifier(schema)) {
      const v = consts.get(schema.text);
      if (!v) throw new ReferenceError(`unknown schema ${schema.text}`);
      return accepts(v);
    }
    if (!ts.isCallExpression(schema)) throw new ReferenceError(`unexpected schema ${schema.getText()}`);
    const kind = schema.expression.getText().replace(/^Type\./, "");
    const opts = schema.arguments.find(ts.isObjectLiteralExpression);
    const opt = (name: string) => opts?.properties.filter(ts.isPropertyAssignment).find((p) => p.name.getText() === name)?.initializer;
    switch (kind) {
      case "Integer": {
        const [min, max] = [opt("minimum"), opt("maximum")].map((x) => (x ? evalNumber(x) : undefined));
        if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}`;
        if (min !== undefined) return `a whole number, at least ${min}`;
        return "a whole number";
      }
      case "String": {
        const pattern = opt("pattern");
        if (!pattern) return "text";
        const p = unquote(pattern);
        const known: Record<string, string> = {
          "^https?://[^\\s]+$": "an `http://` or `https://` URL",
          "^https://[^\\s]+$": "an `https://` URL",
          "^smtps?://[^\\s]+$": "an `smtp://` or `smtps://` URL",
          "^postgres(ql)?://[^\\s]+$": "a `postgres://` URL",
          "^[^\\s@]+@[^\\s@]+$": "an email address",
        };
        return known[p] ?? `text matching \`${p}\``;
      }
      case "Boolean":
        return "`true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`)";
      case "Literal":
        return `\`${unquote(schema.arguments[0]!)}\``;
      case "Array":
        return "a comma-separated list";
      case "Record":
        return "the path of a JSON file";
      case "Union": {
        const members = (schema.arguments[0] as ts.ArrayLiteralExpression).elements;
        const nonNull = members.filter((m) => m.getText() !== "Type.Null()");
        const literals = nonNull.every((m) => ts.isCallExpression(m) && m.expression.getText() === "Type.Literal");
        const text = literals ? `one of ${nonNull.map((m) => accepts(m)).join(", ")}` : nonNull.map((m) => accepts(m)).join(" or ");
        return nonNull.length < members.length ? `${text}, or unset` : text;
      }
    }
    throw new ReferenceError(`unexpected schema Type.${kind}`);
  };

  const settings: Setting[] = [];
  for (const prop of schemaProps) {
    const key = prop.name.getText(sf);
    const variable = variableOf.get(key);
    if (!variable) throw new ReferenceError(`${key} has no entry in ENV_NAMES`);
    const reader = readers.get(key);
    if (!reader) throw new ReferenceError(`${key} is not read in loadConfig`);
    const call = readerCall(reader);
    const fn = call.expression.getText(sf);
    let defaultText: string;
    if (fn === "optional" || fn === "list" || fn === "destinationPolicies") {
      const named = fn === "destinationPolicies" ? variable : unquote(call.arguments[1]!);
      if (named !== variable) throw new ReferenceError(`${key}: loadConfig reads ${named}, ENV_NAMES says ${variable}`);
      defaultText = fn === "list" && !/\?\?/.test(reader.getText(sf)) ? "unset (the system's)" : "unset";
    } else if (fn === "str" || fn === "int" || fn === "bool") {
      const named = unquote(call.arguments[1]!);
      if (named !== variable) throw new ReferenceError(`${key}: loadConfig reads ${named}, ENV_NAMES says ${variable}`);
      const fallback = call.arguments[2]!;
      defaultText = fn === "bool" ? `\`${fallback.getText(sf)}\`` : describeFallback(fallback, variable);
    } else if (fn === "zones") {
      // zones(env, NAME, DEFAULT_…): the default is a constant array of zone names in config.ts.
      const named = unquote(call.arguments[1]!);
      if (named !== variable) throw new ReferenceError(`${key}: loadConfig reads ${named}, ENV_NAMES says ${variable}`);
      const constName = call.arguments[2]!.getText(sf);
      let init: ts.Expression | undefined;
      sf.forEachChild((n) => {
        if (ts.isVariableStatement(n)) for (const d of n.declarationList.declarations) if (d.name.getText(sf) === constName) init = d.initializer;
      });
      if (!init || !ts.isArrayLiteralExpression(init)) throw new ReferenceError(`${key}: ${constName} is not an array literal in config.ts`);
      defaultText = init.elements.map((e) => `\`${unquote(e)}\``).join(", ");
    } else {
      throw new ReferenceError(`${key}: unknown reader ${fn}()`);
    }
    settings.push({ key, variable, defaultText, accepts: accepts(prop.initializer), comment: docComment(sf, prop) });
  }
  const stale = Object.keys(NOTES).filter((v) => !settings.some((s) => s.variable === v));
  if (stale.length) throw new ReferenceError(`notes for settings src/config.ts no longer has: ${stale.join(", ")}`);

  const anchor = (v: string) => v.toLowerCase();
  const page = (v: string) => PAGES.find(([re]) => re.test(v))?.[1];
  const lines: string[] = [
    "# Configuration reference",
    "",
    "<!-- Generated by scripts/config-reference.ts from src/config.ts; do not edit by hand.",
    "     Regenerate with: bun scripts/config-reference.ts -->",
    "",
    "Every setting is an environment variable, read and validated once at start; a bad value stops",
    "the start with a message naming the variable. An empty value counts as unset. Under systemd, put",
    "them in `/etc/posthorn/env` ([install.md](install.md)).",
    "",
    "Two variables that are not Posthorn's own matter too. Extra trusted CAs (webhook HTTPS, the",
    "relay, MTA-STS policy hosts and MX hosts under an MTA-STS `enforce` policy, a private ACME",
    "directory) come from `NODE_EXTRA_CA_CERTS` (a PEM file), in addition to the system's store.",
    "`serve` sets `MIMALLOC_PURGE_HOLES=0` for its own runtime unless it is set already",
    "([architecture.md](architecture.md#how-it-works), memory allocator).",
    "",
    "| variable | default |",
    "|---|---|",
    ...settings.map((s) => `| [\`${s.variable}\`](#${anchor(s.variable)}) | ${s.defaultText} |`),
    "",
  ];
  for (const s of settings) {
    const more = page(s.variable);
    lines.push(`### ${s.variable}`, "");
    lines.push(`Default: ${s.defaultText}. Accepts ${s.accepts}.${more ? ` More in [${more.replace(/#.*/, "")}](${more}).` : ""}`, "");
    const text = NOTES[s.variable] ?? s.comment;
    if (!text) throw new ReferenceError(`${s.variable} (${s.key}) has neither a doc comment in src/config.ts nor a note in scripts/config-reference.ts`);
    lines.push(...wrap(text), "");
  }
  return lines.join("\n").trimEnd() + "\n";
}

/** Prose wrapped at 100 columns, never inside a `code span`. */
function wrap(text: string, width = 100): string[] {
  const words = text.match(/`[^`]*`\S*|\S+/g) ?? [];
  const out: string[] = [];
  let line = "";
  for (const w of words) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
}

if (import.meta.main) {
  const generated = generateConfigReference(readFileSync(CONFIG_PATH, "utf8"));
  if (process.argv.includes("--check")) {
    const committed = readFileSync(REFERENCE_PATH, "utf8");
    if (committed !== generated) {
      console.error("docs/configuration.md is out of date: run bun scripts/config-reference.ts");
      process.exit(1);
    }
  } else {
    writeFileSync(REFERENCE_PATH, generated);
    console.log(`wrote ${REFERENCE_PATH}`);
  }
}
