/**
 * Keeps every sending domain's report records in step with the report addresses: the DMARC
 * record's rua and the TLS-RPT record (RFC 8460), whose addresses are on POSTHORN_INBOUND_DOMAIN.
 * Domains from before report addresses get their TLS-RPT record (pending) and the rua in their
 * recommended DMARC record; a change of POSTHORN_INBOUND_DOMAIN rewrites both. Neither record
 * decides whether a domain is verified or can send (that is the RSA DKIM record alone,
 * modules/domains/check.ts), and the DMARC check passes any v=DMARC1 record, so a domain
 * verified before keeps its status. Runs at start-up (server.ts); one read per 500 domains finds
 * nothing to do once done.
 */
import type { Store } from "../db/store.ts";
import { dmarcRecordContent, tlsRptRecordSpec } from "../dns/records.ts";
import { newId } from "../ids.ts";
import { reportAddresses } from "./report-addresses.ts";

const PAGE = 500;

/** How many records were added or rewritten. */
export async function syncReportRecords(store: Store, secret: string, inboundDomain: string, now = () => Date.now()): Promise<number> {
  let changed = 0;
  let after = "";
  for (;;) {
    const rows = await store.read.deliverabilityReports.reportRecords(after, PAGE);
    if (rows.length === 0) return changed;
    after = rows[rows.length - 1]!.id;
    const work = rows.flatMap((d) => {
      const addresses = reportAddresses(secret, inboundDomain, d.id);
      const dmarc = dmarcRecordContent(addresses.dmarc);
      const tls = tlsRptRecordSpec(d.domain, addresses.tlsRpt);
      const out: ((tx: Store["read"]) => Promise<void>)[] = [];
      if (d.dmarc_id && d.dmarc_content !== dmarc) out.push((tx) => tx.deliverabilityReports.setRecordContent(d.dmarc_id!, dmarc));
      if (d.tls_rpt_id && d.tls_rpt_content !== tls.content) out.push((tx) => tx.deliverabilityReports.setRecordContent(d.tls_rpt_id!, tls.content));
      if (!d.tls_rpt_id) {
        out.push((tx) =>
          tx.deliverabilityReports.addRecord({ id: newId(), domain_id: d.id, purpose: tls.purpose, type: tls.type, hostname: tls.hostname, fqdn: tls.fqdn, content: tls.content, created_at: now() }),
        );
      }
      return out;
    });
    if (work.length > 0) {
      await store.write(async (tx) => {
        await tx.locks.take("report-records-sync");
        for (const w of work) await w(tx);
      });
      changed += work.length;
    }
  }
}
