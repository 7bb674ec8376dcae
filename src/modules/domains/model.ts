import { t, type Static } from "elysia";
import type { DnsRecordRow, DomainRow } from "../../db/domains.ts";
import { iso, UUID_PATTERN } from "../../ids.ts";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const DnsRecordSchema = t.Object({
  id: t.String(),
  purpose: t.String({
    description:
      "Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur",
  }),
  kind: t.String({ description: "Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc)" }),
  verification_scope: t.String({
    description:
      "required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key)",
  }),
  required_for_verification: t.Boolean({ description: "verification_scope is required" }),
  type: t.String({ description: "TXT or MX" }),
  hostname: t.String({ description: "Name relative to the domain, as typed in a DNS panel" }),
  fqdn: t.String(),
  content: t.String({ description: "The value to publish (for MX: the target host; any priority)" }),
  status: t.String({ description: "pending | active | failed" }),
  status_reason: Nullable(t.String({ description: "Why the last check did not pass" })),
  verified_at: Nullable(t.String()),
  last_checked_at: Nullable(t.String({ format: "date-time" })),
  key_state: Nullable(
    t.String({
      description:
        "DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records",
    }),
  ),
  keep_until: Nullable(t.String({ format: "date-time", description: "A retiring DKIM record: when it is dropped from this list and may be removed from DNS" })),
});

export const DomainSchema = t.Object({
  id: t.String(),
  domain: t.String(),
  status: t.String({
    description:
      "Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required)",
  }),
  sending_status: t.String({ description: "Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending)" }),
  dkim_mode: t.String({ description: "Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered)" }),
  rotation_ready: t.Boolean({ description: "Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate)" }),
  status_changed_at: Nullable(t.String({ format: "date-time" })),
  last_checked_at: Nullable(t.String({ format: "date-time" })),
  dkim_selector: t.String(),
  return_path_domain: t.String({ description: "Envelope sender (bounce) domain" }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  dns_records: t.Array(DnsRecordSchema),
  projects: t.Array(t.Object({ id: t.String(), name: t.String() })),
});
export type DomainData = Static<typeof DomainSchema>;
export type DnsRecordData = Static<typeof DnsRecordSchema>;

export const CreateDomainBody = t.Object({
  domain: t.String({ maxLength: 255, error: "The domain field is required and must be a string of at most 255 characters." }),
});

export const DomainProjectsBody = t.Object({
  project_ids: t.Array(t.String({ pattern: UUID_PATTERN, error: "Each project_ids entry must be a UUID." }), {
    maxItems: 1000,
    error: "The project_ids field must be an array of at most 1000 project UUIDs.",
  }),
});

export const DomainParams = t.Object({ domainId: t.String({ maxLength: 100 }) });
export const RouteParams = t.Object({ routeId: t.String({ maxLength: 100 }) });

export const FailedRecordSchema = t.Object({
  id: t.String(),
  purpose: t.String({ description: "As a record's purpose (Lettermint's)" }),
  kind: t.String({ description: "As a record's kind (Posthorn's purpose)" }),
  type: t.String(),
  fqdn: t.String(),
  status: t.String(),
  reason: t.String(),
  found: Nullable(t.Array(t.String())),
});

export const VerifyResponse = t.Object({
  data: DomainSchema,
  verified: t.Boolean({ description: "The domain can send: its DKIM record is verified" }),
  message: t.String(),
  failed: t.Array(FailedRecordSchema),
  recommended_failed_records: t.Array(t.Object({ id: t.String(), type: t.String(), name: t.String({ description: "The record's fqdn" }) }), {
    description: "The records of verification_scope recommended that did not pass (Lettermint's field; failed lists every record that did not pass, with why)",
  }),
});

export const RecordParams = t.Object({ domainId: t.String({ maxLength: 100 }), recordId: t.String({ maxLength: 100 }) });

export const RecordVerifyResponse = t.Object({
  message: t.String({ description: "DNS record verified successfully." }),
  data: DnsRecordSchema,
});

export const InboundVerifyResponse = t.Object({
  data: t.Object({ verified: t.Boolean(), message: t.String() }),
});

export const Envelope = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Object({ data: s, message: t.String() });
export const MessageOnly = t.Object({ message: t.String() });

/** Lettermint's DnsRecordPurpose of a record of Posthorn's purpose (`kind` in the API). */
export function lettermintPurpose(kind: string): string {
  switch (kind) {
    case "dkim":
    case "dkim_ed25519":
      return "dkim_legacy";
    case "spf":
    case "return_path":
      return "return_path";
    // Lettermint has no TLS-RPT record; it is a reporting record, as DMARC's rua.
    case "tls_rpt":
      return "dmarc";
    default:
      return kind;
  }
}

/**
 * Lettermint's DnsVerificationScope: the signing RSA DKIM record is the one the domain's status
 * (and sending) depends on; a rotation's next keys are a migration, retiring keys deprecated.
 */
export function verificationScope(r: { purpose: string; key_state: string | null }): string {
  if (r.key_state === "next") return "migration";
  if (r.key_state === "retiring") return "deprecated";
  return r.purpose === "dkim" ? "required" : "recommended";
}

/** Lettermint's DomainStatus of Posthorn's domain status. */
export function lettermintDomainStatus(status: string): string {
  return status === "active" ? "verified" : status === "failed" ? "failed_verification" : "pending_verification";
}

/** Posthorn's domain status a filter[status] value stands for (both vocabularies are taken). */
export const STATUS_FILTER: Record<string, string> = {
  pending: "pending",
  active: "active",
  failed: "failed",
  verified: "active",
  pending_verification: "pending",
  failed_verification: "failed",
  // No domain is partially verified (one record is required): a value no row holds.
  partially_verified: "partially_verified",
};

export const serializeRecord = (r: DnsRecordRow): DnsRecordData => ({
  id: r.id,
  purpose: lettermintPurpose(r.purpose),
  kind: r.purpose,
  verification_scope: verificationScope(r),
  required_for_verification: verificationScope(r) === "required",
  type: r.type,
  hostname: r.hostname,
  fqdn: r.fqdn,
  content: r.content,
  status: r.status,
  status_reason: r.status_reason,
  verified_at: iso(r.verified_at),
  last_checked_at: iso(r.last_checked_at),
  key_state: r.key_state ?? (r.purpose === "dkim" || r.purpose === "dkim_ed25519" ? "current" : null),
  keep_until: iso(r.keep_until),
});

export const serializeDomain = (d: DomainRow, records: DnsRecordRow[], projects: { id: string; name: string }[]): DomainData => ({
  id: d.id,
  domain: d.domain,
  status: lettermintDomainStatus(d.status),
  sending_status: d.status,
  dkim_mode: "legacy_txt",
  rotation_ready: false,
  status_changed_at: iso(d.status_changed_at),
  last_checked_at: iso(d.last_checked_at),
  dkim_selector: d.dkim_selector,
  return_path_domain: `${d.return_path_host}.${d.domain}`,
  created_at: iso(d.created_at)!,
  updated_at: iso(d.updated_at)!,
  dns_records: records.map(serializeRecord),
  projects,
});
