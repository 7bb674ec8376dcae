/**
 * `posthorn tls status` and `posthorn tls renew`: what certificate the nodes serve, and asking
 * them for a new ACME certificate now. Both work on the database (POSTHORN_DATA_DIR or
 * POSTHORN_DATABASE_URL) while the server runs: a running node sees the request at its next
 * certificate check, within seconds.
 */
import { readFileSync } from "node:fs";
import { CommandFailed } from "./domains.ts";
import type { Config } from "../config.ts";
import { openDeps } from "../runtime.ts";
import { parseCertificate, renewalTime } from "../tls/certificate.ts";
import { ACME_CERTIFICATE, certificateMode } from "../tls/manager.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export async function tlsStatus(config: Config, opts: { json: boolean }): Promise<void> {
  const mode = certificateMode(config);
  let status: Record<string, unknown>;
  if (mode === "file") {
    const cert = parseCertificate(readFileSync(config.tlsCert!, "utf8"), readFileSync(config.tlsKey!, "utf8"), "file");
    status = { source: "file", cert_file: config.tlsCert, names: cert.names, issuer: cert.issuer, not_before: iso(cert.notBefore), not_after: iso(cert.notAfter) };
  } else {
    const deps = await openDeps(config);
    try {
      const row = await deps.store.read.tlsCertificates.get(ACME_CERTIFICATE);
      const cert = row?.certPem && row.keyPem ? parseCertificate(row.certPem, row.keyPem, "acme") : null;
      status = {
        source: mode === "acme" ? "acme" : "none",
        directory: mode === "acme" ? config.acmeDirectory : null,
        names: row?.domains ?? [],
        issuer: cert?.issuer ?? null,
        not_before: iso(cert?.notBefore ?? null),
        not_after: iso(cert?.notAfter ?? null),
        renews_at: cert ? iso(renewalTime(cert.notBefore, cert.notAfter)) : null,
        renewal_requested_at: iso(row?.renewRequestedAt ?? null),
        failures: row?.failures ?? 0,
        last_error: row?.lastError ?? null,
        next_attempt_at: iso(row?.nextAttemptAt ?? null),
        ordering_node: row?.leaseUntil && row.leaseUntil > Date.now() ? row.leaseOwner : null,
      };
    } finally {
      await deps.store.close();
    }
  }
  if (opts.json) return console.log(JSON.stringify(status, null, 2));
  for (const [k, v] of Object.entries(status)) {
    if (v === null || (Array.isArray(v) && v.length === 0)) continue;
    console.log(`${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.join(", ") : String(v)}`);
  }
}

export async function tlsRenew(config: Config): Promise<void> {
  const mode = certificateMode(config);
  if (mode === "file") throw new CommandFailed("POSTHORN_TLS_CERT is set: the certificate comes from its files (renew them; the server re-reads them)");
  if (mode === "none") throw new CommandFailed("ACME is off: set POSTHORN_ACME_EMAIL (see README, HTTPS and certificates)");
  const deps = await openDeps(config);
  try {
    await deps.store.write((tx) => tx.tlsCertificates.requestRenewal(ACME_CERTIFICATE, Date.now()));
  } finally {
    await deps.store.close();
  }
  console.log(`Renewal requested: a running node orders a new certificate within ${config.tlsCheckIntervalMs / 1000} s and every node serves it once issued (posthorn tls status shows it).`);
}
