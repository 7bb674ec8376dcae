import { t, type Static } from "elysia";
import type { DnsRecordRow, DomainRow } from "../../db/domains.ts";
import { iso, UUID_PATTERN } from "../../ids.ts";

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const DnsRecordSchema = t.Object({
  id: t.String(),
  purpose: t.String({ description: "dkim (RSA) | dkim_ed25519 | spf | return_path | dmarc" }),
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
  status: t.String({ description: "pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending)" }),
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
  purpose: t.String(),
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
});

export const InboundVerifyResponse = t.Object({
  data: t.Object({ verified: t.Boolean(), message: t.String() }),
});

export const Envelope = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Object({ data: s, message: t.String() });
export const MessageOnly = t.Object({ message: t.String() });

export const serializeRecord = (r: DnsRecordRow): DnsRecordData => ({
  id: r.id,
  purpose: r.purpose,
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
  status: d.status,
  status_changed_at: iso(d.status_changed_at),
  last_checked_at: iso(d.last_checked_at),
  dkim_selector: d.dkim_selector,
  return_path_domain: `${d.return_path_host}.${d.domain}`,
  created_at: iso(d.created_at)!,
  updated_at: iso(d.updated_at)!,
  dns_records: records.map(serializeRecord),
  projects,
});
