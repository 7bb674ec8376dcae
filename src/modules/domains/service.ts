import type { Database } from "bun:sqlite";
import type { Deps } from "../../context.ts";
import { keysetPage } from "../../db/keyset.ts";
import { generateDkimKeyPairAsync } from "../../dns/dkim-key.ts";
import {
  buildRecordSpecs,
  canonicalName,
  inboundDomainRecords,
  inboundVerificationToken,
  nameAndParents,
  newDkimSelector,
  normalizeDomainName,
  RETURN_PATH_HOST,
} from "../../dns/records.ts";
import { checkMailTarget, checkTxtValue, dnsErrorCheck, verifyContext, type RecordCheck } from "../../dns/verify.ts";
import { ConflictError, NotFoundError, ValidationError, fieldErrors } from "../../errors.ts";
import { isUuid, newId } from "../../ids.ts";
import { pageBody, parsePage, parseSort } from "../../http/pagination.ts";
import { serverSecret } from "../../secrets.ts";
import { checkDomain, recordsOf } from "./check.ts";
import { serializeDomain, type DnsRecordRow, type DomainData, type DomainRow } from "./model.ts";

const SORT_KEYS = { created_at: "created_at", domain: "domain", status: "status", status_changed_at: "coalesce(status_changed_at, 0)" };
const STATUSES = ["pending", "active", "failed"];

function findDomain(deps: Deps, teamId: string, id: string): DomainRow {
  const row = isUuid(id)
    ? deps.sqlite.query<DomainRow, [string, string]>("SELECT * FROM domains WHERE id = ? AND team_id = ?").get(id, teamId)
    : null;
  if (!row) throw new NotFoundError("Domain");
  return row;
}

const projectsOf = (deps: Deps, domainId: string) =>
  deps.sqlite
    .query<{ id: string; name: string }, [string]>(
      "SELECT p.id, p.name FROM projects p JOIN project_domains pd ON pd.project_id = p.id WHERE pd.domain_id = ? ORDER BY p.created_at, p.id",
    )
    .all(domainId);

/** The domain with its records and projects, as the API shows it. */
export function domainData(deps: Deps, row: DomainRow): DomainData {
  return serializeDomain(row, recordsOf(deps.sqlite, row.id), projectsOf(deps, row.id));
}

export function getDomain(deps: Deps, teamId: string, id: string): DomainData {
  return domainData(deps, findDomain(deps, teamId, id));
}

/**
 * Registers a sending domain for the team: normalized name, a fresh RSA-2048 DKIM key (the
 * private half never leaves the server) and the four records to publish, all pending.
 */
export async function createDomain(deps: Deps, teamId: string, input: { domain: string }): Promise<DomainData> {
  const name = normalizeDomainName(input.domain);
  if (!name.ok) throw ValidationError.field("domain", name.message);
  const domain = name.domain;
  const exists = () =>
    deps.sqlite.query<{ id: string }, [string, string]>("SELECT id FROM domains WHERE team_id = ? AND domain = ?").get(teamId, domain);
  const duplicate = () => new ConflictError(`The domain ${domain} has already been added to this team.`);
  if (exists()) throw duplicate();

  const key = await generateDkimKeyPairAsync();
  const selector = newDkimSelector();
  const specs = buildRecordSpecs({ domain, selector, publicKeyBase64: key.publicKeyBase64, returnPathHost: RETURN_PATH_HOST, hostname: deps.config.hostname });
  const id = newId();
  await deps.writer.write(() => {
    // Checked again inside the write: two concurrent requests for one name must not both succeed.
    if (exists()) throw duplicate();
    const now = Date.now();
    deps.sqlite
      .query(
        `INSERT INTO domains (id, team_id, domain, status, status_changed_at, dkim_selector, dkim_private_key, dkim_public_key, return_path_host, created_at, updated_at)
         VALUES (?, ?, ?, 'pending', NULL, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, teamId, domain, selector, key.privateKeyPem, key.publicKeyBase64, RETURN_PATH_HOST, now, now);
    const insert = deps.sqlite.query(
      "INSERT INTO dns_records (id, domain_id, purpose, type, hostname, fqdn, content, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
    );
    for (const s of specs) insert.run(newId(), id, s.purpose, s.type, s.hostname, s.fqdn, s.content, now);
    // The name now belongs to this team: another team's route receiving at it or under it loses
    // its verification (the MX listener stops matching it anyway), and so does any route whose
    // inbound domain is the new return-path domain, whose mail is bounces.
    deps.sqlite
      .query(
        `UPDATE routes SET inbound_domain_verified_at = NULL, updated_at = ?1
         WHERE inbound_domain_verified_at IS NOT NULL
           AND ((team_id <> ?2 AND (lower(inbound_domain) = ?3 OR substr(lower(inbound_domain), -length(?3) - 1) = '.' || ?3))
             OR lower(inbound_domain) = ?4 || '.' || ?3)`,
      )
      .run(now, teamId, domain, RETURN_PATH_HOST);
  });
  return getDomain(deps, teamId, id);
}

export function listDomains(deps: Deps, teamId: string, query: Record<string, unknown>) {
  const sort = parseSort(query.sort as string | undefined, SORT_KEYS, "-created_at");
  const page = parsePage(query, sort.length);
  const where = ["team_id = ?"];
  const params: (string | number)[] = [teamId];
  const status = query["filter[status]"] as string | undefined;
  if (status !== undefined) {
    if (!STATUSES.includes(status)) throw ValidationError.field("filter[status]", `The filter[status] field must be one of ${STATUSES.join(", ")}.`);
    where.push("status = ?");
    params.push(status);
  }
  const columns = sort.map((k) => k.column);
  const result = keysetPage<DomainRow & { _k: (string | number)[] }>(deps.sqlite, {
    select: `SELECT *, ${columns.map((c, i) => `${c} AS _s${i}`).join(", ")} FROM domains`,
    where,
    params,
    sort,
    size: page.size,
    cursor: page.cursor,
    valuesOf: (row) => columns.map((_, i) => (row as unknown as Record<string, string | number>)[`_s${i}`]!),
  });
  return pageBody(result, result.rows.map((r) => domainData(deps, r)), {
    publicUrl: deps.config.publicUrl,
    path: "/v1/domains",
    query,
    size: page.size,
  });
}

export async function deleteDomain(deps: Deps, teamId: string, id: string): Promise<void> {
  const row = findDomain(deps, teamId, id);
  await deps.writer.write(() => deps.sqlite.query("DELETE FROM domains WHERE id = ? AND team_id = ?").run(row.id, teamId));
}

/** Replaces the set of the team's projects that may send from the domain. */
export async function setDomainProjects(deps: Deps, teamId: string, id: string, projectIds: string[]): Promise<DomainData> {
  const row = findDomain(deps, teamId, id);
  const errors: Record<string, string[]> = fieldErrors();
  const own = deps.sqlite.query<{ id: string }, [string, string]>("SELECT id FROM projects WHERE lower(id) = ? AND team_id = ?");
  const resolved: string[] = [];
  projectIds.forEach((p, i) => {
    const found = own.get(p.toLowerCase(), teamId);
    if (!found) errors[`project_ids.${i}`] = [`The project ${p} does not exist.`];
    else if (!resolved.includes(found.id)) resolved.push(found.id);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  await deps.writer.write(() => {
    // Again inside the transaction: the domain may have been deleted since.
    if (!deps.sqlite.query("SELECT 1 FROM domains WHERE id = ?").get(row.id)) throw new NotFoundError("Domain");
    const now = Date.now();
    deps.sqlite.query("DELETE FROM project_domains WHERE domain_id = ?").run(row.id);
    const insert = deps.sqlite.query("INSERT INTO project_domains (project_id, domain_id, created_at) VALUES (?, ?, ?)");
    for (const p of resolved) insert.run(p, row.id, now);
    deps.sqlite.query("UPDATE domains SET updated_at = ? WHERE id = ?").run(now, row.id);
  });
  return getDomain(deps, teamId, id);
}

export interface VerifyResult {
  data: DomainData;
  verified: boolean;
  message: string;
  failed: { id: string; purpose: string; type: string; fqdn: string; status: string; reason: string; found: string[] | null }[];
}

/** Checks every record now and says which did not pass and why. */
export async function verifyDomain(deps: Deps, teamId: string, id: string): Promise<VerifyResult> {
  const row = findDomain(deps, teamId, id);
  const summary = await checkDomain(deps, verifyContext(deps.dns.fresh(), deps.config.hostname), row.id);
  if (!summary) throw new NotFoundError("Domain");
  const failed = summary.records
    .filter((r) => r.check.outcome !== "pass")
    .map((r) => ({ id: r.id, purpose: r.purpose, type: r.type, fqdn: r.fqdn, status: r.status, reason: r.check.reason ?? "", found: r.check.found }));
  const verified = summary.status === "active";
  const total = summary.records.length;
  const message =
    failed.length === 0
      ? "All DNS records are verified."
      : `${total - failed.length} of ${total} DNS records verified; ${failed.map((f) => f.purpose).join(", ")} not yet.${verified ? " The domain can send (its DKIM record is verified)." : ""}`;
  return { data: getDomain(deps, teamId, id), verified, message, failed };
}

/** Why a name cannot be a route's inbound domain: a registered sending domain claims it. */
export type InboundDomainConflict = { kind: "other_team" | "bounce"; domain: string };

/**
 * The sending domain, if any, that forbids `name` as an inbound domain of a route of `teamId`:
 * a domain another team registered that `name` equals or is under (label boundaries), or any
 * domain, the team's own included, whose return-path name (`ph-bounces.<domain>`) `name` is.
 * `name` must be canonical (lower case, punycode); stored domain names are.
 */
export function inboundDomainConflict(sqlite: Database, teamId: string, name: string): InboundDomainConflict | null {
  const rows = sqlite
    .query<{ domain: string; team_id: string; bounce: number }, [string, string, string]>(
      `SELECT domain, team_id, return_path_host || '.' || domain = ?3 AS bounce FROM domains
       WHERE domain IN (SELECT value FROM json_each(?1)) AND (team_id <> ?2 OR return_path_host || '.' || domain = ?3)`,
    )
    .all(JSON.stringify(nameAndParents(name)), teamId, name);
  const other = rows.filter((r) => r.team_id !== teamId).sort((a, b) => b.domain.length - a.domain.length)[0];
  if (other) return { kind: "other_team", domain: other.domain };
  const bounce = rows.find((r) => r.bounce === 1);
  return bounce ? { kind: "bounce", domain: bounce.domain } : null;
}

export function inboundDomainConflictMessage(name: string, c: InboundDomainConflict): string {
  if (c.kind === "bounce") {
    return `${name} is the return-path (bounce) domain of the sending domain ${c.domain}; mail to it is handled as bounces and cannot go to a route.`;
  }
  const where = name === c.domain ? `${name} is a sending domain` : `${name} is under ${c.domain}, a sending domain`;
  return `${where} registered by another team; only that team can receive mail at it or at names under it.`;
}

/** The records the route's inbound domain must publish: MX to us and the TXT verification token. */
export function routeInboundDomainRecords(sqlite: Database, hostname: string, routeId: string, domain: string) {
  return inboundDomainRecords({ domain, hostname, token: inboundVerificationToken(serverSecret(sqlite), routeId, domain) });
}

type RouteRow = { id: string; route_type: string; inbound_domain: string | null };

/**
 * An inbound route's custom inbound_domain is verified when its MX points to POSTHORN_HOSTNAME
 * (the most preferred MX; a CNAME chain to our host also counts) and the TXT record
 * `_posthorn-verification.<domain>` holds the route's token (proof of control of the name: an MX
 * to us proves nothing about who owns it). A name claimed by another team's sending domain, or
 * a return-path name, is never verified (and loses an earlier verification). Success records
 * inbound_domain_verified_at; a DNS failure says why and leaves an earlier verification as it was.
 */
export async function verifyInboundDomain(deps: Deps, teamId: string, routeId: string): Promise<{ verified: boolean; message: string }> {
  const route = isUuid(routeId)
    ? deps.sqlite.query<RouteRow, [string, string]>("SELECT id, route_type, inbound_domain FROM routes WHERE id = ? AND team_id = ?").get(routeId, teamId)
    : null;
  if (!route) throw new NotFoundError("Route");
  if (route.route_type !== "inbound") throw ValidationError.field("route_type", "Only inbound routes have an inbound domain to verify.");
  if (!route.inbound_domain) throw ValidationError.field("inbound_domain", "The route has no inbound domain to verify; set inbound_settings.inbound_domain first.");
  const stored = route.inbound_domain;
  const name = canonicalName(stored);
  // What makes the name unverifiable whatever DNS says. MX alone cannot tell two claimants apart,
  // so the first verified route keeps the domain: another team cannot take over mail for a
  // domain someone already receives here.
  const refusal = (): { message: string; claimed: boolean } | null => {
    const conflict = inboundDomainConflict(deps.sqlite, teamId, name);
    if (conflict) return { message: `${name} cannot be verified: ${inboundDomainConflictMessage(name, conflict)}`, claimed: true };
    const taken = deps.sqlite
      .query<{ id: string }, [string, string]>(
        "SELECT id FROM routes WHERE lower(inbound_domain) = ? AND inbound_domain_verified_at IS NOT NULL AND id != ? LIMIT 1",
      )
      .get(name, route.id);
    return taken ? { message: `${name} is already verified as the inbound domain of another route.`, claimed: false } : null;
  };
  const refused = refusal();
  if (refused) {
    // A name a sending domain claims must not stay verified from before that claim.
    if (refused.claimed) {
      await deps.writer.write(() => {
        deps.sqlite.query("UPDATE routes SET inbound_domain_verified_at = NULL WHERE id = ? AND inbound_domain_verified_at IS NOT NULL").run(route.id);
      });
    }
    return { verified: false, message: refused.message };
  }

  const [mxRecord, txtRecord] = routeInboundDomainRecords(deps.sqlite, deps.config.hostname, route.id, name);
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

  // Checked again in the write: a domain registered, or the route changed, during the lookups.
  const late = await deps.writer.write(() => {
    const again = refusal();
    if (again) return again.message;
    const now = Date.now();
    const changed = deps.sqlite.query("UPDATE routes SET inbound_domain_verified_at = ? WHERE id = ? AND inbound_domain = ?").run(now, route.id, stored);
    return changed.changes === 0 ? "The route's inbound domain changed during the check; verify again." : null;
  });
  if (late) return { verified: false, message: late };
  return { verified: true, message: "Inbound domain verified successfully." };
}

export type { DnsRecordRow };
