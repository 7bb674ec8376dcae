/**
 * DMARC aggregate and TLS reports received for sending domains, the addresses Posthorn sends
 * from, and the report records (rua) of the domains' DNS records.
 */
import type { SqlExecutor } from "./sql.ts";

export interface NewDmarcReport {
  id: string;
  team_id: string;
  domain_id: string;
  org_name: string;
  report_id: string;
  reporter_email: string | null;
  begin_at: number;
  end_at: number;
  day: string;
  policy: string;
  messages: number;
  received_at: number;
}

export interface NewDmarcRecord {
  id: string;
  source_ip: string;
  count: number;
  disposition: string;
  dkim: string;
  spf: string;
  header_from: string;
  envelope_from: string | null;
  dkim_results: string;
  spf_results: string;
}

export interface NewTlsReport {
  id: string;
  team_id: string;
  domain_id: string;
  org_name: string;
  report_id: string;
  contact: string | null;
  begin_at: number;
  end_at: number;
  day: string;
  received_at: number;
}

export interface NewTlsResult {
  id: string;
  policy_type: string;
  policy_domain: string;
  mx_host: string;
  result_type: string;
  sending_ip: string | null;
  receiving_ip: string | null;
  count: number;
}

/** Messages of one day, reporter and source IP, with how many passed each aligned check. */
export interface DmarcSourceRow {
  day: string;
  org_name: string;
  source_ip: string;
  messages: number;
  dkim_aligned: number;
  spf_aligned: number;
  dmarc_pass: number;
  /** Messages of this source with an SPF auth result of "pass" for some domain (aligned or not). */
  spf_pass_any: number;
  /** The envelope-from (or SPF) domain most reported for the source, for the advice. */
  spf_domain: string | null;
  disposition_quarantine: number;
  disposition_reject: number;
}

export interface TlsResultRow {
  day: string;
  org_name: string;
  policy_type: string;
  policy_domain: string;
  mx_host: string;
  result_type: string;
  sessions: number;
}

export interface ReportRecordRow {
  id: string;
  domain: string;
  dmarc_id: string | null;
  dmarc_content: string | null;
  tls_rpt_id: string | null;
  tls_rpt_content: string | null;
}

/** Our own attempts of one UTC day to one MX host (null: refused for want of TLS before any MX answered). */
export interface OwnTlsRow {
  day: string;
  mx_host: string | null;
  verified_tls: number;
  unverified_tls: number;
  plaintext: number;
  tls_failures: number;
}

export class DeliverabilityReportRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** The domain a report address names: its team and name, or null when it is gone. */
  domainOfReport(domainId: string): Promise<{ id: string; team_id: string; domain: string } | null> {
    return this.db.get("SELECT id, team_id, domain FROM domains WHERE id = ?", [domainId]);
  }

  /** Stores a DMARC report with its records unless (domain, org, report id) is stored already: whether it was new. */
  async insertDmarc(r: NewDmarcReport, records: readonly NewDmarcRecord[]): Promise<boolean> {
    const row = await this.db.get<{ id: string }>(
      `INSERT INTO dmarc_reports (id, team_id, domain_id, org_name, report_id, reporter_email, begin_at, end_at, day, policy, messages, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (domain_id, org_name, report_id) DO NOTHING RETURNING id`,
      [r.id, r.team_id, r.domain_id, r.org_name, r.report_id, r.reporter_email, r.begin_at, r.end_at, r.day, r.policy, r.messages, r.received_at],
    );
    if (!row) return false;
    for (const x of records) {
      await this.db.runDeferred(
        `INSERT INTO dmarc_report_records (id, report_id, domain_id, day, org_name, source_ip, count, disposition, dkim, spf, header_from, envelope_from, dkim_results, spf_results)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [x.id, r.id, r.domain_id, r.day, r.org_name, x.source_ip, x.count, x.disposition, x.dkim, x.spf, x.header_from, x.envelope_from, x.dkim_results, x.spf_results],
      );
    }
    return true;
  }

  async insertTls(r: NewTlsReport, results: readonly NewTlsResult[]): Promise<boolean> {
    const row = await this.db.get<{ id: string }>(
      `INSERT INTO tlsrpt_reports (id, team_id, domain_id, org_name, report_id, contact, begin_at, end_at, day, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (domain_id, org_name, report_id) DO NOTHING RETURNING id`,
      [r.id, r.team_id, r.domain_id, r.org_name, r.report_id, r.contact, r.begin_at, r.end_at, r.day, r.received_at],
    );
    if (!row) return false;
    for (const x of results) {
      await this.db.runDeferred(
        `INSERT INTO tlsrpt_results (id, report_id, domain_id, day, org_name, policy_type, policy_domain, mx_host, result_type, sending_ip, receiving_ip, count)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [x.id, r.id, r.domain_id, r.day, r.org_name, x.policy_type, x.policy_domain, x.mx_host, x.result_type, x.sending_ip, x.receiving_ip, x.count],
      );
    }
    return true;
  }

  /** Reports stored for the domain in the days [from, to] (YYYY-MM-DD). */
  async reportCounts(domainId: string, from: string, to: string): Promise<{ dmarc: number; tls: number }> {
    const [d, t] = await Promise.all([
      this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM dmarc_reports WHERE domain_id = ? AND day >= ? AND day <= ?", [domainId, from, to]),
      this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM tlsrpt_reports WHERE domain_id = ? AND day >= ? AND day <= ?", [domainId, from, to]),
    ]);
    return { dmarc: Number(d?.n ?? 0), tls: Number(t?.n ?? 0) };
  }

  /** The policy_published (JSON) of the domain's latest DMARC report in the days [from, to]. */
  async latestPolicy(domainId: string, from: string, to: string): Promise<string | null> {
    const row = await this.db.get<{ policy: string }>("SELECT policy FROM dmarc_reports WHERE domain_id = ? AND day >= ? AND day <= ? ORDER BY end_at DESC, id DESC LIMIT 1", [domainId, from, to]);
    return row?.policy ?? null;
  }

  /** DMARC records of the domain in the days [from, to], summed per day, reporter and source IP. */
  async dmarcSources(domainId: string, from: string, to: string): Promise<DmarcSourceRow[]> {
    const rows = await this.db.all<DmarcSourceRow>(
      `SELECT day, org_name, source_ip,
         SUM(count) AS messages,
         SUM(CASE WHEN dkim = 'pass' THEN count ELSE 0 END) AS dkim_aligned,
         SUM(CASE WHEN spf = 'pass' THEN count ELSE 0 END) AS spf_aligned,
         SUM(CASE WHEN dkim = 'pass' OR spf = 'pass' THEN count ELSE 0 END) AS dmarc_pass,
         SUM(CASE WHEN spf_results LIKE '%"result":"pass"%' THEN count ELSE 0 END) AS spf_pass_any,
         MAX(envelope_from) AS spf_domain,
         SUM(CASE WHEN disposition = 'quarantine' THEN count ELSE 0 END) AS disposition_quarantine,
         SUM(CASE WHEN disposition = 'reject' THEN count ELSE 0 END) AS disposition_reject
       FROM dmarc_report_records WHERE domain_id = ? AND day >= ? AND day <= ?
       GROUP BY day, org_name, source_ip ORDER BY day, org_name, source_ip`,
      [domainId, from, to],
    );
    const n = (v: unknown) => Number(v ?? 0);
    return rows.map((r) => ({
      ...r,
      messages: n(r.messages),
      dkim_aligned: n(r.dkim_aligned),
      spf_aligned: n(r.spf_aligned),
      dmarc_pass: n(r.dmarc_pass),
      spf_pass_any: n(r.spf_pass_any),
      disposition_quarantine: n(r.disposition_quarantine),
      disposition_reject: n(r.disposition_reject),
    }));
  }

  /** TLS report results of the domain in the days [from, to], summed per day, reporter, policy, MX and result type. */
  async tlsResults(domainId: string, from: string, to: string): Promise<TlsResultRow[]> {
    const rows = await this.db.all<TlsResultRow>(
      `SELECT day, org_name, policy_type, policy_domain, mx_host, result_type, SUM(count) AS sessions
       FROM tlsrpt_results WHERE domain_id = ? AND day >= ? AND day <= ?
       GROUP BY day, org_name, policy_type, policy_domain, mx_host, result_type
       ORDER BY day, org_name, policy_type, policy_domain, mx_host, result_type`,
      [domainId, from, to],
    );
    return rows.map((r) => ({ ...r, sessions: Number(r.sessions ?? 0) }));
  }

  /**
   * What Posthorn itself sent from a domain per UTC day (the statistics' stat_days, by sending
   * domain): messages sent and recipients delivered, keyed by YYYY-MM-DD, for days [fromMs, toMs].
   */
  async ownSendsPerDay(teamId: string, domain: string, fromMs: number, toMs: number): Promise<Map<string, { sent: number; delivered: number }>> {
    const rows = await this.db.all<{ day: number; sent: number; delivered: number }>(
      `SELECT day, SUM(sent) AS sent, SUM(delivered) AS delivered FROM stat_days
       WHERE team_id = ? AND sending_domain = ? AND day >= ? AND day <= ? GROUP BY day ORDER BY day`,
      [teamId, domain, fromMs, toMs],
    );
    return new Map(rows.map((r) => [new Date(Number(r.day)).toISOString().slice(0, 10), { sent: Number(r.sent ?? 0), delivered: Number(r.delivered ?? 0) }]));
  }

  /** The addresses outbound connections were made from. */
  async sendingAddresses(): Promise<{ ip: string; first_seen_at: number; last_seen_at: number }[]> {
    const rows = await this.db.all<{ ip: string; first_seen_at: number; last_seen_at: number }>("SELECT ip, first_seen_at, last_seen_at FROM sending_addresses ORDER BY ip");
    return rows.map((r) => ({ ip: r.ip, first_seen_at: Number(r.first_seen_at), last_seen_at: Number(r.last_seen_at) }));
  }

  /** Records that an outbound connection was made from `ip` at `now`. */
  async noteSendingAddress(ip: string, now: number): Promise<void> {
    await this.db.run(
      `INSERT INTO sending_addresses (ip, first_seen_at, last_seen_at) VALUES (?, ?, ?)
       ON CONFLICT (ip) DO UPDATE SET last_seen_at = excluded.last_seen_at`,
      [ip, now, now],
    );
  }

  /** A page of domains (by id, after `after`) with their DMARC and TLS-RPT record rows, for the report-record sync. */
  reportRecords(after: string, limit: number): Promise<ReportRecordRow[]> {
    return this.db.all<ReportRecordRow>(
      `SELECT d.id, d.domain,
         (SELECT r.id FROM dns_records r WHERE r.domain_id = d.id AND r.purpose = 'dmarc' ORDER BY r.id LIMIT 1) AS dmarc_id,
         (SELECT r.content FROM dns_records r WHERE r.domain_id = d.id AND r.purpose = 'dmarc' ORDER BY r.id LIMIT 1) AS dmarc_content,
         (SELECT r.id FROM dns_records r WHERE r.domain_id = d.id AND r.purpose = 'tls_rpt' ORDER BY r.id LIMIT 1) AS tls_rpt_id,
         (SELECT r.content FROM dns_records r WHERE r.domain_id = d.id AND r.purpose = 'tls_rpt' ORDER BY r.id LIMIT 1) AS tls_rpt_content
       FROM domains d WHERE d.id > ? ORDER BY d.id LIMIT ?`,
      [after, limit],
    );
  }

  /** Sets a record's content (a report address changed); its status stays. */
  async setRecordContent(recordId: string, content: string): Promise<void> {
    await this.db.run("UPDATE dns_records SET content = ? WHERE id = ?", [content, recordId]);
  }

  /** Adds a pending record to a domain (the TLS-RPT record of a domain from before it). */
  async addRecord(r: { id: string; domain_id: string; purpose: string; type: string; hostname: string; fqdn: string; content: string; created_at: number }): Promise<void> {
    await this.db.run(
      `INSERT INTO dns_records (id, domain_id, purpose, type, hostname, fqdn, content, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
      [r.id, r.domain_id, r.purpose, r.type, r.hostname, r.fqdn, r.content, r.created_at],
    );
  }
  /**
   * Our own delivery attempts from the domain's mail per UTC day and MX host, with the TLS each
   * used, read from the messages' history (the delivered, bounced and failed entries carry
   * details.mx and details.tls). Bounded: the team's messages of the domain created from
   * `sinceMs` (the period's start less the queue lifetime) by messages_domain_created, their
   * history by message_events_message, entries in [fromMs, toMs). A TLS failure is an attempt
   * refused for want of TLS (enhanced code 4.7.5); its host is null when no MX was tried.
   */
  async ownTlsAttempts(teamId: string, domainId: string, sinceMs: number, fromMs: number, toMs: number): Promise<OwnTlsRow[]> {
    const pg = this.db.dialect === "postgres";
    // Each history row's data is parsed once (PostgreSQL: one jsonb cast, OFFSET 0 keeps the planner
    // from folding the subquery and casting per field), then read field by field.
    const j = (path: string[]) => (pg ? `(h.d #>> '{${path.join(",")}}')` : `json_extract(h.d, '$.${path.join(".")}')`);
    const verified = pg ? `${j(["tls", "verified"])} = 'true'` : `${j(["tls", "verified"])} = 1`;
    const rows = await this.db.all<{ day: number; mx_host: string | null; verified_tls: number; unverified_tls: number; plaintext: number; tls_failures: number }>(
      `SELECT day, mx_host,
         SUM(CASE WHEN failure = 0 AND mx_host IS NOT NULL AND protocol IS NOT NULL AND ok = 1 THEN 1 ELSE 0 END) AS verified_tls,
         SUM(CASE WHEN failure = 0 AND mx_host IS NOT NULL AND protocol IS NOT NULL AND ok = 0 THEN 1 ELSE 0 END) AS unverified_tls,
         SUM(CASE WHEN failure = 0 AND mx_host IS NOT NULL AND protocol IS NULL THEN 1 ELSE 0 END) AS plaintext,
         SUM(failure) AS tls_failures
       FROM (
         SELECT h.created_at / 86400000 AS day, ${j(["mx"])} AS mx_host, ${j(["tls", "protocol"])} AS protocol,
           CASE WHEN ${verified} THEN 1 ELSE 0 END AS ok,
           CASE WHEN h.status <> 'delivered' AND ${j(["response", "enhanced_code"])} = '4.7.5' THEN 1 ELSE 0 END AS failure
         FROM (
           SELECT e.created_at, e.status, ${pg ? "e.data::jsonb" : "e.data"} AS d
           FROM messages m JOIN message_events e ON e.message_id = m.id
           WHERE m.domain_id = ? AND m.team_id = ? AND m.created_at >= ? AND m.created_at < ?
             AND e.created_at >= ? AND e.created_at < ? AND e.status IN ('delivered', 'soft_bounced', 'hard_bounced', 'failed')${pg ? " OFFSET 0" : ""}
         ) h
         WHERE ${j(["response"])} IS NOT NULL
       ) a
       GROUP BY day, mx_host ORDER BY day, mx_host`,
      [domainId, teamId, sinceMs, toMs, fromMs, toMs],
    );
    return rows
      .map((r) => ({
        day: new Date(Number(r.day) * 86_400_000).toISOString().slice(0, 10),
        mx_host: r.mx_host,
        verified_tls: Number(r.verified_tls ?? 0),
        unverified_tls: Number(r.unverified_tls ?? 0),
        plaintext: Number(r.plaintext ?? 0),
        tls_failures: Number(r.tls_failures ?? 0),
      }))
      .filter((r) => r.verified_tls + r.unverified_tls + r.plaintext + r.tls_failures > 0);
  }
}
