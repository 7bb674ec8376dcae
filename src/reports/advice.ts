/**
 * Advice from DMARC aggregate data that names the fix: per source IP over the period, what failed
 * and what to change, e.g. "12 % of mail from 203.0.113.7 fails SPF: add ip4:203.0.113.7 to the
 * SPF record of example.com". Pure: it reads sums, so it is tested on sample reports directly.
 */

export interface SourceTotals {
  ip: string;
  ours: boolean;
  messages: number;
  dkimAligned: number;
  spfAligned: number;
  dmarcPass: number;
  /** The SPF domain (envelope from) most reported for the source, when any. */
  spfDomain: string | null;
}

export interface Advice {
  /** spf_fails | dkim_fails | unknown_source | tighten_policy */
  kind: string;
  source_ip: string | null;
  messages: number;
  message: string;
}

/** A failing share below this is noise (forwarders, mailing lists), not worth advice. */
const MIN_SHARE = 0.01;

const percent = (part: number, whole: number) => Math.round((part / whole) * 100);
const ipTerm = (ip: string) => (ip.includes(":") ? `ip6:${ip}` : `ip4:${ip}`);

export function dmarcAdvice(domain: string, policy: string | null, sources: readonly SourceTotals[]): Advice[] {
  const out: Advice[] = [];
  for (const s of sources) {
    if (s.messages === 0) continue;
    const spfFail = s.messages - s.spfAligned;
    const dkimFail = s.messages - s.dkimAligned;
    if (s.ours) {
      if (spfFail / s.messages >= MIN_SHARE) {
        const record = s.spfDomain && (s.spfDomain === domain || s.spfDomain.endsWith(`.${domain}`)) ? s.spfDomain : domain;
        out.push({
          kind: "spf_fails",
          source_ip: s.ip,
          messages: spfFail,
          message: `${percent(spfFail, s.messages)} % of mail from ${s.ip} fails SPF: add ${ipTerm(s.ip)} to the SPF record of ${record}.`,
        });
      }
      if (dkimFail / s.messages >= MIN_SHARE) {
        out.push({
          kind: "dkim_fails",
          source_ip: s.ip,
          messages: dkimFail,
          message: `${percent(dkimFail, s.messages)} % of mail from ${s.ip} fails DKIM alignment: publish the DKIM records Posthorn lists for ${domain} and verify the domain (a message altered on the way, by a mailing list or a forwarder, also breaks the signature).`,
        });
      }
    } else if (s.messages - s.dmarcPass > 0) {
      const failing = s.messages - s.dmarcPass;
      out.push({
        kind: "unknown_source",
        source_ip: s.ip,
        messages: failing,
        message: `${failing} message${failing === 1 ? "" : "s"} from ${s.ip}, not a Posthorn address, failed DMARC for ${domain}: if it is a service sending for you, add ${ipTerm(s.ip)} to the SPF record of ${domain} or have it sign with DKIM as ${domain}; if not, it is spoofing, which p=quarantine or p=reject in the DMARC record stops.`,
      });
    }
  }
  const ours = sources.filter((s) => s.ours);
  const oursTotal = ours.reduce((n, s) => n + s.messages, 0);
  const oursPass = ours.reduce((n, s) => n + s.dmarcPass, 0);
  if ((policy === "none" || policy === null) && oursTotal > 0 && oursPass === oursTotal && out.every((a) => a.kind !== "spf_fails" && a.kind !== "dkim_fails")) {
    out.push({
      kind: "tighten_policy",
      source_ip: null,
      messages: oursTotal,
      message: `All ${oursTotal} messages from Posthorn's addresses passed DMARC for ${domain}: once every other service that sends as ${domain} passes too, change p=none to p=quarantine in the DMARC record of ${domain}.`,
    });
  }
  return out.sort((a, b) => b.messages - a.messages);
}

/** What a TLS-RPT result type (RFC 8460 §4.3) asks of the receiving MX host or the domain's policy, in words. */
const TLS_FIXES: Record<string, (mx: string, domain: string) => string> = {
  "starttls-not-supported": (mx) => `${mx} does not offer STARTTLS: enable it there`,
  "certificate-host-mismatch": (mx) => `the certificate of ${mx} does not name it: add ${mx} to the certificate`,
  "certificate-expired": (mx) => `the certificate of ${mx} has expired: renew it`,
  "certificate-not-trusted": (mx) => `the certificate of ${mx} does not chain to a trusted root: use one from a public CA and serve its intermediate certificates`,
  "validation-failure": (mx) => `the certificate of ${mx} did not validate: check its chain, names and dates`,
  "tlsa-invalid": (mx) => `the TLSA records of ${mx} do not match its certificate: publish matching ones`,
  "dnssec-invalid": (mx) => `the DNSSEC answers for ${mx} did not validate: fix the zone's signatures`,
  "dane-required": (mx) => `${mx} has TLSA records but the session could not use them: check its certificate against them`,
  "sts-policy-fetch-error": (_mx, domain) => `the MTA-STS policy of ${domain} could not be fetched: serve https://mta-sts.${domain}/.well-known/mta-sts.txt over valid HTTPS`,
  "sts-policy-invalid": (_mx, domain) => `the MTA-STS policy of ${domain} is invalid: fix its syntax (version, mode, mx, max_age)`,
  "sts-webpki-invalid": (_mx, domain) => `the HTTPS certificate of mta-sts.${domain} is not valid: renew or replace it`,
};

/**
 * Advice from TLS reports: per receiving MX host and result type, the failed sessions and the
 * fix, the most failures first ("200 sessions to mx2.example.com failed (starttls-not-supported):
 * mx2.example.com does not offer STARTTLS: enable it there").
 */
export function tlsAdvice(domain: string, byMx: readonly { mx_host: string; result_types: readonly { result_type: string; sessions: number }[] }[]): Advice[] {
  const out: Advice[] = [];
  for (const m of byMx) {
    const mx = m.mx_host || `an MX host of ${domain}`;
    for (const r of m.result_types) {
      if (r.sessions <= 0) continue;
      const fix = TLS_FIXES[r.result_type]?.(mx, domain) ?? `see the reports' failure details for ${mx}`;
      out.push({
        kind: r.result_type,
        source_ip: null,
        messages: r.sessions,
        message: `${r.sessions} session${r.sessions === 1 ? "" : "s"} to ${mx} failed (${r.result_type}): ${fix}.`,
      });
    }
  }
  return out.sort((a, b) => b.messages - a.messages);
}
