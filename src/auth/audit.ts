/**
 * What the audit log keeps of a change (docs/access.md, "Audit log"). Field NAMES of the request
 * body are always kept; their values only when the field is not secret, by two rules that must
 * both let a value through:
 * - a denylist of names (SECRET_FIELD): password, token, secret, private key, TOTP/recovery code,
 *   signature, credential, authorization, cookie, any *key; such a field is kept as "[redacted]";
 * - an allowlist of shapes: a value is kept only when it is a boolean, a number, null, a string
 *   that looks like no secret (no PEM block, no posthorn token prefix, at most 256 characters,
 *   clipped beyond), or an array / object of those (20 items, 2 levels). Anything else (long text
 *   such as HTML, a binary) is kept as "[omitted]".
 * Path parameters are ids, kept as the change's target ids; a parameter named `token` or a value
 * that looks like a secret is redacted.
 */
import type { AuditActorKind, AuditRow } from "../db/audit-log.ts";
import { newId } from "../ids.ts";
import { clip, FIELD_BOUNDS } from "../untrusted/bounds.ts";

/** How long audit rows are kept (docs/access.md): 400 days, a year with a month to spare for a yearly review; dropped by the retention pass. */
export const AUDIT_RETENTION_DAYS = 400;

export const REDACTED = "[redacted]";
export const OMITTED = "[omitted]";
const SECRET_FIELD = /pass|secret|token|private|key|totp|otp|code|recovery|signature|credential|authori[sz]ation|cookie|hash|salt|pem/i;
const SECRET_VALUE = /-----BEGIN|^ph_|^phs_|^whsec_|^eyJ[\w-]+\.[\w-]+\./;
const MAX_STRING = 256;
const MAX_ITEMS = 20;

/** Whether a field of this name never has its value kept. */
export const isSecretField = (name: string): boolean => SECRET_FIELD.test(name);

function keep(value: unknown, depth: number): unknown {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : OMITTED;
  if (typeof value === "string") return SECRET_VALUE.test(value) ? REDACTED : value.length > MAX_STRING ? OMITTED : clip(value, MAX_STRING);
  if (depth >= 2) return OMITTED;
  if (Array.isArray(value)) return value.length > MAX_ITEMS ? OMITTED : value.map((v) => keep(v, depth + 1));
  if (typeof value === "object") return fields(value as Record<string, unknown>, depth + 1);
  return OMITTED;
}

function fields(body: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [name, value] of Object.entries(body)) {
    if (++n > 100) break;
    out[clip(name, 64)] = isSecretField(name) ? REDACTED : keep(value, depth);
  }
  return out;
}

/** The changed fields of a request body as the audit log keeps them (a body that is not an object: none). */
export function auditChanges(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === "object" && !Array.isArray(body) && !(body instanceof Uint8Array) && !(body instanceof Blob) ? fields(body as Record<string, unknown>, 0) : {};
}

/** The path parameters of a change as target ids (ids: tokenId is a token's id, not its secret); one named token or holding a secret-looking value is redacted. */
export function auditTargets(params: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    out[name] = name === "token" || SECRET_VALUE.test(value) ? REDACTED : clip(value, FIELD_BOUNDS.short);
  }
  return out;
}

/** A row of the audit log for a change, its texts bounded (src/untrusted/bounds.ts). */
export function auditRow(r: {
  teamId: string;
  actor: { kind: AuditActorKind; id: string | null; name: string | null };
  operation: string;
  params?: Record<string, string | undefined>;
  body?: unknown;
  status: number;
  ip: string | null;
  userAgent: string | null;
  now?: number;
}): AuditRow {
  return {
    id: newId(),
    team_id: r.teamId,
    actor_kind: r.actor.kind,
    actor_id: r.actor.id === null ? null : clip(r.actor.id, FIELD_BOUNDS.short),
    actor_name: r.actor.name === null ? null : clip(r.actor.name, FIELD_BOUNDS.short),
    operation: clip(r.operation, FIELD_BOUNDS.short),
    target_ids: auditTargets(r.params),
    changes: auditChanges(r.body),
    status: r.status,
    ip: r.ip === null ? null : clip(r.ip, FIELD_BOUNDS.short),
    user_agent: r.userAgent === null ? null : clip(r.userAgent, FIELD_BOUNDS.userAgent),
    created_at: r.now ?? Date.now(),
  };
}
