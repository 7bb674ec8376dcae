import type { Deps } from "../../context.ts";
import type { DkimKeyRow, DnsRecordRow } from "../../db/domains.ts";
import type { Repositories } from "../../db/store.ts";
import { generateDkimKeyPairAsync, generateEd25519DkimKeyPair } from "../../dns/dkim-key.ts";
import { ed25519DkimRecordSpec, newDkimSelector, newEd25519DkimSelector, rsaDkimRecordSpec, type RecordSpec } from "../../dns/records.ts";
import { NotFoundError } from "../../errors.ts";
import { newId } from "../../ids.ts";

/** How long a replaced DKIM key stays published after the new one signs (docs/domains.md, DKIM key rotation). */
export const DKIM_KEEP_RETIRED_MS = 7 * 24 * 3600_000;

const hostOf = (selector: string) => `${selector}._domainkey`;

/** A selector made by `make` that none of the domain's DKIM records uses yet (a rotation on the day of creation may draw the same). */
function freshSelector(make: (now: Date) => string, now: number, taken: ReadonlySet<string>): string {
  for (;;) {
    const selector = make(new Date(now));
    if (!taken.has(hostOf(selector))) return selector;
  }
}

/**
 * Starts a DKIM key rotation: new RSA-2048 and Ed25519 keys under new selectors, their records
 * pending beside the signing ones, which keep signing until both new records verify
 * (promoteNextDkimKeys). A rotation still pending is replaced: its keys and records go, so a
 * user who lost or mistyped them can start over. NotFoundError when the domain is gone.
 */
export async function startDkimRotation(deps: Pick<Deps, "store">, domainId: string, now = Date.now()): Promise<void> {
  // Outside the write: RSA generation takes ~100 ms, off the event loop.
  const rsa = await generateDkimKeyPairAsync();
  const ed25519 = generateEd25519DkimKeyPair();
  await deps.store.write(async (tx) => {
    const domain = await tx.domains.lockForChange(domainId);
    if (!domain) throw new NotFoundError("Domain");
    // Read before the pending pair goes: a replacing rotation never reuses its selectors, whose
    // old records resolvers may still cache.
    const taken = new Set((await tx.domains.records(domainId)).map((r) => r.hostname));
    await tx.domains.deleteNextKeys(domainId);
    const pairs: [DkimKeyRow["algorithm"], string, { publicKeyBase64: string; privateKeyPem: string }, (d: { domain: string; selector: string; publicKeyBase64: string }) => RecordSpec][] = [
      ["rsa", freshSelector(newDkimSelector, now, taken), rsa, rsaDkimRecordSpec],
      ["ed25519", freshSelector(newEd25519DkimSelector, now, taken), ed25519, ed25519DkimRecordSpec],
    ];
    for (const [algorithm, selector, key, specOf] of pairs) {
      const spec = specOf({ domain: domain.domain, selector, publicKeyBase64: key.publicKeyBase64 });
      const recordId = newId();
      await tx.domains.insertDkimKey(
        { id: newId(), domain_id: domainId, record_id: recordId, algorithm, selector, private_key: key.privateKeyPem, public_key: key.publicKeyBase64, state: "next", keep_until: null, created_at: now },
        { id: recordId, domain_id: domainId, purpose: spec.purpose, type: spec.type, hostname: spec.hostname, fqdn: spec.fqdn, content: spec.content, created_at: now },
      );
    }
  });
}

/**
 * Once both records of a pending rotation are active (`records`: the domain's records with the
 * statuses just found), the new keys sign: the replaced ones become retiring, their records kept
 * published until `now` + 7 days, and the new keys move into the domain row, which every node's
 * next composed message reads (signing keys are read with the message, not cached). Run it in
 * the write that recorded those statuses. True when it switched.
 */
export async function promoteNextDkimKeys(tx: Repositories, domainId: string, records: readonly Pick<DnsRecordRow, "id" | "purpose" | "hostname" | "status" | "verified_at" | "key_state">[], now: number): Promise<boolean> {
  const nextActive = (purpose: string) => records.some((r) => r.key_state === "next" && r.purpose === purpose && r.status === "active");
  if (!nextActive("dkim") || !nextActive("dkim_ed25519")) return false;
  const next = await tx.domains.dkimKeys(domainId, "next");
  const rsa = next.find((k) => k.algorithm === "rsa");
  const ed25519 = next.find((k) => k.algorithm === "ed25519");
  const current = await tx.domains.signingKeys(domainId);
  if (!rsa || !ed25519 || !current) return false;
  const signing: [DkimKeyRow["algorithm"], string, string | null, string | null, string | null][] = [
    ["rsa", "dkim", current.dkim_selector, current.dkim_private_key, current.dkim_public_key],
    ["ed25519", "dkim_ed25519", current.dkim_ed25519_selector, current.dkim_ed25519_private_key, current.dkim_ed25519_public_key],
  ];
  for (const [algorithm, purpose, selector, privateKey, publicKey] of signing) {
    const record = records.find((r) => r.key_state === null && r.purpose === purpose && r.hostname === hostOf(selector ?? ""));
    if (!record || !selector || !privateKey || !publicKey) continue;
    // A record never verified was never published: no receiver can check mail signed with its
    // key, so there is nothing to keep; it goes now (the key with the domain row's new values).
    if (record.verified_at === null) {
      await tx.domains.deleteRecord(record.id);
      continue;
    }
    await tx.domains.insertDkimKey(
      { id: newId(), domain_id: domainId, record_id: record.id, algorithm, selector, private_key: privateKey, public_key: publicKey, state: "retiring", keep_until: now + DKIM_KEEP_RETIRED_MS, created_at: now },
      null,
    );
  }
  await tx.domains.promoteNextKeys(domainId, rsa, ed25519, now);
  return true;
}

/** Drops the retiring keys, and their records, whose 7 days are over; the number dropped. */
export function dropRetiredDkimKeys(deps: Pick<Deps, "store">, now = Date.now()): Promise<number> {
  return deps.store.write((tx) => tx.domains.dropRetiredDkimKeys(now));
}
