/**
 * upgrades/: what SQL could not do for a migration, done in code when the dependencies open
 * (runtime.ts openDeps, after the migrations, for the server and the CLI commands that open them).
 */
import type { Store } from "../db/store.ts";
import { generateEd25519DkimKeyPair } from "../dns/dkim-key.ts";
import { ed25519DkimRecordSpec, newEd25519DkimSelector } from "../dns/records.ts";
import { newId } from "../ids.ts";

/** Domains given their key per write, so one write never holds the database for long. */
const BATCH = 200;

/**
 * Gives every domain created before Ed25519 DKIM its Ed25519 key and a pending dkim_ed25519
 * record (the migration added the columns; SQL cannot make keys). Runs at startup right after
 * the migrations, on every node: one read finds nothing to do once done; the writes take a
 * named lock and set a key only where none is, so nodes starting together give each domain one
 * key. The domain's status is untouched: RSA keeps it sending, and Ed25519 signing starts once
 * the new record verifies. The number of domains given a key.
 */
export async function giveDomainsEd25519Keys(store: Store, now = () => Date.now()): Promise<number> {
  let given = 0;
  while ((await store.read.domains.withoutEd25519Key(1)).length > 0) {
    given += await store.write(async (tx) => {
      await tx.locks.take("dkim-ed25519-upgrade");
      let n = 0;
      for (const d of await tx.domains.withoutEd25519Key(BATCH)) {
        const selector = newEd25519DkimSelector();
        const key = generateEd25519DkimKeyPair();
        const spec = ed25519DkimRecordSpec({ domain: d.domain, selector, publicKeyBase64: key.publicKeyBase64 });
        const record = { id: newId(), domain_id: d.id, purpose: spec.purpose, type: spec.type, hostname: spec.hostname, fqdn: spec.fqdn, content: spec.content, created_at: now() };
        if (await tx.domains.addEd25519Key(d.id, { selector, ...key }, record)) n++;
      }
      return n;
    });
  }
  return given;
}
