/**
 * Every queue of the job table and the handler that runs it, in one place: jobs/ (the runner and
 * the queue) knows none of them, and the handlers live with the stage they belong to. A job
 * enqueued to a queue missing here would wait forever; a queue is added here or not at all.
 *
 *   queue           one job is                              handler (and its timings)
 *   outbound        one accepted message: compose, sign,    mail/outbound-job.ts (steps in
 *                   deliver, retry until the queue lifetime  mail/outbound-attempt.ts)
 *   webhook         one event's delivery to one webhook     events/webhook-job.ts
 *   domain-recheck  one sweep of the domains' DNS records;  modules/domains/recheck.ts
 *                   re-enqueues itself
 *   inbound         one message received on MX: parse,      smtp/inbound-job.ts
 *                   authenticate, score, publish its event
 *   retention       one slice of the retention purge;       modules/retention/service.ts
 *                   re-enqueues itself
 *   scheduled       one message sent with scheduled_at, due  sending/scheduled-job.ts
 *                   at its time: released to outbound
 *   blocklist-check one check of the sending addresses and  deliverability/blocklist-job.ts
 *                   domains against the DNSBL/URIBL zones;
 *                   re-enqueues itself
 *
 * Tests register one queue at a time with shortened timings through the same register functions.
 */
import type { Deps } from "./context.ts";
import type { JobRunner } from "./jobs/runner.ts";
import { BLOCKLIST_QUEUE, ensureBlocklistChecksScheduled, registerBlocklistChecks } from "./deliverability/blocklist-job.ts";
import { WEBHOOK_QUEUE } from "./events/publish.ts";
import { registerWebhookJobs } from "./events/webhook-job.ts";
import { OUTBOUND_QUEUE, registerOutboundJobs } from "./mail/outbound-job.ts";
import { DOMAIN_RECHECK_QUEUE, ensureDomainRecheckScheduled, registerDomainRecheck } from "./modules/domains/recheck.ts";
import { RETENTION_QUEUE, registerRetention, startRetention } from "./modules/retention/service.ts";
import { SCHEDULED_QUEUE, registerScheduledJobs } from "./sending/scheduled-job.ts";
import { INBOUND_QUEUE } from "./smtp/accept.ts";
import { registerInboundJobs } from "./smtp/inbound-job.ts";

/** Each queue's name and the function that registers its handler on a runner. */
export const JOB_QUEUES: readonly { queue: string; register: (runner: JobRunner, deps: Deps) => unknown }[] = [
  { queue: OUTBOUND_QUEUE, register: registerOutboundJobs },
  { queue: WEBHOOK_QUEUE, register: registerWebhookJobs },
  { queue: DOMAIN_RECHECK_QUEUE, register: registerDomainRecheck },
  { queue: INBOUND_QUEUE, register: registerInboundJobs },
  { queue: RETENTION_QUEUE, register: registerRetention },
  { queue: SCHEDULED_QUEUE, register: (runner, deps) => registerScheduledJobs(runner, deps) },
  { queue: BLOCKLIST_QUEUE, register: (runner, deps) => registerBlocklistChecks(runner, deps) },
];

/** Registers the handler of every queue (JOB_QUEUES) with the server's settings. */
export function registerJobHandlers(runner: JobRunner, deps: Deps): void {
  for (const { register } of JOB_QUEUES) register(runner, deps);
}

/**
 * The queues whose one job re-enqueues itself get their first job (or their job back after it
 * died): the DNS re-check, the blocklist check (when on), and retention (with, once, the SQLite file's switch to incremental
 * vacuum). Call once at start, after registerJobHandlers.
 */
export async function scheduleRecurringJobs(deps: Deps): Promise<void> {
  await ensureDomainRecheckScheduled(deps);
  await ensureBlocklistChecksScheduled(deps);
  await startRetention(deps);
}
