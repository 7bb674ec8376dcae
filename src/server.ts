import { createApp } from "./app.ts";
import { bootstrapIfEmpty, type BootstrapResult } from "./bootstrap.ts";
import type { Config } from "./config.ts";
import type { Deps } from "./context.ts";
import { JobRunner } from "./jobs/runner.ts";
import { registerJobHandlers, scheduleRecurringJobs } from "./job-handlers.ts";
import { closeOutbound } from "./mail/outbound-job.ts";
import { openDeps } from "./runtime.ts";
import { syncReportRecords } from "./reports/report-records.ts";
import { serverSecretOf } from "./secrets.ts";
import { startSmtpListeners } from "./smtp/index.ts";
import { peerAddresses } from "./http/auth.ts";
import { HttpsListener } from "./tls/https-listener.ts";
import { CertificateManager } from "./tls/manager.ts";

/**
 * Bun's own cut-off, set so high that it never answers: the limit is POSTHORN_MAX_BODY_BYTES,
 * enforced by the app (src/http/error-responses.ts, src/http/body.ts) with the JSON 413 of every other
 * error. A body declared larger is refused from its Content-Length before a byte of it is read;
 * one sent without a length is cut off while it is read, and a route that takes no body cancels
 * the stream unread. Bun's cut-off answered a bare 413 with an empty body, which clients that
 * parse error bodies (Lettermint's SDKs) cannot read.
 */
const RUNTIME_BODY_CAP = Number.MAX_SAFE_INTEGER;

export interface RunningServer {
  deps: Deps;
  httpPort: number;
  bootstrap: BootstrapResult | null;
  /** The certificate served by HTTPS and STARTTLS (files or ACME). */
  certificates: CertificateManager;
  /** The HTTPS listener's port, null while it is off or waits for a certificate. */
  httpsPort(): number | null;
  stop(): Promise<void>;
}

/** A piece that runs beside HTTP (SMTP listeners, periodic jobs); stopped in reverse order. */
export interface Background {
  name: string;
  stop(): Promise<void> | void;
}

/** Starts HTTP, the job runner and the listeners; bootstraps a first team on an empty database. */
export async function startServer(config: Config, opts: { dbPath?: string } = {}): Promise<RunningServer> {
  const deps = await openDeps(config, { ...opts, checkpointInBackground: true });
  const bootstrap = await bootstrapIfEmpty(deps.store, {
    teamName: "My team",
    inboundDomain: config.inboundDomain,
    // The first team's owner signs in to the dashboard with this address and the password printed once.
    ownerEmail: "owner@localhost",
    ownerPassword: true,
  });

  // Every domain's DMARC rua and TLS-RPT record name this server's report addresses.
  const reportRecords = await syncReportRecords(deps.store, await serverSecretOf(deps.store), config.inboundDomain);
  if (reportRecords > 0) deps.log.info("report records of the domains updated (DMARC rua, TLS-RPT)", { records: reportRecords });

  // Certificate files (a broken pair stops the start here), or the ACME certificate already stored.
  const certificates = new CertificateManager(deps);
  await certificates.load();

  const runner = new JobRunner(deps);
  // Every queue and its handler (src/job-handlers.ts): jobs/ knows none of them.
  registerJobHandlers(runner, deps);
  // The DNS re-check's and retention's first job (each re-enqueues itself).
  await scheduleRecurringJobs(deps);
  runner.start();

  const app = createApp(deps).listen({
    hostname: config.httpHost,
    port: config.httpPort,
    // Never Bun's development error page, whatever NODE_ENV says.
    development: false,
    maxRequestBodySize: RUNTIME_BODY_CAP,
  });
  const httpPort = app.server?.port ?? config.httpPort;
  const background: Background[] = [];
  background.push({ name: "outbound smtp pools", stop: () => closeOutbound(deps) });
  const https =
    config.httpsPort > 0
      ? new HttpsListener({ host: config.httpHost, port: config.httpsPort, fetch: (request, peer) => (peerAddresses.set(request, peer), app.fetch(request)), maxRequestBodySize: RUNTIME_BODY_CAP }, deps.log)
      : null;
  await https?.start(certificates.live);
  if (https) background.push({ name: "https listener", stop: () => https.stop() });
  // MX and submission listeners (port 0 = off); stopped first, so sessions in DATA can finish.
  background.push(...(await startSmtpListeners(deps, certificates.live)));
  // Renewals and certificates stored by other nodes; ACME's HTTP-01 needs the HTTP listener up.
  certificates.start();
  background.push({ name: "certificates", stop: () => certificates.stop() });
  deps.log.info("posthorn started", { http: `${config.httpHost}:${httpPort}`, delivery: config.delivery });

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      deps.log.info("posthorn stopping");
      await app.stop();
      for (const b of background.reverse()) await b.stop();
      await runner.stop();
      await deps.store.close();
    })());
  return { deps, httpPort, bootstrap, certificates, httpsPort: () => https?.port ?? null, stop };
}
