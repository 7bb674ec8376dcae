/**
 * Built-in spam scoring for inbound mail: SPF, DKIM, DMARC and ARC results (mailauth) plus a few
 * content heuristics, each an explainable symbol {name, score, options, description}. Names and
 * weights follow rspamd's where one exists, so switching to rspamd changes little for users.
 * The score is the sum of the symbols' scores.
 */
import { isIP } from "node:net";
import { loadMailauth } from "../mail/libraries.ts";
import { fasterMailauthScans } from "./mailauth-scan.ts";
import type { ParsedMail } from "mailparser";
import type { AuthResolver } from "./auth-resolver.ts";

export interface SpamSymbol {
  name: string;
  score: number;
  options: string[];
  description: string;
}

export interface SpamVerdict {
  score: number;
  symbols: SpamSymbol[];
  /** Which engine scored it. */
  engine: "builtin" | "rspamd";
}

const sym = (name: string, score: number, description: string, options: string[] = []): SpamSymbol => ({ name, score, options, description });

export const sumScore = (symbols: readonly SpamSymbol[]): number => Math.round(symbols.reduce((s, x) => s + x.score, 0) * 100) / 100;

export interface AuthInput {
  ip: string;
  helo: string;
  /** Envelope sender; "" for the null sender. */
  mailFrom: string;
  /** This MX's hostname, for the Authentication-Results it would write. */
  hostname: string;
  resolver: AuthResolver;
}

/** "::ffff:192.0.2.1" → "192.0.2.1": SPF compares IPv4 clients against ip4 mechanisms. */
export const plainIp = (ip: string): string => ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

/**
 * mailauth's authenticate() without what nothing here reads: the same DKIM, SPF, ARC and DMARC
 * checks in the same order with the same inputs, but no Authentication-Results / Received-SPF
 * header text and no parse of the Received chain (about a tenth of its CPU per message).
 */
export async function authenticate(raw: Buffer, input: AuthInput) {
  const [{ dkimVerify, spf, arc, dmarc }] = await Promise.all([loadMailauth(), fasterMailauthScans()]);
  const ip = plainIp(input.ip);
  const sender = input.mailFrom || undefined;
  const dkimResult = await dkimVerify(raw, { resolver: input.resolver, sender });
  // As authenticate() does: the client's address stands for a missing HELO, an address HELO in brackets.
  const helo = input.helo || ip;
  const spfResult = await spf({ ip, helo: helo && isIP(helo) ? `[${helo}]` : helo, sender, mta: input.hostname, resolver: input.resolver });
  const arcResult = await arc(dkimResult.arc as unknown as Parameters<typeof arc>[0], { resolver: input.resolver });
  const dmarcResult = dkimResult.headerFrom
    ? await dmarc({
        headerFrom: dkimResult.headerFrom,
        spfDomains: spfResult && spfResult.status.result === "pass" && spfResult.domain ? [spfResult.domain] : [],
        dkimDomains: (dkimResult.results || [])
          .filter((r) => r.status.result === "pass")
          .map((r) => ({ id: r.id, domain: r.signingDomain, aligned: r.status.aligned, underSized: r.status.underSized })),
        arcResult,
        resolver: input.resolver,
      })
    : false;
  return { dkim: dkimResult, spf: spfResult, arc: arcResult, dmarc: dmarcResult };
}

/** SPF, DKIM, DMARC and ARC as symbols. DNS goes through `resolver` only. */
export async function authSymbols(raw: Buffer, input: AuthInput): Promise<SpamSymbol[]> {
  const res = await authenticate(raw, input);
  const out: SpamSymbol[] = [];

  const spf = res.spf ? res.spf.status.result : "none";
  const spfDomain = res.spf ? [res.spf.domain].filter(Boolean) : [];
  switch (spf) {
    case "pass":
      out.push(sym("R_SPF_ALLOW", -0.2, "SPF verification allows sending", spfDomain));
      break;
    case "fail":
      out.push(sym("R_SPF_FAIL", 1, "SPF verification failed: the sending IP is not allowed by the domain", spfDomain));
      break;
    case "softfail":
      out.push(sym("R_SPF_SOFTFAIL", 0.5, "SPF verification soft-failed", spfDomain));
      break;
    case "neutral":
      out.push(sym("R_SPF_NEUTRAL", 0, "SPF policy is neutral about the sending IP", spfDomain));
      break;
    case "temperror":
      out.push(sym("R_SPF_DNSFAIL", 0, "SPF record lookup failed temporarily", spfDomain));
      break;
    case "permerror":
      out.push(sym("R_SPF_PERMFAIL", 0.5, "SPF record is invalid", spfDomain));
      break;
    default:
      out.push(sym("R_SPF_NA", 0, "No SPF record", spfDomain));
  }

  const dkim = res.dkim?.results ?? [];
  const byResult = (r: string) => dkim.filter((d) => d.status.result === r).map((d) => `${d.signingDomain}:${d.selector ?? ""}`);
  if (byResult("pass").length) out.push(sym("R_DKIM_ALLOW", -0.2, "DKIM signature verified", byResult("pass")));
  else if (byResult("fail").length || byResult("neutral").length)
    out.push(sym("R_DKIM_REJECT", 1, "DKIM signature does not verify (message altered or wrong key)", [...byResult("fail"), ...byResult("neutral")]));
  else if (byResult("temperror").length) out.push(sym("R_DKIM_TEMPFAIL", 0, "DKIM key lookup failed temporarily", byResult("temperror")));
  else if (byResult("permerror").length) out.push(sym("R_DKIM_PERMFAIL", 0, "DKIM signature or key is unusable", byResult("permerror")));
  else out.push(sym("R_DKIM_NA", 0, "No DKIM signature"));

  const dmarc = res.dmarc || null;
  const dmarcResult = dmarc?.status.result ?? "none";
  const dmarcOpts = dmarc?.domain ? [dmarc.domain] : [];
  if (dmarcResult === "pass") out.push(sym("DMARC_POLICY_ALLOW", -0.5, "DMARC check passed", dmarcOpts));
  else if (dmarcResult === "fail") {
    const policy = (dmarc?.policy ?? dmarc?.p ?? "none").toLowerCase();
    if (policy === "reject") out.push(sym("DMARC_POLICY_REJECT", 3, "DMARC failed and the domain asks to reject", [...dmarcOpts, policy]));
    else if (policy === "quarantine") out.push(sym("DMARC_POLICY_QUARANTINE", 1.5, "DMARC failed and the domain asks to quarantine", [...dmarcOpts, policy]));
    else out.push(sym("DMARC_POLICY_SOFTFAIL", 0.1, "DMARC failed; the domain's policy is none", [...dmarcOpts, policy]));
  } else if (dmarcResult === "temperror") out.push(sym("DMARC_DNSFAIL", 0, "DMARC record lookup failed temporarily", dmarcOpts));
  else if (dmarcResult === "permerror") out.push(sym("DMARC_BAD_POLICY", 0.5, "DMARC record is invalid", dmarcOpts));
  else out.push(sym("DMARC_NA", 0, "No DMARC record", dmarcOpts));

  const arc = res.arc ? res.arc.status.result : "none";
  if (arc === "pass") out.push(sym("ARC_ALLOW", -1, "ARC chain verified"));
  else if (arc === "fail") out.push(sym("ARC_REJECT", 1, "ARC chain does not verify"));
  else if (arc === "temperror") out.push(sym("ARC_DNSFAIL", 0, "ARC key lookup failed temporarily"));
  else out.push(sym("ARC_NA", 0, "No ARC chain"));
  return out;
}

const IP_HOST = /^(?:\d{1,3}\.){3}\d{1,3}$|^\[[0-9a-f:.]+\]$/i;
const LINK = /<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi;
const DOMAIN_TEXT = /^(?:https?:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#]|$)/i;

/** The last two labels of a host: a rough registrable domain, enough to spot a mismatch. */
const siteOf = (host: string) => host.toLowerCase().split(".").slice(-2).join(".");

function hostOf(url: string): string | null {
  try {
    const u = new URL(url.trim());
    return u.protocol === "http:" || u.protocol === "https:" ? u.hostname : null;
  } catch {
    return null;
  }
}

export interface ContentInput {
  parsed: ParsedMail | null;
  raw: Buffer;
  /** Recipients of the SMTP transaction. */
  envelopeRecipientCount: number;
}

/**
 * The Generic Test for Unsolicited Bulk Email: a message carrying it is spam by agreement, so
 * that a filter can be tested end to end (SpamAssassin scores it 1000, rspamd rejects it).
 */
export const GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X";

/** Header and body heuristics. Each symbol says what was seen, so a user can judge it. */
export function contentSymbols(input: ContentInput): SpamSymbol[] {
  const out: SpamSymbol[] = [];
  const p = input.parsed;
  // In the decoded body when it parses (a transfer encoding would hide it in the raw bytes).
  const bodies = p ? [p.text ?? "", typeof p.html === "string" ? p.html : ""] : [input.raw.toString("latin1")];
  if (bodies.some((b) => b.includes(GTUBE))) out.push(sym("GTUBE", 1000, "The message contains the GTUBE test string: spam by agreement, to test the filter"));
  if (!p) {
    out.push(sym("MIME_PARSE_ERROR", 1, "The message could not be parsed as MIME"));
    return out;
  }
  if (!p.headers.has("date")) out.push(sym("MISSING_DATE", 1, "Message has no Date header"));
  if (!p.messageId) out.push(sym("MISSING_MID", 1.5, "Message has no Message-ID header"));
  const subject = p.subject ?? "";
  if (!p.headers.has("subject")) out.push(sym("MISSING_SUBJECT", 1, "Message has no Subject header"));
  else {
    const letters = subject.replace(/[^\p{L}]/gu, "");
    if (letters.length >= 10 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) {
      out.push(sym("SUBJ_ALL_CAPS", 2, "Subject is written in capital letters", [subject.slice(0, 100)]));
    }
  }
  if (p.html && !hasPlainTextPart(input.raw)) out.push(sym("MIME_HTML_ONLY", 1, "Message has an HTML part and no plain text part"));

  if (p.html) {
    const ipHosts = new Set<string>();
    const mismatched = new Set<string>();
    let n = 0;
    for (const m of p.html.matchAll(LINK)) {
      if (++n > 500) break;
      const href = (m[1] ?? m[2] ?? m[3] ?? "").replace(/&amp;/g, "&");
      const host = hostOf(href);
      if (!host) continue;
      if (IP_HOST.test(host)) ipHosts.add(host);
      const shown = (m[4] ?? "").replace(/<[^>]*>/g, "").replace(/&nbsp;/g, " ").trim();
      const shownDomain = DOMAIN_TEXT.exec(shown)?.[1];
      if (shownDomain && siteOf(shownDomain) !== siteOf(host)) mismatched.add(`${shownDomain.toLowerCase()} -> ${host}`);
    }
    if (ipHosts.size) out.push(sym("HTTP_TO_IP", 1, "Links point to a bare IP address", [...ipHosts].slice(0, 5)));
    if (mismatched.size) out.push(sym("PHISHED_LINK_TEXT", 3, "Link text shows one domain but the link goes to another", [...mismatched].slice(0, 5)));
  }

  const listed = (a: ParsedMail["to"]) => (a ? (Array.isArray(a) ? a : [a]).reduce((n, x) => n + x.value.length, 0) : 0);
  const headerRecipients = listed(p.to) + listed(p.cc);
  const count = Math.max(headerRecipients, input.envelopeRecipientCount);
  if (count > 50) out.push(sym("MANY_RECIPIENTS", 1.5, "Sent to a large list of recipients", [String(count)]));
  return out;
}

/** Whether the raw message has a text/plain part (mailparser makes text from HTML when not). */
function hasPlainTextPart(raw: Buffer): boolean {
  const text = raw.toString("latin1");
  const headerEnd = text.search(/\r?\n\r?\n/);
  const head = headerEnd >= 0 ? text.slice(0, headerEnd) : text;
  // No Content-Type at the top means text/plain (RFC 2045).
  if (!/^content-type:/im.test(head)) return true;
  return /^content-type:[ \t]*(?:\r?\n[ \t]+)?text\/plain/im.test(text);
}
