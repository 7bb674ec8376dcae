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
