/** Starts the SMTP listeners that are switched on (port 0 = off) for server.ts. */
import type { Deps } from "../context.ts";
import { startInboundListener } from "./inbound.ts";
import type { RunningListener } from "./listener.ts";
import { startSubmissionListener } from "./submission.ts";

export async function startSmtpListeners(deps: Deps): Promise<RunningListener[]> {
  const running: RunningListener[] = [];
  try {
    if (deps.config.smtpPort > 0) running.push(await startInboundListener(deps));
    if (deps.config.submissionPort > 0) running.push(await startSubmissionListener(deps));
  } catch (err) {
    // One failed to bind (port in use…): do not leave the other one running.
    for (const l of running) await l.stop();
    throw err;
  }
  return running;
}
