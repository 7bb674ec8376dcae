import type { Deps } from "../../context.ts";
import type { DnsRecordRow } from "../../db/domains.ts";
import type { Repositories } from "../../db/store.ts";
import { checkRecord, type RecordCheck, type VerifyContext } from "../../dns/verify.ts";
import { publishEvent } from "../../events/publish.ts";
import { promoteNextDkimKeys } from "./rotation.ts";

/** What one check of a domain changed. */
export interface DomainCheckSummary {
  domainId: string;
  status: string;
  statusChanged: boolean;
  records: { id: string; purpose: string; type: string; fqdn: string; status: string; key_state: string | null; check: RecordCheck }[];
  /** Records that were active and are now failed (an event was published for each). */
  broken: string[];
  /** Both records of a pending DKIM key rotation verified: the new keys sign from now on. */
  dkimSwitched: boolean;
}

/**
 * A record's next status. A DNS server failure tells nothing, so the status stays; a missing
 * record is "pending" until it has once been verified, and "failed" when it disappears after.
 */
export function nextRecordStatus(current: Pick<DnsRecordRow, "status" | "verified_at">, check: RecordCheck): string {
  switch (check.outcome) {
    case "pass":
      return "active";
    case "mismatch":
      return "failed";
    case "missing":
      return current.verified_at !== null ? "failed" : "pending";
    case "dns_error":
      return current.status;
  }
}

/**
 * Checks every record of a domain against DNS (in parallel, through ctx.lookup, which may bound
 * the queries), then records the results in one write. Null when the domain no longer exists.
 */
export async function checkDomain(deps: Pick<Deps, "store">, ctx: VerifyContext, domainId: string): Promise<DomainCheckSummary | null> {
  const checks = await runDomainChecks(deps, ctx, domainId);
  return deps.store.write((tx) => applyDomainCheck(tx, domainId, checks, Date.now()));
}

/** The DNS half of a check: every record of the domain checked, in parallel; nothing written. */
export async function runDomainChecks(deps: Pick<Deps, "store">, ctx: VerifyContext, domainId: string): Promise<Map<string, RecordCheck>> {
  const rows = await deps.store.read.domains.records(domainId);
  const checks = new Map<string, RecordCheck>();
  await Promise.all(rows.map(async (r) => checks.set(r.id, await checkRecord(ctx, r))));
  return checks;
}

/**
 * Writes check results: each record's status, reason, verified_at and last_checked_at; the
 * domain's status (that of its DKIM record: sending needs it) with status_changed_at moved only
 * on a change; and a domain.dns_record_failed event, per route of every project the domain is
 * attached to, for each record that was active and now failed. Run it in a write: `tx` is its.
 */
export async function applyDomainCheck(
  tx: Repositories,
  domainId: string,
  checks: Map<string, RecordCheck>,
  now: number,
): Promise<DomainCheckSummary | null> {
  const domain = await tx.domains.lockForChange(domainId);
  if (!domain) return null;
  const summary: DomainCheckSummary = { domainId, status: domain.status, statusChanged: false, records: [], broken: [], dkimSwitched: false };
  const brokenRecords: { row: DnsRecordRow; reason: string }[] = [];
  let dkimStatus: string | null = null;
  const checked: DnsRecordRow[] = [];
  for (const row of await tx.domains.records(domainId)) {
    const check = checks.get(row.id);
    let status = row.status;
    let verifiedAt = row.verified_at;
    if (check) {
      status = nextRecordStatus(row, check);
      verifiedAt = status === "active" ? (row.status === "active" && row.verified_at !== null ? row.verified_at : now) : row.verified_at;
      await tx.domains.recordCheck(row.id, { status, status_reason: check.reason, verified_at: verifiedAt, last_checked_at: now });
      if (row.status === "active" && status === "failed") brokenRecords.push({ row, reason: check.reason ?? "The record no longer matches." });
      summary.records.push({ id: row.id, purpose: row.purpose, type: row.type, fqdn: row.fqdn, status, key_state: row.key_state, check });
    }
    checked.push({ ...row, status, verified_at: verifiedAt });
    // The signing RSA key's record alone decides: a pending or failing Ed25519 record, or one of
    // a key rotation, never stops sending.
    if (row.purpose === "dkim" && row.key_state === null) dkimStatus = status;
  }
  summary.dkimSwitched = await promoteNextDkimKeys(tx, domainId, checked, now);
  // The new RSA key's record, active, decides from now on.
  if (summary.dkimSwitched) dkimStatus = "active";
  // A domain without a DKIM record row (inserted by hand or by a fixture) keeps its status.
  const status = dkimStatus ?? domain.status;
  summary.status = status;
  summary.statusChanged = status !== domain.status;
  await tx.domains.checked(domainId, now, summary.statusChanged ? status : null);

  if (brokenRecords.length > 0) {
    const routeIds = await tx.domains.routeIdsOfAttachedProjects(domainId);
    for (const { row, reason } of brokenRecords) {
      const data = {
        domain_id: domain.id,
        domain: domain.domain,
        record: { id: row.id, purpose: row.purpose, type: row.type, fqdn: row.fqdn },
        reason,
      };
      // Events are route-scoped; a domain attached to no project still gets its event recorded.
      for (const routeId of routeIds.length > 0 ? routeIds : [null]) {
        await publishEvent(tx, { teamId: domain.team_id, routeId, kind: "domain.dns_record_failed", data }, now);
      }
      summary.broken.push(row.id);
    }
  }
  return summary;
}
