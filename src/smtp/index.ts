/** Starts the SMTP listeners that are switched on (port 0 = off) for server.ts. */
import type { Deps } from "../context.ts";
import type { LiveCertificate } from "../tls/certificate.ts";
import { stopInboundAnalysis } from "./inbound-job.ts";
import { startInboundListener } from "./inbound.ts";
import { followCertificate, type RunningListener } from "./listener.ts";
import { startSubmissionListener } from "./submission.ts";

/**
 * The listeners, and the inbound analysis workers (started by the job handlers), as pieces for
 * server.ts to stop: listeners first, so that sessions in DATA can finish. With `certificate`, both
 * offer STARTTLS with the certificate it holds, and take each new one without a restart.
 */
export async function startSmtpListeners(deps: Deps, certificate?: LiveCertificate): Promise<{ name: string; stop(): Promise<void> | void }[]> {
  const serving = (listener: RunningListener) => (certificate ? followCertificate(listener, certificate) : listener);
  const running: { name: string; stop(): Promise<void> | void }[] = [{ name: "inbound analysis workers", stop: () => stopInboundAnalysis(deps) }];
  try {
    if (deps.config.smtpPort > 0) running.push(serving(await startInboundListener(deps)));
    if (deps.config.submissionPort > 0) running.push(serving(await startSubmissionListener(deps)));
  } catch (err) {
    // One failed to bind (port in use…): do not leave the other one running.
    for (const l of running) await l.stop();
    throw err;
  }
  return running;
}
