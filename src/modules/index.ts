import type { Deps } from "../context.ts";
import { acmeChallengeController } from "./acme/index.ts";
import { auditController } from "./audit/index.ts";
import { blocklistsController } from "./blocklists/index.ts";
import { deliverabilityController } from "./deliverability/index.ts";
import { destinationsController } from "./destinations/index.ts";
import { domainsController, inboundDomainController } from "./domains/index.ts";
import { healthController } from "./health/index.ts";
import { sendController } from "./send/index.ts";
import { teamController } from "./team/index.ts";
import { projectsController } from "./projects/index.ts";
import { routesController } from "./routes/index.ts";
import { messagesController } from "./messages/index.ts";
import { queueController } from "./queue/index.ts";
import { reportForwardingController } from "./report-forwarding/index.ts";
import { scheduleController } from "./schedule/index.ts";
import { suppressionsController } from "./suppressions/index.ts";
import { warmupController } from "./warmup/index.ts";
import { webhooksController } from "./webhooks/index.ts";
import { attachmentsController } from "./attachments/index.ts";
import { blockedFileTypesController } from "./blocked-file-types/index.ts";
import { authController } from "./auth/index.ts";
import { trackingController } from "./tracking/index.ts";
import { statsController } from "./stats/index.ts";

/** Every controller the app mounts, in order. Add a module's controller here. */
export const controllers = (deps: Deps) => [
  healthController(deps),
  sendController(deps),
  domainsController(deps),
  inboundDomainController(deps),
  deliverabilityController(deps),
  blocklistsController(deps),
  warmupController(deps),
  reportForwardingController(deps),
  teamController(deps),
  auditController(deps),
  projectsController(deps),
  routesController(deps),
  messagesController(deps),
  destinationsController(deps),
  queueController(deps),
  scheduleController(deps),
  suppressionsController(deps),
  webhooksController(deps),
  attachmentsController(deps),
  blockedFileTypesController(deps),
  trackingController(deps),
  statsController(deps),
  acmeChallengeController(deps),
  authController(deps),
];
