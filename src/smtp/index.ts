/** Starts the SMTP listeners that are switched on (port 0 = off) for server.ts. */
import type { Deps } from "../context.ts";
import { startInboundListener } from "./inbound.ts";
import type { RunningListener } from "./listener.ts";

export async function startSmtpListeners(deps: Deps): Promise<RunningListener[]> {
  const running: RunningListener[] = [];
  if (deps.config.smtpPort > 0) running.push(await startInboundListener(deps));
  return running;
}
