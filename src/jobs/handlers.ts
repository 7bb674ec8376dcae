import type { Deps } from "../context.ts";
import { registerOutboundJobs } from "../mail/jobs.ts";
import { registerWebhookJobs } from "../events/webhook-job.ts";
import { registerDomainRecheck } from "../modules/domains/recheck.ts";
import { registerInboundJobs } from "../smtp/inbound-job.ts";
import type { JobRunner } from "./runner.ts";

/** Registers every queue's handler on the runner. Add a queue's registration here. */
export function registerJobHandlers(runner: JobRunner, deps: Deps): void {
  registerOutboundJobs(runner, deps);
  registerWebhookJobs(runner, deps);
  registerDomainRecheck(runner, deps);
  registerInboundJobs(runner, deps);
}
