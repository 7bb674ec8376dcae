/**
 * What receivers report about each sending domain, on the Deliverability page: the DMARC pass
 * rates per day (a line chart, chart.tsx), the sources "from elsewhere" with their counts, TLS
 * failures per receiving MX with their result types beside our own attempts per MX by the TLS
 * they used, and the advice that names each fix. All from
 * GET /v1/domains/{id}/deliverability/dmarc and …/tls (docs/deliverability.md).
 */
import { api, type ApiBody } from "../api.ts";
import { RateChart, type Series } from "../chart.tsx";
import { ListStatus, Section, useLoad } from "../ui.tsx";

type Dmarc = ApiBody<"/v1/domains/{domainId}/deliverability/dmarc">;
type Tls = ApiBody<"/v1/domains/{domainId}/deliverability/tls">;
type OwnTls = Tls["own"][number];
const OWN_COUNTS = ["verified_tls", "unverified_tls", "plaintext", "tls_failures"] as const;

/** Our own attempts of the period summed per MX host, the most first (null: refused for want of TLS before any MX). */
function ownPerMx(own: readonly OwnTls[]): OwnTls[] {
  const by = new Map<string | null, OwnTls>();
  for (const r of own) {
    const m = by.get(r.mx_host) ?? { date: "", mx_host: r.mx_host, verified_tls: 0, unverified_tls: 0, plaintext: 0, tls_failures: 0 };
    for (const k of OWN_COUNTS) m[k] += r[k];
    by.set(r.mx_host, m);
  }
  const total = (r: OwnTls) => OWN_COUNTS.reduce((s, k) => s + r[k], 0);
  return [...by.values()].sort((a, b) => total(b) - total(a) || (a.mx_host ?? "").localeCompare(b.mx_host ?? ""));
}

export function DeliverabilityReports() {
  const domains = useLoad(() => api.get<ApiBody<"/v1/domains">>("/v1/domains", { "page[size]": 100 }), []);
  return (
    <Section title="DMARC and TLS reports">
      <ListStatus list={domains} />
      {(domains.data?.data ?? []).map((d) => (
        <ReportsOf key={d.id} id={d.id} domain={d.domain} />
      ))}
    </Section>
  );
}

const pct = (v: number | null) => (v === null ? "—" : `${Math.round(v * 1000) / 10}%`);
const rate = (n: number, of: number) => (of === 0 ? null : n / of);

/** Per day, the reporters' counts added up: our addresses' SPF, DKIM and DMARC rates and the DMARC rate of other sources. */
function dailySeries(d: Dmarc): { dates: string[]; series: Series[] } {
  const withReports = d.days.filter((day) => day.reporters.length > 0);
  const dates = withReports.map((day) => day.date);
  const sum = (day: Dmarc["days"][number], side: "ours" | "elsewhere", key: "messages" | "spf_aligned" | "dkim_aligned" | "dmarc_pass") =>
    day.reporters.reduce((n, r) => n + r[side][key], 0);
  const of = (side: "ours" | "elsewhere", key: "spf_aligned" | "dkim_aligned" | "dmarc_pass") => withReports.map((day) => rate(sum(day, side, key), sum(day, side, "messages")));
  return {
    dates,
    series: [
      { key: "ours_dmarc", label: "Our mail: DMARC pass", color: "#1f7a4d", values: of("ours", "dmarc_pass") },
      { key: "ours_spf", label: "Our mail: SPF aligned", color: "#2f6fb2", values: of("ours", "spf_aligned") },
      { key: "ours_dkim", label: "Our mail: DKIM aligned", color: "#8a5cc2", values: of("ours", "dkim_aligned") },
      { key: "elsewhere_dmarc", label: "Elsewhere: DMARC pass", color: "#c0392b", values: of("elsewhere", "dmarc_pass") },
    ],
  };
}

/** Every source IP outside our addresses over the period, with its messages, DMARC passes and reporters; the most messages first. */
function unknownSources(d: Dmarc) {
  const by = new Map<string, { ip: string; messages: number; dmarc_pass: number; reporters: Set<string> }>();
  for (const day of d.days)
    for (const r of day.reporters)
      for (const s of r.elsewhere.sources) {
        const e = by.get(s.source_ip) ?? { ip: s.source_ip, messages: 0, dmarc_pass: 0, reporters: new Set<string>() };
        e.messages += s.messages;
        e.dmarc_pass += s.dmarc_pass;
        e.reporters.add(r.org_name);
        by.set(s.source_ip, e);
      }
  return [...by.values()].sort((a, b) => b.messages - a.messages || a.ip.localeCompare(b.ip));
}

function ReportsOf({ id, domain }: { id: string; domain: string }) {
  const dmarc = useLoad(() => api.get<Dmarc>(`/v1/domains/${id}/deliverability/dmarc`), [id]);
  const tls = useLoad(() => api.get<Tls>(`/v1/domains/${id}/deliverability/tls`), [id]);
  const d = dmarc.data;
  const t = tls.data;
  const chart = d ? dailySeries(d) : null;
  const sources = d ? unknownSources(d) : [];
  const advice = [...(d?.advice ?? []), ...(t?.advice ?? [])];
  return (
    <div class="domain-reports" data-domain={domain}>
      <h3>{domain}</h3>
      <ListStatus list={dmarc} />
      <ListStatus list={tls} />
      {d ? (
        <p class="muted reports-summary">
          {`${d.reports} DMARC ${d.reports === 1 ? "report" : "reports"} and ${t?.reports ?? 0} TLS ${t?.reports === 1 ? "report" : "reports"} from ${d.from} to ${d.to}`}
          {d.policy ? `; policy p=${d.policy}` : ""}
          {`. Our mail: ${pct(d.total.ours.dmarc_rate)} passed DMARC of ${d.total.ours.messages.toLocaleString()}; elsewhere: ${d.total.elsewhere.messages.toLocaleString()} messages.`}
        </p>
      ) : null}
      {chart && chart.dates.length > 0 ? <RateChart title={`DMARC pass rates of ${domain}`} dates={chart.dates} series={chart.series} /> : d ? <p class="muted">No DMARC reports in this period.</p> : null}
      {advice.length > 0 ? (
        <ul class="advice">
          {advice.map((a, i) => (
            <li key={i} data-kind={a.kind}>
              {a.message}
            </li>
          ))}
        </ul>
      ) : null}
      {d ? (
        <table class="unknown-sources">
          <caption>Sources not among our addresses</caption>
          <thead>
            <tr>
              <th scope="col">Source IP</th>
              <th scope="col">Messages</th>
              <th scope="col">DMARC pass</th>
              <th scope="col">Reported by</th>
            </tr>
          </thead>
          <tbody>
            {sources.length === 0 ? (
              <tr>
                <td colSpan={4} class="muted">
                  None reported.
                </td>
              </tr>
            ) : null}
            {sources.map((s) => (
              <tr key={s.ip} data-ip={s.ip}>
                <td>{s.ip}</td>
                <td class="num">{s.messages.toLocaleString()}</td>
                <td class="num">{pct(rate(s.dmarc_pass, s.messages))}</td>
                <td>{[...s.reporters].sort().join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {t ? (
        <table class="tls-failures">
          <caption>TLS failures per receiving MX</caption>
          <thead>
            <tr>
              <th scope="col">MX host</th>
              <th scope="col">Failed sessions</th>
              <th scope="col">Result types</th>
            </tr>
          </thead>
          <tbody>
            {t.by_mx.length === 0 ? (
              <tr>
                <td colSpan={3} class="muted">
                  None reported.
                </td>
              </tr>
            ) : null}
            {t.by_mx.map((m) => (
              <tr key={m.mx_host} data-mx={m.mx_host}>
                <td>{m.mx_host || "—"}</td>
                <td class="num">{m.failed.toLocaleString()}</td>
                <td>{m.result_types.map((r) => `${r.result_type} (${r.sessions.toLocaleString()})`).join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {t ? (
        <table class="own-tls">
          <caption>Our delivery attempts per MX, same days</caption>
          <thead>
            <tr>
              <th scope="col">MX host</th>
              <th scope="col">Verified TLS</th>
              <th scope="col">Unverified TLS</th>
              <th scope="col">Plaintext</th>
              <th scope="col">TLS failures</th>
            </tr>
          </thead>
          <tbody>
            {t.own.length === 0 ? (
              <tr>
                <td colSpan={5} class="muted">
                  No attempts.
                </td>
              </tr>
            ) : null}
            {ownPerMx(t.own).map((m) => (
              <tr key={m.mx_host ?? ""} data-mx={m.mx_host ?? ""}>
                <td>{m.mx_host ?? "— (no MX with the TLS required)"}</td>
                {OWN_COUNTS.map((k) => (
                  <td key={k} class="num">
                    {m[k].toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
