import type { Deps } from "../../context.ts";
import type { DmarcSourceRow } from "../../db/deliverability-reports.ts";
import { NotFoundError, ValidationError } from "../../errors.ts";
import { isUuid } from "../../ids.ts";
import { dmarcAdvice, tlsAdvice, type SourceTotals } from "../../reports/advice.ts";
import { reportAddresses, reportAuthorizationRecord } from "../../reports/report-addresses.ts";
import { serverSecretOf } from "../../secrets.ts";
import type { DmarcOverview, TlsOverview } from "./model.ts";

/** Longest period one request may cover, in days. */
export const MAX_PERIOD_DAYS = 366;
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

async function findDomain(deps: Pick<Deps, "store">, teamId: string, id: string) {
  const row = isUuid(id) ? await deps.store.read.domains.findOfTeam(id, teamId) : null;
  if (!row) throw new NotFoundError("Domain");
  return row;
}

const isDay = (s: string) => {
  const t = Date.parse(`${s}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === s;
};

/** The period [from, to] of a query (UTC days): the last 30 days unless given; at most MAX_PERIOD_DAYS. */
export function periodOf(query: { from?: string; to?: string }, now = Date.now()): { from: string; to: string } {
  const to = query.to ?? new Date(now).toISOString().slice(0, 10);
  if (!isDay(to)) throw ValidationError.field("to", "The to field must be a date (YYYY-MM-DD).");
  const from = query.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  if (!isDay(from)) throw ValidationError.field("from", "The from field must be a date (YYYY-MM-DD).");
  if (from > to) throw ValidationError.field("from", "The from date must not be after the to date.");
  if ((Date.parse(to) - Date.parse(from)) / DAY_MS + 1 > MAX_PERIOD_DAYS) throw ValidationError.field("from", `The period may span at most ${MAX_PERIOD_DAYS} days.`);
  return { from, to };
}

interface Sums {
  messages: number;
  spf_aligned: number;
  dkim_aligned: number;
  dmarc_pass: number;
  quarantined: number;
  rejected: number;
}
const zero = (): Sums => ({ messages: 0, spf_aligned: 0, dkim_aligned: 0, dmarc_pass: 0, quarantined: 0, rejected: 0 });
const add = (s: Sums, r: DmarcSourceRow) => {
  s.messages += r.messages;
  s.spf_aligned += r.spf_aligned;
  s.dkim_aligned += r.dkim_aligned;
  s.dmarc_pass += r.dmarc_pass;
  s.quarantined += r.disposition_quarantine;
  s.rejected += r.disposition_reject;
};
const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);
const withRates = (s: Sums) => ({ ...s, spf_rate: rate(s.spf_aligned, s.messages), dkim_rate: rate(s.dkim_aligned, s.messages), dmarc_rate: rate(s.dmarc_pass, s.messages) });

/** The addresses counted as Posthorn's: configured (POSTHORN_SENDING_ADDRESSES) and learned from outbound connections. */
export async function ourAddresses(deps: Pick<Deps, "store" | "config">): Promise<string[]> {
  const learned = (await deps.store.read.deliverabilityReports.sendingAddresses()).map((r) => r.ip);
  return [...new Set([...deps.config.sendingAddresses.map((a) => a.toLowerCase()), ...learned])].sort();
}

/**
 * The DMARC aggregate reports of a domain over a period: per day and reporter the mail from
 * Posthorn's addresses and from elsewhere (with each source IP), totals, and advice.
 */
export async function dmarcOverview(deps: Pick<Deps, "store" | "config">, teamId: string, domainId: string, query: { from?: string; to?: string }): Promise<DmarcOverview> {
  const domain = await findDomain(deps, teamId, domainId);
  const { from, to } = periodOf(query);
  const repo = deps.store.read.deliverabilityReports;
  const [rows, counts, policyJson, ours, secret, own] = await Promise.all([
    repo.dmarcSources(domain.id, from, to),
    repo.reportCounts(domain.id, from, to),
    repo.latestPolicy(domain.id, from, to),
    ourAddresses(deps),
    serverSecretOf(deps.store),
    repo.ownSendsPerDay(teamId, domain.domain, Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`)),
  ]);
  const isOurs = new Set(ours);
  const days = new Map<string, Map<string, { ours: Sums; elsewhere: Sums; sources: Map<string, Sums> }>>();
  const total = { ours: zero(), elsewhere: zero() };
  const perSource = new Map<string, SourceTotals>();
  for (const r of rows) {
    let day = days.get(r.day);
    if (!day) days.set(r.day, (day = new Map()));
    let rep = day.get(r.org_name);
    if (!rep) day.set(r.org_name, (rep = { ours: zero(), elsewhere: zero(), sources: new Map() }));
    const mine = isOurs.has(r.source_ip);
    add(mine ? rep.ours : rep.elsewhere, r);
    add(mine ? total.ours : total.elsewhere, r);
    if (!mine) {
      let src = rep.sources.get(r.source_ip);
      if (!src) rep.sources.set(r.source_ip, (src = zero()));
      add(src, r);
    }
    const t = perSource.get(r.source_ip) ?? { ip: r.source_ip, ours: mine, messages: 0, dkimAligned: 0, spfAligned: 0, dmarcPass: 0, spfDomain: r.spf_domain };
    t.messages += r.messages;
    t.dkimAligned += r.dkim_aligned;
    t.spfAligned += r.spf_aligned;
    t.dmarcPass += r.dmarc_pass;
    t.spfDomain ??= r.spf_domain;
    perSource.set(r.source_ip, t);
  }
  const policy = policyJson ? ((JSON.parse(policyJson) as { p?: string }).p ?? null) : null;
  const addresses = reportAddresses(secret, deps.config.inboundDomain, domain.id);
  return {
    domain: domain.domain,
    from,
    to,
    reports: counts.dmarc,
    policy,
    our_addresses: ours,
    report_addresses: { dmarc: addresses.dmarc, tls_rpt: addresses.tlsRpt, authorization_record: reportAuthorizationRecord(domain.domain, addresses.reportDomain) },
    total: { ours: withRates(total.ours), elsewhere: withRates(total.elsewhere) },
    posthorn: [...own.values()].reduce((a, b) => ({ sent: a.sent + b.sent, delivered: a.delivered + b.delivered }), { sent: 0, delivered: 0 }),
    days: [...new Set([...days.keys(), ...own.keys()])].sort().map((date) => [date, days.get(date) ?? new Map()] as const).map(([date, reporters]) => ({
      date,
      posthorn: own.get(date) ?? { sent: 0, delivered: 0 },
      reporters: [...reporters.entries()].map(([org_name, r]) => ({
        org_name,
        ours: withRates(r.ours),
        elsewhere: {
          ...withRates(r.elsewhere),
          sources: [...r.sources.entries()].map(([source_ip, s]) => ({ source_ip, ...withRates(s) })).sort((a, b) => b.messages - a.messages || a.source_ip.localeCompare(b.source_ip)),
        },
      })),
    })),
    advice: dmarcAdvice(domain.domain, policy, [...perSource.values()]),
  };
}

/** The TLS reports of a domain over a period: per day, reporter and policy, and failures per receiving MX. */
export async function tlsOverview(deps: Pick<Deps, "store" | "config">, teamId: string, domainId: string, query: { from?: string; to?: string }): Promise<TlsOverview> {
  const domain = await findDomain(deps, teamId, domainId);
  const { from, to } = periodOf(query);
  const repo = deps.store.read.deliverabilityReports;
  const fromMs = Date.parse(`${from}T00:00:00Z`);
  const toMs = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
  const [rows, counts, own] = await Promise.all([
    repo.tlsResults(domain.id, from, to),
    repo.reportCounts(domain.id, from, to),
    // A message's attempts run within its queue lifetime of its acceptance.
    repo.ownTlsAttempts(teamId, domain.id, fromMs - deps.config.queueLifetimeSeconds * 1000, fromMs, toMs),
  ]);
  type Policy = TlsOverview["days"][number]["reporters"][number]["policies"][number];
  const days = new Map<string, Map<string, Map<string, Policy>>>();
  const mx = new Map<string, Map<string, number>>();
  for (const r of rows) {
    let day = days.get(r.day);
    if (!day) days.set(r.day, (day = new Map()));
    let rep = day.get(r.org_name);
    if (!rep) day.set(r.org_name, (rep = new Map()));
    const key = `${r.policy_type}\u0000${r.policy_domain}`;
    let p = rep.get(key);
    if (!p) rep.set(key, (p = { policy_type: r.policy_type, policy_domain: r.policy_domain, successful: 0, failed: 0, failures: [] }));
    if (r.result_type === "success") p.successful += r.sessions;
    else if (r.result_type === "failure") p.failed += r.sessions;
    else {
      p.failures.push({ mx_host: r.mx_host, result_type: r.result_type, sessions: r.sessions });
      let m = mx.get(r.mx_host);
      if (!m) mx.set(r.mx_host, (m = new Map()));
      m.set(r.result_type, (m.get(r.result_type) ?? 0) + r.sessions);
    }
  }
  const byMx = [...mx.entries()]
    .map(([mx_host, types]) => ({
      mx_host,
      failed: [...types.values()].reduce((a, b) => a + b, 0),
      result_types: [...types.entries()].map(([result_type, sessions]) => ({ result_type, sessions })).sort((a, b) => b.sessions - a.sessions),
    }))
    .sort((a, b) => b.failed - a.failed || a.mx_host.localeCompare(b.mx_host));
  return {
    domain: domain.domain,
    from,
    to,
    reports: counts.tls,
    days: [...days.entries()].map(([date, reporters]) => ({
      date,
      reporters: [...reporters.entries()].map(([org_name, policies]) => ({ org_name, policies: [...policies.values()] })),
    })),
    by_mx: byMx,
    advice: tlsAdvice(domain.domain, byMx),
    own: own.map(({ day, ...r }) => ({ date: day, ...r })),
  };
}
