import type { Deps } from "../../context.ts";
import { DOMAIN_SORT, type DomainRow, type InboundClaimRow } from "../../db/domains.ts";
import type { Repositories } from "../../db/store.ts";
import { generateDkimKeyPairAsync, generateEd25519DkimKeyPair } from "../../dns/dkim-key.ts";
import {
  buildRecordSpecs,
  canonicalName,
  inboundDomainRecords,
  inboundVerificationToken,
  nameAndParents,
  newDkimSelector,
  newEd25519DkimSelector,
  normalizeDomainName,
  RETURN_PATH_HOST,
} from "../../dns/records.ts";
import { checkMailTarget, checkRecord, checkTxtValue, dnsErrorCheck, verifyContext, type RecordCheck } from "../../dns/verify.ts";
import { ConflictError, NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { isUuid, newId } from "../../ids.ts";
import { pageBody, parsePage, parseSort } from "../../http/pagination.ts";
import { serverSecretOf } from "../../secrets.ts";
import { reportAddresses } from "../../reports/report-addresses.ts";
import { applyDomainCheck, checkDomain } from "./check.ts";
import { lettermintPurpose, serializeDomain, serializeRecord, STATUS_FILTER, verificationScope, type DnsRecordData, type DomainData } from "./model.ts";
import { startDkimRotation } from "./rotation.ts";

async function findDomain(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<DomainRow> {
  const row = isUuid(id) ? await deps.store.read.domains.findOfTeam(id, teamId) : null;
  if (!row) throw new NotFoundError("Domain");
  return row;
}

/**
 * The domain with its records and projects, as the API shows it. `within`: the projects of a
 * caller limited to selected ones (docs/access.md); the domain's other projects, whose names and
 * ids are none of its business, are left out. null: all of them.
 */
export async function domainData(deps: Pick<Deps, "store">, row: DomainRow, within: readonly string[] | null = null): Promise<DomainData> {
  const [records, projects] = await Promise.all([deps.store.read.domains.records(row.id), deps.store.read.domains.projects(row.id)]);
  return serializeDomain(row, records, within === null ? projects : projects.filter((p) => within.includes(p.id)));
}

export async function getDomain(deps: Pick<Deps, "store">, teamId: string, id: string, within: readonly string[] | null = null): Promise<DomainData> {
  return domainData(deps, await findDomain(deps, teamId, id), within);
}

/**
 * Registers a sending domain for the team: normalized name, fresh RSA-2048 and Ed25519 DKIM keys
 * (the private halves never leave the server) and the five records to publish, all pending.
 */
export async function createDomain(deps: Pick<Deps, "store" | "config">, teamId: string, input: { domain: string }): Promise<DomainData> {
  const name = normalizeDomainName(input.domain);
  if (!name.ok) throw ValidationError.field("domain", name.message);
  const domain = name.domain;
  const duplicate = () => new ConflictError(`The domain ${domain} has already been added to this team.`);
  if (await deps.store.read.domains.idOfName(teamId, domain)) throw duplicate();

  const key = await generateDkimKeyPairAsync();
  const selector = newDkimSelector();
  const ed25519 = { selector: newEd25519DkimSelector(), ...generateEd25519DkimKeyPair() };
  const id = newId();
  const reports = reportAddresses(await serverSecretOf(deps.store), deps.config.inboundDomain, id);
  const specs = buildRecordSpecs({ domain, selector, publicKeyBase64: key.publicKeyBase64, ed25519, returnPathHost: RETURN_PATH_HOST, hostname: deps.config.hostname, reports });
  await deps.store.write(async (tx) => {
    // Checked again inside the write: two concurrent requests for one name must not both succeed.
    if (await tx.domains.idOfName(teamId, domain)) throw duplicate();
    const now = Date.now();
    await tx.domains.insert(
      {
        id,
        team_id: teamId,
        domain,
        status: "pending",
        status_changed_at: null,
        dkim_selector: selector,
        dkim_private_key: key.privateKeyPem,
        dkim_public_key: key.publicKeyBase64,
        dkim_ed25519_selector: ed25519.selector,
        dkim_ed25519_private_key: ed25519.privateKeyPem,
        dkim_ed25519_public_key: ed25519.publicKeyBase64,
        return_path_host: RETURN_PATH_HOST,
        last_checked_at: null,
        created_at: now,
        updated_at: now,
      },
      specs.map((s) => ({ id: newId(), domain_id: id, purpose: s.purpose, type: s.type, hostname: s.hostname, fqdn: s.fqdn, content: s.content, created_at: now })),
    );
    // A registration proves nothing: other teams' routes at or under the name keep their
    // verification, and the name claims nothing for inbound mail until its DKIM record verifies
    // (docs/security.md "Claims on shared names need proof"). Only the team's own route on the
    // new return-path name stops: that mail is the team's bounces now.
    await tx.inboundDomains.unverifyOwnBounceName(teamId, `${RETURN_PATH_HOST}.${domain}`, now);
  });
  return getDomain(deps, teamId, id);
}

export async function listDomains(deps: Pick<Deps, "store" | "config">, teamId: string, query: Record<string, unknown>, within: readonly string[] | null = null) {
  const sort = parseSort(query.sort as string | undefined, DOMAIN_SORT, "-created_at");
  const page = parsePage(query, sort.length);
  const wanted = query["filter[status]"] as string | undefined;
  const status = wanted === undefined ? undefined : STATUS_FILTER[wanted];
  if (wanted !== undefined && (status === undefined || !Object.hasOwn(STATUS_FILTER, wanted))) {
    throw ValidationError.field("filter[status]", `The filter[status] field must be one of ${Object.keys(STATUS_FILTER).join(", ")}.`);
  }
  const result = await deps.store.read.domains.list(teamId, { status }, { sort, size: page.size, cursor: page.cursor });
  const data = await Promise.all(result.rows.map((r) => domainData(deps, r, within)));
  return pageBody(result, data, { publicUrl: deps.config.publicUrl, path: "/v1/domains", query, size: page.size });
}

export async function deleteDomain(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<void> {
  const row = await findDomain(deps, teamId, id);
  await deps.store.write((tx) => tx.domains.delete(row.id, teamId));
}

/** Replaces the set of the team's projects that may send from the domain. */
/**
 * Replaces the projects that may send from the domain. `within`: the projects of a caller limited
 * to selected ones (src/http/project-scope.ts checked that it names only those): the replacement
 * is among them, and the domain's other projects, which the caller does not see, keep it.
 */
export async function setDomainProjects(deps: Pick<Deps, "store">, teamId: string, id: string, projectIds: string[], within: readonly string[] | null = null): Promise<DomainData> {
  const row = await findDomain(deps, teamId, id);
  const errors: Record<string, string[]> = fieldErrors();
  const own = await deps.store.read.domains.projectIdsOfTeam(teamId, projectIds);
  const resolved: string[] = [];
  projectIds.forEach((p, i) => {
    const found = own.get(p.toLowerCase());
    if (!found) errors[`project_ids.${i}`] = [`The project ${p} does not exist.`];
    else if (!resolved.includes(found)) resolved.push(found);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  await deps.store.write(async (tx) => {
    // Again inside the transaction: the domain may have been deleted since.
    if (!(await tx.domains.lockForChange(row.id))) throw new NotFoundError("Domain");
    if (within !== null) for (const p of await tx.domains.projects(row.id)) if (!within.includes(p.id) && !resolved.includes(p.id)) resolved.push(p.id);
    await tx.domains.replaceProjects(row.id, resolved, Date.now());
  });
  return getDomain(deps, teamId, id, within);
}

/**
 * Starts a DKIM key rotation (src/modules/domains/rotation.ts): new keys, their records pending
 * in the answer; a pending rotation is replaced.
 */
export async function rotateDkim(deps: Pick<Deps, "store">, teamId: string, id: string): Promise<DomainData> {
  const row = await findDomain(deps, teamId, id);
  await startDkimRotation(deps, row.id);
  return getDomain(deps, teamId, id);
}

export interface VerifyResult {
  data: DomainData;
  verified: boolean;
  message: string;
  failed: { id: string; purpose: string; kind: string; type: string; fqdn: string; status: string; reason: string; found: string[] | null }[];
  recommended_failed_records: { id: string; type: string; name: string }[];
}

/** Checks every record now and says which did not pass and why. */
export async function verifyDomain(deps: Deps, teamId: string, id: string): Promise<VerifyResult> {
  const row = await findDomain(deps, teamId, id);
  const summary = await checkDomain(deps, verifyContext(deps.dns.fresh(), deps.config.hostname), row.id);
  if (!summary) throw new NotFoundError("Domain");
  const notPassed = summary.records.filter((r) => r.check.outcome !== "pass");
  const failed = notPassed.map((r) => ({ id: r.id, purpose: lettermintPurpose(r.purpose), kind: r.purpose, type: r.type, fqdn: r.fqdn, status: r.status, reason: r.check.reason ?? "", found: r.check.found }));
  const recommended_failed_records = notPassed.filter((r) => verificationScope(r) === "recommended").map((r) => ({ id: r.id, type: r.type, name: r.fqdn }));
  const verified = summary.status === "active";
  const total = summary.records.length;
  const label = (r: { purpose: string; key_state: string | null }) => (r.key_state ? `${r.purpose} (${r.key_state} key)` : r.purpose);
  const notYet = summary.records.filter((r) => r.check.outcome !== "pass").map(label);
  const switched = summary.dkimSwitched ? " The new DKIM keys sign from now on; keep the old records published until their keep_until." : "";
  const message =
    (failed.length === 0
      ? "All DNS records are verified."
      : `${total - failed.length} of ${total} DNS records verified; ${notYet.join(", ")} not yet.${verified ? " The domain can send (its DKIM record is verified)." : ""}`) + switched;
  return { data: await getDomain(deps, teamId, id), verified, message, failed, recommended_failed_records };
}

/**
 * Checks one record of the domain now (Lettermint's per-record verify) and records the result as
 * a check of the whole domain would: the record's status, and the domain's when it is the
 * signing DKIM record (a rotation's next keys switch once both are active). A record that does
 * not pass is a 422 saying why (Lettermint's answer declares success only), its new status
 * recorded all the same.
 */
export async function verifyDnsRecord(deps: Deps, teamId: string, domainId: string, recordId: string): Promise<DnsRecordData> {
  const row = await findDomain(deps, teamId, domainId);
  const records = await deps.store.read.domains.records(row.id);
  const record = isUuid(recordId) ? records.find((r) => r.id === recordId.toLowerCase()) : undefined;
  if (!record) throw new NotFoundError("DNS record");
  const check = await checkRecord(verifyContext(deps.dns.fresh(), deps.config.hostname), record);
  // Recorded outside the request's unit of work: a record that does not pass is answered with a
  // 422, which would roll the unit back, and its new status is a fact all the same.
  const summary = await deps.store.detached(() => deps.store.write((tx) => applyDomainCheck(tx, row.id, new Map([[record.id, check]]), Date.now())));
  if (!summary) throw new NotFoundError("Domain");
  // Read again: the check may have switched a rotation's keys, which changes key_state.
  const after = (await deps.store.read.domains.records(row.id)).find((r) => r.id === record.id);
  if (!after) throw new NotFoundError("DNS record");
  if (check.outcome !== "pass") {
    throw ValidationError.field("dns_record", `The DNS record ${record.fqdn} (${record.type}) is not verified: ${check.reason ?? "it does not match."}`);
  }
  return serializeRecord(after);
}

/** Why a name cannot be a route's inbound domain: a sending domain claims it. */
export type InboundDomainConflict = { kind: "other_team" | "bounce"; domain: string };

/**
 * The claim among the sending domains at `name` or above it that keeps `teamId` from receiving
 * at `name`: the team's own domain whose return-path name it is (any status: that mail is
 * bounces); else, unless the team has an active domain there itself (its own proof), another
 * team's active domain, the longest first. An unverified domain of another team claims nothing.
 * `verifiedAt`: when the route was verified for the name already, only claims verified (made
 * active) no later than that count: a verified claim is not undone by a younger one.
 */
function strongestClaim(rows: readonly InboundClaimRow[], teamId: string, name: string, verifiedAt: number | null): InboundDomainConflict | null {
  const own = rows.filter((r) => r.team_id === teamId);
  const bounce = own.find((r) => `${r.return_path_host}.${r.domain}` === name);
  if (bounce) return { kind: "bounce", domain: bounce.domain };
  if (own.some((r) => r.status === "active")) return null;
  const other = rows
    .filter((r) => r.team_id !== teamId && r.status === "active" && (verifiedAt === null || (r.status_changed_at ?? 0) <= verifiedAt))
    .sort((a, b) => b.domain.length - a.domain.length)[0];
  return other ? { kind: "other_team", domain: other.domain } : null;
}

/**
 * The sending domain, if any, that forbids `name` as an inbound domain of a route of `teamId`
 * (see strongestClaim): a domain another team verified that `name` equals or is under (label
 * boundaries), unless the team verified one there too, or one of the team's own domains whose
 * return-path name (`ph-bounces.<domain>`) `name` is. `verifiedAt`: the route's verification
 * time when it is verified for `name` already, else null. `name` must be canonical (lower case,
 * punycode); stored domain names are. Pass `tx` inside a write whose outcome depends on the answer.
 */
export async function findInboundDomainConflict(
  repos: Pick<Repositories, "inboundDomains">,
  teamId: string,
  name: string,
  verifiedAt: number | null,
): Promise<InboundDomainConflict | null> {
  return strongestClaim(await repos.inboundDomains.claims(nameAndParents(name), teamId), teamId, name, verifiedAt);
}

export function inboundDomainConflictMessage(name: string, c: InboundDomainConflict): string {
  if (c.kind === "bounce") {
    return `${name} is the return-path (bounce) domain of the sending domain ${c.domain}; mail to it is handled as bounces and cannot go to a route.`;
  }
  const where = name === c.domain ? `${name} is a sending domain` : `${name} is under ${c.domain}, a sending domain`;
  return `${where} verified by another team; only that team can receive mail at it or at names under it.`;
}

/** The records the route's inbound domain must publish: MX to us and the TXT verification token. */
export function routeInboundDomainRecords(secret: string, hostname: string, routeId: string, domain: string) {
  return inboundDomainRecords({ domain, hostname, token: inboundVerificationToken(secret, routeId, domain) });
}

/**
 * An inbound route's custom inbound_domain is verified when its MX points to POSTHORN_HOSTNAME
 * (the most preferred MX; a CNAME chain to our host also counts) and the TXT record
 * `_posthorn-verification.<domain>` holds the route's token (proof of control of the name: an MX
 * to us proves nothing about who owns it). A name held by an older verified claim (another
 * route's verification, another team's verified sending domain: see findInboundDomainConflict)
 * or a return-path name of the team's is never verified; a route verified before such a claim
 * keeps its verification, one verified after it (state from an older version) loses it.
 * Success records inbound_domain_verified_at (a route verified already keeps its first time);
 * a DNS failure says why and leaves an earlier verification as it was.
 */
export async function verifyInboundDomain(deps: Deps, teamId: string, routeId: string): Promise<{ verified: boolean; message: string }> {
  const route = isUuid(routeId) ? await deps.store.read.inboundDomains.routeOfTeam(routeId, teamId) : null;
  if (!route) throw new NotFoundError("Route");
  if (route.route_type !== "inbound") throw ValidationError.field("route_type", "Only inbound routes have an inbound domain to verify.");
  if (!route.inbound_domain) throw ValidationError.field("inbound_domain", "The route has no inbound domain to verify; set inbound_settings.inbound_domain first.");
  const stored = route.inbound_domain;
  const name = canonicalName(stored);
  const since = route.inbound_domain_verified_at;
  // What makes the name unverifiable whatever DNS says. Two routes may both prove a name (two
  // teams of one organization, a name that changed hands): the first verified keeps it, and
  // another team's registration without proof never counts.
  const refusal = async (repos: Repositories): Promise<{ message: string; claimed: boolean } | null> => {
    const conflict = await findInboundDomainConflict(repos, teamId, name, since);
    if (conflict) return { message: `${name} cannot be verified: ${inboundDomainConflictMessage(name, conflict)}`, claimed: true };
    const taken = await repos.inboundDomains.verifiedElsewhere(name, route.id, since);
    return taken ? { message: `${name} is already verified as the inbound domain of another route.`, claimed: false } : null;
  };
  const refused = await refusal(deps.store.read);
  if (refused) {
    // A claim older than this route's verification: the verification must not stay.
    if (refused.claimed) await deps.store.write((tx) => tx.inboundDomains.clearVerification(route.id));
    return { verified: false, message: refused.message };
  }

  const [mxRecord, txtRecord] = routeInboundDomainRecords(await serverSecretOf(deps.store), deps.config.hostname, route.id, name);
  const ctx = verifyContext(deps.dns.fresh(), deps.config.hostname);
  // Server failures come through as errors; here they are a "not verified, try again" answer.
  const [mx, txt] = await Promise.all([
    checkMailTarget(ctx, name).catch(dnsErrorCheck),
    checkTxtValue(ctx, txtRecord!.fqdn, txtRecord!.content).catch(dnsErrorCheck),
  ]);
  const reasons: string[] = [];
  const why = (check: RecordCheck, missingReason: string) => (check.outcome === "missing" ? missingReason : check.reason!);
  if (mx.outcome !== "pass") reasons.push(why(mx, `No MX record found at ${name}. Publish an MX record pointing to ${mxRecord!.content}.`));
  if (txt.outcome !== "pass") {
    reasons.push(why(txt, `No TXT record found at ${txtRecord!.fqdn}. Publish a TXT record there with the content "${txtRecord!.content}".`));
  }
  if (reasons.length > 0) return { verified: false, message: reasons.join(" ") };

  // Checked again in the write: a domain verified, or the route changed, during the lookups. On
  // PostgreSQL two routes verifying one name on two nodes take turns here, so one of them wins.
  const late = await deps.store.write(async (tx) => {
    await tx.locks.take(`inbound-domain:${name}`);
    const again = await refusal(tx);
    if (again) return again.message;
    const marked = await tx.inboundDomains.markVerified(route.id, stored, Date.now());
    return marked ? null : "The route's inbound domain changed during the check; verify again.";
  });
  if (late) return { verified: false, message: late };
  return { verified: true, message: "Inbound domain verified successfully." };
}
